// messages.ts — notices at the top of the page (errors, confirmations), announced to screen readers.
import { tr } from '../i18n';
import { h } from './dom';

export type Kind = 'info' | 'success' | 'warning' | 'error';

let box: HTMLElement | null = null;

export function initMessages(el: HTMLElement): void {
  box = el;
}

/** Shows a notice; info/success fade after a while, warnings and errors stay until dismissed. */
export function notify(text: string | Node, kind: Kind = 'info', options: { timeout?: number; id?: string } = {}): HTMLElement | null {
  if (!box) return null;
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
