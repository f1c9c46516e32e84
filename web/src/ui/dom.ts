// dom.ts — a few lines instead of a framework: element creation and small helpers.
import { isTr, type Tr, trAttr, trText } from '../i18n';

type Child = Node | string | number | Tr | null | undefined | false;
type Attrs = Record<string, string | number | boolean | Tr | null | undefined | EventListener>;

/**
 * h('button', {class: 'x', onclick: fn, 'aria-label': tr((m) => m.x.label)}, tr((m) => m.x.text), child)
 * A `tr(...)` child or attribute value follows the page's language (i18n/index.ts).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
    else if (isTr(v)) trAttr(el, k, v.tr);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : isTr(c) ? trText(c.tr) : String(c));
  }
}

export function $(selector: string, root: ParentNode = document): HTMLElement {
  const el = root.querySelector<HTMLElement>(selector);
  if (!el) throw new Error(`missing element ${selector}`);
  return el;
}

export function setText(el: Element, text: string, value?: number | string): void {
  if (el.textContent !== text) el.textContent = text;
  if (value !== undefined) (el as HTMLElement).dataset.value = String(value);
}

export function clear(el: Element): void {
  while (el.firstChild) el.firstChild.remove();
}

/** A section heading with a short explanation of what the panel shows. */
export function panelHeader(num: number, title: string | Tr, explain: string | Tr): HTMLElement {
  return h('header', { class: 'panel-head' },
    h('h2', {}, h('span', { class: 'num', 'aria-hidden': 'true' }, String(num)), title),
    h('p', { class: 'explain' }, explain));
}

/** Throttles fn to once per animation frame (or per `ms` if given). */
export function throttle(fn: () => void, ms = 0): () => void {
  let scheduled = false;
  let last = 0;
  return () => {
    if (scheduled) return;
    scheduled = true;
    const run = () => {
      scheduled = false;
      last = performance.now();
      fn();
    };
    const wait = Math.max(0, ms - (performance.now() - last));
    if (wait > 0) setTimeout(() => requestAnimationFrame(run), wait);
    else requestAnimationFrame(run);
  };
}

export function cssVar(name: string, el: Element = document.documentElement): string {
  return getComputedStyle(el).getPropertyValue(name).trim();
}
