// messages.ts (hidden) — a recurrent model's units on a text: every unit's activation (and the
// LSTM's cell states and gates), and the units that follow a pattern (core hidden.h, wasm/hidden.cpp).
import type { HiddenTrace, UnitMatch } from '../../../../wasm/tinygpt';

export type { HiddenTrace, UnitMatch };

export interface PatternInfo { name: string; description: string }

/** A trace and the model step it was taken at. */
export interface TraceMsg { trace: HiddenTrace; step: number }

export interface HiddenCalls {
  /** The patterns the unit search knows (the core's list). */
  hiddenPatterns(msg: Record<string, never>): PatternInfo[];
  /** Every unit over the text (its first 4096 bytes), window after window with the state carried. */
  hiddenTrace(msg: { text: ArrayBuffer }): TraceMsg;
  /** The k units whose activation correlates most with the pattern on the text. */
  hiddenSearch(msg: { text: ArrayBuffer; pattern: string; k: number }): UnitMatch[];
}
