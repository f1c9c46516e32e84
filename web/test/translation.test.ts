// Translation mode in the page: the pure functions behind it (the features' derive.ts, utf8.ts)
// and the features over a fake worker (the messages the worker sends), with the schema, presets
// and tasks of the core itself (scalar wasm build) and real inspections from a seq2seq Session.
import { beforeAll, describe, expect, it } from 'vitest';

import { type Corpus as CorpusState, SEED_PAIR, corpusKindFor, defaultPair, modeCorpus, pairsReport, previewPairs } from '../src/features/data';
import { alignmentInput, attentionMap } from '../src/features/inspect';
import type { Alignment } from '../src/features/inspect/messages';
import type { Ready } from '../src/features/runtime';
import { describeModel } from '../src/features/session';
import { canStart, startBlockedReason, statusLine } from '../src/features/train';
import { LossHistory } from '../src/features/train/history';
import { presetsFor } from '../src/features/settings/schema';
import { formatPercent } from '../src/lib/format';
import { byteLabels, tokenLabels, windowSegments } from '../src/lib/utf8';
import { noteText } from '../src/ui/note';
import type { FullConfig, TinyGPTModule } from '../../wasm/tinygpt';
import { fakePage, settle } from './fake-worker';
import { loadScalar } from './wasm';

const enc = new TextEncoder();
let M: TinyGPTModule;
let ready: Ready;
let tiny: FullConfig;   // s2s-tiny
beforeAll(async () => {
  M = await loadScalar();
  const presets = M.presets();
  tiny = presets.find((p) => p.name === 's2s-tiny')!.config;
  ready = { variant: 'simd', backend: 'simd128', threads: 1, maxThreads: 1, threadSetting: 'auto', crossOriginIsolated: false, loadMs: 5, fallback: null,
    schema: M.configSchema(), presets, tasks: M.builtinTasks(), buildVariant: 'wasm-simd128' };
});

/** Every feature's state before anything happened, as one object (what the derived values read). */
const initialState = () => ({ ...fakePage().page.state.get() });
const empty = { train: new Float32Array(0), valSteps: new Float64Array(0), valLosses: new Float32Array(0), valExactMatch: new Float32Array(0), valCer: new Float32Array(0),
  valBitsPerByte: new Float32Array(0), tokensPerByte: 1 };
const verdict = { problems: [], parameters: 10, trainingBytes: 10 };

const pairsCorpus = (bytes: Uint8Array, name = 'p.tsv'): CorpusState => ({
  ref: { id: `x-${bytes.length}`, name, size: bytes.length, builtin: false, kind: 'pairs' }, stats: { size: bytes.length } as never,
  preview: bytes, kind: 'pairs', pairs: null,
});

describe('pairs in the page', () => {
  it('previews the lines "source<TAB>target" of a TSV head, leaving out a cut last line and lines the core skips', () => {
    const head = enc.encode('\ufeff我 爱 吃 火锅\tI like to eat hot pot\r\nno tab\n\tempty source\nabc\tcba\textra column\nlast line cut\tof');
    expect(previewPairs(head)).toEqual([SEED_PAIR, { source: 'abc', target: 'cba' }]);
    expect(previewPairs(head, 8, true).at(-1)).toEqual({ source: 'last line cut', target: 'of' });
    expect(previewPairs(head, 1)).toHaveLength(1);
    // the maps start at the seed's sentence when the data has it
    expect(defaultPair([{ source: 'a', target: 'b' }, SEED_PAIR])).toEqual(SEED_PAIR);
    expect(defaultPair([{ source: 'a', target: 'b' }])).toEqual({ source: 'a', target: 'b' });
    expect(defaultPair([])).toBeNull();
  });

  it('previews the same pairs as the core reads from a built-in task', () => {
    const tsv = M.builtinTask('zh-en', 1);
    const pairs = previewPairs(tsv, 5000, true);
    expect(pairs).toHaveLength(M.pairsReport(tsv, 64).pairs);
    expect(pairs).toContainEqual(SEED_PAIR);
  });

  it('takes the data of the mode: a text for the language model, pairs for the translator', () => {
    const s = initialState();
    s.ready = ready;
    s.settings = tiny;
    s.mode = 'seq2seq';
    expect(corpusKindFor('seq2seq')).toBe('pairs');
    s.corpus = { ref: { id: 't', name: 'a.txt', size: 100, builtin: false }, stats: { size: 100 } as never, preview: new Uint8Array(0), kind: 'text', pairs: null };
    expect(modeCorpus(s)).toBeNull();   // a text is no data for the translator
    expect(startBlockedReason(s)).toBe('Choose a task or a file of pairs first');
    expect(statusLine(s)).toBe('Choose a task or a file of pairs, then press Start.');
    s.corpus = pairsCorpus(enc.encode('a\tb\n'));
    s.validateId = 1;
    s.verdict = { id: 1, problems: [], parameters: 10, trainingBytes: 10 };
    expect(canStart(s)).toBe(true);     // pairs shorter than block_size + 1 bytes are fine: the core reads them
    expect(statusLine(s)).toMatch(/encoder-decoder/);
  });

  it('shows the core\'s report at the form\'s block_size while it is current, else the one taken with the data', () => {
    const s = initialState();
    s.mode = 'seq2seq';
    const taken = M.pairsReport(enc.encode('abc\tcba\nabcdefghij\tx\n'), 64);
    s.corpus = { ...pairsCorpus(enc.encode('abc\tcba\nabcdefghij\tx\n')), pairs: taken };
    expect(pairsReport(s)?.pairs).toBe(2);
    const now = M.pairsReport(enc.encode('abc\tcba\nabcdefghij\tx\n'), 9);
    s.validateId = 2;
    s.verdict = { id: 2, problems: [], parameters: 1, trainingBytes: 1, pairs: now };
    expect(pairsReport(s)?.report.message).toMatch(/1 pair from 2 lines; skipped: 1 longer than the model's 9-byte source/);
    s.validateId = 3;    // a newer form is being checked: the data's own report
    expect(pairsReport(s)?.pairs).toBe(2);
  });

  it('describes a translator, lists the mode\'s presets, and writes percentages', () => {
    expect(describeModel(tiny)).toBe('translator: 1 + 1 layers × 2 heads, width 32, d_ff 64, up to 64 bytes');
    expect(presetsFor(ready.presets, 'seq2seq').map((p) => p.name)).toEqual(['s2s-tiny', 's2s-small', 's2s-base']);
    expect(presetsFor(ready.presets, 'gpt').map((p) => p.name)).toEqual(['tiny', 'S', 'fast', 'M']);
    expect(formatPercent(0.8125)).toBe('81.3%');
    expect(formatPercent(1)).toBe('100%');
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(null)).toBe('—');
    expect(formatPercent(NaN)).toBe('—');
  });
});

describe('labels of the translator\'s maps', () => {
  it('labels bytes as characters, the bytes of a multi-byte one by position, the special tokens by name', () => {
    expect(byteLabels(enc.encode('a 我'))).toEqual(['a', '␣', '我 1/3', '我 2/3', '我 3/3']);
    expect(byteLabels(new Uint8Array([0x88, 0x91, 0x61]))).toEqual(['⟨88⟩', '⟨91⟩', 'a']);   // a window begun inside a character
    expect(windowSegments(new Uint8Array([0x88, 0x91, 0x61])).lead).toBe(2);
    expect(tokenLabels([256, ...enc.encode('我'), 257])).toEqual(['⟨BOS⟩', '我 1/3', '我 2/3', '我 3/3', '⟨EOS⟩']);
  });

  it('lays out a real inspection: cross-attention is target rows (the byte written, then the end) by source columns', () => {
    const s = new M.Session({ ...tiny, block_size: 9 });
    s.setCorpus(enc.encode('abc\tcba\nxy\tyx\n'));
    const r = s.inspectTranslation(enc.encode('ab'), enc.encode('我'));
    s.delete();
    const m: Alignment = { step: 0, ...r };
    const cross = attentionMap(m, 'cross');
    expect([cross.rows, cross.cols, cross.layers, cross.causal]).toEqual([4, 2, 1, false]);
    expect(cross.rowLabels).toEqual(['我 1/3', '我 2/3', '我 3/3', '⟨EOS⟩']);
    expect(cross.colLabels).toEqual(['a', 'b']);
    expect(cross.weights).toBe(m.cross);
    const dec = attentionMap(m, 'decoder');
    expect([dec.rows, dec.cols, dec.causal]).toEqual([4, 4, true]);
    expect(dec.colLabels).toEqual(['⟨BOS⟩', '我 1/3', '我 2/3', '我 3/3']);
    const encSelf = attentionMap(m, 'encoder');
    expect([encSelf.rows, encSelf.cols, encSelf.rowLabels]).toEqual([2, 2, ['a', 'b']]);
    // every row of every map is a distribution over its columns
    for (const v of [cross, dec, encSelf]) {
      for (let row = 0; row < v.layers * m.NH * v.rows; row++) {
        const sum = v.weights.subarray(row * v.cols, row * v.cols + v.cols).reduce((a, b) => a + b, 0);
        expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      }
    }
  });
});

describe('the features in translation mode', () => {
  const setup = () => {
    const { page, worker } = fakePage({ validate: () => verdict });
    worker.emit('ready', ready);
    return { page, worker };
  };
  const model = (config: FullConfig, step = 0) => ({ reason: 'create' as const, config, parameters: 1, step, hasCorpus: true, corpusMatches: true, corpusMismatch: null, memoryBytes: 1, history: empty, tokensPerByte: 1 });

  it('switches the mode: the translator\'s preset, a validation, the data of the mode; not while a model lives', async () => {
    const { page, worker } = setup();
    const { settings } = page;
    const modes: string[] = [];
    settings.onModeSwitched((m) => modes.push(m));
    expect(settings.$.get().mode).toBe('gpt');
    settings.setMode('seq2seq');
    const s = settings.$.get();
    expect(s.mode).toBe('seq2seq');
    expect(s.settings?.model).toBe('seq2seq');
    expect(s.settings?.n_enc_layer).toBe(2);          // s2s-small
    expect(modes).toEqual(['seq2seq']);
    expect(worker.of('validate').at(-1)?.config.model).toBe('seq2seq');
    await settle();
    expect(worker.of('builtinTask').at(-1)?.name).toBe('zh-en');   // the mode's data: its first task
    // the form of each mode is kept for when it comes back
    settings.setSettings({ ...s.settings!, d_ff: 96 });
    settings.setMode('gpt');
    expect(settings.$.get().settings?.model).toBe('gpt');
    settings.setMode('seq2seq');
    expect(settings.$.get().formSettings?.d_ff).toBe(96);
    // a live model fixes the mode
    worker.emit('model', model(tiny));
    settings.setMode('gpt');
    expect(settings.$.get().mode).toBe('seq2seq');
    await settle();
  });

  it('takes pairs from the worker with the core\'s report, and the pair the maps start with', async () => {
    const { page, worker } = setup();
    page.settings.setMode('seq2seq');
    await settle();   // the mode's first task is asked for
    const tsv = M.builtinTask('zh-en', 1);
    const c = pairsCorpus(tsv.slice(0, 16384), 'zh-en');
    void page.data.send(c.ref, tsv, c.stats);
    const before = worker.calls.length;
    worker.reply('setCorpus', { name: 'zh-en', size: tsv.length, pairs: M.pairsReport(tsv, 64) });
    await settle();
    expect(page.data.$.get().corpus?.pairs?.pairs).toBe(3000);
    expect(page.inspect.$.get().alignPair).toEqual(SEED_PAIR);
    expect(worker.calls.slice(before).map((m) => m.type)).toEqual(['validate']);   // the report at the form's block_size
  });

  it('restores a translator\'s history with exact match and CER, and follows its evaluations', async () => {
    const history = { train: new Float32Array([5, 4]), valSteps: new Float64Array([0, 2]), valLosses: new Float32Array([5.5, 3.5]),
      valExactMatch: new Float32Array([0, 0.25]), valCer: new Float32Array([1.25, 0.5]), valBitsPerByte: new Float32Array([8.1, 5.2]), tokensPerByte: 1.02 };
    const info = { reason: 'load' as const, name: 'r.ckpt', config: { ...tiny, max_iters: 10 }, parameters: 1, step: 2, hasCorpus: false, corpusMatches: false, corpusMismatch: null, memoryBytes: 1, history, tokensPerByte: 1.02 };
    const { page, worker } = fakePage({ validate: () => verdict, load: () => info });
    worker.emit('ready', ready);
    let restored = '';
    page.data.restoreFor = (kind) => {
      restored = kind;
      return true;
    };
    // a checkpoint file dropped on the page (its magic) is loaded over no model
    const file = new File([new TextEncoder().encode('TGPTCKPT and the rest')], 'r.ckpt');
    const loading = page.runs.loadCheckpointFile(file);
    await settle();
    expect(worker.of('load')[0].name).toBe('r.ckpt');
    worker.emit('model', info);
    await loading;
    let s = page.state.get();
    expect(s.mode).toBe('seq2seq');                  // loading a translator switches the mode
    expect(restored).toBe('pairs');                   // and brings back the pairs put aside
    expect(s.valExactMatch).toBe(0.25);
    expect(s.valCer).toBe(0.5);
    expect(s.history.valExactMatch).toEqual([0, 0.25]);
    worker.emit('evalResult', { step: 4, loss: 2, exactMatch: 0.5, cer: 0.25 });
    s = page.state.get();
    expect([s.valExactMatch, s.valCer]).toEqual([0.5, 0.25]);
    expect(s.history.valCer).toEqual([1.25, 0.5, 0.25]);
    // a language model's evaluation has none
    const h = new LossHistory();
    h.addVal(1, 2);
    expect(Number.isNaN(h.valExactMatch[0])).toBe(true);
    // evaluated again at the same step (the Evaluate button): replaced, as in the core's history
    h.addVal(1, 1.5, 0.75, 0.125);
    h.addVal(3, 1.25);
    expect([h.valSteps, h.valLosses, h.valExactMatch.slice(0, 1), h.valCer.slice(0, 1)]).toEqual([[1, 3], [1.5, 1.25], [0.75], [0.125]]);
    expect(h.columns.revision).toBe(3);   // each evaluation changed what the chart draws, the replaced one too
  });

  it('translates, and inspects the chosen pair, the last translation or one typed', async () => {
    const { page, worker } = setup();
    const { settings, translate, inspect } = page;
    settings.setMode('seq2seq');
    worker.emit('model', model(tiny, 7));
    translate.translate({ source: 'abc', beam: 3, temperature: 0 });
    const t = worker.of('translate').at(-1)!;
    expect(t.options).toEqual({ beam: 3 });
    expect(new TextDecoder().decode(t.source)).toBe('abc');
    expect(translate.$.get().translation?.busy).toBe(true);
    inspect.setAlignSource('translation');
    expect(noteText(inspect.$.get().inspectNote)).toBe('Translate something first.');
    worker.reply('translate', { step: 7, source: enc.encode('abc'), text: enc.encode('cba'), tokens: new Int32Array([99, 98, 97]), probs: new Float32Array([0.9, 0.8, 0.7, 0.6]), logProb: -1, finished: true, beam: 3, where: { route: 'host', ms: 2.25, syncMs: 14.5 } });
    await settle();
    expect(translate.$.get().translation?.busy).toBe(false);
    expect(alignmentInput({ ...inspect.$.get(), ...translate.$.get() })).toEqual({ source: 'abc', target: 'cba' });
    const ins = worker.of('inspectTranslation').at(-1)!;   // the maps follow the new translation
    expect(new TextDecoder().decode(ins.target)).toBe('cba');
    worker.fail('inspectTranslation', { message: 'superseded' });
    inspect.setAlignCustom({ source: 'xy', target: '' });
    inspect.setAlignSource('custom');
    const custom = worker.of('inspectTranslation').at(-1)!;
    expect(new TextDecoder().decode(custom.source)).toBe('xy');
    expect(inspect.$.get().inspectInFlight).toBe(true);
    await settle();
    worker.fail('inspectTranslation', { message: 'give a source text to look inside' });
    await settle();
    expect(inspect.$.get().inspectInFlight).toBe(false);
    expect(noteText(inspect.$.get().inspectNote)).toBe('Give a source text to look inside');
    translate.translate({ source: 'a much longer one', beam: 1, temperature: 0 });
    worker.fail('translate', { message: 'translate: the source has 18 bytes; this model reads at most 9' });
    await settle();
    expect(noteText(translate.$.get().translation?.note)).toMatch(/^Translate: the source has 18 bytes/);
    // sampled: a seed drawn for the request, sent with the temperature (no beam), kept with it
    translate.translate({ source: 'abc', beam: 1, temperature: 0.8 });
    const sampled = worker.of('translate').at(-1)!;
    const seed = translate.$.get().translation!.seed;
    expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31).toBe(true);
    expect(sampled.options).toEqual({ temperature: 0.8, seed });
    expect(translate.$.get().translation?.temperature).toBe(0.8);
  });
});
