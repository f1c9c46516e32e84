// errors.ts — why the WebGPU backend cannot go on; the page falls back to the CPU build on any
// of them (from the last state it saved).
export type GpuErrorKind =
  | 'unavailable'   // no navigator.gpu, or no adapter
  | 'limits'        // the model does not fit this device's limits (buffer size, head size, grid)
  | 'out-of-memory' // buffer allocation failed
  | 'pipeline'      // a kernel failed to compile or its pipeline to build
  | 'device-lost'   // the GPU was lost (driver reset, another tab, destroy())
  | 'internal';     // a validation error: a bug in the executor or the plan

export class GpuBackendError extends Error {
  readonly kind: GpuErrorKind;
  /** The message's code for the page's wording (protocol WORKER_MESSAGE_CODES): gpu.<kind> unless a more precise one. */
  readonly code: string;
  readonly args: Record<string, string | number>;
  constructor(kind: GpuErrorKind, message: string, code?: string, args: Record<string, string | number> = {}) {
    super(message);
    this.name = 'GpuBackendError';
    this.kind = kind;
    this.code = code ?? `gpu.${kind}`;
    this.args = args;
  }

  /** code and args, to spread next to the message in a protocol object. */
  coded(): { code: string; args: Record<string, string | number> } {
    return { code: this.code, args: this.args };
  }
}

export function isGpuBackendError(e: unknown): e is GpuBackendError {
  return e instanceof GpuBackendError;
}
