// messages.ts — training: the core's run loop in slices, its progress, evaluations, and the
// NaN guard's rollbacks.
import type { PoolStats, Slice } from '../../../../wasm/tinygpt';
import type { History } from '../session/messages';

/** A diverged step the core's NaN guard undid (tinygpt::train::Rollback): `message` says why (train.diverged_*). */
export type RollbackInfo = Slice['rollbacks'][number];

/**
 * One slice of the core's run loop (Session.advance), as the page hears of it: the module's Slice
 * (wasm/tinygpt.d.ts) but its evaluations (evalResult events follow) and its threads (features/runtime).
 */
export type Progress = Pick<Slice, 'step' | 'firstStep' | 'losses' | 'rollbacks' | 'paused' | 'tokensPerSec' | 'lr' | 'gradNorm' | 'etaSeconds'> & {
  memoryBytes: number;      // the module's memory after the slice
  pool?: PoolStats;         // the thread pool's counters since the start (only when the start asked: ?poolstats=on, bench:page)
};

export interface EvalResult { step: number; loss: number; exactMatch?: number; cer?: number; snapshotMs?: number }  // snapshotMs: of the evaluation, the history's snapshot

export interface RunState { running: boolean; reason: 'started' | 'paused' | 'finished' | 'error'; step: number }

export interface TrainCalls {
  /** Train in slices (the core's run loop) until paused, or until `stopAt` steps (-1: until paused). */
  start(msg: { stopAt: number; poolStats?: boolean }): void;
  pause(msg: Record<string, never>): void;
  /** Change a field of a live run: eval_interval, eval_iters, or max_iters (extends the schedule). */
  update(msg: { name: 'eval_interval' | 'eval_iters' | 'max_iters'; value: number }): void;
  /** Validation loss now (an evalResult follows too). */
  evaluate(msg: Record<string, never>): void;
  /** Test hook (the e2e test of the NaN guard): the next `steps` steps get a NaN gradient. */
  injectNan(msg: { steps: number }): void;
}

export interface TrainEvents {
  state: RunState;
  progress: Progress;
  evalResult: EvalResult;
  /** The run went back to an earlier state (WebGPU gave up after running ahead): its curves now. */
  history: { history: History; step: number };
}
