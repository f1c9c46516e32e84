// derive.ts — values computed from the run state, never stored: what Start does and whether it
// can, the status line, the ETA, what the translator's data and maps show. Pure functions
// (unit-tested in web/test/run-state.test.ts and web/test/translation.test.ts).
import { formatCount, formatDuration, formatParams, formatRate } from '../format';
import { t } from '../i18n';
import type { CorpusKind, FullConfig, ModelKind, PairsReport, TranslationInspectionMsg } from '../protocol';
import { checkCorpusLength } from '../settings';
import { EOS, tokenLabels } from '../utf8';
import type { Pair, RunState } from './state';

type S = Readonly<RunState>;

/** The data a model kind trains on. */
export function corpusKindFor(mode: ModelKind): CorpusKind {
  return mode === 'seq2seq' ? 'pairs' : 'text';
}

/** The current data, if it is of the mode's kind (a text in translation mode is not data for it). */
export function modeCorpus(s: S): RunState['corpus'] {
  return s.corpus && s.corpus.kind === corpusKindFor(s.mode) ? s.corpus : null;
}

/** Why the corpus can't hold one window of the settings' context ('' when it can). Pairs: the core checks them. */
export function corpusLengthError(s: S): string {
  const c = modeCorpus(s);
  return s.settings && c?.kind !== 'pairs' ? checkCorpusLength(s.settings, c?.stats.size ?? null) : '';
}

/** The core accepted the current form, for the current text. */
export function settingsOk(s: S): boolean {
  return !!s.settings && !!s.verdict && s.verdict.id === s.validateId && !s.verdict.problems.length && !corpusLengthError(s);
}

/** Creating or loading a model: the controls wait. */
export function isBusy(s: S): boolean {
  return s.creating || !!s.loading;
}

export function canStart(s: S): boolean {
  return !!s.ready && !!modeCorpus(s) && (s.model ? true : settingsOk(s));
}

// The sentences below are worded in the page's language when called: their callers re-render
// when the store's `locale` changes (they list it among the keys they watch).

/** The tooltip of a disabled Start ('' when it can start). */
export function startBlockedReason(s: S): string {
  const m = t().train.blocked;
  if (!s.ready) return m.loading;
  if (!modeCorpus(s)) return s.mode === 'seq2seq' ? m.noPairs : m.noText;
  if (!s.model && !settingsOk(s)) return m.settings;
  return '';
}

/** What Start does now. */
export type StartAction = 'pause' | 'start' | 'trainMore' | 'resume';

export function startAction(s: S): StartAction {
  return s.running ? 'pause' : !s.model ? 'start' : s.finished ? 'trainMore' : 'resume';
}

/** The label of Start, in the page's language ("Pause", "Start", "Train more", "Resume"). */
export function startLabel(s: S): string {
  return t().train[startAction(s)];
}

export function startDisabled(s: S): boolean {
  return isBusy(s) || (!s.running && !canStart(s));
}

/** The length of the schedule: the model's, or the one the form would create. */
export function totalSteps(s: S): number {
  return s.model?.config.max_iters ?? s.settings?.max_iters ?? 0;
}

/** The core's run loop estimates it (evaluations included); none once the schedule is done. */
export function etaMs(s: S): number | null {
  return s.step < totalSteps(s) ? s.etaMs : null;
}

export function pageMode(s: S): 'running' | 'paused' | 'idle' {
  return s.running ? 'running' : s.model ? 'paused' : 'idle';
}

export function statusLine(s: S): string {
  const m = s.model;
  const say = t().train.status;
  if (!s.ready) return say.loading;
  if (s.creating) return say.creating;
  if (s.running) return say.training(formatRate(s.tokensPerSec));
  if (m && s.finished) return say.finished(formatCount(m.config.max_iters));
  if (m) return say.paused(formatCount(s.step), formatParams(m.parameters), formatDuration(s.elapsedMs));
  if (!modeCorpus(s)) return s.mode === 'seq2seq' ? say.noPairs : say.noText;
  return s.mode === 'seq2seq' ? say.readyPairs : say.readyText;
}

/** A model in a few words, in the page's language. */
export function describeModel(c: Partial<Pick<FullConfig, 'model' | 'n_layer' | 'n_enc_layer' | 'n_dec_layer' | 'd_ff' | 'n_head' | 'n_embd' | 'block_size'>>): string {
  const say = t().train.describe;
  const n = (x: number | undefined) => x ?? NaN;
  if (c.model === 'seq2seq') return say.translator(n(c.n_enc_layer), n(c.n_dec_layer), n(c.n_head), n(c.n_embd), n(c.d_ff), n(c.block_size));
  if (c.n_layer === undefined) return say.unknown;  // a run saved by an older version of the page
  return say.gpt(c.n_layer, n(c.n_head), n(c.n_embd), n(c.block_size));
}

/** How the core reads the pairs now: at the form's block_size (the last verdict) or as they were taken. */
export function pairsReport(s: S): PairsReport | null {
  const c = modeCorpus(s);
  if (!c || c.kind !== 'pairs') return null;
  if (!s.model && s.verdict && s.verdict.id === s.validateId && s.verdict.pairs) return s.verdict.pairs;
  return c.pairs;
}

/** The seed's running example (docs/seq2seq_transformer.md). */
export const SEED_PAIR: Pair = { source: '我 爱 吃 火锅', target: 'I like to eat hot pot' };

/**
 * The first `max` pairs of a TSV's first bytes, for showing (the core reads the file: this only
 * previews lines "source<TAB>target"; a line cut by the end of the bytes is left out, as are
 * lines the core would skip for lacking a tab or a side).
 */
export function previewPairs(bytes: Uint8Array, max = 8, complete = false): Pair[] {
  let text = new TextDecoder().decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  if (!complete) lines.pop();   // may be cut off
  const out: Pair[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const tab = line.indexOf('\t');
    if (tab <= 0 || tab === line.length - 1) continue;
    const rest = line.slice(tab + 1);
    const next = rest.indexOf('\t');
    out.push({ source: line.slice(0, tab), target: next < 0 ? rest : rest.slice(0, next) });
    if (out.length >= max) break;
  }
  return out;
}

/** The pair the attention maps start with: the seed's sentence if the data has it, else the first pair. */
export function defaultPair(pairs: Pair[]): Pair | null {
  return pairs.find((p) => p.source === SEED_PAIR.source) ?? pairs[0] ?? null;
}

/** The source and target the translator's maps show (null: nothing to show yet). */
export function alignmentInput(s: Pick<RunState, 'alignSource' | 'alignPair' | 'alignCustom' | 'translation'>): Pair | null {
  if (s.alignSource === 'translation') {
    const r = s.translation?.result;
    return r ? { source: new TextDecoder().decode(r.source), target: new TextDecoder().decode(r.text) } : null;
  }
  if (s.alignSource === 'custom') return s.alignCustom.source ? s.alignCustom : null;
  return s.alignPair;
}

/** 0.8125 -> "81.3%" (exact match, CER); '—' when there is none. */
export function formatPercent(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(x >= 0.9995 || x === 0 ? 0 : 1)}%`;
}

/** Per-byte loss −ln p(byte | the bytes before it) of an inspection (NaN for the first byte). */
export function tokenLosses(d: { T: number; bytes: Uint8Array; probs: Float32Array }): number[] {
  const out: number[] = [];
  for (let t = 0; t < d.T; t++) out.push(t === 0 ? NaN : -Math.log(Math.max(1e-30, d.probs[(t - 1) * 256 + d.bytes[t]])));
  return out;
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
export function attentionMap(m: TranslationInspectionMsg, kind: MapKind): AttentionMapView {
  const src = tokenLabels(m.src);
  const written = tokenLabels([...Array.from(m.tgtIn.subarray(1)), EOS]);
  if (kind === 'encoder') return { kind, layers: m.Le, rows: m.S, cols: m.S, weights: m.encSelf, causal: false, rowLabels: src, colLabels: src };
  if (kind === 'decoder') return { kind, layers: m.Ld, rows: m.T, cols: m.T, weights: m.decSelf, causal: true, rowLabels: written, colLabels: tokenLabels(m.tgtIn) };
  return { kind, layers: m.Ld, rows: m.T, cols: m.S, weights: m.cross, causal: false, rowLabels: written, colLabels: src };
}
