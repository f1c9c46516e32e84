// state.ts — the part of the worker's one state object that every feature reads: the wasm module
// and the live model (its Session). Each feature declares the rest of what it keeps
// (features/<name>/worker.ts) and the worker (web/src/worker.ts) makes one object of them all.
import type { Session, TinyGPTModule } from '../../../wasm/tinygpt';
import { codedError } from '../lib/coded';

/** The three builds of the core (build/wasm-dist/tinygpt-<variant>.js). */
export type Variant = 'threads' | 'simd' | 'scalar';

export interface CoreState {
  M: TinyGPTModule | null;
  variant: Variant;
  session: Session | null;   // the live model: created, loaded, or none
}

export const initialCore = (): CoreState => ({ M: null, variant: 'scalar', session: null });

export function needModule(s: CoreState): TinyGPTModule {
  if (!s.M) throw codedError('worker.loading', 'the module is still loading');
  return s.M;
}

export function needSession(s: CoreState): Session {
  if (!s.session) throw codedError('worker.no_model', 'no model yet: press Start to create one');
  return s.session;
}
