// derive.ts (inspect) — what the maps show, computed from the state: the per-byte losses of an
// inspection, the translator's input and its three kinds of attention with their axes' labels.
// Pure functions (unit-tested in web/test/run-state.test.ts and web/test/translation.test.ts).
import { EOS, tokenLabels } from '../../lib/utf8';
import type { Pair } from '../data';
import type { TranslateSlice } from '../translate';
import type { Alignment } from './messages';
import type { InspectSlice } from './state';

/**
 * Per-token loss −ln p(token | the tokens before it) of an inspection (NaN for the first): a byte
 * model's tokens are its bytes (V 256); a BPE model's, its tokenizer's ids (V its vocabulary).
 */
export function tokenLosses(d: { T: number; bytes: Uint8Array; probs: Float32Array; tokens?: ArrayLike<number>; V?: number }): number[] {
  const out: number[] = [];
  const V = d.V ?? 256, tok = d.tokens ?? d.bytes;
  for (let t = 0; t < d.T; t++) out.push(t === 0 ? NaN : -Math.log(Math.max(1e-30, d.probs[(t - 1) * V + tok[t]])));
  return out;
}

/** The source and target the translator's maps show (null: nothing to show yet). */
export function alignmentInput(s: Pick<InspectSlice, 'alignSource' | 'alignPair' | 'alignCustom'> & Pick<TranslateSlice, 'translation'>): Pair | null {
  if (s.alignSource === 'translation') {
    const r = s.translation?.result;
    return r ? { source: new TextDecoder().decode(r.source), target: new TextDecoder().decode(r.text) } : null;
  }
  if (s.alignSource === 'custom') return s.alignCustom.source ? s.alignCustom : null;
  return s.alignPair;
}

/** The translator's three kinds of attention. */
export type MapKind = 'cross' | 'encoder' | 'decoder';

/** One kind of attention of a translation inspection, as the panel draws it: (layers, NH, rows, cols). */
export interface AttentionMapView {
  kind: MapKind;
  layers: number;
  rows: number;
  cols: number;
  weights: Float32Array;      // (layers, NH, rows, cols)
  causal: boolean;            // zero right of the diagonal (the decoder's self-attention)
  rowLabels: string[];
  colLabels: string[];
}

/**
 * A kind of attention of the translator with the labels of its axes. Decoder rows are labelled by
 * the byte each position writes (row t reads ⟨BOS⟩ and the target's first t bytes and predicts
 * byte t, or ⟨EOS⟩ after the last); the decoder's own columns by its inputs (⟨BOS⟩ + the target).
 */
/** The maps an inspection holds: all three for the Transformer, the cross map for the LSTM translator. */
export function availableMaps(m: Pick<Alignment, 'encSelf' | 'decSelf'>): MapKind[] {
  return (['cross', 'decoder', 'encoder'] as MapKind[]).filter((k) => k === 'cross' || (k === 'decoder' ? m.decSelf.length > 0 : m.encSelf.length > 0));
}

export function attentionMap(m: Alignment, kind: MapKind): AttentionMapView {
  // the LSTM translator has one map, the decoder's attention on the source (no self-attention)
  if (!availableMaps(m).includes(kind)) kind = 'cross';
  const src = tokenLabels(m.src);
  const written = tokenLabels([...Array.from(m.tgtIn.subarray(1)), EOS]);
  if (kind === 'encoder') return { kind, layers: m.Le, rows: m.S, cols: m.S, weights: m.encSelf, causal: false, rowLabels: src, colLabels: src };
  if (kind === 'decoder') return { kind, layers: m.Ld, rows: m.T, cols: m.T, weights: m.decSelf, causal: true, rowLabels: written, colLabels: tokenLabels(m.tgtIn) };
  return { kind, layers: m.Ld, rows: m.T, cols: m.S, weights: m.cross, causal: false, rowLabels: written, colLabels: src };
}
