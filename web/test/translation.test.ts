// Translation mode in the page: the pure functions behind it (derive.ts, utf8.ts) and the
// controller with a fake worker client (the messages the worker sends), with the schema, presets
// and tasks of the core itself (scalar wasm build) and real inspections from a seq2seq Session.
import { beforeAll, describe, expect, it } from 'vitest';

import { Controller } from '../src/app/controller';
import {
  SEED_PAIR, alignmentInput, attentionMap, canStart, corpusKindFor, defaultPair, describeModel, formatPercent, modeCorpus, pairsReport,
  previewPairs, startBlockedReason, statusLine,
} from '../src/app/derive';
import { LossHistory } from '../src/app/history';
import { type CorpusState, createPageStore, initialState } from '../src/app/state';
import { noteText } from '../src/ui/note';
import type { FullConfig, Ready, ToWorker, TranslationInspectionMsg } from '../src/protocol';
import { presetsFor } from '../src/settings';
import { byteLabels, tokenLabels, windowSegments } from '../src/utf8';
import { FakeClient } from './fake-client';
import { loadScalar } from './wasm';
import type { TinyGPTModule } from '../../wasm/tinygpt';

const enc = new TextEncoder();
let M: TinyGPTModule;
let ready: Ready;
let tiny: FullConfig;   // s2s-tiny
beforeAll(async () => {
  M = await loadScalar();
  const presets = M.presets();
  tiny = presets.find((p) => p.name === 's2s-tiny')!.config;
  ready = { type: 'ready', variant: 'simd', backend: 'simd128', threads: 1, maxThreads: 1, crossOriginIsolated: false, loadMs: 5,
    schema: M.configSchema(), presets, tasks: M.builtinTasks() };
});

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
    expect(presetsFor(ready.presets, 'gpt').map((p) => p.name)).toEqual(['tiny', 'S', 'M']);
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
    const m: TranslationInspectionMsg = { type: 'translationInspection', id: 1, step: 0, ...r };
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

describe('the controller in translation mode', () => {
  const setup = () => {
    const store = createPageStore();
    const client = new FakeClient();
    const c = new Controller(store, client);
    const modes: string[] = [];
    c.modeChanged = (m) => modes.push(m);
    client.emit(ready);
    return { store, client, c, modes };
  };

  it('switches the mode: the translator\'s preset, a validation, the data of the mode; not while a model lives', () => {
    const { store, client, c, modes } = setup();
    expect(store.get().mode).toBe('gpt');
    c.setMode('seq2seq');
    const s = store.get();
    expect(s.mode).toBe('seq2seq');
    expect(s.settings?.model).toBe('seq2seq');
    expect(s.settings?.n_enc_layer).toBe(2);          // s2s-small
    expect(modes).toEqual(['seq2seq']);
    const v = client.sent.at(-1) as Extract<ToWorker, { type: 'validate' }>;
    expect(v.type).toBe('validate');
    expect(v.config.model).toBe('seq2seq');
    // the form of each mode is kept for when it comes back
    c.setSettings({ ...s.settings!, d_ff: 96 });
    c.setMode('gpt');
    expect(store.get().settings?.model).toBe('gpt');
    c.setMode('seq2seq');
    expect(store.get().formSettings?.d_ff).toBe(96);
    // a live model fixes the mode
    client.emit({ type: 'model', reason: 'create', config: tiny, parameters: 1, step: 0, hasCorpus: true, corpusMatches: true, memoryBytes: 1,
      history: { train: new Float32Array(0), valSteps: new Float64Array(0), valLosses: new Float32Array(0) } });
    c.setMode('gpt');
    expect(store.get().mode).toBe('seq2seq');
  });

  it('takes pairs from the worker with the core\'s report, and the pair the maps start with', () => {
    const { store, client, c } = setup();
    c.setMode('seq2seq');
    const tsv = M.builtinTask('zh-en', 1);
    store.set({ ...store.get(), pendingCorpus: pairsCorpus(tsv.slice(0, 16384), 'zh-en') });
    const sentBefore = client.sent.length;
    client.emit({ type: 'corpus', name: 'zh-en', size: tsv.length, pairs: M.pairsReport(tsv, 64) });
    const s = store.get();
    expect(s.corpus?.pairs?.pairs).toBe(3000);
    expect(s.alignPair).toEqual(SEED_PAIR);
    expect(client.sent.slice(sentBefore).map((m) => m.type)).toEqual(['validate']);   // the report at the form's block_size
  });

  it('restores a translator\'s history with exact match and CER, and follows its evaluations', () => {
    const store = createPageStore();
    const client = new FakeClient();
    const c = new Controller(store, client);
    let restored = '';
    c.restoreData = (kind) => {
      restored = kind;
      return true;
    };
    client.emit(ready);
    const history = { train: new Float32Array([5, 4]), valSteps: new Float64Array([0, 2]), valLosses: new Float32Array([5.5, 3.5]),
      valExactMatch: new Float32Array([0, 0.25]), valCer: new Float32Array([1.25, 0.5]) };
    client.emit({ type: 'model', reason: 'load', name: 'r.ckpt', config: { ...tiny, max_iters: 10 }, parameters: 1, step: 2, hasCorpus: false,
      corpusMatches: false, memoryBytes: 1, history });
    let s = store.get();
    expect(s.mode).toBe('seq2seq');                  // loading a translator switches the mode
    expect(restored).toBe('pairs');                   // and brings back the pairs put aside
    expect(s.valExactMatch).toBe(0.25);
    expect(s.valCer).toBe(0.5);
    expect(s.history.valExactMatch).toEqual([0, 0.25]);
    client.emit({ type: 'evalResult', step: 4, loss: 2, exactMatch: 0.5, cer: 0.25 });
    s = store.get();
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
    expect(h.valRevision).toBe(3);
  });

  it('translates, and inspects the chosen pair, the last translation or one typed', () => {
    const { store, client, c } = setup();
    c.setMode('seq2seq');
    client.emit({ type: 'model', reason: 'create', config: tiny, parameters: 1, step: 7, hasCorpus: true, corpusMatches: true, memoryBytes: 1,
      history: { train: new Float32Array(0), valSteps: new Float64Array(0), valLosses: new Float32Array(0) } });
    c.translate({ source: 'abc', beam: 3 });
    const t = client.sent.at(-1) as Extract<ToWorker, { type: 'translate' }>;
    expect(t.type).toBe('translate');
    expect(t.options).toEqual({ beam: 3 });
    expect(new TextDecoder().decode(t.source)).toBe('abc');
    expect(store.get().translation?.busy).toBe(true);
    c.setAlignSource('translation');
    expect(noteText(store.get().inspectNote)).toBe('Translate something first.');
    client.emit({ type: 'translation', id: t.id, step: 7, source: enc.encode('abc'), text: enc.encode('cba'), probs: new Float32Array([0.9, 0.8, 0.7, 0.6]),
      logProb: -1, finished: true, beam: 3 });
    expect(store.get().translation?.busy).toBe(false);
    expect(alignmentInput(store.get())).toEqual({ source: 'abc', target: 'cba' });
    const ins = client.sent.at(-1) as Extract<ToWorker, { type: 'inspectTranslation' }>;
    expect(ins.type).toBe('inspectTranslation');   // the maps follow the new translation
    expect(new TextDecoder().decode(ins.target)).toBe('cba');
    c.setAlignCustom({ source: 'xy', target: '' });
    c.setAlignSource('custom');
    const custom = client.sent.at(-1) as Extract<ToWorker, { type: 'inspectTranslation' }>;
    expect(new TextDecoder().decode(custom.source)).toBe('xy');
    expect(store.get().inspectInFlight).toBe(true);
    client.emit({ type: 'error', message: 'give a source text to look inside', recoverable: true, during: 'inspectTranslation' });
    expect(store.get().inspectInFlight).toBe(false);
    expect(noteText(store.get().inspectNote)).toBe('Give a source text to look inside');
    client.emit({ type: 'error', message: 'translate: the source has 18 bytes; this model reads at most 9', recoverable: true, during: 'translate' });
    expect(noteText(store.get().translation?.note)).toMatch(/^Translate: the source has 18 bytes/);
  });
});
