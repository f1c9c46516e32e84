// coded.ts — a message the page can word in its language: the English text with a stable `code`
// and its parameters (`args`) beside it on the same object. One way everywhere: the core's
// (core/include/tinygpt/error.h, wasm messageCodes()) and the worker's own (WORKER_MESSAGE_CODES)
// travel as `{ message, code, args }`: a JS Error, a config problem, a rollback, a reply's error.
// The page words it from the catalogue (i18n/core-messages.ts); without a code it shows the English.

export type Args = Record<string, string | number>;

/** The code and args part of a coded message (absent: the message is shown as written). */
export interface CoreCoded {
  code?: string;
  args?: Args;
}

/** A coded sentence: its English text, and how the page words it. */
export interface Coded extends CoreCoded {
  message: string;
}

/** The codes of the worker's own messages (beside the core's): each has a wording in errors.core. */
export const WORKER_MESSAGE_CODES = [
  'worker.loading', 'worker.no_model', 'worker.no_corpus', 'worker.no_pairs', 'worker.choose_text', 'worker.tree_gone',
  'worker.tree_stale', 'worker.inspect_empty', 'worker.not_recurrent',
  'tokens.cancelled', 'tokens.two_files', 'tokens.none',
  'variant.requested', 'variant.not_isolated', 'variant.no_threads', 'variant.no_simd', 'variant.threads_need_isolation',
  'variant.load_failed',
  'gpu.off_requested', 'gpu.not_available', 'gpu.no_adapter', 'gpu.no_device', 'gpu.device_lost', 'gpu.lstm_seq2seq', 'gpu.recurrent',
  'gpu.limits', 'gpu.out-of-memory', 'gpu.pipeline', 'gpu.internal', 'gpu.unavailable', 'gpu.device-lost',
  'gpu.generate_lost',
] as const;
export type WorkerMessageCode = (typeof WORKER_MESSAGE_CODES)[number];

/** A worker's coded sentence (not thrown): `{ message, code, args }`. */
export function coded(code: WorkerMessageCode, message: string, args: Args = {}): Coded {
  return { message, code, args };
}

/** An Error whose message the page can word: code + args beside the English (as the wasm module's). */
export function codedError(code: WorkerMessageCode, message: string, args: Args = {}): Error {
  return Object.assign(new Error(message), { code, args });
}

/** The code and args an error carries (a wasm Error or codedError), as fields to spread; {} if none. */
export function codedOf(e: unknown): CoreCoded {
  const c = (typeof e === 'object' && e !== null ? e : {}) as CoreCoded;
  return typeof c.code === 'string' && c.code !== '' ? { code: c.code, args: c.args ?? {} } : {};
}

/** Any thrown value as a coded sentence (its message, and its code and args when it has them). */
export function asCoded(e: unknown): Coded {
  return { message: e instanceof Error ? e.message : String(e), ...codedOf(e) };
}
