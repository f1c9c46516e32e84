/// <reference lib="webworker" />
// worker.ts — the one long-lived worker that owns the wasm module and its Session.
//
// Every wasm call is synchronous, so the worker trains in *slices*: the core's run loop runs for
// about SLICE_MS (Session.advance), then the worker yields to its event loop (through a MessageChannel, which background tabs
// don't throttle the way they throttle timers) so that pause, generate, inspect, save... are
// handled between slices. Generation is streamed the same way, in chunks, and takes priority
// over training while it runs, so a sample always comes from one fixed model.
//
// On WebGPU (docs/webgpu.md) the Session stays the host (corpus, batches, history, checkpoints,
// the run loop's policy) and a GpuBackend (gpu/worker-gpu.ts, loaded on first use) computes the
// steps, evaluations, inspections and samples. Any GPU failure falls back to this Session on the
// CPU, from its last good state.
import type { GenerationTree, Session, Slice, TinyGPTModule, LearnTrace } from '../../wasm/tinygpt';
import { WebGpuDevice } from './gpu/device';
import { GpuBackendError, isGpuBackendError } from './gpu/errors';
import type { GpuHostModule } from './gpu/session';
import type { GpuBackend } from './gpu/worker-gpu';
import {
  type BackendInfo, type CoreCoded, type CorpusKind, type FromWorker, type PairsReport, type SampleOptions, type ThreadSetting, type ToWorker, type TreeNode, type Variant, isToWorker,
  codedError, codedOf, post,
} from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const SLICE_MS = 70;          // target wall time of one training slice
const GEN_CHUNK_MS = 40;      // target wall time of one generation chunk

let M: TinyGPTModule | null = null;
let variant: Variant = 'scalar';
let session: Session | null = null;
let threadSetting: ThreadSetting = 'auto';
const THREAD_POOL_MAX = 16;
let threadCap = 1;                        // min(cores, ?threads=, the module's pool)
let corpus: Uint8Array | null = null;     // kept to give a new session the same text
let corpusName = '';
let corpusKind: CorpusKind = 'text';      // a text for a language model, or pairs for a translator

let running = false;
let loopActive = false;
let replayLink: import('./protocol').ShareLink | null = null;   // a shared run being replayed: its first losses are checked

// The run's history for the "watch it learn" views (watch.h): kept by the core, in checkpoints;
// the worker sends the page the snapshots it has not seen yet.
let keepHistory = true;       // create's `history` (bench:page measures with it off)
let insightSent = -1;         // the step of the last snapshot sent
let insightTotal = 0;         // snapshots the page holds
let tree: GenerationTree | null = null;
let treeId = 0;

interface Generation { id: number; remaining: number; chunk: number; msPerByte: number; step: number }
let generation: Generation | null = null;
let startingGeneration: number | null = null;  // on the GPU: the id of a generation whose prompt is being read

// ---- WebGPU: the page asks for it at init (?backend= or navigator.gpu); each gpt model gets a backend
const webgpu = new WebGpuDevice((message) => {
  if (gpu) fallBack(gpu, new GpuBackendError('device-lost', message));
});
let gpu: GpuBackend | null = null;         // the current model's GPU backend
let onCpuBecause = '';                     // why the current model is on the CPU although WebGPU is on
let onCpuCoded: CoreCoded = {};            // its code and args

const send = (msg: FromWorker) => post(self, msg);

function fail(during: ToWorker['type'] | 'train', e: unknown, recoverable = true): void {
  const message = e instanceof Error ? e.message : String(e);
  send({ type: 'error', message, recoverable, during, ...codedOf(e) });
}

// ---------------------------------------------------------------- loading the module

/** Tiny module with one SIMD128 instruction (i32x4.splat): does the engine accept SIMD? */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

function detectVariant(): { variant: Variant; reason?: string; coded?: CoreCoded } {
  const simd = WebAssembly.validate(SIMD_PROBE);
  if (self.crossOriginIsolated && typeof SharedArrayBuffer === 'function' && simd) return { variant: 'threads' };
  const why = !self.crossOriginIsolated
    ? 'the page is not cross-origin isolated (no SharedArrayBuffer), so one thread'
    : 'this browser lacks wasm threads';
  const whyCode = !self.crossOriginIsolated ? 'variant.not_isolated' : 'variant.no_threads';
  return simd ? { variant: 'simd', reason: why, coded: { code: whyCode, args: {} } }
    : { variant: 'scalar', reason: 'this browser has no WebAssembly SIMD', coded: { code: 'variant.no_simd', args: {} } };
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
  let reasonCoded: CoreCoded | undefined = msg.variant ? { code: 'variant.requested', args: { variant: msg.variant } } : detected.coded;
  if (chosen === 'threads' && !self.crossOriginIsolated) {
    chosen = 'simd';
    reason = 'threads need a cross-origin isolated page';
    reasonCoded = { code: 'variant.threads_need_isolation', args: {} };
  }
  try {
    M = await loadModule(msg.wasmBase, chosen);
  } catch (e) {
    if (chosen === 'scalar') throw e;
    const fallback: Variant = chosen === 'threads' && WebAssembly.validate(SIMD_PROBE) ? 'simd' : 'scalar';
    reason = `the ${chosen} build failed to load (${e instanceof Error ? e.message : e})`;
    reasonCoded = { code: 'variant.load_failed', args: { variant: chosen } };
    chosen = fallback;
    M = await loadModule(msg.wasmBase, chosen);
  }
  variant = chosen;
  // Threads: up to every core the browser reports (and the module's pool); by default the core's
  // thread tuner picks the count from the step times (another program on a core: fewer threads).
  // (the module starts min(cores, 16) workers with it: wasm/CMakeLists.txt PTHREAD_POOL_SIZE; more
  // would have to be spawned by a thread that is busy training)
  threadCap = variant === 'threads'
    ? Math.max(1, Math.min(navigator.hardwareConcurrency || 1, THREAD_POOL_MAX, msg.maxThreads ?? Infinity, M.maxThreads())) : 1;
  threadSetting = msg.threads ?? 'auto';
  applyThreads();
  send({
    type: 'ready', variant, backend: M.backend(), threads: M.numThreads(), maxThreads: threadCap, threadSetting,
    crossOriginIsolated: self.crossOriginIsolated, loadMs: performance.now() - t0, fallbackReason: reason, fallbackCoded: reasonCoded,
    schema: M.configSchema(), presets: M.presets(), tasks: M.builtinTasks(), buildVariant: M.buildVariant(),
  });
  await webgpu.find(msg.backend, !!msg.backendForced);
  reportBackend();
}

// ---------------------------------------------------------------- WebGPU

/**
 * Puts the current model on the GPU when WebGPU is on and the model can go there. Returns why it
 * could not, when the GPU refused it (for reportBackend; the model trains on the CPU).
 */
async function attachGpu(): Promise<BackendInfo['fallback']> {
  const s = needSession();
  onCpuBecause = '';
  onCpuCoded = {};
  if (webgpu.off) return undefined;
  if (s.kind() !== 'gpt') {
    onCpuBecause = 'the seq2seq model has no GPU plan: a translation run trains on the CPU';
    onCpuCoded = { code: 'gpu.seq2seq', args: {} };
    return undefined;
  }
  try {
    const device = await webgpu.get();
    const { GpuBackend } = await import('./gpu/worker-gpu');
    const b = await GpuBackend.create(M as unknown as GpuHostModule, s, device);
    if (session !== s) b.destroy();  // replaced meanwhile
    else gpu = b;
    return undefined;
  } catch (e) {
    const err = asGpuError(e);
    if (err.kind !== 'limits') webgpu.turnOff(err.message, err.coded());  // this GPU is no use to the page; a smaller model may fit
    onCpuBecause = err.message;
    onCpuCoded = err.coded();
    return { kind: err.kind, message: err.message, ...err.coded(), step: s.step(), lostSteps: 0, history: null };
  }
}

function asGpuError(e: unknown): GpuBackendError {
  return isGpuBackendError(e) ? e : new GpuBackendError('internal', e instanceof Error ? e.message : String(e));
}

function reportBackend(fallback?: BackendInfo['fallback']): void {
  const onGpu = session ? gpu !== null : !webgpu.off;
  const cpuOwn = !onGpu && !!session && !!onCpuBecause;
  const reason = onGpu ? '' : cpuOwn ? onCpuBecause : webgpu.off;
  const coded = onGpu ? {} : cpuOwn ? onCpuCoded : webgpu.offCoded;
  send({ type: 'backend', backend: onGpu ? 'webgpu' : 'wasm', adapter: webgpu.adapterName, reason, ...coded, forced: webgpu.forced, fallback });
}

/**
 * The GPU gave up (a lost device, a failed kernel, out of memory): the run continues on the CPU
 * from the Session, which goes back to its last good state if the GPU had run ahead of it. A
 * generation on the GPU ends; training goes on (the loop now takes the CPU's slices).
 */
function fallBack(b: GpuBackend, e: GpuBackendError): void {
  if (b !== gpu) return;  // already done, or a model that was replaced
  gpu = null;
  if (e.kind !== 'limits') webgpu.turnOff(e.message, e.coded());
  onCpuBecause = e.message;
  onCpuCoded = e.coded();
  const { step, rewoundFrom } = b.abandon(e);
  if (generation) {
    generation = null;
    fail('generate', codedError('gpu.generate_lost', `${e.message}; generate again (now on the CPU)`, { kind: e.kind }));
  }
  const history = rewoundFrom !== null ? needSession().history() : null;
  reportBackend({ kind: e.kind, message: e.message, ...e.coded(), step, lostSteps: rewoundFrom !== null ? rewoundFrom - step : 0, history });
  if (rewoundFrom !== null) sendInsight(true);   // snapshots after the good state went with it
}

/** f on the GPU; if the GPU gives up, fall back and do it on the CPU instead (cpu()). */
async function onGpu<T>(b: GpuBackend, f: (b: GpuBackend) => Promise<T>, cpu: () => T): Promise<T> {
  try {
    return await f(b);
  } catch (e) {
    if (!isGpuBackendError(e)) throw e;
    fallBack(b, e);
    return cpu();
  }
}

/** Test hook (the e2e test of the fallback): the GPU device is lost as if the driver had reset. */
(self as unknown as { __tinygptTest: object }).__tinygptTest = { loseGpuDevice: () => webgpu.lose() };

// ---------------------------------------------------------------- model

function needSession(): Session {
  if (!session) throw codedError('worker.no_model', 'no model yet: press Start to create one');
  return session;
}

function describe(reason: 'create' | 'load' | 'resume', name?: string): void {
  const s = needSession();
  const h = s.history();
  send({
    type: 'model', reason, name, config: s.config(), parameters: s.numParameters(), step: s.step(),
    history: h, corpusMatches: s.corpusMatchesCheckpoint(), memoryBytes: M!.memoryBytes(), hasCorpus: s.hasCorpus(),
  });
  ensureHistory(s);
  sendInsight(true);
}

/** Starts the history of a session that has a corpus and none yet (a new run, or a checkpoint without one). */
function ensureHistory(s: Session): void {
  if (!keepHistory || !s.hasCorpus() || M!.watchHistory(s, Number.MAX_VALUE).enabled) return;
  try {
    M!.watchStartHistory(s, null, null);
  } catch {
    // a model whose maps are too large for the history's budget trains without one; the views say so
  }
}

const NEIGHBOURS = 5;          // nearest bytes listed for each byte of the embedding map

/** Sends the snapshots the page has not seen (all of them when `reset`). */
function sendInsight(reset: boolean): void {
  const s = session;
  if (!s) return;
  const h = M!.watchHistory(s, reset ? -1 : insightSent);
  if (!reset && h.steps.length === 0) return;
  // past its budget the core drops every second snapshot: the page gets the whole history again
  if (!reset && h.total !== insightTotal + h.steps.length) return sendInsight(true);
  insightSent = h.steps.length ? h.steps[h.steps.length - 1] : -1;
  insightTotal = h.total;
  // the map's hover shows neighbours measured in the full embedding space (not on the 2-D map)
  const nb = M!.watchNeighbours(s, NEIGHBOURS);
  send({
    type: 'insight', reset, enabled: h.enabled, kind: h.kind, L: h.L, NH: h.NH, T: h.T, N: h.N, P: h.P, Le: h.Le, S: h.S,
    attentionBytes: h.attentionBytes, probe: h.probe, probeSource: h.probeSource, bytes: h.bytes,
    neighbours: { k: nb.k, step: nb.step, index: nb.index, similarity: nb.similarity }, baselines: h.baselines, total: h.total, sizeBytes: h.sizeBytes,
    steps: h.steps, attention: h.attention, embedding: h.embedding, probeLoss: h.probeLoss, positionLoss: h.positionLoss,
  });
}

function dropTree(): void {
  if (tree) tree.delete();
  tree = null;
}

function sendTree(selected: number): void {
  const t = tree!;
  const nodes: TreeNode[] = [];
  for (let i = 0; i < t.size(); i++) nodes.push(t.node(i));
  send({ type: 'tree', id: treeId, step: t.step(), prompt: t.text(0), nodes, selected, positionsComputed: t.positionsComputed() });
}

/** The corpus a model kind trains on: a text (gpt) or pairs (seq2seq). */
const corpusKindOf = (model: string | undefined): CorpusKind => (model === 'seq2seq' ? 'pairs' : 'text');

/** Gives a session the worker's corpus if it is of the session's kind and the session has none (a refused one is left out). */
function attachCorpus(s: Session): void {
  if (!corpus || s.hasCorpus() || corpusKind !== corpusKindOf(s.kind())) return;
  try {
    s.setCorpus(corpus);
  } catch {
    // e.g. pairs longer than this model's block_size: the page asks for data (ModelInfo.hasCorpus)
  }
}

function stop(reason: 'paused' | 'finished' | 'error'): void {
  if (!running) return;
  running = false;
  send({ type: 'state', running: false, reason, step: session ? session.step() : 0 });
}

function dropSession(): void {
  stop('paused');
  generation = null;
  gpu?.destroy();
  gpu = null;
  replayLink = null;
  dropTree();
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
        const b = gpu;
        if (b) {
          const during = generation ? 'generate' : 'train';
          try {
            if (generation) await gpuGenerateChunk(b);
            else await gpuTrainSegment(b);
          } catch (e) {
            if (b !== gpu) { /* replaced or given up meanwhile */ } else if (isGpuBackendError(e)) fallBack(b, e);
            else {
              fail(during, e);
              if (during === 'train') stop('error');
              else generation = null;
            }
          }
        } else if (generation) generateChunk();
        else trainSlice();
        await yieldToEvents();
      }
    } finally {
      loopActive = false;
    }
  })();
}

/** An evaluation as a message; seq2seq ones carry held-out exact match and CER (NaN for gpt: left out). */
function evalResult(e: { step: number; loss: number; exactMatch?: number; cer?: number; snapshotMs?: number }): FromWorker {
  const metrics = Number.isFinite(e.exactMatch) ? { exactMatch: e.exactMatch, cer: e.cer } : {};
  return { type: 'evalResult', step: e.step, loss: e.loss, ...metrics, snapshotMs: e.snapshotMs };
}

async function evaluateNow(): Promise<void> {
  const s = needSession();
  const loss = gpu ? await onGpu(gpu, (b) => b.evaluate(), () => s.evaluate()) : s.evaluate();
  const h = s.history();   // evaluate() recorded the point, with a translator's metrics
  const last = h.valLosses.length - 1;
  send(evalResult({ step: s.step(), loss, exactMatch: h.valExactMatch[last], cer: h.valCer[last] }));
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
  sendSlice(r);
  // the guard's pause is explained by the progress message (pausedBecause)
  if (r.paused) stop('error');
  else if (r.finished) stop('finished');
}

function sendSlice(r: Slice): void {
  // a slice of rollbacks only (the NaN guard) is news too: the page drops the undone steps
  if (r.losses.length || r.rollbacks.length || r.paused) {
    send({
      type: 'progress', step: r.step, firstStep: r.firstStep, losses: r.losses, rollbacks: r.rollbacks, pausedBecause: r.paused?.message ?? '',
      pausedCoded: r.paused?.code ? { code: r.paused.code, args: r.paused.args ?? {} } : undefined,
      tokensPerSec: r.tokensPerSec, lr: r.lr, gradNorm: r.gradNorm, etaSeconds: r.etaSeconds, memoryBytes: M!.memoryBytes(),
      threads: r.threads ?? M!.numThreads(), threadsReason: r.threadsReason?.message ?? '',
      threadsCoded: r.threadsReason?.code ? { code: r.threadsReason.code, args: r.threadsReason.args ?? {} } : undefined,
    });
  }
  for (const e of r.evals) send(evalResult(e));
  if (r.rollbacks.length) sendInsight(true);   // the NaN guard dropped later snapshots
  else if (r.evals.length) sendInsight(false);
  if (replayLink && session) checkReplay(session);
}

// One segment of the core's run loop with its steps on the GPU (gpu/worker-gpu.ts): the same
// policy as trainSlice's Session.advance, forwarded the same way. It yields at pause and when a
// generation waits.
async function gpuTrainSegment(b: GpuBackend): Promise<void> {
  const r = await b.trainSegment({
    keepGoing: () => running && !generation && gpu === b,
    slice: sendSlice,
    evaluated: (e) => send({ type: 'evalResult', step: e.step, loss: e.loss }),
    snapshotted: (rolledBack) => sendInsight(rolledBack),
  });
  if (gpu !== b) return;
  // the guard's pause is explained by the progress message (pausedBecause)
  if (r.paused) stop('error');
  else if (r.finished) stop('finished');
}

// The kernels the current model trains with, as a share link names them: the wasm build's variant,
// or the GPU (bit-identical only on the same adapter, docs/webgpu.md).
function trainingVariant(): string {
  return gpu ? `webgpu (${webgpu.adapterName || 'unknown adapter'})` : M!.buildVariant();
}

// A shared run replayed: its first losses against the link's, bit for bit (the core's share::check_replay).
function checkReplay(s: Session): void {
  const train = s.history().train;
  const link = replayLink!;
  const check = M!.checkReplay(link, train.subarray(0, link.losses.length), trainingVariant());
  // on another build variant a difference is expected: wait for all the link's steps to say how close they are
  if (check.status === 'pending' || (check.status === 'diverged' && !check.sameVariant && check.compared < check.expected)) return;
  replayLink = null;
  send({ type: 'replayCheck', check, variant: trainingVariant() });
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
  sendChunk(g, r, n, performance.now() - t0);
}

async function gpuGenerateChunk(b: GpuBackend): Promise<void> {
  const g = generation!;
  const n = Math.min(g.remaining, g.chunk);
  const t0 = performance.now();
  const r = await b.generateNext(n);
  if (generation === g) sendChunk(g, r, n, performance.now() - t0);
}

function sendChunk(g: Generation, r: ReturnType<Session['generateNext']>, n: number, ms: number): void {
  g.remaining -= n;
  g.msPerByte = ms / Math.max(1, n);
  // double the chunk at most (8, 16, 32, ...) up to about GEN_CHUNK_MS of work: text appears at once and then flows
  g.chunk = Math.max(4, Math.min(512, g.chunk * 2, Math.round(GEN_CHUNK_MS / Math.max(0.01, g.msPerByte))));
  const done = g.remaining <= 0;
  send({ type: 'sampleChunk', id: g.id, ...r, done, step: g.step });
  if (done) generation = null;
}

// ---------------------------------------------------------------- commands

async function inspect(msg: Extract<ToWorker, { type: 'inspect' }>): Promise<void> {
  const s = needSession();
  const T = s.config().block_size;
  let text: Uint8Array;
  if (msg.text) text = new Uint8Array(msg.text);
  else {
    if (!corpus) throw codedError('worker.no_corpus', 'no corpus to take a slice from');
    const start = Math.max(0, Math.min(msg.corpusOffset ?? 0, corpus.length - T));
    text = corpus.slice(start, start + T);
  }
  if (text.length === 0) throw codedError('worker.inspect_empty', 'give some text to look inside (at least one byte)');
  const r = gpu ? await onGpu(gpu, (b) => b.inspect(text), () => s.inspect(text)) : s.inspect(text);
  const bytes = text.slice(text.length - r.T);
  send({ type: 'inspection', id: msg.id, step: s.step(), bytes, T: r.T, L: r.L, NH: r.NH, attention: r.attention, probs: r.probs });
}

async function generateOnGpu(b: GpuBackend, msg: Extract<ToWorker, { type: 'generate' }>): Promise<void> {
  const s = needSession();
  const prompt = new Uint8Array(msg.prompt);
  const options: SampleOptions = msg.options;
  startingGeneration = msg.id;  // a stopGeneration meanwhile cancels it
  try {
    await onGpu(b, (x) => x.beginGeneration(prompt, options), () => s.beginGeneration(prompt, options));
  } catch (e) {
    if (startingGeneration === msg.id) startingGeneration = null;
    throw e;
  }
  if (startingGeneration !== msg.id) return;  // stopped meanwhile (the stop sent the last chunk)
  startingGeneration = null;
  generation = { id: msg.id, remaining: Math.max(0, msg.length), chunk: 8, msPerByte: 0, step: s.step() };
  if (generation.remaining === 0) {
    send({ type: 'sampleChunk', id: msg.id, bytes: new Uint8Array(0), probs: new Float32Array(0), topBytes: new Uint8Array(0), topProbs: new Float32Array(0), done: true, step: s.step() });
    generation = null;
    return;
  }
  ensureLoop();
}

/** 'auto': the session's run tunes 1..threadCap threads (Run::tune_threads); a number: that many. */
function applyThreads(): void {
  if (!M || variant !== 'threads') return;
  const auto = threadSetting === 'auto';
  M.setThreads(auto ? threadCap : Math.max(1, Math.min(threadCap, threadSetting as number)));
  session?.tuneThreads(auto ? threadCap : 0);
}

function handle(msg: ToWorker): void | Promise<void> {
  if (msg.type === 'init') return init(msg);
  if (!M) throw codedError('worker.loading', 'the module is still loading');
  switch (msg.type) {
    case 'threads': {
      threadSetting = msg.setting;
      applyThreads();
      return;
    }
    case 'validate': {
      const { problems, parameters, trainingBytes } = M.checkConfig(msg.config);
      // pairs: the core's TSV reader at this block_size (a file may have no usable pair at a shorter one)
      let pairs: PairsReport | undefined;
      if (msg.config.model === 'seq2seq' && corpus && corpusKind === 'pairs' && !problems.some((p) => p.field === 'block_size')) {
        try {
          pairs = M.pairsReport(corpus, msg.config.block_size ?? 64);
        } catch (e) {
          // the core's message (its code words it), the file named before it in the English
          problems.push({ field: 'block_size', message: `${corpusName}: ${e instanceof Error ? e.message : e}`, ...codedOf(e) });
        }
      }
      send({ type: 'validation', id: msg.id, problems, parameters, trainingBytes, pairs });
      return;
    }
    case 'setCorpus': {
      const bytes = new Uint8Array(msg.bytes);
      const kind = msg.kind ?? 'text';
      const set = () => {
        const live = session && corpusKindOf(session.kind()) === kind ? session : null;
        // pairs are read by the core first: a file without a usable pair is refused with its line numbers
        const pairs: PairsReport | undefined = kind === 'pairs' ? M!.pairsReport(bytes, live ? live.config().block_size : msg.blockSize ?? 64) : undefined;
        if (live) live.setCorpus(bytes);  // throws (and keeps the old corpus) if too short
        corpus = bytes;
        corpusName = msg.name;
        corpusKind = kind;
        send({ type: 'corpus', name: corpusName, size: bytes.length, pairs });
        if (live) {
          // a new text: new baselines (the core keeps the probe and the snapshots so far)
          ensureHistory(live);
          sendInsight(true);
        }
      };
      if (gpu) return onGpu(gpu, (b) => b.exclusive(set), set);  // between steps: the batches come from it
      set();
      return;
    }
    case 'create': {
      dropSession();
      keepHistory = msg.history !== false;
      const s = new M.Session(msg.config);
      try {
        if (corpus && corpusKind === corpusKindOf(msg.config.model)) s.setCorpus(corpus);
      } catch (e) {
        s.delete();
        throw e;
      }
      session = s;
      applyThreads();
      return attachGpu().then((fallback) => {
        if (session !== s) return;
        describe('create');
        reportBackend(fallback);
      });
    }
    case 'start': {
      const s = needSession();
      if (!s.hasCorpus()) {
        throw s.kind() === 'seq2seq' ? codedError('worker.no_pairs', 'no pairs: choose a task or a file of pairs first')
          : codedError('worker.no_corpus', 'no corpus: choose a text first');
      }
      s.setStopAt(msg.stopAt);
      if (!running) {
        running = true;
        send({ type: 'state', running: true, reason: 'started', step: s.step() });
      }
      ensureLoop();
      return;
    }
    case 'update': {
      const s = needSession();
      const update = () => s.updateField(msg.name, msg.value);
      if (gpu) return onGpu(gpu, (b) => b.exclusive(update), update);  // the run loop is rebuilt: not mid-segment
      update();
      return;
    }
    case 'pause':
      stop('paused');
      return;
    case 'reset':
      dropSession();
      send({ type: 'reset' });
      reportBackend();
      return;
    case 'evaluate':
      return evaluateNow();
    case 'generate': {
      if (gpu) return generateOnGpu(gpu, msg);
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
      if ((generation && generation.id === msg.id) || startingGeneration === msg.id) {
        generation = null;
        startingGeneration = null;
        send({ type: 'sampleChunk', id: msg.id, bytes: new Uint8Array(0), probs: new Float32Array(0), topBytes: new Uint8Array(0), topProbs: new Float32Array(0), done: true, step: session ? session.step() : 0 });
      }
      return;
    case 'inspect':
      return inspect(msg);
    case 'save': {
      const s = needSession();
      const saved = (bytes: Uint8Array) => send({ type: 'checkpoint', reason: msg.reason, step: s.step(), bytes: bytes.buffer as ArrayBuffer });
      // on the GPU: its state comes back first (no step in flight: a good state too)
      if (gpu) return onGpu(gpu, (b) => b.save(), () => s.save()).then(saved);
      saved(s.save());
      return;
    }
    case 'sniff':
      send({ type: 'sniffed', id: msg.id, result: M.sniff(new Uint8Array(msg.head), msg.size, msg.name) });
      return;
    case 'builtinTask':
      send({ type: 'task', id: msg.id, name: msg.name, bytes: M.builtinTask(msg.name, msg.seed) });
      return;
    case 'translate': {
      const s = needSession();
      const source = new Uint8Array(msg.source);
      const r = s.translate(source, msg.options);
      send({ type: 'translation', id: msg.id, step: s.step(), source, text: r.text, probs: r.probs, logProb: r.logProb, finished: r.finished, beam: msg.options.beam ?? 1 });
      return;
    }
    case 'inspectTranslation': {
      const s = needSession();
      const r = s.inspectTranslation(new Uint8Array(msg.source), new Uint8Array(msg.target));
      send({ type: 'translationInspection', id: msg.id, step: s.step(), ...r });
      return;
    }
    case 'injectNan':
      needSession().injectNanGradient(msg.steps);
      return;
    case 'share': {
      try {
        const s = needSession();
        const link = { config: s.config(), variant: trainingVariant(), corpus: msg.corpus, losses: s.history().train.slice(0, 50) };
        send({ type: 'shared', id: msg.id, url: M.makeShareLink(link, msg.base), error: '' });
      } catch (e) {
        send({ type: 'shared', id: msg.id, url: '', error: e instanceof Error ? e.message : String(e), ...codedOf(e) });
      }
      return;
    }
    case 'openLink':
      try {
        send({ type: 'link', id: msg.id, link: M.parseShareLink(msg.url), error: '', variant: M.buildVariant() });
      } catch (e) {
        send({ type: 'link', id: msg.id, link: null, error: e instanceof Error ? e.message : String(e), variant: M.buildVariant(), ...codedOf(e) });
      }
      return;
    case 'replay':
      replayLink = msg.link;
      if (replayLink && session && session.step() > 0) checkReplay(session);
      return;
    case 'measure': {
      // the text's first 64 MiB are plenty for the entropies; a subarray is not copied here
      try {
        if (!corpus) throw codedError('worker.choose_text', 'choose a text first');
        const result = M.preflight(msg.config, corpus.subarray(0, 64 << 20), msg.budgetMs);
        send({ type: 'measured', id: msg.id, result, error: '' });
      } catch (e) {
        send({ type: 'measured', id: msg.id, result: null, error: e instanceof Error ? e.message : String(e), ...codedOf(e) });
      }
      return;
    }
    case 'walk': {
      // a refused edit is the learn-by-hand view's business, not a page-wide error
      let trace: LearnTrace | null = null, error: string | null = null, coded: CoreCoded = {};
      try {
        trace = M.learnTrace(msg.model, msg.edits);
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
        coded = codedOf(e);
      }
      send({ type: 'walkTrace', id: msg.id, trace, error, ...coded });
      return;
    }
    case 'load': {
      const bytes = new Uint8Array(msg.bytes);
      // Session.load leaves the session as it was on any error; without a session, a temporary one
      // (default config) is made and dropped again if the checkpoint is refused.
      const load = (): Session => {
        const fresh = !session;
        const s = session ?? new M!.Session({});
        try {
          s.load(bytes);
        } catch (e) {
          if (fresh) s.delete();
          throw e;
        }
        return s;
      };
      const loaded = (s: Session) => {
        // a checkpoint of the other model kind starts without data: the worker's corpus goes with it
        // when it is of that kind (attachCorpus), otherwise the page gives it (ModelInfo.hasCorpus)
        attachCorpus(s);
        stop('paused');
        generation = null;
        gpu?.destroy();  // the previous model's buffers (the session is the same object)
        gpu = null;
        dropTree();
        session = s;
        applyThreads();
        return attachGpu().then((fallback) => {
          if (session !== s) return;
          describe(msg.reason === 'resume' ? 'resume' : 'load', msg.name);
          reportBackend(fallback);
        });
      };
      // on the GPU: between steps, so that a refused checkpoint leaves the run as it was
      if (gpu) return onGpu(gpu, (b) => b.exclusive(load), load).then(loaded);
      return loaded(load());
    }
    case 'treeStart': {
      const s = needSession();
      const grow = () => {
        dropTree();
        tree = M!.growGenerationTree(s, new Uint8Array(msg.prompt), msg.topK);
        treeId = msg.id;
        sendTree(0);
      };
      // on the GPU the host's weights are those of its last sync: bring the GPU's back first
      if (gpu) return onGpu(gpu, (b) => b.syncHost().then(grow), grow);
      grow();
      return;
    }
    case 'treeExtend': {
      if (!tree || msg.id !== treeId) throw codedError('worker.tree_gone', 'that generation tree is gone: begin again');
      if (!tree.current()) {
        throw codedError('worker.tree_stale', `the model has trained since this tree was grown (step ${tree.step()}): begin again`,
          { step: tree.step() });
      }
      sendTree(tree.extend(msg.node, msg.token));
      return;
    }
    case 'runCurves': {
      // a stored run's curves: its checkpoint loaded into a session of its own, read and dropped
      const t = new M.Session({});
      try {
        t.load(new Uint8Array(msg.bytes));
        const h = t.history();
        send({ type: 'runCurves', id: msg.id, config: t.config(), step: t.step(), train: h.train, valSteps: h.valSteps, valLosses: h.valLosses });
      } finally {
        t.delete();
      }
      return;
    }
    case 'loadSafetensors': {
      // a new session from the file (the core checks it); the current one stays until it succeeded
      const s = M.sessionFromSafetensors(new Uint8Array(msg.bytes));
      attachCorpus(s);
      dropSession();
      session = s;
      applyThreads();
      return attachGpu().then((fallback) => {
        if (session !== s) return;
        describe('load', msg.name);
        reportBackend(fallback);
      });
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
