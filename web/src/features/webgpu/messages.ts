// messages.ts — where the steps run: WebGPU or the wasm build (docs/webgpu.md).

/**
 * Sent after the module is ready (the page's choice), after every model created or loaded (that
 * model's), and when WebGPU gives up. The wasm Session is the host either way.
 */
export interface BackendInfo {
  backend: 'webgpu' | 'wasm';
  adapter: string;          // the WebGPU adapter ('' if none was found)
  reason: string;           // why not WebGPU ('' on WebGPU): no adapter, ?backend=wasm, a seq2seq model, a failure
  code?: string;            // reason's code (gpu.*) and args
  args?: Record<string, string | number>;
  forced: boolean;          // ?backend= chose
  /** WebGPU just gave up on the current model: it continues on the CPU at `step`. */
  fallback?: GpuFallback;
}

export interface GpuFallback {
  kind: string;             // GpuErrorKind: unavailable, limits, out-of-memory, pipeline, device-lost, internal
  message: string;
  code?: string;            // message's code (gpu.<kind>) and args
  args?: Record<string, string | number>;
  step: number;             // where the model is now
  lostSteps: number;        // steps the GPU had trained past the last state it brought back (trained again)
}

export interface WebgpuEvents {
  backend: BackendInfo;
}
