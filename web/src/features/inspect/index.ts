// inspect — looking inside the model on one text: its tokens, the attention map of any layer and
// head (or all of them), the loss of each byte; for the translator, its cross-attention (the
// alignment) and the encoder's and decoder's self-attention. It follows training while visible.
import { map, type MapStore, patch, watch } from '../../app/store';
import { t } from '../../i18n';
import type { Port } from '../../lib/wire';
import { notify } from '../../ui';
import { Inspector, type InspectDeps } from './inspector';
import type { InspectCalls } from './messages';
import { InspectPanel } from './panel';
import type { AlignSource, InspectSlice, InspectSource } from './state';
import type { Pair } from '../data';

export { alignmentInput, attentionMap, tokenLosses, type AttentionMapView, type MapKind } from './derive';
export type { AlignSource, InspectSource } from './state';
export type { InspectSlice };

export interface Inspect {
  readonly $: MapStore<InspectSlice>;
  inspect(): void;
  setInspectSource(source: InspectSource): void;
  /** What the translator's maps show: a pair of the data, the last translation, or one typed. */
  setAlignSource(source: AlignSource): void;
  setAlignCustom(pair: Pair): void;
  /** The language model's panel, and (a chunk of its own, fetched in translation mode) the translator's in place of `alignmentSlot`. */
  mount(slot: HTMLElement, alignmentSlot: ChildNode): void;
}

export function createInspect(port: Port<InspectCalls, object>, d: InspectDeps): Inspect {
  const $ = map<InspectSlice>({
    inspectSource: 'corpus', inspectText: '', inspectLive: true, inspectVisible: false, inspectId: 0, inspectInFlight: false, inspectLen: null,
    lastInspectAt: 0, inspectNote: null, inspection: null, tokenLosses: [], corpusOffset: 0,
    alignSource: 'pair', alignPair: null, alignCustom: { source: '', target: '' }, alignVisible: false, alignment: null,
  });
  const inspector = new Inspector($, port, d);
  const visible = (key: 'inspectVisible' | 'alignVisible') => (v: boolean) => {
    const was = $.get()[key];
    patch($, { [key]: v });
    if (v && !was) inspector.refresh();
  };
  const setInspectSource = (inspectSource: InspectSource) => {
    patch($, { inspectSource });
    inspector.inspect();
  };
  const setAlignSource = (alignSource: AlignSource) => {
    patch($, { alignSource });
    inspector.inspect();
  };
  const setAlignCustom = (alignCustom: Pair) => patch($, { alignCustom });
  const mountAlignment = (slot: ChildNode) => {
    let loading: Promise<void> | null = null;
    watch(d.settings.$, ['mode'], ({ mode }) => {
      if (mode !== 'seq2seq' || loading) return;
      loading = import('./alignment-panel').then(({ AlignmentPanel }) => {
        const panel = new AlignmentPanel({ inspect: $, settings: d.settings.$, session: d.session.$ }, {
          onRequest: () => inspector.inspect(), onSource: setAlignSource, onCustom: setAlignCustom, onAnotherPair: () => inspector.anotherPair(),
          onLive: (inspectLive) => patch($, { inspectLive }), onVisible: visible('alignVisible'),
        });
        slot.replaceWith(panel.el);
      }).catch((e: unknown) => {
        loading = null;   // tried again at the next switch
        notify(t().page.translationViewsFailed(e instanceof Error ? e.message : String(e)), 'error');
      });
    });
  };
  return {
    $,
    inspect: () => inspector.inspect(),
    setInspectSource,
    setAlignSource,
    setAlignCustom,
    mount(slot, alignmentSlot) {
      slot.append(new InspectPanel({ inspect: $, settings: d.settings.$, session: d.session.$ }, {
        onRequest: () => inspector.inspect(), onSource: setInspectSource,
        onText: (inspectText) => patch($, { inspectText }), onLive: (inspectLive) => patch($, { inspectLive }),
        onAnotherSlice: () => inspector.anotherSlice(), onVisible: visible('inspectVisible'),
      }).el);
      mountAlignment(alignmentSlot);
    },
  };
}
