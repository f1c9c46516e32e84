// worker.ts (train) — the core's run loop in slices. Every wasm call is synchronous, so the
// worker trains a slice of about SLICE_MS (Session.advance) and yields to its event loop (the
// registry's loop) so that pause, generate, inspect, save... are handled between slices. On
// WebGPU the GPU backend runs segments of the same run loop (webgpu/gpu-backend.ts).
import { isTranslator } from '../../lib/model-kind';
import type { Slice } from '../../../../wasm/tinygpt';
import { codedError } from '../../lib/coded';
import { type Ctx, handlers, type LoopTask, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule, needSession } from '../../worker/state';
import { betweenSteps, fallBack, type GpuBackend, isGpuBackendError, onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { EvalResult, Progress, RunState, TrainCalls } from './messages';
import { type MergedSlice, ProgressQueue } from './progress';

const SLICE_MS = 70;          // target wall time of one training slice

export interface TrainState extends CoreState, WebgpuState {
  running: boolean;
  poolStats: boolean;        // the thread pool's counters are on: progress carries them (bench:page)
  progress: ProgressQueue;   // slices the page has not heard of yet
}

export const initialTrain = (): Pick<TrainState, 'running' | 'poolStats' | 'progress'> =>
  ({ running: false, poolStats: false, progress: new ProgressQueue() });

function emitProgress(ctx: Ctx<TrainState>, p: MergedSlice | null): void {
  if (!p) return;
  const M = needModule(ctx.state);
  ctx.emit('progress', { ...p, memoryBytes: M.memoryBytes(), ...(ctx.state.poolStats ? { pool: M.poolStats() } : {}) } satisfies Progress);
}

/** Sends the progress that waits, if any (before anything the page must hear after it). */
function flushProgress(ctx: Ctx<TrainState>): void {
  emitProgress(ctx, ctx.state.progress.take());
}

/** Training stops (paused, at its end, or after an error). */
export function stop(ctx: Ctx<TrainState>, reason: RunState['reason']): void {
  const st = ctx.state;
  if (!st.running) return;
  st.running = false;
  flushProgress(ctx);
  ctx.emit('state', { running: false, reason, step: st.session ? st.session.step() : 0 } satisfies RunState);
}

/** An evaluation as an event; seq2seq ones carry held-out exact match and CER (NaN for gpt: left out). */
function evalResult(e: EvalResult): EvalResult {
  const metrics = Number.isFinite(e.exactMatch) ? { exactMatch: e.exactMatch, cer: e.cer } : {};
  return { step: e.step, loss: e.loss, ...metrics, snapshotMs: e.snapshotMs };
}

/** A slice as the page hears of it: progress (merged with the next slices' for up to PROGRESS_MS,
 *  unless it carries news: evaluations, undone steps, a pause, the end: progress.ts), then its evaluations;
 *  then the features' slice hooks. The first slice of a run goes at once. */
function sendSlice(ctx: Ctx<TrainState>, r: Slice): void {
  // a slice of rollbacks only (the NaN guard) is news too: the page drops the undone steps
  if (r.losses.length || r.rollbacks.length || r.paused) {
    const q = ctx.state.progress;
    emitProgress(ctx, q.add(r));
    if (q.due(performance.now())) flushProgress(ctx);
  }
  for (const e of r.evals) ctx.emit('evalResult', evalResult(e));
  void ctx.fire('slice', r);
}

/** The end of a slice or segment: the guard's pause (explained by the progress event), or the stop. */
function afterSlice(ctx: Ctx<TrainState>, r: { paused: unknown; finished: boolean }): void {
  if (r.paused) stop(ctx, 'error');
  else if (r.finished) stop(ctx, 'finished');
}

// One slice of the core's run loop (tinygpt::Run: evaluation at step 0, every eval_interval
// steps and at the stop; throughput; ETA), forwarded as it is.
function trainSlice(ctx: Ctx<TrainState>): void {
  const s = ctx.state.session;
  if (!s) return stop(ctx, 'paused');
  let r: Slice;
  try {
    r = s.advance(1e9, SLICE_MS);
  } catch (e) {
    ctx.fail('start', e);
    return stop(ctx, 'error');
  }
  sendSlice(ctx, r);
  afterSlice(ctx, r);
}

// One segment of the run loop with its steps on the GPU: the same policy as Session.advance,
// forwarded the same way. It yields at pause and when a generation waits.
async function gpuTrainSegment(ctx: Ctx<TrainState>, b: GpuBackend): Promise<void> {
  const st = ctx.state;
  try {
    const r = await b.trainSegment({
      keepGoing: () => st.running && !ctx.othersWaiting('train') && st.gpu === b,
      slice: (s) => sendSlice(ctx, s),
      evaluated: (e) => ctx.emit('evalResult', { step: e.step, loss: e.loss, exactMatch: e.exactMatch, cer: e.cer } satisfies EvalResult),
      snapshotted: () => void ctx.fire('snapshotTaken'),
    });
    if (st.gpu === b) afterSlice(ctx, r);
  } catch (e) {
    if (b !== st.gpu) return;  // replaced or given up meanwhile
    if (isGpuBackendError(e)) return fallBack(ctx, b, e);
    ctx.fail('start', e);
    stop(ctx, 'error');
  }
}

const trainTask: LoopTask<TrainState> = {
  name: 'train',
  priority: 1,
  wants: (ctx) => ctx.state.running,
  run: (ctx) => (ctx.state.gpu ? gpuTrainSegment(ctx, ctx.state.gpu) : trainSlice(ctx)),
};

export function trainWorker(): WorkerFeature<TrainState> {
  return {
    name: 'train',
    initial: initialTrain,
    handlers: handlers<TrainCalls, TrainState>({
      start(msg, ctx) {
        const st = ctx.state;
        const s = needSession(st);
        if (!s.hasCorpus()) {
          throw isTranslator(s.kind()) ? codedError('worker.no_pairs', 'no pairs: choose a task or a file of pairs first')
            : codedError('worker.no_corpus', 'no corpus: choose a text first');
        }
        s.setStopAt(msg.stopAt);
        if (msg.poolStats && !st.poolStats) {
          needModule(st).setPoolProfiling(true);   // counts from here on
          st.poolStats = true;
        }
        if (!st.running) {
          st.running = true;
          st.progress.restart();   // the run's first slice is heard at once
          ctx.emit('state', { running: true, reason: 'started', step: s.step() } satisfies RunState);
        }
        ctx.wake();
      },
      pause: (_msg, ctx) => stop(ctx, 'paused'),
      // the run loop is rebuilt: on the GPU not mid-segment
      update: (msg, ctx) => betweenSteps(ctx, () => needSession(ctx.state).updateField(msg.name, msg.value)),
      async evaluate(_msg, ctx) {
        const s = needSession(ctx.state);
        flushProgress(ctx);   // the steps before the evaluation first
        const loss = await onGpuOr(ctx, (b) => b.evaluate(), () => s.evaluate());
        const h = s.history();   // evaluate() recorded the point, with a translator's metrics
        const last = h.valLosses.length - 1;
        ctx.emit('evalResult', evalResult({ step: s.step(), loss, exactMatch: h.valExactMatch[last], cer: h.valCer[last] }));
      },
      injectNan: (msg, ctx) => needSession(ctx.state).injectNanGradient(msg.steps),
    }),
    hooks: {
      modelGone: (ctx) => stop(ctx, 'paused'),
      gpuLost(ctx, rewound) {
        // the run went back to its last good state: the page's curves drop what came after it
        const s = ctx.state.session;
        flushProgress(ctx);
        if (rewound && s) ctx.emit('history', { history: s.history(), step: s.step() });
      },
    },
    tasks: [trainTask],
  };
}
