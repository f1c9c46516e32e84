// core-args.ts — the shape of a coded message's wording (errors.core, core-messages.ts). The core
// and the worker send args as text ("n_embd", "128", "1, 3, ..."); a wording reads a number with
// Number(a.x) and shows a value with `${a.x}`. No imports: both catalogues use it.

/** A coded message's parameters, by name, as the core wrote them. */
export type CoreArgs = Record<string, string>;
/** How a code is worded: a sentence, or one made from its args. */
export type CoreWording = string | ((a: CoreArgs) => string);

// For a call without args (the catalogue test calls every function with sample values): every arg
// reads "3", and none is "there" for an optional note.
const SAMPLE: CoreArgs = new Proxy({}, { get: () => '3', has: () => false });

/** The table of wordings, each function given SAMPLE when it is called without an args object. */
export function coreWordings<T extends Record<string, CoreWording>>(table: T): T {
  const out: Record<string, CoreWording> = {};
  for (const [code, w] of Object.entries(table)) {
    out[code] = typeof w === 'string' ? w : (a: CoreArgs) => w(typeof a === 'object' && a !== null ? a : SAMPLE);
  }
  return out as T;
}

/** "x" or "" when the arg is absent: for the optional parts of a message. */
export function has(a: CoreArgs, name: string): boolean {
  return name in a;
}
