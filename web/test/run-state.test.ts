// The page store: derived values, key-wise subscriptions, and the controller turning worker
// events into state (with a fake worker client: the same messages the real worker sends).
import { beforeAll, describe, expect, it } from 'vitest';

import { Controller, sampleText } from '../src/app/controller';
import { canStart, etaMs, startBlockedReason, startLabel, statusLine, tokenLosses } from '../src/app/derive';
import { LossHistory } from '../src/features/train/history';
import { createPageStore, initialState, patch, watch } from '../src/app/state';
import type { FullConfig, Preset, Ready, ToWorker } from '../src/protocol';
import { normalise } from '../src/features/settings/schema';
import { FakeClient } from './fake-client';
import { loadScalar } from './wasm';

// the schema and presets come from the core, as in the page (scalar wasm build)
let ready: Ready;
let presets: Preset[];
let config: FullConfig;   // the tiny preset
beforeAll(async () => {
  const M = await loadScalar();
  presets = M.presets();
  config = presets.find((p) => p.name === 'tiny')!.config;
  ready = { type: 'ready', variant: 'simd', backend: 'simd128', threads: 1, maxThreads: 1, crossOriginIsolated: false, loadMs: 5, schema: M.configSchema(), presets, tasks: M.builtinTasks() };
});
const corpusState = { ref: { id: 'x-100', name: 'a.txt', size: 100, builtin: false }, stats: { size: 100 } as never, preview: new Uint8Array(0), kind: 'text' as const, pairs: null };

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

describe('the store', () => {
  it('calls a watcher only when one of its keys changes', () => {
    const store = createPageStore();
    const seen: number[] = [];
    watch(store, ['step'], (s) => seen.push(s.step));
    patch(store, { tokensPerSec: 5 });
    patch(store, { step: 3, lr: 1 });
    patch(store, { step: 3 });
    expect(seen).toEqual([0, 3]);
  });
});

describe('the controller', () => {
  it('turns the worker\'s events into the run state', () => {
    const store = createPageStore();
    const client = new FakeClient();
    const c = new Controller(store, client);
    client.emit(ready);
    expect(store.get().ready?.variant).toBe('simd');
    // it asked the core about the three presets and the form
    const validate = client.sent.filter((m) => m.type === 'validate') as Extract<ToWorker, { type: 'validate' }>[];
    expect(validate.map((m) => m.id)).toEqual([...presets.map((_, i) => -(i + 1)), 1]);
    expect(validate[0].config).toEqual(presets[0].config);
    // the form starts at preset S, from the module's presets (float32 noise undone)
    expect(store.get().settings).toEqual(normalise(ready.schema, presets.find((p) => p.name === 'S')!.config));
    client.emit({ type: 'validation', id: -1, problems: [], parameters: 123, trainingBytes: 9 });
    expect(store.get().presetVerdicts[presets[0].name]?.parameters).toBe(123);
    client.emit({ type: 'validation', id: 1, problems: [], parameters: 77, trainingBytes: 9 });
    expect(store.get().verdict?.parameters).toBe(77);

    patch(store, { pendingCorpus: corpusState });
    client.emit({ type: 'corpus', name: 'a.txt', size: 100 });
    expect(store.get().corpus?.ref.name).toBe('a.txt');
    expect(canStart(store.get())).toBe(true);

    c.startPause();   // no model: create it, then start
    expect(store.get().creating).toBe(true);
    expect(client.sent.at(-1)?.type).toBe('create');
    const history = { train: new Float32Array(0), valSteps: new Float64Array(0), valLosses: new Float32Array(0) };
    client.emit({ type: 'model', reason: 'create', config, parameters: 1000, step: 0, history, corpusMatches: true, memoryBytes: 1, hasCorpus: true });
    expect(store.get().creating).toBe(false);
    expect(client.sent.at(-2)).toEqual({ type: 'start', stopAt: config.max_iters });

    client.emit({ type: 'state', running: true, reason: 'started', step: 0 });
    client.emit({ type: 'progress', step: 3, losses: new Float32Array([5, 4, 3]), tokensPerSec: 1000, lr: 1e-3, gradNorm: 1, etaSeconds: 12, memoryBytes: 2 });
    client.emit({ type: 'evalResult', step: 3, loss: 3.5 });
    const s = store.get();
    expect(s.step).toBe(3);
    expect(s.lastLoss).toBe(3);
    expect(s.valLoss).toBe(3.5);
    expect(s.valStep).toBe(3);
    expect(s.history.train).toEqual([5, 4, 3]);
    expect(s.history.valSteps).toEqual([3]);
    expect(startLabel(s)).toBe('Pause');
    expect(statusLine(s)).toBe('Training at 1000 tokens/s…');
    expect(s.counts.progress).toBe(1);
    expect(etaMs(s)).toBe(12_000);

    c.startPause();
    expect(client.sent.at(-1)).toEqual({ type: 'pause' });
    client.emit({ type: 'state', running: false, reason: 'paused', step: 3 });
    expect(statusLine(store.get())).toMatch(/^Paused at step 3\./);

    c.generate({ prompt: new Uint8Array([72]), length: 2, options: { temperature: 1, topK: 0, topP: 1, seed: 1 } });
    const one = new Float32Array(1), top = new Uint8Array(5), topP = new Float32Array(5);
    client.emit({ type: 'sampleChunk', id: 1, bytes: new Uint8Array([105]), probs: one, topBytes: top, topProbs: topP, done: false, step: 3 });
    client.emit({ type: 'sampleChunk', id: 1, bytes: new Uint8Array([33]), probs: one, topBytes: top, topProbs: topP, done: true, step: 3 });
    expect(new TextDecoder().decode(sampleText(store.get()))).toBe('Hi!');
    expect(store.get().sample?.generating).toBe(false);

    client.emit({ type: 'reset' });
    expect(store.get().model).toBeNull();
    expect(store.get().step).toBe(0);
    expect(store.get().history.train).toEqual([]);
  });

  it('keeps where the steps run, and rewinds the curve when WebGPU falls back to an earlier good state', () => {
    const store = createPageStore();
    const client = new FakeClient();
    new Controller(store, client);
    client.emit(ready);
    client.emit({ type: 'backend', backend: 'webgpu', adapter: 'google swiftshader', reason: '', forced: false });
    expect(store.get().backend?.adapter).toBe('google swiftshader');
    const empty = { train: new Float32Array(0), valSteps: new Float64Array(0), valLosses: new Float32Array(0) };
    client.emit({ type: 'model', reason: 'create', config, parameters: 1000, step: 0, history: empty, corpusMatches: true, memoryBytes: 1, hasCorpus: true });
    client.emit({ type: 'state', running: true, reason: 'started', step: 0 });
    client.emit({ type: 'progress', step: 5, losses: new Float32Array([5, 4.5, 4, 3.5, 3]), tokensPerSec: 1000, lr: 1e-3, gradNorm: 1, etaSeconds: 1, memoryBytes: 2 });
    // the device is lost at step 5; the last state brought back from the GPU was step 2
    const back = { train: new Float32Array([5, 4.5]), valSteps: new Float64Array([0]), valLosses: new Float32Array([5.5]) };
    client.emit({ type: 'backend', backend: 'wasm', adapter: 'google swiftshader', reason: 'the GPU device was lost: destroyed', forced: false,
      fallback: { kind: 'device-lost', message: 'the GPU device was lost: destroyed', step: 2, lostSteps: 3, history: back } });
    let s = store.get();
    expect(s.backend?.backend).toBe('wasm');
    expect(s.step).toBe(2);
    expect(s.running).toBe(true);   // training goes on, on the CPU
    expect(s.history.train).toEqual([5, 4.5]);
    expect(s.lastLoss).toBe(4.5);
    expect(s.valStep).toBe(0);
    client.emit({ type: 'progress', step: 3, losses: new Float32Array([4.25]), tokensPerSec: 500, lr: 1e-3, gradNorm: 1, etaSeconds: 1, memoryBytes: 2 });
    s = store.get();
    expect(s.history.train).toEqual([5, 4.5, 4.25]);
    expect(s.history.lastStep).toBe(3);
  });
});
