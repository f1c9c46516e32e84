// mode-switch.ts — what this tab trains: a language model that continues text (TinyGPT) or an
// encoder-decoder that translates (the seed's Transformer). It is the config's `model` field:
// the presets, the knobs, the data and the panels follow it. A live model fixes it (Reset to
// switch); loading a checkpoint of the other kind switches it.
import { type PageStore, watch } from '../app/state';
import type { ModelKind } from '../protocol';
import { h, setText } from './dom';

const MODES: { kind: ModelKind; label: string; blurb: string }[] = [
  { kind: 'gpt', label: 'Language model', blurb: 'continues text, byte by byte (decoder-only GPT)' },
  { kind: 'seq2seq', label: 'Translation', blurb: 'reads a source, writes its translation (encoder-decoder)' },
];

export function bindModeSwitch(slot: HTMLElement, store: PageStore, onMode: (mode: ModelKind) => void): void {
  const note = h('p', { id: 'mode-note', class: 'muted small mode-note' });
  const inputs = new Map<ModelKind, HTMLInputElement>();
  const group = h('fieldset', { id: 'mode', class: 'mode-switch' },
    h('legend', {}, 'Train'),
    ...MODES.map((m) => {
      const input = h('input', { type: 'radio', name: 'mode', id: `mode-${m.kind}`, value: m.kind });
      input.addEventListener('change', () => {
        if (input.checked) onMode(m.kind);
      });
      inputs.set(m.kind, input);
      return h('label', { class: 'mode-option', for: `mode-${m.kind}` }, input,
        h('span', { class: 'mode-label' }, m.label), h('span', { class: 'mode-blurb' }, m.blurb));
    }));
  slot.append(h('div', { class: 'mode-bar' }, group, note));
  watch(store, ['mode', 'model', 'creating', 'loading', 'ready'], (s) => {
    for (const [kind, input] of inputs) {
      input.checked = kind === s.mode;
      input.disabled = !s.ready || ((!!s.model || s.creating || !!s.loading) && kind !== s.mode);
    }
    group.dataset.mode = s.mode;
    document.body.dataset.mode = s.mode;
    setText(note, s.model ? 'The current model decides this: Reset to train the other kind (or load a checkpoint of it).' : '');
  });
}
