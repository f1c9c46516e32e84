// i18n — the page in English and Chinese (issue 16).
//
// A typed message catalogue, no library: `en/` is the catalogue (one file per area of the page)
// and `zh-CN/` must have the same type, so TypeScript refuses a missing, extra or misspelled key
// and a message whose parameters differ. Messages are strings or functions of their parameters
// (plurals and word order are the function's business). We looked at @nanostores/i18n (loads
// translations as untyped JSON, checked only at run time) and typesafe-i18n (a code generator,
// unmaintained): the 60 lines below give compile-time completeness with nothing to generate.
// English is in the main chunk (the fallback and the type); Chinese is a chunk of its own,
// fetched before the page is built when it is the language (main.ts awaits `localeReady`) or at a
// switch, so a visit in one language does not download the other's text.
//
// The language: the one remembered in localStorage, else the first of navigator.languages we
// have, else English. `setLocale` switches it live: text created with `tr()` (through `h()`) is
// relabelled in place, and panels that render text from the store list 'locale' among the keys
// they watch (the page store mirrors `locale`). Notices already shown stay in their language.
import { atom } from 'nanostores';

import { en, type Messages } from './en';

export type { Messages };
export type Locale = 'en' | 'zh-CN';

const catalogues: Partial<Record<Locale, Messages>> = { en };

/** The catalogue of `l`, fetched the first time it is asked for. */
export async function loadCatalogue(l: Locale): Promise<Messages> {
  if (l === 'zh-CN') catalogues[l] ??= (await import('./zh-CN')).zhCN;
  return catalogues[l]!;
}
/** Each language's name in itself, for the switcher. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '中文' };
export const LOCALE_KEY = 'tinygpt.locale';

/** The language for a remembered choice and the browser's list (navigator.languages). */
export function pickLocale(stored: string | null, languages: readonly string[]): Locale {
  if (stored === 'en' || stored === 'zh-CN') return stored;
  for (const lang of languages) {
    const l = lang.toLowerCase();
    if (l.startsWith('zh')) return 'zh-CN';
    if (l.startsWith('en')) return 'en';
  }
  return 'en';
}

function initialLocale(): Locale {
  let stored: string | null = null;
  try { stored = globalThis.localStorage?.getItem(LOCALE_KEY) ?? null; } catch { /* storage blocked */ }
  const nav = globalThis.navigator;
  return pickLocale(stored, nav ? (nav.languages?.length ? nav.languages : [nav.language]) : []);
}

/** The current language (a nanostores atom: subscribe to follow switches). */
export const locale = atom<Locale>(initialLocale());
/** Resolves once the starting language's catalogue is there (main.ts builds the page after it). */
export const localeReady: Promise<unknown> = loadCatalogue(locale.get()).catch(() => locale.set('en'));

/** The current catalogue: `t().train.start`, `t().train.steps(12)` (English until a catalogue has arrived). */
export function t(): Messages {
  return catalogues[locale.get()] ?? en;
}

/** A message picked from the catalogue at render time. */
export type Msg = (m: Messages) => string;
/** A message that follows the language: give it to `h()` as a child or an attribute value. */
export interface Tr { readonly tr: Msg }
export function tr(pick: Msg): Tr {
  return { tr: pick };
}
export function isTr(x: unknown): x is Tr {
  return typeof x === 'object' && x !== null && !(x instanceof Node) && typeof (x as Tr).tr === 'function';
}

// the nodes to draw again at a switch, held weakly
interface Bound { ref: WeakRef<Node>; redraw: (node: Node) => void }
const bound: Bound[] = [];
let pruneAt = 1024;
/** Drops the entries whose node is gone; `relabel` also words the live ones again. */
function sweep(relabel: boolean): void {
  let live = 0;
  for (const b of bound) {
    const node = b.ref.deref();
    if (!node) continue;
    if (relabel) b.redraw(node);
    bound[live++] = b;
  }
  bound.length = live;
}
// panels that redraw with tr() add entries between switches: swept when the list has doubled
function keep(b: Bound): void {
  bound.push(b);
  if (bound.length < pruneAt) return;
  sweep(false);
  pruneAt = Math.max(1024, 2 * bound.length);
}

/**
 * Draws `node` in the current language now and again after every switch. `redraw` gets the node
 * as its argument and must not hold it itself (the node is held weakly, so the DOM a panel throws
 * away is not kept alive).
 */
export function relabelled<N extends Node>(node: N, redraw: (node: N) => void): N {
  redraw(node);
  keep({ ref: new WeakRef(node), redraw: redraw as (node: Node) => void });
  return node;
}

/** A text node showing `pick` in the current language, now and after every switch. */
export function trText(pick: Msg): Text {
  return relabelled(document.createTextNode(''), (n) => { n.data = pick(t()); });
}

/** Sets attribute `name` of `el` to `pick` in the current language, now and after every switch. */
export function trAttr(el: Element, name: string, pick: Msg): void {
  relabelled(el, (e) => e.setAttribute(name, pick(t())));
}

/** Switches the language (once its catalogue is there), remembers it, and relabels the page. */
export async function setLocale(next: Locale): Promise<void> {
  await loadCatalogue(next);
  try { localStorage.setItem(LOCALE_KEY, next); } catch { /* storage blocked: this visit only */ }
  if (locale.get() !== next) locale.set(next);
}

locale.subscribe((l) => {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = l;
  sweep(true);
});

/** A page of docs/ in the current language (the docs are twins: x.md and x.zh-CN.md). */
export function docHref(page: string, anchor = ''): string {
  const file = locale.get() === 'zh-CN' ? page.replace(/\.md$/, '.zh-CN.md') : page;
  return `docs/${file}${anchor ? `#${anchor}` : ''}`;
}

/** Numbers in the current language's digits grouping (both use 1,234,567). */
export function numberLocale(): string {
  return locale.get() === 'zh-CN' ? 'zh-CN' : 'en-US';
}

/** The message at a dotted path ("page.title"), for the static page (index.html's data-i18n). */
export function messageAt(path: string): Msg {
  const keys = path.split('.');
  return (m) => {
    let v: unknown = m;
    for (const k of keys) v = (v as Record<string, unknown> | undefined)?.[k];
    if (typeof v !== 'string') throw new Error(`no message ${path}`);
    return v;
  };
}

/**
 * Binds index.html's static text: `data-i18n="page.x"` (the element's text) and
 * `data-i18n-attr="title:page.y;aria-label:page.z"` (attributes). web/test/i18n.test.ts checks
 * that every path there is a message.
 */
export function bindStatic(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-i18n]')) el.replaceChildren(trText(messageAt(el.dataset.i18n!)));
  for (const el of root.querySelectorAll<HTMLElement>('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr!.split(';')) {
      const [attr, path] = pair.split(':');
      trAttr(el, attr.trim(), messageAt(path.trim()));
    }
  }
}
