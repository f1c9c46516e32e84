// messages.ts — the runtime's messages: loading the module (which build, how many threads) and
// the thread count of the threads build.
import type { FieldSpec, Preset, TaskInfo } from '../../../../wasm/tinygpt';
import type { Coded } from '../../lib/coded';
import type { Variant } from '../../worker/state';

export type { Variant };
export type ThreadSetting = 'auto' | number;

export interface InitOptions {
  /** The absolute URL of the folder with tinygpt-*.js. */
  wasmBase: string;
  variant?: Variant;
  maxThreads?: number;
  threads?: ThreadSetting;
  /** Train on WebGPU when the worker finds an adapter (and the model fits it), or on the wasm build only. */
  backend?: 'webgpu' | 'wasm';
  /** ?backend= asked for it (a missing WebGPU is then worth a message). */
  backendForced?: boolean;
}

export interface RuntimeCalls {
  /** Loads the wasm module ('ready' follows), then looks for a WebGPU adapter ('backend' follows). */
  init(msg: InitOptions): void;
  /** Threads of the threads build: 'auto' (up to all cores, tuned by the core from its step times) or a fixed count. */
  threads(msg: { setting: ThreadSetting }): void;
}

export interface Ready {
  variant: Variant;
  backend: string;          // the SIMD backend compiled in: 'simd128' or 'scalar'
  threads: number;          // threads the kernels use
  maxThreads: number;       // the most the page offers: min(cores, the module's pool)
  threadSetting: ThreadSetting;
  crossOriginIsolated: boolean;
  loadMs: number;           // time to fetch + compile + instantiate the module
  fallback: Coded | null;   // why a faster variant was not used
  schema: FieldSpec[];      // the config schema: the page builds its knobs from it
  presets: Preset[];        // the same presets as the CLI's --preset
  tasks: TaskInfo[];        // the built-in translation tasks
  buildVariant: string;     // the core's build variant ("wasm-simd128"): runs are bit-identical within one
}

/** The kernels' thread count after a slice, and the tuner's reason (null when the count is fixed). */
export interface ThreadsNow { threads: number; reason: Coded | null }

/** A thread of the kernels' pool stopped (its error, as the browser gave it); the run goes on with one thread. */
export interface ThreadDied { message: string }

export interface RuntimeEvents {
  ready: Ready;
  threads: ThreadsNow;
  threadDied: ThreadDied;
}
