// module.ts — loading the wasm module: which of the three builds this browser can run (threads
// need a cross-origin isolated page and wasm threads; SIMD needs wasm SIMD), and the fall-back
// to the next one when a build fails to load.
import type { TinyGPTModule } from '../../../wasm/tinygpt';
import { type Coded, coded } from '../lib/coded';
import type { Variant } from './state';

/** Tiny module with one SIMD128 instruction (i32x4.splat): does the engine accept SIMD? */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** What the worker's global scope tells about the browser (a parameter: testable without a worker). */
export interface Scope { crossOriginIsolated: boolean }

/** The fastest build this browser runs, and why not a faster one (null: the fastest). */
export function detectVariant(scope: Scope): { variant: Variant; why: Coded | null } {
  const simd = WebAssembly.validate(SIMD_PROBE);
  if (scope.crossOriginIsolated && typeof SharedArrayBuffer === 'function' && simd) return { variant: 'threads', why: null };
  if (!simd) return { variant: 'scalar', why: coded('variant.no_simd', 'this browser has no WebAssembly SIMD') };
  return {
    variant: 'simd',
    why: !scope.crossOriginIsolated
      ? coded('variant.not_isolated', 'the page is not cross-origin isolated (no SharedArrayBuffer), so one thread')
      : coded('variant.no_threads', 'this browser lacks wasm threads'),
  };
}

async function importBuild(wasmBase: string, v: Variant): Promise<TinyGPTModule> {
  // The Emscripten loader tells a worker from the main thread by `importScripts`, which module
  // workers lack; without it a threads build would busy-wait as if it were on the page's thread.
  const g = globalThis as unknown as { importScripts?: unknown };
  if (typeof g.importScripts !== 'function') {
    g.importScripts = () => { throw new Error('importScripts is not available in a module worker'); };
  }
  const url = new URL(`tinygpt-${v}.js`, wasmBase).href;
  const mod = (await import(/* @vite-ignore */ url)) as { default: () => Promise<TinyGPTModule> };
  return mod.default();
}

/** Loads the build asked for (or the fastest), falling back to a slower one if it fails to load. */
export async function loadModule(wasmBase: string, asked: Variant | undefined, scope: Scope):
  Promise<{ M: TinyGPTModule; variant: Variant; why: Coded | null }> {
  const detected = detectVariant(scope);
  let variant: Variant = asked ?? detected.variant;
  let why = asked ? coded('variant.requested', `variant ${asked} requested`, { variant: asked }) : detected.why;
  if (variant === 'threads' && !scope.crossOriginIsolated) {
    variant = 'simd';
    why = coded('variant.threads_need_isolation', 'threads need a cross-origin isolated page');
  }
  try {
    return { M: await importBuild(wasmBase, variant), variant, why };
  } catch (e) {
    if (variant === 'scalar') throw e;
    const fallback: Variant = variant === 'threads' && WebAssembly.validate(SIMD_PROBE) ? 'simd' : 'scalar';
    why = coded('variant.load_failed', `the ${variant} build failed to load (${e instanceof Error ? e.message : e})`, { variant });
    return { M: await importBuild(wasmBase, fallback), variant: fallback, why };
  }
}
