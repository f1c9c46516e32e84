// state.ts (train) — the run's progress as the page shows it: where it is, its numbers and curves,
// what the NaN guard did.
import { type GuardState, initialGuard } from './guard';
import type { PoolStats } from '../../../../wasm/tinygpt';
import { LossHistory } from './history';

export interface TrainSlice {
  step: number;                           // steps the model has trained (0 without one)
  running: boolean;
  finished: boolean;
  pendingStart: boolean;                  // Start pressed without a model: training starts once it is created
  lastLoss: number | null;
  valLoss: number | null;
  valStep: number | null;
  valExactMatch: number | null;           // seq2seq: held-out exact match of the last evaluation
  valCer: number | null;                  // seq2seq: its character error rate
  tokensPerSec: number;                   // moving average
  lr: number | null;
  gradNorm: number | null;
  elapsedMs: number;
  etaMs: number | null;                   // to the end of the schedule (the core's run loop estimates it)
  lastTick: number;
  memoryBytes: number | null;
  history: LossHistory;                   // append-only; `historyRev` announces growth
  historyRev: number;
  lossUnit: 'nats' | 'bits';              // the loss chart's unit (bits = nats / ln 2)
  guard: GuardState;                      // what the core's NaN guard undid (guard.ts)
  pool: PoolStats | null;                 // the thread pool's counters, with ?poolstats=on (bench:page)
  // for the tests and the benchmark: snapshotMs is the history's snapshots so far (bench:page)
  timing: { readyMs: number; firstStepMs: number; moduleLoadMs: number; snapshotMs: number };
}

/** No model: nothing trained. */
export function idleTrain(): Omit<TrainSlice, 'lossUnit' | 'timing' | 'historyRev' | 'pendingStart'> {
  return {
    step: 0, running: false, finished: false, lastLoss: null, valLoss: null, valStep: null, valExactMatch: null, valCer: null,
    tokensPerSec: 0, lr: null, gradNorm: null, elapsedMs: 0, etaMs: null, lastTick: 0, memoryBytes: null, history: new LossHistory(), guard: initialGuard(), pool: null,
  };
}
