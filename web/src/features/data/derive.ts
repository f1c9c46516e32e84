// derive.ts (data) — values computed from the data and the mode, never stored. Pure functions
// (unit-tested in web/test/translation.test.ts).
import type { PairsReport } from '../../../../wasm/tinygpt';
import type { Mode } from '../session';
import type { SettingsSlice } from '../settings';
import type { SessionSlice } from '../session';
import type { CorpusKind } from './messages';
import type { DataSlice } from './state';

/** The data a model kind trains on. */
export function corpusKindFor(mode: Mode): CorpusKind {
  return mode === 'seq2seq' ? 'pairs' : 'text';
}

/** The current data, if it is of the mode's kind (a text in translation mode is not data for it). */
export function modeCorpus(s: Pick<DataSlice, 'corpus'> & Pick<SettingsSlice, 'mode'>): DataSlice['corpus'] {
  return s.corpus && s.corpus.kind === corpusKindFor(s.mode) ? s.corpus : null;
}

/** How the core reads the pairs now: at the form's block_size (the last verdict) or as they were taken. */
export function pairsReport(s: Pick<DataSlice, 'corpus'> & Pick<SettingsSlice, 'mode' | 'verdict' | 'validateId'> & Pick<SessionSlice, 'model'>): PairsReport | null {
  const c = modeCorpus(s);
  if (!c || c.kind !== 'pairs') return null;
  if (!s.model && s.verdict && s.verdict.id === s.validateId && s.verdict.pairs) return s.verdict.pairs;
  return c.pairs;
}

/** A source and a target, as text. */
export interface Pair { source: string; target: string }

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
