// The page's side of the run's history (web/src/app/insight.ts): snapshots appended from the
// worker's messages, replaced by a reset, and where validation crosses the baselines.
import { describe, expect, it } from 'vitest';

import { Insight, crossings } from '../src/app/insight';
import type { Baselines, InsightMsg } from '../src/protocol';

const baselines: Baselines = { unigram: 3, bigram: 2.5, uniform: 4, unigramBits: 3 / Math.LN2, bigramBits: 2.5 / Math.LN2, uniformBits: 4 / Math.LN2, distinct: 55, tokens: 1000 };

/** A message with K snapshots of a model with L = 1, NH = 2, T = 3 (A = 1 * 2 * 6), N = 2, P = 3. */
function msg(reset: boolean, steps: number[], total: number): InsightMsg {
  const K = steps.length, A = 12;
  return {
    type: 'insight', reset, enabled: true, kind: 'gpt', L: 1, NH: 2, T: 3, N: 2, P: 3, attentionBytes: A,
    probe: new Uint8Array([97, 98, 99]), bytes: new Uint8Array([97, 98]), baselines, total, sizeBytes: total * 100,
    steps: Float64Array.from(steps),
    attention: Uint8Array.from({ length: K * A }, (_, i) => i % 256),
    embedding: Float32Array.from({ length: K * 4 }, (_, i) => i),
    probeLoss: Float32Array.from({ length: K * 3 }, (_, i) => (i % 3 === 0 ? NaN : i)),
    positionLoss: Float32Array.from({ length: K * 3 }, (_, i) => 10 + i),
  };
}

describe('Insight', () => {
  it('splits a message into snapshots and appends the next ones', () => {
    let h = Insight.apply(null, msg(true, [0, 50], 2));
    expect(h.snapshots.map((s) => s.step)).toEqual([0, 50]);
    expect([...h.snapshots[1].attention]).toEqual(Array.from({ length: 12 }, (_, i) => 12 + i));
    expect([...h.snapshots[1].embedding]).toEqual([4, 5, 6, 7]);
    expect([...h.snapshots[1].positionLoss]).toEqual([13, 14, 15]);
    const same = Insight.apply(h, msg(false, [100], 3));
    expect(same).toBe(h);
    expect(h.snapshots.map((s) => s.step)).toEqual([0, 50, 100]);
    h = Insight.apply(h, msg(true, [0], 1));
    expect(h.snapshots.map((s) => s.step)).toEqual([0]);
  });

  it('finds the packed map of a layer and head: (L, NH, T(T+1)/2)', () => {
    const h = Insight.apply(null, msg(true, [0], 1));
    expect(h.mapOffset(0, 0)).toBe(0);
    expect(h.mapOffset(0, 1)).toBe(6);
  });
});

describe('crossings', () => {
  it('gives the first evaluated step at or under each baseline, null where none is', () => {
    const c = crossings(baselines, [0, 100, 200, 300], [5.5, 3.9, 3.0, 2.6]);
    expect(c).toEqual([
      { name: 'uniform', level: 4, step: 100 },
      { name: 'unigram', level: 3, step: 200 },
      { name: 'bigram', level: 2.5, step: null },
    ]);
  });
});
