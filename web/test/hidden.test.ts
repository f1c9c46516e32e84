// The recurrent models in the page: the model kinds' families, the architecture choice's preset
// of the same size, and the hidden-state view's pure functions against the core's trace (scalar
// wasm build), and its catalogue against the core's pattern list.
import { describe, expect, it } from 'vitest';

import { en } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { KINDS_OF, isRecurrent, isTranslator, modeOf } from '../src/lib/model-kind';
import { presetForKind } from '../src/features/settings/schema';
import { activationColor, activationKinds, byteGlyph, gateNames, seriesScale, tokenGlyph, traceCells, unitSeries } from '../src/features/hidden/derive';
import { loadScalar, shakespeare } from './wasm';

describe('model kinds', () => {
  it('sorts every kind of the core into a family: language models and translators', async () => {
    const M = await loadScalar();
    const kinds = M.configSchema().find((f) => f.name === 'model')!.choices;
    expect([...KINDS_OF.gpt, ...KINDS_OF.seq2seq].sort()).toEqual([...kinds].sort());
    expect(kinds.filter(isRecurrent)).toEqual(['rnn', 'gru', 'lstm']);
    expect(kinds.filter(isTranslator)).toEqual(['seq2seq', 'lstm_seq2seq']);
    expect(kinds.map(modeOf)).toEqual(kinds.map((k) => (KINDS_OF.seq2seq.includes(k as never) ? 'seq2seq' : 'gpt')));
  });

  it('picks the preset of the same size when the architecture changes', async () => {
    const presets = (await loadScalar()).presets();
    expect(presetForKind(presets, 'lstm', 'S')?.name).toBe('lstm-S');
    expect(presetForKind(presets, 'gru', 'tiny')?.name).toBe('gru-tiny');
    expect(presetForKind(presets, 'rnn', 'custom')?.name).toBe('rnn-S');
    expect(presetForKind(presets, 'gpt', 'lstm-tiny')?.name).toBe('tiny');
    expect(presetForKind(presets, 'lstm_seq2seq', 's2s-small')?.name).toBe('s2s-lstm');
    // sizes comparable in parameters: each S-sized recurrent preset within 15% of S
    const S = presets.find((p) => p.name === 'S')!;
    const M = await loadScalar();
    const params = (c: object) => M.checkConfig(c).parameters;
    for (const k of ['lstm', 'gru', 'rnn']) expect(Math.abs(params(presets.find((p) => p.name === `${k}-S`)!.config) / params(S.config) - 1)).toBeLessThan(0.15);
  });
});

describe('the hidden-state view', () => {
  it('reads one unit of the core\'s trace: h, c and each gate', async () => {
    const M = await loadScalar();
    const s = new M.Session({ ...M.presets().find((p) => p.name === 'lstm-tiny')!.config, n_layer: 2, n_hidden: 8 });
    const text = new TextEncoder().encode('to be, or not');
    const tr = M.hiddenTrace(s, text);
    expect(gateNames(tr.kind)).toEqual(['i', 'f', 'g', 'o']);
    expect(activationKinds(tr.kind)).toEqual(['h', 'c', 'i', 'f', 'g', 'o']);
    const h = unitSeries(tr, 1, 3, 'h');
    expect(h.length).toBe(text.length);
    expect(h[5]).toBe(tr.h[(1 * tr.T + 5) * tr.H + 3]);
    const o = unitSeries(tr, 1, 3, 'o');
    const c = unitSeries(tr, 1, 3, 'c');
    // the LSTM's own identity: h = o tanh(c), unit by unit
    for (let t = 0; t < tr.T; t++) expect(h[t]).toBeCloseTo(o[t] * Math.tanh(c[t]), 5);
    expect(unitSeries(tr, 1, 3, 'z').every((x) => x === 0)).toBe(true);   // a GRU's gate: none here
    expect(unitSeries(tr, 5, 3, 'h').every((x) => x === 0)).toBe(true);   // no layer 5
    s.delete();
    const g = new M.Session(M.presets().find((p) => p.name === 'gru-tiny')!.config);
    g.setCorpus(shakespeare().subarray(0, 20000));
    expect(gateNames(M.hiddenTrace(g, text).kind)).toEqual(['r', 'z', 'n']);
    g.delete();
  });

  it('colours values on one scale: blue below zero, white at zero, red above', () => {
    expect(seriesScale([0.5, -2, 1])).toBe(2);
    expect(seriesScale([0, 0])).toBe(1);
    expect(activationColor(0, 1)).toBe('rgb(255, 255, 255)');
    expect(activationColor(2, 2)).toBe('rgb(255, 0, 0)');
    expect(activationColor(-1, 2)).toBe('rgb(128, 128, 255)');
    expect(activationColor(-9, 2)).toBe('rgb(0, 0, 255)');   // clamped
    expect([byteGlyph(10), byteGlyph(32), byteGlyph(65), byteGlyph(0xe4)]).toEqual(['⏎', '·', 'A', 'e4']);
  });

  it('words every pattern of the core: the English is the core\'s, and there is a Chinese wording', async () => {
    const patterns = (await loadScalar()).hiddenPatterns();
    expect(patterns.map((p) => p.name)).toContain('quote');
    for (const p of patterns) {
      expect(en.hidden.patterns[p.name], p.name).toBe(p.description);
      expect(zhCN.hidden.patterns[p.name], p.name).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(Object.keys(en.hidden.patterns).sort()).toEqual(patterns.map((p) => p.name).sort());
  });
});

describe('the hidden-state view of a BPE model', () => {
  it('shows one cell per token, labelled by its text, a line ending in the token that holds the newline', () => {
    const text = new TextEncoder().encode('the king\nsang "low"');
    // tokens: "the", " king", "\n", "sang", " \"", "low", "\""  (ends: byte offsets after each)
    const tr = { T: 7, labels: ['the', ' king', '\\n', 'sang', ' "', 'low', '"'], ends: new Int32Array([3, 8, 9, 13, 15, 18, 19]) };
    const cells = traceCells(tr, text, true);
    expect(cells.map((c) => c.glyph)).toEqual(['the', '·king', '⏎', 'sang', '·"', 'low', '"']);
    expect(cells.map((c) => c.newline)).toEqual([false, false, true, false, false, false, false]);
    // a byte model's cells are its bytes, whatever labels the trace has
    const bytes = traceCells({ T: 9, labels: [], ends: new Int32Array(0) }, text, false);
    expect(bytes.map((c) => c.glyph).join('')).toBe('the·king⏎');
    expect(bytes[8].newline).toBe(true);
    expect(tokenGlyph('a b\\nc')).toBe('a·b⏎c');
  });

  it('words the trace in tokens for a BPE model, in English and Chinese', () => {
    expect(en.hidden.tracedTokens(12, 300, 2, 64)).toMatch(/^Traced 12 tokens at step 300: 2 layers of 64 units\. This model reads BPE tokens/);
    expect(zhCN.hidden.tracedTokens(12, 300, 2, 64)).toMatch(/^已在第 300 步追踪 12 个词元：2 层，每层 64 个单元。这个模型读 BPE 词元/);
  });
});
