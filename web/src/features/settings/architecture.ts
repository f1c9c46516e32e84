// architecture.ts (settings) — which network the mode trains: the Transformer, or a recurrent
// network (LSTM, GRU, RNN; the translator: an LSTM encoder-decoder with attention). It is the
// config's `model` within the mode's family (lib/model-kind.ts): choosing one takes its preset of
// the same size as the form's. A live model fixes it (Reset to choose again).
import { type MapStore, view, watch } from '../../app/store';
import { KINDS_OF, type ModelKind } from '../../lib/model-kind';
import { t, tr } from '../../i18n';
import { h } from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from './state';

export function bindArchitecture(slot: HTMLElement, settings: MapStore<SettingsSlice>, session: MapStore<SessionSlice>,
  onKind: (kind: ModelKind) => void): void {
  const group = h('fieldset', { id: 'architecture', class: 'mode-switch architecture' },
    h('legend', {}, tr((m) => m.settings.architecture)));
  const inputs = new Map<ModelKind, HTMLInputElement>();
  const options = new Map<ModelKind, HTMLElement>();
  for (const kind of [...KINDS_OF.gpt, ...KINDS_OF.seq2seq]) {
    const input = h('input', { type: 'radio', name: 'architecture', id: `arch-${kind}`, value: kind });
    input.addEventListener('change', () => {
      if (input.checked) onKind(kind);
    });
    inputs.set(kind, input);
    const option = h('label', { class: 'mode-option', for: `arch-${kind}` }, input,
      h('span', { class: 'mode-label' }, tr((m) => m.settings.kinds[kind].label)),
      h('span', { class: 'mode-blurb' }, tr((m) => m.settings.kinds[kind].blurb)));
    options.set(kind, option);
    group.append(option);
  }
  slot.append(group);
  watch(view(settings, session), ['mode', 'formSettings', 'model', 'creating', 'locale'], (s) => {
    const kind = s.model?.config.model ?? s.formSettings?.model;
    const locked = !!s.model || s.creating;
    for (const [k, input] of inputs) {
      const mine = KINDS_OF[s.mode].includes(k);
      options.get(k)!.hidden = !mine;   // the options of the mode's family only
      input.checked = k === kind;
      input.disabled = !s.formSettings || (locked && k !== kind);
    }
    group.dataset.kind = kind ?? '';
    group.title = locked ? t().settings.locked : '';
  });
}
