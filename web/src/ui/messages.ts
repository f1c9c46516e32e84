// messages.ts — notices at the top of the page (errors, confirmations), announced to screen readers.
import { tr } from '../i18n';
import { h } from './dom';

export type Kind = 'info' | 'success' | 'warning' | 'error';

/** The page's notices area (index.html #messages); none in the unit tests, which run without a page. */
const area = (): HTMLElement | null => (typeof document === 'undefined' ? null : document.getElementById('messages'));

/**
 * Shows a notice; info/success fade after a while, warnings and errors stay until dismissed.
 * Content with DOM in it may be given as a function: built only where there is a page to show it.
 */
export function notify(content: string | Node | (() => string | Node), kind: Kind = 'info', options: { timeout?: number; id?: string } = {}): HTMLElement | null {
  const box = area();
  if (!box) return null;
  const text = typeof content === 'function' ? content() : content;
  if (options.id) box.querySelector(`[data-id="${options.id}"]`)?.remove();
  const close = h('button', { class: 'icon', 'aria-label': tr((m) => m.common.dismiss), title: tr((m) => m.common.dismiss) }, '×');
  const item = h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-id': options.id ?? null },
    h('span', { class: 'text' }, text), close);
  close.addEventListener('click', () => item.remove());
  box.append(item);
  const timeout = options.timeout ?? (kind === 'info' || kind === 'success' ? 6000 : 0);
  if (timeout > 0) setTimeout(() => item.remove(), timeout);
  return item;
}
