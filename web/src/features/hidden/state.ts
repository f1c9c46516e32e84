// state.ts (hidden) — what the hidden-state view shows: a trace of the model's units over a text,
// the unit chosen, and the units a pattern search found.
import type { Coded } from '../../lib/coded';
import type { HiddenTrace, PatternInfo, UnitMatch } from './messages';

/** Which activation of which unit colours the text: h, the LSTM's c, or one of its gates. */
export interface UnitChoice { layer: number; unit: number; what: string }

export interface HiddenSlice {
  hiddenPatterns: PatternInfo[];
  hiddenTrace: HiddenTrace | null;
  hiddenTraceStep: number;          // the model step it was traced at
  hiddenTraceText: string;          // the text it traced
  hiddenUnit: UnitChoice;
  hiddenPattern: string;
  hiddenMatches: UnitMatch[] | null;
  hiddenBusy: boolean;
  hiddenError: Coded | null;
}
