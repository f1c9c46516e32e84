// state.ts (translate) — the last translation asked for.
import type { Note } from '../../ui';
import type { Translation } from './messages';

/** temperature > 0 samples (a beam of 1), with a seed drawn for the request; 0: greedy or the beam. */
export interface TranslateRequest { source: string; beam: number; temperature: number }

export interface TranslationState {
  id: number;
  source: string;
  beam: number;
  temperature: number;
  seed: number;             // the sampler's seed (temperature > 0): the same seed gives the same translation
  busy: boolean;
  result: Translation | null;
  note: Note | null;        // why it failed
}

export interface TranslateSlice {
  translation: TranslationState | null;
}
