// backend.ts — which backend the page trains on, what its header says, and what it tells the
// user when WebGPU gives up (the page integration's pure half; see docs/webgpu.md).
import type { GpuErrorKind } from './errors';

export type Backend = 'webgpu' | 'wasm';

export interface BackendChoice {
  backend: Backend;
  forced: boolean; // ?backend= asked for it
}

// ?backend=webgpu|wasm forces one; otherwise WebGPU when the browser has navigator.gpu (whether an
// adapter exists and the model fits its limits is known only once GpuExecutor.create tries).
export function chooseBackend(search: string, hasWebGpu: boolean): BackendChoice {
  const asked = new URLSearchParams(search).get('backend');
  if (asked === 'webgpu' || asked === 'wasm') return { backend: asked, forced: true };
  return { backend: hasWebGpu ? 'webgpu' : 'wasm', forced: false };
}

// The header's badge: "webgpu · <adapter>" or the wasm build's name.
export function backendBadge(backend: Backend, detail: string): string {
  return backend === 'webgpu' ? `webgpu · ${detail || 'GPU'}` : detail;
}

const reasons: Record<GpuErrorKind, string> = {
  unavailable: 'WebGPU is not available here',
  limits: 'this model does not fit the GPU',
  'out-of-memory': 'the GPU ran out of memory',
  pipeline: 'a GPU kernel failed to compile',
  'device-lost': 'the GPU was lost',
  internal: 'the GPU backend hit an error',
};

// What the page says when WebGPU gives up on a model: why, and where the run continues on the CPU
// (the worker's Session goes back to the last state it brought back from the GPU if the GPU had
// trained past it).
export function fallbackMessage(e: { kind: string; message: string }, at: { step: number; lostSteps: number }): string {
  const why = `${reasons[e.kind as GpuErrorKind] ?? reasons.internal} (${e.message})`;
  if (e.kind === 'limits') return `${why}: this model trains on the CPU.`;
  const where = at.lostSteps > 0
    ? `from step ${at.step}, the last state brought back from the GPU (the ${at.lostSteps} step${at.lostSteps === 1 ? '' : 's'} after it are trained again)`
    : `at step ${at.step}; nothing was lost`;
  return `${why}: the run continues on the CPU ${where}.`;
}
