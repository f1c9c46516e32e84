// The train worker's progress queue (features/train/progress.ts): slices merged into one event
// at most every PROGRESS_MS, news sent at once, steps never reordered or lost.
import { describe, expect, it } from 'vitest';

import type { Slice } from '../../wasm/tinygpt';
import { PROGRESS_MS, ProgressQueue } from '../src/features/train/progress';

let at = 0;
function slice(firstStep: number, steps: number, over: Partial<Slice> = {}): Slice {
  const losses = Float32Array.from({ length: steps }, (_, i) => 5 - 0.01 * (firstStep + i));
  return {
    firstStep, step: firstStep + steps, losses, evals: [], trainMs: 70, tokensPerSec: 1000 * (1 + (at++ % 3)), lr: 1e-3 * firstStep,
    gradNorm: firstStep, finished: false, etaSeconds: 10, rollbacks: [], paused: null, threads: 2, threadsReason: null, ...over,
  };
}

describe('ProgressQueue', () => {
  it('sends a run\'s first slice at once, then merges slices for PROGRESS_MS', () => {
    const q = new ProgressQueue();
    expect(q.add(slice(0, 2))).toBeNull();
    expect(q.due(1000)).toBe(true);
    const first = q.take(1000)!;
    expect([first.firstStep, first.step, first.losses.length]).toEqual([0, 2, 2]);
    expect(q.take(1001)).toBeNull();
    q.add(slice(2, 1));
    expect(q.due(1000 + PROGRESS_MS - 1)).toBe(false);
    q.add(slice(3, 2));
    expect(q.due(1000 + PROGRESS_MS)).toBe(true);
    const merged = q.take(1000 + PROGRESS_MS)!;
    expect([merged.firstStep, merged.step]).toEqual([2, 5]);
    expect(Array.from(merged.losses)).toEqual(Array.from(slice(2, 3).losses));   // every step's loss, in order
    expect(merged.lr).toBe(slice(3, 2).lr);                                     // the latest slice's
  });

  it('reports the merged slices\' throughput: tokens over training time', () => {
    const q = new ProgressQueue();
    q.add(slice(0, 1, { trainMs: 100, tokensPerSec: 1000 }));   // 100 tokens
    q.add(slice(1, 3, { trainMs: 300, tokensPerSec: 2000 }));   // 600 tokens
    expect(q.take(0)!.tokensPerSec).toBeCloseTo(700 / 0.4, 6);
  });

  it('sends news at once: evaluations, undone steps, a pause, the end', () => {
    for (const news of [{ evals: [{ step: 3, loss: 2, exactMatch: NaN, cer: NaN, ms: 1, snapshotMs: 0 }] }, { finished: true },
      { rollbacks: [{ step: 2, gradNorm: NaN, loss: NaN, lr: 0, skipped: 1 }] as unknown as Slice['rollbacks'] },
      { paused: { code: 'train.paused', message: 'paused', args: {} } as unknown as Slice['paused'] }]) {
      const q = new ProgressQueue();
      q.add(slice(0, 1));
      q.take(0);
      q.add(slice(1, 1));
      expect(q.due(1)).toBe(false);
      const before = q.add(slice(2, 1, news));
      if ('rollbacks' in news || 'paused' in news) {
        // not merged with the slices before it: those go first, as they were
        expect([before!.firstStep, before!.step]).toEqual([1, 2]);
      } else {
        expect(before).toBeNull();
      }
      expect(q.due(2)).toBe(true);
    }
  });

  it('never merges slices that do not follow on (the run went back)', () => {
    const q = new ProgressQueue();
    q.add(slice(10, 2));
    const before = q.add(slice(5, 1));
    expect([before!.firstStep, before!.step]).toEqual([10, 12]);
    expect([q.take(0)!.firstStep, q.take(0)]).toEqual([5, null]);
  });
});
