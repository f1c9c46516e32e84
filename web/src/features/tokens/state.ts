// state.ts (tokens) — what the Tokens view shows: the tokenizer (the model's, or the next run's),
// the progress of learning one, a text as chips, the merges stepped through, a word split.
import type { Coded } from '../../lib/coded';
import type { MergeRow, TokenChips, TokenizerInfo, TrainProgress } from './messages';

export interface TokensSlice {
  tokenizer: TokenizerInfo | null;   // null: the run reads bytes
  tokensProgress: TrainProgress | null;  // while a vocabulary is learned
  tokensText: string;                // the text shown as chips
  tokensChips: TokenChips | null;    // ... under the first tokensStep merges
  tokensStep: number;                // merges applied to the text (-1 or merges: all)
  tokensMerges: MergeRow[];          // a page of the merges, around tokensStep
  tokensWord: string;                // the word box
  tokensWordChips: TokenChips | null;
  tokensError: Coded | null;         // a file that could not be read, a vocabulary the text cannot fill
}

/** The merges shown around the step: the page of MERGES_PAGE rows that holds it. */
export const MERGES_PAGE = 12;
export const mergesFrom = (step: number): number => Math.max(0, Math.floor(Math.max(0, step - 1) / MERGES_PAGE) * MERGES_PAGE);
