import { describe, expect, it } from 'vitest';

import { toSessionConfig } from '../src/protocol';
import { KNOBS, PRESETS, checkCorpusLength, normalise, parseSettings, presetOf, sameModel, toFormValues } from '../src/settings';
import { loadScalar } from './wasm';

describe('settings', () => {
  it('parses the form of every preset back to the preset', () => {
    for (const [name, p] of Object.entries(PRESETS)) {
      const { settings, errors } = parseSettings(toFormValues(p));
      expect(errors).toEqual({});
      expect(settings).toEqual(p);
      expect(presetOf(settings!)).toBe(name);
    }
  });

  it('explains fields that are empty, not numbers, not whole, or too small', () => {
    const raw = toFormValues(PRESETS.small);
    const { settings, errors } = parseSettings({ ...raw, layers: '', heads: 'four', width: '12.5', batch: '0', lr: '0' });
    expect(settings).toBeNull();
    expect(errors).toEqual({
      layers: 'Layers is empty',
      heads: 'Heads must be a number',
      width: 'Width must be a whole number',
      batch: 'Batch must be at least 1',
      lr: 'Learning rate must be above 0',
    });
  });

  it('calls anything that differs from a preset custom', () => {
    expect(presetOf({ ...PRESETS.small, seed: 1 })).toBe('custom');
  });

  it('undoes float32 noise from the core', () => {
    const n = normalise({ ...PRESETS.tiny, lr: 0.003000000026077032, weightDecay: 0.10000000149011612 });
    expect(n.lr).toBe(0.003);
    expect(n.weightDecay).toBe(0.1);
    expect(presetOf(n)).toBe('tiny');
    expect(sameModel(n, PRESETS.tiny)).toBe(true);
  });

  it('needs a corpus of at least context + 1 bytes', () => {
    expect(checkCorpusLength({ context: 64 }, null)).toBe('');
    expect(checkCorpusLength({ context: 64 }, 65)).toBe('');
    expect(checkCorpusLength({ context: 64 }, 64)).toMatch(/fewer than context \+ 1 = 65/);
  });

  it('has a knob for every model setting', () => {
    expect(KNOBS.map((k) => k.key).sort()).toEqual(Object.keys(PRESETS.small).sort());
  });
});

describe('settings checked by the core (scalar wasm build)', () => {
  it('accepts every preset, S has the parameter count of config S, sizes grow', async () => {
    const M = await loadScalar();
    const est = Object.fromEntries(Object.entries(PRESETS).map(([n, p]) => {
      expect(M.validateConfig(toSessionConfig(p)), n).toBe('');
      return [n, M.estimate(toSessionConfig(p))];
    }));
    // the estimate is what a real session has (about 0.87 M for config S)
    const s = new M.Session(toSessionConfig(PRESETS.small));
    expect(est.small.parameters).toBe(s.numParameters());
    s.delete();
    expect(est.small.parameters).toBeGreaterThan(800_000);
    expect(est.small.parameters).toBeLessThan(900_000);
    expect(est.tiny.parameters).toBeLessThan(est.small.parameters);
    expect(est.small.parameters).toBeLessThan(est.medium.parameters);
    expect(est.small.trainingBytes).toBeLessThan(est.medium.trainingBytes);
  });

  it('explains impossible combinations with its own words', async () => {
    const M = await loadScalar();
    expect(M.validateConfig(toSessionConfig({ ...PRESETS.small, heads: 3 }))).toMatch(/not divisible by 3 heads/);
    expect(M.validateConfig(toSessionConfig({ ...PRESETS.small, layers: 96, width: 2048, heads: 16, batch: 64, context: 1024 }))).toMatch(/MiB/);
  });
});
