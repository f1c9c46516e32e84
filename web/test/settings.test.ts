import { describe, expect, it } from 'vitest';

import { checkCorpusLength, keepsTokenizer, knobsFor, normalise, parseSettings, presetOf, presetsFor, toFormValues } from '../src/features/settings/schema';
import { loadScalar } from './wasm';

// Every knob of the page comes from the core's schema: these tests take the schema and the
// presets from the module itself (scalar wasm build), as the page does.
const core = async () => {
  const M = await loadScalar();
  const schema = M.configSchema();
  const presets = M.presets();
  return { M, schema, presets, knobs: knobsFor(schema, 'gpt') };
};

describe('settings from the core schema', () => {
  it('the page has one knob per schema field of the model kind, named as in the schema and the CLI', async () => {
    const { schema, knobs } = await core();
    expect(knobs.map((k) => k.name)).toEqual(schema.filter((f) => f.type !== 'choice' && f.kinds.includes('gpt')).map((f) => f.name));
    expect(knobs.map((k) => k.name)).toContain('n_layer');
    expect(knobs.map((k) => k.name)).toContain('eval_interval');
    for (const k of knobs) {
      expect(k.label.length).toBeGreaterThan(0);
      expect(k.help.length).toBeGreaterThan(10);
    }
  });

  it('parses the form of every preset back to the preset', async () => {
    const { schema, presets } = await core();
    for (const p of presets) {
      // the form of the preset's model kind, among that kind's presets (settings/panel.ts)
      const knobs = knobsFor(schema, p.config.model);
      const { settings, errors } = parseSettings(knobs, p.config, toFormValues(knobs, p.config));
      expect(errors).toEqual({});
      expect(settings).toEqual(p.config);
      expect(presetOf(knobs, presetsFor(presets, p.config.model), settings!)).toBe(p.name);
    }
  });

  it('explains fields that are empty or not numbers; the core explains the rest per field', async () => {
    const { M, presets, knobs } = await core();
    const S = presets.find((p) => p.name === 'S')!.config;
    const raw = toFormValues(knobs, S);
    const { settings, errors } = parseSettings(knobs, S, { ...raw, n_layer: '', n_head: 'four' });
    expect(settings).toBeNull();
    expect(errors).toEqual({ n_layer: 'Layers is empty', n_head: 'Heads must be a number' });
    const parsed = parseSettings(knobs, S, { ...raw, n_embd: '12.5', batch_size: '0', n_head: '3' }).settings!;
    const fields = M.checkConfig(parsed).problems.map((p) => p.field);
    expect(fields).toEqual(['n_embd', 'batch_size']);  // the range problems first; the rules between fields after
    expect(M.checkConfig({ ...S, n_head: 3 }).problems).toEqual([
      { field: 'n_embd', message: 'n_embd 128 is not divisible by n_head 3 (each head gets n_embd / n_head channels)',
        code: 'config.heads_divide', args: { n_embd: '128', n_head: '3' } },  // coded for the page's wording (core error.h)
    ]);
  });

  it('calls anything that differs from a preset custom', async () => {
    const { presets, knobs } = await core();
    expect(presetOf(knobs, presets, { ...presets[1].config, seed: 1 })).toBe('custom');
  });

  it('a preset keeps the tokenizer the person chose, but not the vocabulary of the fast preset', async () => {
    const { presets } = await core();
    const by = (name: string) => presets.find((p) => p.name === name)!;
    const fast = by('fast').config;
    expect(fast.tokenizer).toBe('bpe');
    expect(fast.vocab_size).toBe(4096);
    // from fast (the page's default) to S: S's bytes, not S on fast's vocabulary
    expect(keepsTokenizer(presets, by('S'), fast)).toBe(false);
    // a BPE vocabulary chosen in the form stays with S and tiny
    expect(keepsTokenizer(presets, by('S'), { ...by('tiny').config, tokenizer: 'bpe', vocab_size: 1024 })).toBe(true);
    expect(keepsTokenizer(presets, by('tiny'), { ...fast, vocab_size: 1024 })).toBe(true);
    // fast brings its own vocabulary over any form
    expect(keepsTokenizer(presets, by('fast'), { ...by('S').config, tokenizer: 'bpe', vocab_size: 1024 })).toBe(false);
  });

  it('undoes float32 noise from the core', async () => {
    const { schema, presets, knobs } = await core();
    const tiny = presets.find((p) => p.name === 'tiny')!.config;
    const n = normalise(schema, { ...tiny, learning_rate: 0.003000000026077032, weight_decay: 0.10000000149011612 });
    expect(n.learning_rate).toBe(0.003);
    expect(n.weight_decay).toBe(0.1);
    expect(presetOf(knobs, presets, n)).toBe('tiny');
  });

  it('needs a corpus of at least block_size + 1 bytes', () => {
    expect(checkCorpusLength({ block_size: 64 }, null)).toBe('');
    expect(checkCorpusLength({ block_size: 64 }, 65)).toBe('');
    expect(checkCorpusLength({ block_size: 64 }, 64)).toMatch(/fewer than block_size \+ 1 = 65/);
  });

  it('accepts every preset; S has the parameter count of config S; sizes grow', async () => {
    const { M, presets } = await core();
    const est = Object.fromEntries(presets.map((p) => {
      const c = M.checkConfig(p.config);
      expect(c.problems, p.name).toEqual([]);
      return [p.name, c];
    }));
    // the estimate is what a real session has (about 0.87 M for config S)
    const s = new M.Session(presets.find((p) => p.name === 'S')!.config);
    expect(est.S.parameters).toBe(s.numParameters());
    s.delete();
    expect(est.S.parameters).toBeGreaterThan(800_000);
    expect(est.S.parameters).toBeLessThan(900_000);
    expect(est.tiny.parameters).toBeLessThan(est.S.parameters);
    expect(est.S.parameters).toBeLessThan(est.M.parameters);
    expect(est.S.trainingBytes).toBeLessThan(est.M.trainingBytes);
    expect(M.checkConfig({ n_layer: 96, n_embd: 2048, n_head: 16, batch_size: 64, block_size: 1024 }).problems[0].message).toMatch(/MiB/);
  });
});
