// backend.ts — which backend the page trains on, what its header says, and what it tells the
// user when WebGPU gives up (the page integration's pure half; see docs/webgpu.md).
import type { GpuBackendError, GpuErrorKind } from './errors';

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

// What the page says when it falls back to the CPU build (from the last autosave, if any).
export function fallbackMessage(e: Pick<GpuBackendError, 'kind' | 'message'>, resumedAtStep: number | null): string {
  const from = resumedAtStep === null ? 'from the start' : `from the last autosave (step ${resumedAtStep})`;
  return `${reasons[e.kind]} (${e.message}): training continues on the CPU ${from}.`;
}
