// state.ts (translate) — the last translation asked for.
import type { Note } from '../../ui';
import type { Translation } from './messages';

export interface TranslateRequest { source: string; beam: number }

export interface TranslationState {
  id: number;
  source: string;
  beam: number;
  busy: boolean;
  result: Translation | null;
  note: Note | null;        // why it failed
}

export interface TranslateSlice {
  translation: TranslationState | null;
}
