// Where a translation runs on WebGPU: the GPU's decoder or the host's CPU, chosen by measurement (route.ts).
import { describe, expect, it } from 'vitest';
import { TranslateRouter, units } from '../src/features/translate/route';

describe('translate route', () => {
  it('measures the GPU, then the host, then takes the cheaper, the weights\' return counted only when due', () => {
    const r = new TranslateRouter();
    const n = units(4, 9);   // a beam of 4, 9 source bytes: 40 row-tokens
    expect(n).toBe(40);
    expect(r.choose('beam', n, false).route).toBe('gpu');
    r.record('gpu', 'beam', 80, n);          // 2 ms a row-token
    expect(r.choose('beam', n, false).route).toBe('host');
    r.record('host', 'beam', 8, n);          // 0.2 ms a row-token
    r.recordSync(100);
    // host 8 + 100 (the weights changed since) against 80 on the GPU
    expect(r.estimate('host', 'beam', n, false)).toBeCloseTo(108);
    expect(r.choose('beam', n, false).route).toBe('gpu');
    // the weights are on the host already (training paused): 8 against 80
    expect(r.choose('beam', n, true).route).toBe('host');
    // a longer translation pays the weights' return once: 200 row-tokens, host 40 + 100 against GPU 400
    expect(r.choose('beam', 200, false).route).toBe('host');
    // each mode is measured on its own
    expect(r.choose('sampled', units(1, 9), true)).toEqual({ route: 'gpu', why: 'measure' });
  });

  it('measures the other route again every 16th translation, and averages what it measures', () => {
    const r = new TranslateRouter();
    r.record('gpu', 'greedy', 10, 10);   // 1 ms a unit
    r.record('host', 'greedy', 5, 10);   // 0.5
    const picks = Array.from({ length: 32 }, () => r.choose('greedy', 10, true).route);
    expect(picks.filter((p) => p === 'gpu').length).toBe(2);
    expect(picks[15]).toBe('gpu');
    expect(picks[31]).toBe('gpu');
    expect(r.choose('greedy', 10, true)).toEqual({ route: 'host', why: 'faster' });
    // a second measurement moves the estimate half way: the host at 0.5, then 2.5 a unit -> 1.5
    r.record('host', 'greedy', 25, 10);
    expect(r.estimate('host', 'greedy', 10, true)).toBeCloseTo(15);
    expect(r.choose('greedy', 10, true)).toEqual({ route: 'gpu', why: 'faster' });
  });
});
