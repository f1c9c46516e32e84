// The NaN guard as the page shows it (features/train/guard.ts): the undone steps leave the history and the
// chart, the events say which step, why, back to which step and the learning-rate scale, and the
// pause after three rollbacks in a row is kept until training goes on.
import { describe, expect, it } from 'vitest';

import { applyGuard, divergedStep, divergedWhy, initialGuard } from '../src/features/train/guard';
import { LossHistory } from '../src/features/train/history';
import type { RollbackInfo } from '../src/features/train/messages';

const history = (n: number) => {
  const h = new LossHistory();
  h.appendTrain(1, Array.from({ length: n }, (_, i) => 5 - i * 0.01));
  h.addVal(0, 5.5);
  h.addVal(100, 4);
  h.addVal(120, 3.9);
  return h;
};
const rollback = (failedStep: number, restoredStep: number, lrScale: number, why = 'the gradient norm is nan'): RollbackInfo =>
  ({ failedStep, restoredStep, lrScale, message: `training diverged at step ${failedStep + 1}: ${why}` });

describe('the NaN guard in the page', () => {
  it('names the step (counted from 1) and the reason the core gave', () => {
    const r = rollback(130, 100, 0.5, 'the loss is 31.2, worse than 22.2 (4 x a uniform guess)');
    expect(divergedStep(r)).toBe(131);
    expect(divergedWhy(r)).toBe('the loss is 31.2, worse than 22.2 (4 x a uniform guess)');
  });

  it('a slice without rollbacks changes nothing', () => {
    expect(applyGuard(history(10), initialGuard(), { firstStep: 0, rollbacks: [], paused: null })).toBeNull();
    expect(applyGuard(history(10), initialGuard(), { firstStep: 10, rollbacks: [], paused: null })).toBeNull();
  });

  it('drops the undone steps and their validation losses, keeping the exact curve before them', () => {
    const h = history(130);
    const g = applyGuard(h, initialGuard(), { firstStep: 100, rollbacks: [rollback(130, 100, 0.5)], paused: null })!;
    expect(g.history).not.toBe(h);   // a new history: the chart redraws from it
    expect(g.history.train.slice()).toEqual(h.train.slice(0, 100));
    expect(g.history.ema.slice()).toEqual(h.ema.slice(0, 100));
    expect(g.history.lastStep).toBe(100);
    expect(g.history.valSteps).toEqual([0, 100]);
    expect(g.guard).toEqual({ events: [rollback(130, 100, 0.5)], lrScale: 0.5, paused: null });
    // the next slice's losses continue the curve at step 101
    g.history.appendTrain(101, [4.2]);
    expect(g.history.lastStep).toBe(101);
  });

  it('back to step 0 empties the curve; three rollbacks in a row pause with the core\'s reason', () => {
    const events = [rollback(40, 0, 0.5), rollback(0, 0, 0.25), rollback(0, 0, 0.125)];
    const g = applyGuard(history(40), initialGuard(), { firstStep: 0, rollbacks: events, paused: { message: 'training diverged at step 1: the gradient norm is nan; training paused after 3 rollbacks in a row', code: 'train.paused', args: {} } })!;
    expect(g.history.train.slice()).toEqual([]);
    expect(g.history.valSteps).toEqual([0]);
    expect(g.guard.lrScale).toBe(0.125);
    expect(g.guard.events).toHaveLength(3);
    expect(g.guard.paused?.message).toMatch(/paused after 3 rollbacks/);
    expect(g.guard.paused?.code).toBe('train.paused');
  });
});
