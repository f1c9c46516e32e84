/// <reference lib="webworker" />
// worker.ts — the one long-lived worker that owns the wasm module and its Session.
//
// Every wasm call is synchronous, so the worker trains in *slices*: the core's run loop runs for
// about SLICE_MS (Session.advance), then the worker yields to its event loop (through a MessageChannel, which background tabs
// don't throttle the way they throttle timers) so that pause, generate, inspect, save... are
// handled between slices. Generation is streamed the same way, in chunks, and takes priority
// over training while it runs, so a sample always comes from one fixed model.
import type { Session, TinyGPTModule } from '../../wasm/tinygpt';
import { type FromWorker, type SampleOptions, type ToWorker, type Variant, isToWorker, post } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const SLICE_MS = 70;          // target wall time of one training slice
const GEN_CHUNK_MS = 40;      // target wall time of one generation chunk

let M: TinyGPTModule | null = null;
let variant: Variant = 'scalar';
let session: Session | null = null;
let corpus: Uint8Array | null = null;     // kept to give a new session the same text
let corpusName = '';

let running = false;
let loopActive = false;

interface Generation { id: number; remaining: number; chunk: number; msPerByte: number; step: number }
let generation: Generation | null = null;

const send = (msg: FromWorker) => post(self, msg);

function fail(during: ToWorker['type'] | 'train', e: unknown, recoverable = true): void {
  const message = e instanceof Error ? e.message : String(e);
  send({ type: 'error', message, recoverable, during });
}

// ---------------------------------------------------------------- loading the module

/** Tiny module with one SIMD128 instruction (i32x4.splat): does the engine accept SIMD? */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

function detectVariant(): { variant: Variant; reason?: string } {
  const simd = WebAssembly.validate(SIMD_PROBE);
  if (self.crossOriginIsolated && typeof SharedArrayBuffer === 'function' && simd) return { variant: 'threads' };
  const why = !self.crossOriginIsolated
    ? 'the page is not cross-origin isolated (no SharedArrayBuffer), so one thread'
    : 'this browser lacks wasm threads';
  return simd ? { variant: 'simd', reason: why } : { variant: 'scalar', reason: 'this browser has no WebAssembly SIMD' };
}

async function loadModule(wasmBase: string, v: Variant): Promise<TinyGPTModule> {
  // The Emscripten loader tells a worker from the main thread by `importScripts`, which module
  // workers lack; without it a threads build would busy-wait as if it were on the page's thread.
  const g = self as unknown as { importScripts?: unknown };
  if (typeof g.importScripts !== 'function') {
    g.importScripts = () => { throw new Error('importScripts is not available in a module worker'); };
  }
  const url = new URL(`tinygpt-${v}.js`, wasmBase).href;
  const mod = (await import(/* @vite-ignore */ url)) as { default: () => Promise<TinyGPTModule> };
  return mod.default();
}

async function init(msg: Extract<ToWorker, { type: 'init' }>): Promise<void> {
  const t0 = performance.now();
  const detected = detectVariant();
  let chosen: Variant = msg.variant ?? detected.variant;
  let reason = msg.variant ? `variant ${msg.variant} requested` : detected.reason;
  if (chosen === 'threads' && !self.crossOriginIsolated) {
    chosen = 'simd';
    reason = 'threads need a cross-origin isolated page';
  }
  try {
    M = await loadModule(msg.wasmBase, chosen);
  } catch (e) {
    if (chosen === 'scalar') throw e;
    const fallback: Variant = chosen === 'threads' && WebAssembly.validate(SIMD_PROBE) ? 'simd' : 'scalar';
    reason = `the ${chosen} build failed to load (${e instanceof Error ? e.message : e})`;
    chosen = fallback;
    M = await loadModule(msg.wasmBase, chosen);
  }
  variant = chosen;
  // THREAD CHOICE (issue 11, item 13, another engineer's): the core's thread tuner decides here;
  // send its choice and reason with `ready` (e.g. a `threadsReason` field) for the runtime badge.
  if (variant === 'threads') {
    const want = Math.max(1, Math.min(navigator.hardwareConcurrency || 1, msg.maxThreads ?? 4, M.maxThreads()));
    M.setThreads(want);
  }
  send({
    type: 'ready', variant, backend: M.backend(), threads: M.numThreads(), maxThreads: M.maxThreads(),
    crossOriginIsolated: self.crossOriginIsolated, loadMs: performance.now() - t0, fallbackReason: reason,
    schema: M.configSchema(), presets: M.presets(),
  });
}

// ---------------------------------------------------------------- model

function needSession(): Session {
  if (!session) throw new Error('no model yet: press Start to create one');
  return session;
}

function describe(reason: 'create' | 'load' | 'resume', name?: string): void {
  const s = needSession();
  const h = s.history();
  send({
    type: 'model', reason, name, config: s.config(), parameters: s.numParameters(), step: s.step(),
    history: h, corpusMatches: s.corpusMatchesCheckpoint(), memoryBytes: M!.memoryBytes(),
  });
}

function stop(reason: 'paused' | 'finished' | 'error'): void {
  if (!running) return;
  running = false;
  send({ type: 'state', running: false, reason, step: session ? session.step() : 0 });
}

function dropSession(): void {
  stop('paused');
  generation = null;
  if (session) session.delete();
  session = null;
}

// ---------------------------------------------------------------- the loop

const channel = new MessageChannel();
const wakers: Array<() => void> = [];
channel.port1.onmessage = () => wakers.shift()?.();
/** Lets queued messages run; not throttled in background tabs (unlike setTimeout). */
const yieldToEvents = () => new Promise<void>((resolve) => {
  wakers.push(resolve);
  channel.port2.postMessage(0);
});

function ensureLoop(): void {
  if (loopActive) return;
  loopActive = true;
  void (async () => {
    try {
      while (running || generation) {
        if (generation) generateChunk();
        else trainSlice();
        await yieldToEvents();
      }
    } finally {
      loopActive = false;
    }
  })();
}

function evaluateNow(): void {
  const s = needSession();
  const loss = s.evaluate();
  send({ type: 'evalResult', step: s.step(), loss });
}

// One slice of the core's run loop (tinygpt::Run: evaluation at step 0, every eval_interval
// steps and at the stop; throughput; ETA), forwarded as it is.
function trainSlice(): void {
  const s = session;
  if (!s) { stop('paused'); return; }
  let r;
  try {
    r = s.advance(1e9, SLICE_MS);
  } catch (e) {
    fail('train', e);
    stop('error');
    return;
  }
  if (r.losses.length) {
    send({
      type: 'progress', step: r.step, losses: r.losses, tokensPerSec: r.tokensPerSec, lr: r.lr, gradNorm: r.gradNorm,
      etaSeconds: r.etaSeconds, memoryBytes: M!.memoryBytes(),
    });
  }
  for (const e of r.evals) send({ type: 'evalResult', step: e.step, loss: e.loss });
  if (r.error) {
    fail('train', new Error(r.error));
    stop('error');
  } else if (r.finished) stop('finished');
}

function generateChunk(): void {
  const g = generation!;
  const s = session;
  if (!s) { generation = null; return; }
  const n = Math.min(g.remaining, g.chunk);
  const t0 = performance.now();
  let r;
  try {
    r = s.generateNext(n);
  } catch (e) {
    generation = null;
    fail('generate', e);
    return;
  }
  const ms = performance.now() - t0;
  g.remaining -= n;
  g.msPerByte = ms / Math.max(1, n);
  // double the chunk at most (8, 16, 32, ...) up to about GEN_CHUNK_MS of work: text appears at once and then flows
  g.chunk = Math.max(4, Math.min(512, g.chunk * 2, Math.round(GEN_CHUNK_MS / Math.max(0.01, g.msPerByte))));
  const done = g.remaining <= 0;
  send({ type: 'sampleChunk', id: g.id, ...r, done, step: g.step });
  if (done) generation = null;
}

// ---------------------------------------------------------------- commands

function inspect(msg: Extract<ToWorker, { type: 'inspect' }>): void {
  const s = needSession();
  const T = s.config().block_size;
  let text: Uint8Array;
  if (msg.text) text = new Uint8Array(msg.text);
  else {
    if (!corpus) throw new Error('no corpus to take a slice from');
    const start = Math.max(0, Math.min(msg.corpusOffset ?? 0, corpus.length - T));
    text = corpus.slice(start, start + T);
  }
  if (text.length === 0) throw new Error('give some text to look inside (at least one byte)');
  const r = s.inspect(text);
  const bytes = text.slice(text.length - r.T);
  send({ type: 'inspection', id: msg.id, step: s.step(), bytes, T: r.T, L: r.L, NH: r.NH, attention: r.attention, probs: r.probs });
}

function handle(msg: ToWorker): void | Promise<void> {
  if (msg.type === 'init') return init(msg);
  if (!M) throw new Error('the module is still loading');
  switch (msg.type) {
    case 'validate': {
      const { problems, parameters, trainingBytes } = M.checkConfig(msg.config);
      send({ type: 'validation', id: msg.id, problems, parameters, trainingBytes });
      return;
    }
    case 'setCorpus': {
      const bytes = new Uint8Array(msg.bytes);
      if (session) session.setCorpus(bytes);  // throws (and keeps the old corpus) if too short
      corpus = bytes;
      corpusName = msg.name;
      send({ type: 'corpus', name: corpusName, size: bytes.length });
      return;
    }
    case 'create': {
      dropSession();
      const s = new M.Session(msg.config);
      try {
        if (corpus) s.setCorpus(corpus);
      } catch (e) {
        s.delete();
        throw e;
      }
      session = s;
      describe('create');
      return;
    }
    case 'start': {
      const s = needSession();
      if (!s.hasCorpus()) throw new Error('no corpus: choose a text first');
      s.setStopAt(msg.stopAt);
      if (!running) {
        running = true;
        send({ type: 'state', running: true, reason: 'started', step: s.step() });
      }
      ensureLoop();
      return;
    }
    case 'update':
      needSession().updateField(msg.name, msg.value);
      return;
    case 'pause':
      stop('paused');
      return;
    case 'reset':
      dropSession();
      send({ type: 'reset' });
      return;
    case 'evaluate':
      evaluateNow();
      return;
    case 'generate': {
      const s = needSession();
      const options: SampleOptions = msg.options;
      s.beginGeneration(new Uint8Array(msg.prompt), options);
      generation = { id: msg.id, remaining: Math.max(0, msg.length), chunk: 8, msPerByte: 0, step: s.step() };
      if (generation.remaining === 0) {
        send({ type: 'sampleChunk', id: msg.id, bytes: new Uint8Array(0), probs: new Float32Array(0), topBytes: new Uint8Array(0), topProbs: new Float32Array(0), done: true, step: s.step() });
        generation = null;
        return;
      }
      ensureLoop();
      return;
    }
    case 'stopGeneration':
      if (generation && generation.id === msg.id) {
        generation = null;
        send({ type: 'sampleChunk', id: msg.id, bytes: new Uint8Array(0), probs: new Float32Array(0), topBytes: new Uint8Array(0), topProbs: new Float32Array(0), done: true, step: session ? session.step() : 0 });
      }
      return;
    case 'inspect':
      inspect(msg);
      return;
    case 'save': {
      const s = needSession();
      const bytes = s.save();
      send({ type: 'checkpoint', reason: msg.reason, step: s.step(), bytes: bytes.buffer as ArrayBuffer });
      return;
    }
    case 'sniff':
      send({ type: 'sniffed', id: msg.id, result: M.sniff(new Uint8Array(msg.head), msg.size, msg.name) });
      return;
    case 'load': {
      const bytes = new Uint8Array(msg.bytes);
      // Session.load leaves the session as it was on any error; without a session, a temporary one
      // (default config) is made and dropped again if the checkpoint is refused.
      const fresh = !session;
      const s = session ?? new M.Session({});
      try {
        s.load(bytes);
        if (fresh && corpus) s.setCorpus(corpus);
      } catch (e) {
        if (fresh) s.delete();
        throw e;
      }
      stop('paused');
      generation = null;
      session = s;
      describe(msg.reason === 'resume' ? 'resume' : 'load', msg.name);
      return;
    }
    case 'loadSafetensors': {
      // a new session from the file (the core checks it); the current one stays until it succeeded
      const s = M.sessionFromSafetensors(new Uint8Array(msg.bytes));
      try {
        const kind = s.config().model as string;
        if (kind !== 'gpt') throw new Error(`this is a ${kind} model; the page trains gpt language models (the CLI translates with it: tinygpt translate --ckpt FILE)`);
        if (corpus) s.setCorpus(corpus);
      } catch (e) {
        s.delete();
        throw e;
      }
      dropSession();
      session = s;
      describe('load', msg.name);
      return;
    }
  }
}

self.onmessage = (e: MessageEvent) => {
  const msg = e.data as unknown;
  if (!isToWorker(msg)) return;
  try {
    const r = handle(msg);
    if (r) r.catch((err) => fail(msg.type, err, msg.type !== 'init'));
  } catch (err) {
    fail(msg.type, err, msg.type !== 'init');
  }
};
