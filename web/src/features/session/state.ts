// state.ts (session) — the live model, as the page knows it.
import type { FullConfig, ModelInfo } from './messages';

/** The model in the worker; replaced only when another one is created or loaded. */
export interface ModelState {
  config: FullConfig;
  parameters: number;
  /** Of its validation text (1 for bytes; 0: not known yet): nats per token x this / ln 2 = bits per byte. */
  tokensPerByte?: number;
}

/** A checkpoint or model file on its way into the worker (runs); `elapsedMs`: its run's training time so far. */
export interface Loading { name: string; reason: 'file' | 'resume'; elapsedMs?: number }

export interface SessionSlice {
  model: ModelState | null;
  /** The latest model the worker described ('model'), with the training time it had before. */
  lastModel: { info: ModelInfo; elapsedMs: number } | null;
  creating: boolean;
  loading: Loading | null;
}

/** Creating or loading a model: the controls wait. */
export function isBusy(s: Pick<SessionSlice, 'creating' | 'loading'>): boolean {
  return s.creating || !!s.loading;
}
