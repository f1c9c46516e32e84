// progress.ts (train) — the slices the page has not heard of yet, merged into one progress event.
// The worker trains in slices of ~70 ms (pause and generate are answered between them); the page
// hears of them at most every PROGRESS_MS. Each event costs the page's thread a render (text,
// layout, paint), and with threads on every core that time comes out of the pool's threads: on 2
// cores, config S trained ~11% slower at 2 threads with an event every slice than with the
// page's rendering stopped (docs/simd_and_kernels.md, "The page's threads").
import type { Slice } from '../../../../wasm/tinygpt';

export const PROGRESS_MS = 250;

/** What a progress event says of the merged slices (the page adds memoryBytes and the pool's counters). */
export type MergedSlice = Pick<Slice, 'step' | 'firstStep' | 'losses' | 'rollbacks' | 'paused' | 'tokensPerSec' | 'lr' | 'gradNorm' | 'etaSeconds'>;

export class ProgressQueue {
  private last: Slice | null = null;  // the latest slice waiting
  private firstStep = 0;
  private losses: Float32Array[] = [];
  private trainMs = 0;
  private tokens = 0;
  private sentAt = -Infinity;

  /** The next slice is heard at once (a run starts). */
  restart(): void {
    this.sentAt = -Infinity;
  }

  /** Adds a slice. Returns what must go to the page first: the slices waiting, when this one
   *  cannot be merged with them (it undid steps, paused, or does not follow on). */
  add(r: Slice): MergedSlice | null {
    const before = this.last && (r.rollbacks.length > 0 || r.paused !== null || r.firstStep !== this.last.step) ? this.take() : null;
    if (!this.last) {
      this.firstStep = r.firstStep;
      this.losses = [];
      this.trainMs = 0;
      this.tokens = 0;
    }
    this.last = r;
    this.losses.push(r.losses);
    this.trainMs += r.trainMs;
    this.tokens += r.tokensPerSec * (r.trainMs / 1000);
    return before;
  }

  /** Whether what waits should go now: news (evaluations, undone steps, a pause, the end) or PROGRESS_MS since the last event. */
  due(now: number): boolean {
    const r = this.last;
    if (!r) return false;
    return r.evals.length > 0 || r.rollbacks.length > 0 || r.paused !== null || r.finished || now - this.sentAt >= PROGRESS_MS;
  }

  /** The slices waiting as one (null if none), and the queue empty. */
  take(now = performance.now()): MergedSlice | null {
    const r = this.last;
    if (!r) return null;
    this.last = null;
    this.sentAt = now;
    let losses = this.losses[0];
    if (this.losses.length > 1) {
      losses = new Float32Array(this.losses.reduce((n, l) => n + l.length, 0));
      this.losses.reduce((at, l) => (losses.set(l, at), at + l.length), 0);
    }
    return {
      step: r.step, firstStep: this.firstStep, losses, rollbacks: r.rollbacks, paused: r.paused,
      // the merged slices' throughput: their tokens over their training time
      tokensPerSec: this.trainMs > 0 ? this.tokens / (this.trainMs / 1000) : r.tokensPerSec,
      lr: r.lr, gradNorm: r.gradNorm, etaSeconds: r.etaSeconds,
    };
  }
}
