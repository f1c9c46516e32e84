// state.ts (webgpu) — the worker's latest word on where the steps run.
import type { BackendInfo } from './messages';

export interface WebgpuSlice {
  backend: BackendInfo | null;            // where the steps run: WebGPU or the wasm build
}
