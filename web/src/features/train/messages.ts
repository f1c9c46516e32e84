// messages.ts — training: the core's run loop in slices, its progress, evaluations, and the
// NaN guard's rollbacks.
import type { Coded } from '../../lib/coded';
import type { History } from '../session/messages';

/** A diverged step the core's NaN guard undid (tinygpt::train::Rollback). */
export interface RollbackInfo extends Coded {
  failedStep: number;       // steps done when the step diverged: the step itself is failedStep + 1
  restoredStep: number;     // the run went back to this step (later losses are dropped)
  lrScale: number;          // the learning rate is now the schedule's times this
  // message: the core's sentence: "training diverged at step N: the loss is nan" (train.diverged_*)
}

/** One slice of the core's run loop (Session.advance). Its evaluations follow as evalResult events. */
export interface Progress {
  step: number;             // steps done after this slice
  losses: Float32Array;     // one per step of the slice: steps step - losses.length + 1 .. step
  firstStep: number;        // steps done before the slice (after a rollback: the step it went back to)
  rollbacks: RollbackInfo[];  // diverged steps the guard undid during the slice, in order
  paused: Coded | null;     // the core's reason when the guard paused the run (three rollbacks in a row)
  tokensPerSec: number;     // the core's own timing of the slice (training time only)
  lr: number;               // learning rate of the next step
  gradNorm: number;
  etaSeconds: number;       // to the stop, evaluations included (-1: no stop or not measured yet)
  memoryBytes: number;
}

export interface EvalResult { step: number; loss: number; exactMatch?: number; cer?: number; snapshotMs?: number }  // snapshotMs: of the evaluation, the history's snapshot

export interface RunState { running: boolean; reason: 'started' | 'paused' | 'finished' | 'error'; step: number }

export interface TrainCalls {
  /** Train in slices (the core's run loop) until paused, or until `stopAt` steps (-1: until paused). */
  start(msg: { stopAt: number }): void;
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
