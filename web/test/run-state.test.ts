// The page's state: derived values, key-wise subscriptions, and the features turning the worker's
// events and replies into state (over a fake worker: the same messages the real one sends).
import { beforeAll, describe, expect, it } from 'vitest';

import { map, patch, watch } from '../src/app/store';
import { tokenLosses } from '../src/features/inspect';
import type { Ready } from '../src/features/runtime';
import { sampleText } from '../src/features/sample';
import { normalise } from '../src/features/settings';
import { canStart, etaMs, STALL_MS, stalledFor, startBlockedReason, startLabel, statusLine } from '../src/features/train';
import { LossHistory } from '../src/features/train/history';
import type { FullConfig, Preset } from '../../wasm/tinygpt';
import { fakePage, settle } from './fake-worker';
import { loadScalar } from './wasm';

// the schema and presets come from the core, as in the page (scalar wasm build)
let ready: Ready;
let presets: Preset[];
let config: FullConfig;   // the tiny preset
beforeAll(async () => {
  const M = await loadScalar();
  presets = M.presets();
  config = presets.find((p) => p.name === 'tiny')!.config;
  ready = { variant: 'simd', backend: 'simd128', threads: 1, maxThreads: 1, threadSetting: 'auto', crossOriginIsolated: false, loadMs: 5, fallback: null,
    schema: M.configSchema(), presets, tasks: M.builtinTasks(), buildVariant: 'wasm-simd128' };
});
const corpusState = { ref: { id: 'x-100', name: 'a.txt', size: 100, builtin: false }, stats: { size: 100 } as never, preview: new Uint8Array(0), kind: 'text' as const, pairs: null };
const empty = { train: new Float32Array(0), valSteps: new Float64Array(0), valLosses: new Float32Array(0), valExactMatch: new Float32Array(0), valCer: new Float32Array(0),
  valBitsPerByte: new Float32Array(0), tokensPerByte: 1 };
const verdict = { problems: [], parameters: 77, trainingBytes: 9 };

/** What Start reads, as one object: every feature's state before anything happened. */
function initialState() {
  return { ...fakePage().page.state.get() };
}

describe('derived values', () => {
  it('Start waits for the module, a text and settings the core accepted', () => {
    const s = initialState();
    expect(canStart(s)).toBe(false);
    expect(startBlockedReason(s)).toBe('The model code is still loading');
    expect(statusLine(s)).toBe('Loading the model code…');
    s.ready = ready;
    s.settings = config;
    expect(startBlockedReason(s)).toBe('Choose a text first');
    s.corpus = corpusState;
    expect(startBlockedReason(s)).toBe('Fix the settings first');   // no verdict yet
    s.textSize = 100;
    s.validateId = 3;
    s.verdict = { id: 3, problems: [], parameters: 10, trainingBytes: 10 };
    expect(canStart(s)).toBe(true);
    expect(startLabel(s)).toBe('Start');
    s.verdict = { id: 2, problems: [], parameters: 10, trainingBytes: 10 };   // an answer to an older form
    expect(canStart(s)).toBe(false);
    s.settings = { ...s.settings!, block_size: 100 };                     // 100 bytes < block_size + 1
    s.verdict = { id: 3, problems: [], parameters: 10, trainingBytes: 10 };
    expect(canStart(s)).toBe(false);
  });

  it('the ETA is the core\'s estimate, and none once the schedule is done', () => {
    const s = initialState();
    s.model = { config: { ...config, max_iters: 500 }, parameters: 1000 };
    s.step = 100;
    s.etaMs = 8000;
    expect(etaMs(s)).toBe(8000);
    s.step = 500;
    expect(etaMs(s)).toBeNull();
    s.finished = true;
    expect(startLabel(s)).toBe('Train more');
  });

  it('token losses are -ln p of each next byte, none for the first', () => {
    const probs = new Float32Array(2 * 256);
    probs[0 * 256 + 66] = 0.5;   // p(B | A)
    probs[1 * 256 + 67] = 0.25;  // p(C | AB)
    const l = tokenLosses({ T: 3, bytes: new Uint8Array([65, 66, 67]), probs });
    expect(l[0]).toBeNaN();
    expect(l[1]).toBeCloseTo(Math.log(2), 6);
    expect(l[2]).toBeCloseTo(Math.log(4), 6);
  });

  it('the loss history keeps a bias-corrected moving average', () => {
    const h = new LossHistory();
    h.appendTrain(1, [2, 2, 2]);
    expect(h.smoothed()).toBeCloseTo(2, 6);   // a constant stays itself from the first step
    h.appendTrain(4, [4]);
    // EMA 0.9: (0.9^3*0.1*2 + 0.9^2*0.1*2 + 0.9*0.1*2 + 0.1*4) / (1 - 0.9^4)
    const num = 0.1 * (2 * 0.729 + 2 * 0.81 + 2 * 0.9 + 4);
    expect(h.smoothed()).toBeCloseTo(num / (1 - 0.6561), 6);
    expect(h.lastStep).toBe(4);
  });
});

describe('the stores', () => {
  it('call a watcher only when one of its keys changes', () => {
    const store = map({ step: 0, lr: 0, tokensPerSec: 0 });
    const seen: number[] = [];
    watch(store, ['step'], (s) => seen.push(s.step));
    patch(store, { tokensPerSec: 5 });
    patch(store, { step: 3, lr: 1 });
    patch(store, { step: 3 });
    expect(seen).toEqual([0, 3]);
  });
});

describe('the features over the worker', () => {
  it('turn its events and replies into the run state', async () => {
    const { page, worker } = fakePage({ validate: () => verdict });
    const { runtime, settings, data, session, train, sample } = page;
    worker.emit('ready', ready);
    await settle();
    expect(runtime.$.get().ready?.variant).toBe('simd');
    // it asked the core about the presets and the form
    const validate = worker.of('validate');
    expect(validate.map((m) => m.config)).toEqual([...presets.map((p) => p.config), settings.$.get().settings]);
    // the form starts at preset fast (the language model's default), from the module's presets (float32 noise undone)
    expect(settings.$.get().settings).toEqual(normalise(ready.schema, presets.find((p) => p.name === 'fast')!.config));
    expect(settings.$.get().presetVerdicts[presets[0].name]?.parameters).toBe(77);
    expect(settings.$.get().verdict?.parameters).toBe(77);

    void data.send(corpusState.ref, new Uint8Array(100), corpusState.stats);
    worker.reply('setCorpus', { name: 'a.txt', size: 100, pairs: null });
    await settle();
    expect(data.$.get().corpus?.ref.name).toBe('a.txt');
    expect(settings.$.get().textSize).toBe(100);
    expect(canStart(page.state.get())).toBe(true);

    train.startPause();   // no model: create it, then start
    expect(session.$.get().creating).toBe(true);
    expect(worker.calls.at(-1)?.type).toBe('create');
    const info = { reason: 'create' as const, config, parameters: 1000, step: 0, history: empty, corpusMatches: true, corpusMismatch: null, memoryBytes: 1, hasCorpus: true, tokensPerByte: 1 };
    worker.emit('model', info);
    worker.reply('create', info);
    await settle();
    expect(session.$.get().creating).toBe(false);
    expect(worker.of('start')).toEqual([{ stopAt: config.max_iters }]);

    worker.emit('state', { running: true, reason: 'started', step: 0 });
    worker.emit('progress', { step: 3, firstStep: 0, losses: new Float32Array([5, 4, 3]), rollbacks: [], paused: null, tokensPerSec: 1000, lr: 1e-3, gradNorm: 1, etaSeconds: 12, memoryBytes: 2 });
    worker.emit('evalResult', { step: 3, loss: 3.5 });
    const s = page.state.get();
    expect(s.step).toBe(3);
    expect(s.lastLoss).toBe(3);
    expect(s.valLoss).toBe(3.5);
    expect(s.valStep).toBe(3);
    expect(s.history.train.slice()).toEqual([5, 4, 3]);
    expect(s.history.valSteps).toEqual([3]);
    expect(startLabel(s)).toBe('Pause');
    expect(statusLine(s)).toBe('Training at 1000 tokens/s…');
    expect(s.counts.progress).toBe(1);
    expect(etaMs(s)).toBe(12_000);

    train.startPause();
    expect(worker.calls.at(-1)?.type).toBe('pause');
    worker.emit('state', { running: false, reason: 'paused', step: 3 });
    expect(statusLine(page.state.get())).toMatch(/^Paused at step 3\./);

    sample.generate({ prompt: new Uint8Array([72]), length: 2, options: { temperature: 1, topK: 0, topP: 1, seed: 1 } });
    const one = new Float32Array(1), top = new Uint8Array(5), topP = new Float32Array(5);
    worker.emit('sampleChunk', { id: 1, tokens: new Int32Array([105]), bytes: new Uint8Array([105]), ends: new Uint32Array([1]), probs: one, topTokens: Int32Array.from(top), topProbs: topP, done: false, step: 3 });
    worker.emit('sampleChunk', { id: 1, tokens: new Int32Array([33]), bytes: new Uint8Array([33]), ends: new Uint32Array([1]), probs: one, topTokens: Int32Array.from(top), topProbs: topP, done: true, step: 3 });
    expect(new TextDecoder().decode(sampleText(sample.$.get()))).toBe('Hi!');
    expect(sample.$.get().sample?.generating).toBe(false);

    const reset = session.reset();
    worker.reply('reset', undefined);
    await reset;
    expect(session.$.get().model).toBeNull();
    expect(train.$.get().step).toBe(0);
    expect(train.$.get().history.train.slice()).toEqual([]);
    expect(runtime.$.get().errors).toEqual([]);
  });

  it('tell a pause for data that could not be read from the NaN guard\'s: the steps before it stay, the guard says nothing', () => {
    const { page, worker } = fakePage({ validate: () => verdict });
    worker.emit('ready', ready);
    worker.emit('model', { reason: 'create', config, parameters: 1000, step: 0, history: empty, corpusMatches: true, corpusMismatch: null, memoryBytes: 1, hasCorpus: true, tokensPerByte: 1 });
    worker.emit('state', { running: true, reason: 'started', step: 0 });
    worker.emit('progress', { step: 2, firstStep: 0, losses: new Float32Array([5, 4]), rollbacks: [], paused: null, tokensPerSec: 1000, lr: 1e-3, gradNorm: 1, etaSeconds: 1, memoryBytes: 2 });
    const paused = { message: 'the data file big.txt changed while training: training paused, nothing was lost', code: 'corpus.file_changed', args: { path: 'big.txt' } };
    worker.emit('progress', { step: 2, firstStep: 2, losses: new Float32Array(0), rollbacks: [], paused, tokensPerSec: 0, lr: 1e-3, gradNorm: 1, etaSeconds: 1, memoryBytes: 2 });
    worker.emit('state', { running: false, reason: 'error', step: 2 });
    const s = page.state.get();
    expect(s.guard.paused).toBeNull();
    expect(s.guard.events).toEqual([]);
    expect(s.history.train.slice()).toEqual([5, 4]);
    expect(s.running).toBe(false);
  });

  it('keep where the steps run, and rewind the curve when WebGPU falls back to an earlier good state', async () => {
    const { page, worker } = fakePage({ validate: () => verdict });
    worker.emit('ready', ready);
    worker.emit('backend', { backend: 'webgpu', adapter: 'google swiftshader', reason: '', forced: false });
    expect(page.webgpu.$.get().backend?.adapter).toBe('google swiftshader');
    worker.emit('model', { reason: 'create', config, parameters: 1000, step: 0, history: empty, corpusMatches: true, corpusMismatch: null, memoryBytes: 1, hasCorpus: true, tokensPerByte: 1 });
    worker.emit('state', { running: true, reason: 'started', step: 0 });
    worker.emit('progress', { step: 5, firstStep: 0, losses: new Float32Array([5, 4.5, 4, 3.5, 3]), rollbacks: [], paused: null, tokensPerSec: 1000, lr: 1e-3, gradNorm: 1, etaSeconds: 1, memoryBytes: 2 });
    // the device is lost at step 5; the last state brought back from the GPU was step 2
    const back = { ...empty, train: new Float32Array([5, 4.5]), valSteps: new Float64Array([0]), valLosses: new Float32Array([5.5]) };
    worker.emit('history', { history: back, step: 2 });
    worker.emit('backend', { backend: 'wasm', adapter: 'google swiftshader', reason: 'the GPU device was lost: destroyed', forced: false,
      fallback: { kind: 'device-lost', message: 'the GPU device was lost: destroyed', step: 2, lostSteps: 3 } });
    let s = page.state.get();
    expect(s.backend?.backend).toBe('wasm');
    expect(s.step).toBe(2);
    expect(s.running).toBe(true);   // training goes on, on the CPU
    expect(s.history.train.slice()).toEqual([5, 4.5]);
    expect(s.lastLoss).toBe(4.5);
    expect(s.valStep).toBe(0);
    worker.emit('progress', { step: 3, firstStep: 2, losses: new Float32Array([4.25]), rollbacks: [], paused: null, tokensPerSec: 500, lr: 1e-3, gradNorm: 1, etaSeconds: 1, memoryBytes: 2 });
    s = page.state.get();
    expect(s.history.train.slice()).toEqual([5, 4.5, 4.25]);
    expect(s.history.lastStep).toBe(3);
  });
});

describe('the stall watch (features/train/derive.ts: stalledFor)', () => {
  it('calls a running run stuck only after STALL_MS without progress, and only while it runs', () => {
    expect(STALL_MS).toBe(30_000);
    expect(stalledFor({ running: true, lastTick: 1_000 }, 1_000 + STALL_MS - 1)).toBeNull();
    expect(stalledFor({ running: true, lastTick: 1_000 }, 1_000 + STALL_MS)).toBe(STALL_MS);
    expect(stalledFor({ running: false, lastTick: 1_000 }, 1_000 + 10 * STALL_MS)).toBeNull();   // paused: nothing expected
    expect(stalledFor({ running: true, lastTick: 0 }, 10 * STALL_MS)).toBeNull();                // never ticked yet
    expect(stalledFor({ running: true, lastTick: 500 }, 2_600, 2_000)).toBe(2_100);               // the test hook's shorter wait
  });
});
