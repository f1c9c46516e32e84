// worker.ts (webgpu) — the current model's GPU backend. The page asks for WebGPU at init
// (?backend= or navigator.gpu); each gpt or seq2seq model that fits goes on the GPU (gpu-backend.ts, loaded
// on first use), the wasm Session staying the host: corpus, batches, history, checkpoints, the
// run loop's policy. Any GPU failure falls back to the Session on the CPU, from its last good state.
import type { Session } from '../../../../wasm/tinygpt';
import { type Coded, coded } from '../../lib/coded';
import { isTranslator } from '../../lib/model-kind';
import type { Ctx, WorkerFeature } from '../../worker/registry';
import { type CoreState, needSession } from '../../worker/state';
import { WebGpuDevice } from './device';
import { GpuBackendError, isGpuBackendError } from './errors';
import type { GpuBackend } from './gpu-backend';
import type { BackendInfo, GpuFallback } from './messages';
import type { GpuHostModule } from './session';

export type { GpuBackend };
export type { GeneratedChunk } from './executor';

export interface WebgpuState extends CoreState {
  webgpu: WebGpuDevice | null;   // the adapter and device (looked for at init)
  gpu: GpuBackend | null;        // the current model's GPU backend
  onCpu: Coded | null;           // why the current model is on the CPU although WebGPU is on
  gpuFallback: GpuFallback | null;  // what the last model's attach refused, for its backend report
}

export const initialWebgpu = (): Omit<WebgpuState, keyof CoreState> => ({ webgpu: null, gpu: null, onCpu: null, gpuFallback: null });

function asGpuError(e: unknown): GpuBackendError {
  return isGpuBackendError(e) ? e : new GpuBackendError('internal', e instanceof Error ? e.message : String(e));
}

/** Puts the new model on the GPU when WebGPU is on and the model can go there. */
async function attach(ctx: Ctx<WebgpuState>): Promise<void> {
  const st = ctx.state;
  const s = needSession(st);
  st.onCpu = null;
  st.gpuFallback = null;
  const device = st.webgpu;
  if (!device || device.off) return;
  if (s.kind() !== 'gpt' && s.kind() !== 'seq2seq') {
    st.onCpu = isTranslator(s.kind()) ? coded('gpu.lstm_seq2seq', 'the LSTM translator has no GPU plan: it trains on the CPU')
      : coded('gpu.recurrent', 'a recurrent model (rnn, gru, lstm) has no GPU plan: it trains on the CPU');
    return;
  }
  try {
    const d = await device.get();
    const { GpuBackend } = await import('./gpu-backend');
    const b = await GpuBackend.create(st.M as unknown as GpuHostModule, s, d);
    if (st.session !== s) b.destroy();  // replaced meanwhile
    else st.gpu = b;
  } catch (e) {
    const err = asGpuError(e);
    if (err.kind !== 'limits') device.turnOff(err.message, err.coded());  // this GPU is no use to the page; a smaller model may fit
    st.onCpu = { message: err.message, ...err.coded() };
    st.gpuFallback = { kind: err.kind, message: err.message, ...err.coded(), step: s.step(), lostSteps: 0 };
  }
}

/** Where the steps run now (and, after a failure, where the run goes on). */
export function reportBackend(ctx: Ctx<WebgpuState>, fallback?: GpuFallback): void {
  const st = ctx.state;
  const device = st.webgpu;
  const onGpu = st.session ? st.gpu !== null : !!device && !device.off;
  const cpuOwn = !onGpu && !!st.session && !!st.onCpu;
  const reason = onGpu ? '' : cpuOwn ? st.onCpu!.message : device?.off ?? '';
  const codedPart = onGpu ? {} : cpuOwn ? { code: st.onCpu!.code, args: st.onCpu!.args } : device?.offCoded ?? {};
  const info: BackendInfo = { backend: onGpu ? 'webgpu' : 'wasm', adapter: device?.adapterName ?? '', reason, ...codedPart, forced: device?.forced ?? false, fallback };
  ctx.emit('backend', info);
}

/**
 * The GPU gave up (a lost device, a failed kernel, out of memory): the run continues on the CPU
 * from the Session, which goes back to its last good state if the GPU had run ahead of it.
 */
export function fallBack(ctx: Ctx<WebgpuState>, b: GpuBackend, e: GpuBackendError): void {
  const st = ctx.state;
  if (b !== st.gpu) return;  // already done, or a model that was replaced
  st.gpu = null;
  if (e.kind !== 'limits') st.webgpu?.turnOff(e.message, e.coded());
  st.onCpu = { message: e.message, ...e.coded() };
  const { step, rewoundFrom } = b.abandon(e);
  void ctx.fire('gpuLost', rewoundFrom !== null, { message: e.message, kind: e.kind });
  reportBackend(ctx, { kind: e.kind, message: e.message, ...e.coded(), step, lostSteps: rewoundFrom !== null ? rewoundFrom - step : 0 });
}

/** f on the GPU when the model is there; if the GPU gives up, falls back and does cpu() instead. */
export async function onGpuOr<T>(ctx: Ctx<WebgpuState>, f: (b: GpuBackend) => Promise<T>, cpu: () => T): Promise<T> {
  const b = ctx.state.gpu;
  if (!b) return cpu();
  try {
    return await f(b);
  } catch (e) {
    if (!isGpuBackendError(e)) throw e;
    fallBack(ctx, b, e);
    return cpu();
  }
}

/**
 * Sampling and inspection: on the GPU for a byte model; a BPE model (trained on the GPU, its plan
 * sized by vocab_size) brings its weights back and does them on the host's CPU (the GPU's sample
 * kernel draws from 256 bytes).
 */
export async function onGpuBytesOr<T>(ctx: Ctx<WebgpuState>, f: (b: GpuBackend) => Promise<T>, cpu: () => T): Promise<T> {
  const b = ctx.state.gpu;
  if (b && !b.readsBytes) return onGpuOr(ctx, (g) => g.syncHost().then(cpu), cpu);
  return onGpuOr(ctx, f, cpu);
}

/** f between training steps (on the GPU: with none in flight), else at once. */
export function betweenSteps<T>(ctx: Ctx<WebgpuState>, f: () => T): T | Promise<T> {
  return ctx.state.gpu ? onGpuOr(ctx, (b) => b.exclusive(f), f) : f();
}

/** The kernels the current model trains with, as a share link names them. */
export function trainingVariant(st: WebgpuState): string {
  return st.gpu ? `webgpu (${st.webgpu?.adapterName || 'unknown adapter'})` : st.M!.buildVariant();
}

/** The GPU error a step failed with (a GPU failure falls back; anything else is the caller's). */
export { GpuBackendError, isGpuBackendError };

export function webgpuWorker(): WorkerFeature<WebgpuState> {
  return {
    name: 'webgpu',
    initial: initialWebgpu,
    hooks: {
      async moduleReady(ctx, init) {
        const device = new WebGpuDevice((message) => {
          const b = ctx.state.gpu;
          if (b) fallBack(ctx, b, new GpuBackendError('device-lost', message));
        });
        ctx.state.webgpu = device;
        await device.find(init.backend, !!init.backendForced);
        reportBackend(ctx);
      },
      modelGone(ctx) {
        ctx.state.gpu?.destroy();
        ctx.state.gpu = null;
      },
      modelDropped: (ctx) => reportBackend(ctx),
      modelReady: attach,
      modelShown(ctx) {
        reportBackend(ctx, ctx.state.gpuFallback ?? undefined);
        ctx.state.gpuFallback = null;
      },
    },
  };
}

/** The Session a GPU helper works on (the GPU mirrors it). */
export type { Session };
