// tokenizer-choice.ts (settings) — how the run reads its text: bytes (256 tokens, as always) or a
// BPE vocabulary learned from the text (the config's `tokenizer`, with `vocab_size`: 1024 when BPE
// is chosen, the knob changes it). A live model fixes it. The vocabulary itself is learned when
// Start is pressed (features/tokens: a progress bar, Cancel), or loaded in the Tokens view.
import { type MapStore, view, watch } from '../../app/store';
import { t, tr } from '../../i18n';
import { h } from '../../ui';
import type { SessionSlice } from '../session';
import type { FullConfig } from './schema';
import type { SettingsSlice } from './state';

/** The vocabulary BPE starts at: Sequence Toy's and issue 23's middle size, 3-4 bytes a token on English. */
export const DEFAULT_BPE_VOCAB = 1024;

/** The form with the tokenizer chosen (the vocabulary's size follows). */
export function withTokenizer(form: FullConfig, kind: 'bytes' | 'bpe'): FullConfig {
  if (kind === 'bytes') return { ...form, tokenizer: 'bytes', vocab_size: 256 };
  return { ...form, tokenizer: 'bpe', vocab_size: form.vocab_size > 256 ? form.vocab_size : DEFAULT_BPE_VOCAB };
}

export function bindTokenizerChoice(slot: HTMLElement, settings: MapStore<SettingsSlice>, session: MapStore<SessionSlice>,
  onForm: (form: FullConfig) => void): void {
  const group = h('fieldset', { id: 'tokenizer-choice', class: 'mode-switch architecture' },
    h('legend', {}, tr((m) => m.settings.tokenizerChoice)));
  const inputs = new Map<'bytes' | 'bpe', HTMLInputElement>();
  for (const kind of ['bytes', 'bpe'] as const) {
    const input = h('input', { type: 'radio', name: 'tokenizer', id: `tokenizer-${kind}`, value: kind });
    input.addEventListener('change', () => {
      const form = settings.get().settings ?? settings.get().formSettings;
      if (input.checked && form) onForm(withTokenizer(form, kind));
    });
    inputs.set(kind, input);
    group.append(h('label', { class: 'mode-option', for: `tokenizer-${kind}` }, input,
      h('span', { class: 'mode-label' }, tr((m) => m.settings.tokenizerKinds[kind].label)),
      h('span', { class: 'mode-blurb' }, tr((m) => m.settings.tokenizerKinds[kind].blurb))));
  }
  slot.append(group);
  watch(view(settings, session), ['formSettings', 'settings', 'model', 'creating', 'locale'], (s) => {
    const kind = s.model?.config.tokenizer ?? s.settings?.tokenizer ?? s.formSettings?.tokenizer ?? 'bytes';
    const locked = !!s.model || s.creating;
    for (const [k, input] of inputs) {
      input.checked = k === kind;
      input.disabled = !s.formSettings || (locked && k !== kind);
    }
    group.dataset.tokenizer = kind;
    group.title = locked ? t().settings.locked : '';
  });
}
