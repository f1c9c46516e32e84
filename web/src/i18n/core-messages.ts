// core-messages.ts — what the C++ core (or the worker) says, in the page's language.
//
// The core writes English for the CLI. Where a message reaches the page it also carries a stable
// `code` and its parameters (`args`); the page words it from the catalogue (`errors.core.<code>`).
// A message without a code, or with a code the catalogue does not know, is shown as the core
// wrote it, marked as such (translate="no", lang="en") behind a translated frame: never silently
// English in a Chinese sentence.
import { h } from '../ui/dom';
import { t, tr } from '.';

/**
 * Where a core message travels in the protocol, the object that carries its English text may
 * also carry `code` (stable, e.g. "config.range") and `args` (its parameters). Display sites pass
 * that object along with the text: `coreNode(p.message, p)`.
 */
export interface Coded {
  code?: string;
  args?: Record<string, string | number>;
}

type Wording = (args: Record<string, string | number>) => string;

function wording(from: object | undefined): { w: Wording; coded: Coded } | null {
  const coded = (from ?? {}) as Coded;
  if (typeof coded.code !== 'string') return null;
  const table = (t().errors as unknown as { core?: Record<string, Wording | string> }).core;
  const w = table?.[coded.code];
  if (typeof w === 'string') return { w: () => w, coded };
  return typeof w === 'function' ? { w, coded } : null;
}

/** The message as plain text in the page's language if the catalogue words its code; else the core's English. */
export function coreText(text: string, from?: object): string {
  const found = wording(from);
  return found ? found.w(found.coded.args ?? {}) : text;
}

/** Whether the catalogue words this message (else coreNode shows the English, marked). */
export function isWorded(from?: object): boolean {
  return wording(from) !== null;
}

/** The message as DOM: worded in the page's language, or the core's English marked as such. */
export function coreNode(text: string, from?: object): HTMLElement {
  const found = wording(from);
  const code = (from as Coded | undefined)?.code ?? null;
  if (found) return h('span', { class: 'core-message', 'data-code': code }, found.w(found.coded.args ?? {}));
  return h('span', { class: 'core-message', 'data-code': code },
    h('span', { class: 'core-says' }, tr((x) => x.errors.coreSays)),
    h('span', { translate: 'no', lang: 'en' }, text));
}
