// state.ts (inspect) — what "look inside" shows and when it asks again: the language model's
// attention maps of a text, and the translator's attention for a pair (the same scheduling).
import type { Note } from '../../ui';
import type { Pair } from '../data';
import type { Alignment, Inspection } from './messages';

export type InspectSource = 'corpus' | 'prompt' | 'sample' | 'custom';
/** What the attention maps of the translator show: a pair of the data, the last translation, or one typed. */
export type AlignSource = 'pair' | 'translation' | 'custom';

export interface InspectSlice {
  inspectSource: InspectSource;
  inspectText: string;                    // "your own text"
  inspectLive: boolean;                   // follow training while visible
  inspectVisible: boolean;
  inspectId: number;
  inspectInFlight: boolean;
  inspectLen: number | null;
  lastInspectAt: number;
  inspectNote: Note | null;
  inspection: Inspection | null;
  tokenLosses: number[];
  corpusOffset: number;                   // where "a slice of the corpus" starts
  // the translator's attention maps (seq2seq; the inspect* scheduling keys are shared)
  alignSource: AlignSource;
  alignPair: Pair | null;                 // the pair of the data shown ("Another pair")
  alignCustom: Pair;
  alignVisible: boolean;
  alignment: Alignment | null;
}
