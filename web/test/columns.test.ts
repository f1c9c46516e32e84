// features/train/columns.ts: the loss chart's columns stay bounded over a long run, keep every
// evaluated step (with its train loss), stay in step order, and draw every step of a short run.
import { describe, expect, it } from 'vitest';

import { LossHistory, Recent } from '../src/features/train/history';

const lossAt = (step: number) => 3 / Math.sqrt(step);

describe('the loss chart\'s columns (features/train/columns.ts)', () => {
  it('draws every step of a short run, and the evaluations where they were measured', () => {
    const h = new LossHistory(64);
    const c = h.columns;
    h.appendTrain(1, [3, 2.5, 2.2]);
    const r0 = c.revision;
    h.addVal(3, 2.4);
    h.appendTrain(4, [2.1]);
    expect(c.revision).toBeGreaterThan(r0);
    expect(c.x).toEqual([0, 1, 2, 3, 4]);
    expect(c.train).toEqual([null, 3, 2.5, Math.fround(2.2), Math.fround(2.1)]);   // float32, as the core's losses
    expect(c.val).toEqual([null, null, null, 2.4, null]);
    expect(c.ema[4]).toBeCloseTo(h.ema.at(3));
    // a second evaluation at the same step replaces the first
    const r1 = c.revision;
    h.addVal(3, 2.3);
    expect(c.revision).toBeGreaterThan(r1);
    expect(c.val.filter((v) => v != null)).toEqual([2.3]);
  });

  it('stays within its bound over a long run, thinning the train steps and keeping every evaluation', () => {
    const h = new LossHistory(256);
    const c = h.columns;
    const arrays = [c.x, c.train, c.ema, c.val, c.exact, c.cer];
    const evals: number[] = [];
    // 20,000 steps in slices of 7, an evaluation every 250 steps (after its slice, as the worker sends them)
    for (let s = 1; s <= 20_000; s += 7) {
      const n = Math.min(7, 20_001 - s);
      h.appendTrain(s, Array.from({ length: n }, (_, i) => lossAt(s + i)));
      for (let i = 0; i < n; i++) if ((s + i) % 250 === 0) (h.addVal(s + i, lossAt(s + i) + 0.1), evals.push(s + i));
      expect(c.x.length).toBeLessThanOrEqual(256);
    }
    expect(c.stride).toBeGreaterThan(64);
    // thinned in place: the chart keeps drawing the same arrays (columns.ts says why)
    expect([c.x, c.train, c.ema, c.val, c.exact, c.cer].every((a, k) => a === arrays[k])).toBe(true);
    expect(new Set([c.x, c.train, c.ema, c.val, c.exact, c.cer].map((a) => a.length)).size).toBe(1);
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

  it('the same columns whether the steps come one by one or in one slice', () => {
    const a = new LossHistory(100);
    const b = new LossHistory(100);
    for (let s = 1; s <= 3000; s++) {
      a.appendTrain(s, [lossAt(s)]);
      if (s % 400 === 0) a.addVal(s, 1);
    }
    b.appendTrain(1, Array.from({ length: 3000 }, (_, i) => lossAt(i + 1)));
    for (let s = 400; s <= 3000; s += 400) b.addVal(s, 1);
    expect(a.columns.x).toEqual(b.columns.x);
    expect(a.columns.train).toEqual(b.columns.train);
    expect(a.columns.val).toEqual(b.columns.val);
  });
});

describe('the loss history (features/train/history.ts) keeps no per-step series of the whole run', () => {
  it('holds the last RECENT steps, counts them all, and says so for an older one', () => {
    const r = new Recent(8);
    for (let i = 0; i < 20; i++) r.push(i);
    expect(r.length).toBe(20);
    expect(r.start).toBe(12);
    expect(r.slice(12)).toEqual([12, 13, 14, 15, 16, 17, 18, 19]);
    expect(r.last()).toBe(19);
    expect(() => r.at(11)).toThrow(/not held/);
    expect(r.truncated(15).slice(12)).toEqual([12, 13, 14]);
    expect(r.truncated(15).length).toBe(15);
  });

  it('a long run: the columns and the recent steps are bounded, the moving average the same as a full series\'', () => {
    const h = new LossHistory(128, 64);
    let ema = 0;
    for (let s = 1; s <= 50_000; s++) {
      const l = Math.fround(lossAt(s));
      h.appendTrain(s, [l]);
      ema = 0.9 * ema + 0.1 * l;
    }
    expect(h.lastStep).toBe(50_000);
    expect(h.columns.x.length).toBeLessThanOrEqual(129);
    expect(h.train.start).toBe(50_000 - 64);
    expect(h.smoothed()).toBeCloseTo(ema / (1 - Math.pow(0.9, 50_000)), 12);
    expect(h.ema.last()).toBeCloseTo(h.smoothed()!, 6);
  });

  it('a rollback within the recent steps goes on exactly as if the undone steps never were', () => {
    const full = new LossHistory(64, 256);
    const rolled = new LossHistory(64, 256);
    for (let s = 1; s <= 1000; s++) {
      full.appendTrain(s, [lossAt(s)]);
      rolled.appendTrain(s, [lossAt(s)]);
      if (s % 100 === 0) (full.addVal(s, 1), rolled.addVal(s, 1));
    }
    for (let s = 1001; s <= 1050; s++) rolled.appendTrain(s, [5 + s]);   // diverging steps, then undone
    rolled.addVal(1050, 9);
    const back = rolled.truncatedAt(1000);
    expect(back.lastStep).toBe(1000);
    expect(back.valSteps).toEqual(full.valSteps);
    expect(back.columns.x).toEqual(full.columns.x);
    expect(back.columns.train).toEqual(full.columns.train);
    for (let s = 1001; s <= 1200; s++) (full.appendTrain(s, [lossAt(s)]), back.appendTrain(s, [lossAt(s)]));
    expect(back.smoothed()).toBeCloseTo(full.smoothed()!, 12);
    expect(back.train.slice(1200 - 256)).toEqual(full.train.slice(1200 - 256));
    expect(back.columns.x).toEqual(full.columns.x);
    expect(back.columns.ema).toEqual(full.columns.ema);
  });

  it('a rollback past the recent steps keeps the drawn curve and goes on from the nearest column\'s average', () => {
    const h = new LossHistory(64, 16);
    for (let s = 1; s <= 1000; s++) h.appendTrain(s, [lossAt(s)]);
    const back = h.truncatedAt(500);
    expect(back.lastStep).toBe(500);
    expect(back.train.length).toBe(500);
    expect(back.columns.x[back.columns.x.length - 1]).toBeLessThanOrEqual(500);
    const near = back.columns.lastEma()!;
    expect(back.smoothed()).toBeCloseTo(near, 12);
    expect(Math.abs(near - h.columns.ema[h.columns.x.indexOf(back.columns.x[back.columns.x.length - 1])]!)).toBe(0);
  });
});
