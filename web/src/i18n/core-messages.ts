// core-messages.ts — what the C++ core (or the worker) says, in the page's language.
//
// The core writes English for the CLI. Where a message reaches the page it also carries a stable
// `code` and its parameters (`args`) on the same object (an Error, a problem, a rollback, ...; see
// core/include/tinygpt/error.h and lib/coded.ts); the page words it from the catalogue
// (`errors.core.<code>`). On the English page the core's own sentence is shown as it wrote it (the
// CLI's wording, which tests match); in another language the catalogue's. A message without a
// code, or with one the catalogue does not know, is shown as the core wrote it, marked as such
// (translate="no", lang="en") behind a translated frame: never silently English in a Chinese sentence.
import type { CoreArgs, CoreWording } from './core-args';
import { locale, t } from '.';

/**
 * Where a core message travels in the protocol, the object that carries its English text may
 * also carry `code` (stable, e.g. "config.range") and `args` (its parameters). Display sites pass
 * that object along with the text: `coreNode(p.message, p)`.
 */
export type { CoreCoded as Coded } from '../lib/coded';
import type { CoreCoded as Coded } from '../lib/coded';

type Wording = (args: CoreArgs) => string;

function wording(from: object | undefined | null): { w: Wording; args: CoreArgs } | null {
  const coded = (from ?? {}) as Coded;
  if (typeof coded.code !== 'string' || coded.code === '') return null;
  const table = (t().errors as unknown as { core?: Record<string, CoreWording> }).core;
  const w = table && Object.hasOwn(table, coded.code) ? table[coded.code] : undefined;
  const args: CoreArgs = {};
  for (const [k, v] of Object.entries(coded.args ?? {})) args[k] = String(v);
  // an arg the sender left out reads as '' (never "undefined" in a sentence)
  const read = <T extends object>(x: T): T => new Proxy(x, { get: (o, k) => (k in o ? Reflect.get(o, k) : '') });
  if (typeof w === 'string') return { w: () => w, args };
  return typeof w === 'function' ? { w: (a) => w(read(a)), args } : null;
}

/** The core's own English is the English page's wording (when the display site has it). */
export const ownEnglish = (text: string) => locale.get() === 'en' && text !== '';

/** The message as plain text in the page's language if the catalogue words its code; else the core's English. */
export function coreText(text: string, from?: object | null): string {
  const found = wording(from);
  if (!found || ownEnglish(text)) return text;
  return found.w(found.args);
}

/** Whether the catalogue words this message (else coreNode shows the English, marked). */
export function isWorded(from?: object | null): boolean {
  return wording(from) !== null;
}

/** A piece of a worded message: its own text, or an arg's value (data: shown translate="no"). */
export interface CorePart { text: string; arg: boolean }

/**
 * The message worded in the page's language as parts, each arg's value apart from the sentence
 * (a field name, a file name, a number as the core wrote it: data, which the zh-CN check and
 * translation tools leave alone); null if the catalogue does not word its code. The wording is
 * called with stand-ins whose text is a marker (numbers still read as numbers), then split there.
 */
export function coreParts(from?: object | null): CorePart[] | null {
  const found = wording(from);
  if (!found) return null;
  const names = Object.keys(found.args);
  const stand: Record<string, unknown> = {};
  names.forEach((name, i) => {
    const value = found.args[name];
    // an empty arg stays '' (a wording may test for it); a marker is \u0001<index>\u0002
    stand[name] = value === '' ? '' : { toString: () => `\u0001${i}\u0002`, valueOf: () => Number(value) };
  });
  const out: CorePart[] = [];
  for (const piece of found.w(stand as CoreArgs).split(/(\u0001\d+\u0002)/)) {
    const m = /^\u0001(\d+)\u0002$/.exec(piece);
    if (m) out.push({ text: found.args[names[Number(m[1])]], arg: true });
    else if (piece) out.push({ text: piece, arg: false });
  }
  return out;
}
