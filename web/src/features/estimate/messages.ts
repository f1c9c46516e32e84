// messages.ts — the pre-flight: a few real steps of a configuration timed on the current text.
import type { PreflightResult, SessionConfig } from '../../../../wasm/tinygpt';
import type { Coded } from '../../lib/coded';

export type { PreflightResult };

export interface EstimateCalls {
  /** Times a few real steps of `config` on the worker's text with a throw-away trainer (about budgetMs). */
  measure(msg: { config: SessionConfig; budgetMs: number }): Measured;
}

/** The measurement, or why there is none (shown in the estimate box: not a page-wide error). */
export interface Measured { result: PreflightResult | null; error: Coded | null }
