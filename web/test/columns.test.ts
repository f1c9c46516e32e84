// features/train/columns.ts: the loss chart's columns stay bounded over a long run, keep every
// evaluated step (with its train loss), stay in step order, and draw every step of a short run.
import { describe, expect, it } from 'vitest';

import { ChartColumns } from '../src/features/train/columns';
import { LossHistory } from '../src/features/train/history';

const lossAt = (step: number) => 3 / Math.sqrt(step);

describe('the loss chart\'s columns (features/train/columns.ts)', () => {
  it('draws every step of a short run, and the evaluations where they were measured', () => {
    const h = new LossHistory();
    const c = new ChartColumns(64);
    h.appendTrain(1, [3, 2.5, 2.2]);
    expect(c.sync(h)).toBe('new');
    h.addVal(3, 2.4);
    h.appendTrain(4, [2.1]);
    expect(c.sync(h)).toBe('grew');
    expect(c.sync(h)).toBe('same');
    expect(c.x).toEqual([0, 1, 2, 3, 4]);
    expect(c.train).toEqual([null, 3, 2.5, Math.fround(2.2), Math.fround(2.1)]);   // float32, as the core's losses
    expect(c.val).toEqual([null, null, null, 2.4, null]);
    expect(c.ema[4]).toBeCloseTo(h.ema.at(3));
    // a second evaluation at the same step replaces the first
    h.addVal(3, 2.3);
    expect(c.sync(h)).toBe('grew');
    expect(c.val.filter((v) => v != null)).toEqual([2.3]);
  });

  it('stays within its bound over a long run, thinning the train steps and keeping every evaluation', () => {
    const h = new LossHistory();
    const c = new ChartColumns(256);
    const evals: number[] = [];
    // 20,000 steps in slices of 7, an evaluation every 250 steps, synced after every slice
    for (let s = 1; s <= 20_000; s += 7) {
      const n = Math.min(7, 20_001 - s);
      h.appendTrain(s, Array.from({ length: n }, (_, i) => lossAt(s + i)));
      for (let i = 0; i < n; i++) if ((s + i) % 250 === 0) (h.addVal(s + i, lossAt(s + i) + 0.1), evals.push(s + i));
      c.sync(h);
      expect(c.x.length).toBeLessThanOrEqual(256);
    }
    expect(c.stride).toBeGreaterThan(64);
    for (let j = 1; j < c.x.length; j++) expect(c.x[j]).toBeGreaterThan(c.x[j - 1]);
    // every evaluation is drawn, at its step, with the train loss of that step beside it (no gap)
    expect(c.x.filter((_, j) => c.val[j] != null)).toEqual(evals);
    for (let j = 1; j < c.x.length; j++) {
      expect(c.train[j]).toBeCloseTo(Math.fround(lossAt(c.x[j])), 12);   // float32, as the core's losses
      if (c.x[j] % c.stride !== 0) expect(c.val[j]).not.toBeNull();
    }
    // the cursor's column names its step; off the chart: Infinity (the legends show the latest)
    expect(c.stepAt(c.x.length - 1)).toBe(c.x[c.x.length - 1]);
    expect(c.stepAt(null)).toBe(Infinity);
  });

  it('the same columns whether synced step by step or all at once', () => {
    const a = new LossHistory();
    const b = new LossHistory();
    const ca = new ChartColumns(100);
    const cb = new ChartColumns(100);
    for (let s = 1; s <= 3000; s++) {
      a.appendTrain(s, [lossAt(s)]);
      b.appendTrain(s, [lossAt(s)]);
      if (s % 400 === 0) (a.addVal(s, 1), b.addVal(s, 1));
      ca.sync(a);
    }
    cb.sync(b);
    expect(ca.x).toEqual(cb.x);
    expect(ca.train).toEqual(cb.train);
    expect(ca.val).toEqual(cb.val);
  });

  it('starts over for another history', () => {
    const c = new ChartColumns(32);
    const long = new LossHistory();
    long.appendTrain(1, Array.from({ length: 500 }, (_, i) => lossAt(i + 1)));
    c.sync(long);
    expect(c.stride).toBeGreaterThan(1);
    const next = new LossHistory();
    expect(c.sync(next)).toBe('new');
    expect(c.x).toEqual([0]);
    expect(c.stride).toBe(1);
  });
});
