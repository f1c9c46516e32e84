// state.ts (runs) — the runs kept in this browser as the page shows them, and the save status.
import type { Note } from '../../ui';
import type { ModelShape } from '../session';

export interface ResumeOffer { id: string; name: string; savedAt: number; step: number; steps: number; corpusName: string; model: string; config: ModelShape }

/** A run kept in this browser, as the "Your runs" list shows it. */
export interface RunSummary {
  id: string;
  name: string;
  savedAt: number;
  createdAt: number;
  step: number;
  steps: number;
  corpusName: string;
  model: string;            // "2 layers × 2 heads, width 64, context 32", in the language of the last refresh (refreshed at a switch)
  config: ModelShape;       // the shape it describes: word it at render time (describeModel)
  valLoss: number | null;
  bytes: number;            // checkpoint + stored text
  busy: boolean;            // another tab trains it
  current: boolean;         // this tab trains it
}

export interface StorageInfo { usage: number; quota: number; persisted: boolean | null }

export interface RunsSlice {
  download: boolean;                      // a download's checkpoint is on its way
  runId: string | null;                   // the run this tab trains and saves
  lastSave: { at: number; step: number; bytes: number } | null;
  saveNote: Note | null;                  // shown when nothing is saved yet, or why saving failed
  runs: RunSummary[];
  storage: StorageInfo | null;
  resumeOffer: ResumeOffer | null;
}
