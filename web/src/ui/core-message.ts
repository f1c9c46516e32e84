// core-message.ts — a core (or worker) message as DOM in the page's language
// (i18n/core-messages.ts words it): its args marked as data, or the core's English marked as such.
import { type Coded, coreParts, ownEnglish } from '../i18n/core-messages';
import { locale, relabelled, tr } from '../i18n';
import { h } from './dom';

function fill(span: HTMLElement, text: string, from: object | null | undefined): void {
  const parts = coreParts(from);
  if (parts && !ownEnglish(text)) {
    span.replaceChildren(...parts.map((p) => (p.arg ? h('span', { translate: 'no', class: 'core-arg' }, p.text) : p.text)));
    span.removeAttribute('lang');
  } else if (parts || locale.get() === 'en') {
    span.replaceChildren(text);  // the English page: the core's sentence
    span.removeAttribute('lang');
  } else {
    span.replaceChildren(
      h('span', { class: 'core-says' }, tr((x) => x.errors.coreSays)),
      h('span', { translate: 'no', lang: 'en' }, text));
  }
}

/**
 * The message as DOM: worded in the page's language (its args marked translate="no"), or the
 * core's English marked as such. It rewords itself when the language switches.
 */
export function coreNode(text: string, from?: object | null): HTMLElement {
  const code = (from as Coded | undefined | null)?.code ?? null;
  // follows the language (held weakly: a message the page dropped is not kept)
  return relabelled(h('span', { class: 'core-message', 'data-code': code || null }), (span) => fill(span, text, from));
}
