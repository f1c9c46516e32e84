// messages.ts — learn by hand: one traced training step of the walkthrough's tiny model.
import type { LearnEdits, LearnTrace } from '../../../../wasm/tinygpt';
import type { Coded } from '../../lib/coded';

export type { LearnEdits, LearnTrace };
export type LearnModelName = 'walkthrough' | 'two-heads';

export interface LearnCalls {
  /** The trace (the module's learnTrace), or the core's coded message for a refused edit (the view's business, not a page-wide error). */
  learn(msg: { model: LearnModelName; edits: LearnEdits }): { trace: LearnTrace | null; error: Coded | null };
}
