// gpu-backend.ts — the training worker's WebGPU backend. The worker loads it with a dynamic
// import only when the page trains on WebGPU, so the default download stays as it was.
//
// A WebGpuSession computes; the core's run loop decides, as it does for the CPU's Session.advance
// (tinygpt::Run in core/include/tinygpt/run.h, through gpuRunPlan / gpuRunRecord /
// gpuRunRecordEvaluation): evaluations at step 0, every eval_interval steps and at the stop; the
// stop; a good state every 100 steps (brought back from the GPU); the NaN guard's rollbacks and
// its pause. This file only schedules: it submits the steps the plan allows in chunks of about
// CHUNK_MS of GPU time, keeps MAX_IN_FLIGHT of them queued so the GPU never waits for
// JavaScript, and hands every result back to the core in order.
import type { Slice } from '../../../../wasm/tinygpt';
import { GpuBackendError } from './errors';
import type { GeneratedChunk, Inspection, PairInspection } from './executor';
import { type GpuHostModule, type GpuSteps, type HostSession, type SampleOptions, WebGpuSession } from './session';

const CHUNK_MS = 70;      // GPU time of one submission: pause and generate are answered within about two
const MAX_IN_FLIGHT = 2;  // submissions whose losses are not back yet
const MAX_CHUNK = 256;    // steps in one submission

export interface SegmentEvents {
  keepGoing(): boolean;   // false: submit nothing more (paused, a generation waits)
  slice(s: Slice): void;  // steps recorded by the core's run loop, as Session.advance reports them
  evaluated(e: { step: number; loss: number; ms: number; exactMatch?: number; cer?: number }): void;
  /** A snapshot for the run's history was taken after the evaluation ("watch it learn"). */
  snapshotted?(reset: boolean): void;
}

/** What the run's history needs of the module (wasm watch API; the page's worker has it). */
interface WatchHost {
  watchHistory?(session: unknown, afterStep: number): { enabled: boolean };
  watchRecordSnapshot?(session: unknown): void;
}

export class GpuBackend {
  private chunk = 1;                  // steps per submission, grown to about CHUNK_MS
  private lock: Promise<unknown> = Promise.resolve();
  private waiting = 0;                // exclusive() calls waiting for the training segment to yield
  private dead: GpuBackendError | null = null;

  private constructor(private readonly M: GpuHostModule, private readonly host: HostSession, readonly g: WebGpuSession) {}

  // Plans the host's model, builds it on `device` and uploads the host's state. Throws
  // GpuBackendError (limits, out-of-memory, pipeline, ...) when it cannot.
  static async create(M: GpuHostModule, host: HostSession, device: GPUDevice): Promise<GpuBackend> {
    return new GpuBackend(M, host, await WebGpuSession.create(M, host, { device }));
  }

  get adapterName(): string {
    return this.g.adapterName;
  }

  /** The GPU samples and inspects bytes (vocab_size 256); a BPE model trains here and does those on the host. */
  get readsBytes(): boolean {
    return this.g.plan.kind !== 'seq2seq' && this.g.plan.model.vocab_size === 256;
  }

  private check(): void {
    if (this.dead) throw this.dead;
  }

  // Runs f with no training step in flight and every finished one recorded, so the host's step
  // counter is the GPU's: a save, an evaluation, a generation, a setting that changes the run.
  exclusive<T>(f: () => Promise<T> | T): Promise<T> {
    this.waiting++;
    return this.locked(() => {
      this.waiting--;
      return f();
    });
  }

  private locked<T>(f: () => Promise<T> | T): Promise<T> {
    const r = this.lock.then(() => {
      this.check();
      return f();
    });
    this.lock = r.catch(() => undefined);
    return r;
  }

  // One segment of the run: what the core's plan allows before its next event. Returns when the
  // plan is done, when keepGoing() turns false or an exclusive() call waits (after the steps in
  // flight are recorded), or after a rollback (the host's good state is on the GPU again).
  trainSegment(ev: SegmentEvents): Promise<{ finished: boolean; paused: Slice['paused'] }> {
    return this.locked(async () => {
      const plan = this.M.gpuRunPlan(this.host, 1e15);
      if (plan.evaluate) {
        const t0 = performance.now();
        const losses = await this.g.evaluateLosses();
        this.check();
        // a translator's evaluation also translates held-out pairs (exact match, CER) on the host: with the GPU's weights
        if (this.translates) {
          await this.g.sync();
          this.check();
        }
        ev.evaluated(this.M.gpuRunRecordEvaluation(this.host, losses, performance.now() - t0));
        // the run's history: the GPU's weights come back to the host, which takes the snapshot
        const w = this.M as unknown as WatchHost;
        if (w.watchHistory?.(this.host, Number.MAX_VALUE).enabled) {
          await this.g.sync();
          this.check();
          w.watchRecordSnapshot!(this.host);
          ev.snapshotted?.(false);
        }
      }
      if (plan.steps === 0) return { finished: plan.finished, paused: null };
      const end = this.host.step() + plan.steps;
      let left = plan.steps;
      const inFlight: Promise<GpuSteps>[] = [];
      const go = () => ev.keepGoing() && this.waiting === 0 && !this.dead;
      try {
        while (left > 0 || inFlight.length) {
          while (left > 0 && inFlight.length < MAX_IN_FLIGHT && go()) {
            const k = Math.min(left, this.chunk);
            inFlight.push(this.g.steps(k));
            left -= k;
          }
          if (!inFlight.length) break;
          const r = await inFlight.shift()!;
          this.check();
          const s = this.M.gpuRunRecord(this.host, r.losses, r.gradNorms, r.ms);
          this.resize(r);
          ev.slice(s);
          if (s.rollbacks.length) {
            // the GPU halted at the diverged step and applied nothing after it; the core went back
            // to its last good state, which goes to the GPU
            await Promise.allSettled(inFlight.splice(0));
            await this.g.reload();
            return { finished: false, paused: s.paused };
          }
        }
      } finally {
        await Promise.allSettled(inFlight); // an error: the ones behind it are not recorded
      }
      if (plan.keepGoodState && this.host.step() === end) await this.g.sync();
      return { finished: false, paused: null };
    });
  }

  // About CHUNK_MS of GPU time per submission, at most doubling from one to the next.
  private resize(r: GpuSteps): void {
    const msPerStep = r.ms / Math.max(1, r.losses.length);
    const want = msPerStep > 0 ? Math.round(CHUNK_MS / msPerStep) : this.chunk * 2;
    this.chunk = Math.max(1, Math.min(MAX_CHUNK, this.chunk * 2, want));
  }

  /** Brings the GPU's weights back into the host session (step-through generation reads them there). */
  syncHost(): Promise<void> {
    return this.exclusive(() => this.g.sync());
  }

  /** The host session holds the GPU's weights: nothing ran on the GPU since they last came back. */
  get hostInSync(): boolean {
    return this.g.hostInSync;
  }

  /** f on the host's CPU with no step in flight, the GPU's weights brought back first when the GPU is
   *  ahead; with how long each took (syncMs null: nothing to bring back). */
  onHost<T>(f: () => T): Promise<{ value: T; syncMs: number | null; ms: number }> {
    return this.exclusive(async () => {
      const due = !this.g.hostInSync, t0 = performance.now();
      await this.g.sync();
      this.check();
      const t1 = performance.now();
      const value = f();
      return { value, syncMs: due ? t1 - t0 : null, ms: performance.now() - t1 };
    });
  }

  evaluate(): Promise<number> {
    return this.exclusive(() => this.g.evaluate());
  }

  inspect(text: Uint8Array): Promise<Inspection> {
    return this.exclusive(() => this.g.inspect(text));
  }

  /** f with the GPU's session (a translation: greedy, sampled or the beam) with no step in flight; with the
   *  ms it took (the wait for the steps in flight not counted: onHost's figures compare with it). */
  timed<T>(f: (g: WebGpuSession) => Promise<T>): Promise<{ value: T; ms: number }> {
    return this.exclusive(async () => {
      const t0 = performance.now();
      const value = await f(this.g);
      return { value, ms: performance.now() - t0 };
    });
  }

  /** A pair read by the translator on the GPU: its attention maps and next-token probabilities. */
  inspectTranslation(source: Uint8Array, target: Uint8Array): Promise<PairInspection> {
    return this.exclusive(() => this.g.inspectTranslation(source, target));
  }

  /** A translator (seq2seq plan), as opposed to a language model. */
  get translates(): boolean {
    return this.g.plan.kind === 'seq2seq';
  }

  beginGeneration(prompt: Uint8Array, options: SampleOptions): Promise<void> {
    return this.exclusive(() => this.g.beginGeneration(prompt, options));
  }

  generateNext(k: number): Promise<GeneratedChunk> {
    return this.exclusive(() => this.g.generateNext(k));
  }

  // A checkpoint of the run (the CPU Session's format): the GPU's state comes back first. With no
  // step in flight it is also the good state a rollback (or a fallback) returns to.
  save(): Promise<Uint8Array> {
    return this.exclusive(() => this.g.save());
  }

  // The GPU is gone: see WebGpuSession.abandon. Every later call rejects with `error`.
  abandon(error: GpuBackendError): { step: number; rewoundFrom: number | null } {
    this.dead ??= error;
    return this.g.abandon(error);
  }

  // The model is replaced: the GPU's buffers go, the host is someone else's business now.
  destroy(): void {
    this.dead ??= new GpuBackendError('internal', 'the model was replaced');
    this.g.destroy();
  }
}
