// state.ts (data) — the data as the page knows it, and what it is doing with a file.
import type { PairsReport, ShardEntry, TaskInfo } from '../../../../wasm/tinygpt';
import type { CorpusRef } from '../../app/db';
import type { Msg } from '../../i18n';
import type { CorpusStats } from './corpus';
import type { CorpusKind } from './messages';

export interface CorpusState {
  ref: CorpusRef;
  stats: CorpusStats;
  preview: Uint8Array;          // the first bytes
  kind: CorpusKind;             // a text (language model) or source<TAB>target pairs (translation)
  pairs: PairsReport | null;    // pairs: how the core read them (at the block_size of the time)
  /** Read from files (ref.files): the statistics pass under way (and whether the files are being kept), else null. */
  scan?: { done: number; total: number; keeping: boolean } | null;
  scanned?: boolean;            // read from files: the statistics are the whole text's (the pass ended)
  shards?: ShardEntry[];        // llm.c shards: each one's name, split, version and tokens
  /** A file that was not UTF-8 (the sniffer's Latin-1, Windows-1252, UTF-16): `label` names its
   * encoding; converted: taken as UTF-8, else its raw bytes by choice (either is one click from the other). */
  encoding?: { label: string; converted: boolean };
}

/** An action a refused file offers besides Cancel (the loader knows what it does); worded at render time. */
export interface ProblemAction { id: string; label: Msg }
/**
 * A refused file, worded at render time (a language switch rewords it): a title, the core's
 * verdict if it gave one (`core`: its text and the object that carried it, for coreInline), then
 * the page's own words. `data` are the values in them that are data (a file's name, a glimpse of
 * its text): shown marked translate="no".
 */
export interface CorpusProblem {
  kind: string;
  title: Msg;
  core?: { text: string; from?: object };
  message: Msg | null;
  data: string[];
  actions: ProblemAction[];
  /** Pairs offered to the translator: how it would read every line (the core's report), after the words. */
  report?: { text: string; from?: object };
}
/** What the loader is doing ("Reading x.txt…"), worded at render time; `data` as in CorpusProblem. */
export interface CorpusBusy { say: Msg; data: string[] }

export interface DataSlice {
  corpus: CorpusState | null;
  pendingCorpus: CorpusState | null;      // sent to the worker, not yet accepted
  corpusBusy: CorpusBusy | null;
  corpusProblem: CorpusProblem | null;
  tasks: TaskInfo[];                      // the core's built-in translation tasks
}
