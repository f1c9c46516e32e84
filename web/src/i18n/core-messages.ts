// core-messages.ts — what the C++ core (or the worker) says, in the page's language.
//
// The core writes English for the CLI. Where a message reaches the page it also carries a stable
// `code` and its parameters (`args`); the page words it from the catalogue (`errors.core.<code>`).
// A message without a code, or with a code the catalogue does not know, is shown as the core
// wrote it, marked as such (translate="no", lang="en") behind a translated frame: never silently
// English in a Chinese sentence.
import { h } from '../ui/dom';
import { t, tr } from '.';

/** A message of the core: `text` is its English, `code` + `args` let the page word it. */
export interface CoreMessage {
  text: string;
  code?: string;
  args?: Record<string, string | number>;
}

type Wording = (args: Record<string, string | number>) => string;

function wording(code: string | undefined): Wording | null {
  if (!code) return null;
  const table = (t().errors as unknown as { core?: Record<string, Wording | string> }).core;
  const w = table?.[code];
  if (typeof w === 'string') return () => w;
  return typeof w === 'function' ? w : null;
}

function asMessage(m: CoreMessage | string): CoreMessage {
  return typeof m === 'string' ? { text: m } : m;
}

/** The message as plain text in the page's language, if the catalogue words it; else the core's English. */
export function coreText(m: CoreMessage | string): string {
  const msg = asMessage(m);
  const w = wording(msg.code);
  return w ? w(msg.args ?? {}) : msg.text;
}

/** Whether the catalogue words this message (else coreNode shows the English, marked). */
export function isWorded(m: CoreMessage | string): boolean {
  return wording(asMessage(m).code) !== null;
}

/** The message as DOM: worded in the page's language, or the core's English marked as such. */
export function coreNode(m: CoreMessage | string): HTMLElement {
  const msg = asMessage(m);
  const w = wording(msg.code);
  if (w) return h('span', { class: 'core-message', 'data-code': msg.code ?? null }, w(msg.args ?? {}));
  return h('span', { class: 'core-message', 'data-code': msg.code ?? null },
    h('span', { class: 'core-says' }, tr((x) => x.errors.coreSays)),
    h('span', { translate: 'no', lang: 'en' }, msg.text));
}
