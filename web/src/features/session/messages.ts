// messages.ts — the live model: created from settings, dropped, or replaced by a checkpoint
// (features/runs); 'model' tells the page about each new one.
import type { FullConfig, History, SessionConfig } from '../../../../wasm/tinygpt';
import type { Coded } from '../../lib/coded';

export type { FullConfig, History, SessionConfig };

/** The model kinds of the config schema (`model`); the page's mode is their family (lib/model-kind.ts). */
export type { Mode, ModelKind } from '../../lib/model-kind';

export interface ModelInfo {
  reason: 'create' | 'load' | 'resume';
  name?: string;            // file name of a loaded checkpoint
  config: FullConfig;
  parameters: number;
  step: number;
  history: History;         // its loss curves (a checkpoint's so far)
  tokensPerByte: number;    // of the validation text: bits per byte = nats per token x this / ln 2 (0: not known yet)
  corpusMatches: boolean;   // false when a checkpoint was trained on another corpus
  corpusMismatch: Coded | null;  // then what differs (the core's corpus.other_size / other_content)
  memoryBytes: number;
  hasCorpus: boolean;       // the worker's data went with the model (false: a checkpoint of the other kind)
}

/** A call's answer about the model it made: the 'model' event's, without the curves (they went with the event, transferred). */
export type ModelSummary = Omit<ModelInfo, 'history'>;

export interface SessionCalls {
  /** A fresh model (GPT-2 init from config.seed) and AdamW state, on the worker's data. `history`
   * (default true): the run keeps snapshots for the 'watch it learn' views. */
  create(msg: { config: SessionConfig; history?: boolean }): ModelSummary;
  /** Drops the model (the data stays). */
  reset(msg: Record<string, never>): void;
}

export interface SessionEvents {
  model: ModelInfo;
}
