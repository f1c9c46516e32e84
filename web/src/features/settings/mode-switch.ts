// mode-switch.ts (settings) — what this tab trains: a language model that continues text (TinyGPT) or an
// encoder-decoder that translates (the seed's Transformer). It is the config's `model` field:
// the presets, the knobs, the data and the panels follow it. A live model fixes it (Reset to
// switch); loading a checkpoint of the other kind switches it.
import { type MapStore, view, watch } from '../../app/store';
import { type Msg, t, tr } from '../../i18n';
import { h, setText } from '../../ui';
import type { RuntimeSlice } from '../runtime';
import type { SessionSlice } from '../session';
import type { Mode } from './schema';
import type { SettingsSlice } from './state';

const MODES: { kind: Mode; label: Msg; blurb: Msg }[] = [
  { kind: 'gpt', label: (m) => m.page.modeGpt, blurb: (m) => m.page.modeGptBlurb },
  { kind: 'seq2seq', label: (m) => m.page.modeSeq2seq, blurb: (m) => m.page.modeSeq2seqBlurb },
];

export function bindModeSwitch(slot: HTMLElement, settings: MapStore<SettingsSlice>, runtime: MapStore<RuntimeSlice>, session: MapStore<SessionSlice>,
  onMode: (mode: Mode) => void): void {
  const note = h('p', { id: 'mode-note', class: 'muted small mode-note' });
  const inputs = new Map<Mode, HTMLInputElement>();
  const group = h('fieldset', { id: 'mode', class: 'mode-switch' },
    h('legend', {}, tr((m) => m.page.modeLegend)),
    ...MODES.map((m) => {
      const input = h('input', { type: 'radio', name: 'mode', id: `mode-${m.kind}`, value: m.kind });
      input.addEventListener('change', () => {
        if (input.checked) onMode(m.kind);
      });
      inputs.set(m.kind, input);
      return h('label', { class: 'mode-option', for: `mode-${m.kind}` }, input,
        h('span', { class: 'mode-label' }, tr(m.label)), h('span', { class: 'mode-blurb' }, tr(m.blurb)));
    }));
  slot.append(h('div', { class: 'mode-bar' }, group, note));
  watch(view(settings, runtime, session), ['mode', 'model', 'creating', 'loading', 'ready', 'locale'], (s) => {
    for (const [kind, input] of inputs) {
      input.checked = kind === s.mode;
      input.disabled = !s.ready || ((!!s.model || s.creating || !!s.loading) && kind !== s.mode);
    }
    group.dataset.mode = s.mode;
    document.body.dataset.mode = s.mode;
    setText(note, s.model ? t().page.modeFixed : '');
  });
}
