// worker.ts (runtime) — loading the module, and the kernels' thread count: 'auto' lets the core's
// thread tuner pick 1..threadCap from the step times (Run::tune_threads), a number fixes it.
import type { Slice } from '../../../../wasm/tinygpt';
import { loadModule } from '../../worker/module';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import type { CoreState } from '../../worker/state';
import type { InitOptions, Ready, RuntimeCalls, ThreadSetting } from './messages';

/** The module starts min(cores, 16) workers (wasm/CMakeLists.txt PTHREAD_POOL_SIZE). */
const THREAD_POOL_MAX = 16;

export interface RuntimeState extends CoreState {
  threadSetting: ThreadSetting;
  threadCap: number;                 // min(cores, ?threads=, the module's pool)
  threadsSent: string;               // the last thread count and reason sent ('threads' event)
}

export const initialRuntime = (): Omit<RuntimeState, keyof CoreState> => ({ threadSetting: 'auto', threadCap: 1, threadsSent: '' });

/** Applies the thread setting to the module and the live session. */
export function applyThreads(s: RuntimeState): void {
  const M = s.M;
  if (!M || s.variant !== 'threads') return;
  const auto = s.threadSetting === 'auto';
  M.setThreads(auto ? s.threadCap : Math.max(1, Math.min(s.threadCap, s.threadSetting as number)));
  s.session?.tuneThreads(auto ? s.threadCap : 0);
}

/** The worker's global scope: the browser's cores and isolation, and its uncaught errors. */
interface Scope {
  crossOriginIsolated: boolean;
  navigator: { hardwareConcurrency?: number };
  addEventListener?(type: 'error', fn: (e: ErrorEvent) => void): void;
}

/**
 * A thread of the kernels' pool died: a trap in one of its tasks reaches this worker as an
 * uncaught error of the pthread's worker (tinygpt-threads.worker.js), then as Emscripten's rethrow
 * of it. The pool never waits for a thread that claimed nothing (core/src/threadpool.cpp), so the
 * run goes on, its caller doing every chunk; the error would otherwise reach the page as an uncaught
 * one and nobody would know why the steps slowed down. Said once, in words, and the thread count
 * set to 1 (the tuner off: it would time a dead thread). Other errors go on as before.
 */
export function watchPoolThreads(ctx: Ctx<RuntimeState>, scope: Scope): void {
  let told = false;
  scope.addEventListener?.('error', (e: ErrorEvent) => {
    const inner = typeof ErrorEvent === 'function' && e.error instanceof ErrorEvent ? e.error : null;   // Emscripten's rethrow
    const fromThread = /\.worker\.js/.test(e.filename ?? '') || inner !== null;
    if (ctx.state.variant !== 'threads' || !fromThread) return;
    e.preventDefault();
    const what = (inner ? inner.message : e.message) || 'unknown error';
    console.error(`tinygpt: a thread of the pool stopped: ${what} (${e.filename}:${e.lineno})`);
    if (told) return;
    told = true;
    ctx.state.threadSetting = 1;
    ctx.state.threadsSent = '';
    applyThreads(ctx.state);
    ctx.emit('threadDied', { message: what.replace(/^Uncaught\s+/, '') });
  });
}

async function init(msg: InitOptions, ctx: Ctx<RuntimeState>, scope: Scope): Promise<Ready> {
  const s = ctx.state;
  const t0 = performance.now();
  const { M, variant, why } = await loadModule(msg.wasmBase, msg.variant, scope);
  Object.assign(s, { M, variant });
  // Threads: up to every core the browser reports (and the module's pool); by default the core's
  // thread tuner picks the count from the step times (another program on a core: fewer threads).
  s.threadCap = variant === 'threads'
    ? Math.max(1, Math.min(scope.navigator.hardwareConcurrency || 1, THREAD_POOL_MAX, msg.maxThreads ?? Infinity, M.maxThreads())) : 1;
  s.threadSetting = msg.threads ?? 'auto';
  applyThreads(s);
  return {
    variant, backend: M.backend(), threads: M.numThreads(), maxThreads: s.threadCap, threadSetting: s.threadSetting,
    crossOriginIsolated: scope.crossOriginIsolated, loadMs: performance.now() - t0, fallback: why,
    schema: M.configSchema(), presets: M.presets(), tasks: M.builtinTasks(), buildVariant: M.buildVariant(),
  };
}

/** The kernels' threads after a slice, sent when the count or the tuner's reason changed. */
function reportThreads(ctx: Ctx<RuntimeState>, slice: Slice): void {
  const s = ctx.state;
  const threads = slice.threads ?? s.M?.numThreads() ?? 1;
  const reason = slice.threadsReason ?? null;
  const key = `${threads}|${reason?.message ?? ''}`;
  if (key === s.threadsSent) return;
  s.threadsSent = key;
  ctx.emit('threads', { threads, reason });
}

export function runtimeWorker(scope: Scope): WorkerFeature<RuntimeState> {
  return {
    name: 'runtime',
    initial: initialRuntime,
    handlers: handlers<RuntimeCalls, RuntimeState>({
      async init(msg, ctx) {
        ctx.emit('ready', await init(msg, ctx, scope));
        watchPoolThreads(ctx, scope);
        await ctx.fire('moduleReady', msg);
      },
      threads(msg, ctx) {
        ctx.state.threadSetting = msg.setting;
        ctx.state.threadsSent = '';
        applyThreads(ctx.state);
      },
    }),
    hooks: {
      modelReady: (ctx) => applyThreads(ctx.state),
      slice: reportThreads,
    },
  };
}
