// runtime-badge.ts — which build of the core runs, with how many threads (top right).
import { type PageStore, watch } from '../app/state';
import { setText } from './dom';

export function bindRuntimeBadge(badge: HTMLElement, store: PageStore): void {
  watch(store, ['ready', 'loadFailed'], ({ ready: m, loadFailed }) => {
    if (loadFailed) {
      setText(badge, 'wasm failed to load');
      badge.classList.add('bad');
      return;
    }
    if (!m) return;
    const threads = m.variant === 'threads' ? ` ×${m.threads}` : '';
    setText(badge, `wasm ${m.variant}${threads} · ${m.backend}`);
    badge.dataset.variant = m.variant;
    badge.dataset.threads = String(m.threads);
    badge.dataset.backend = m.backend;
    badge.classList.add('ok');
    // THREAD CHOICE (issue 11, item 13, another engineer's): when the worker reports why it chose
    // this many threads (e.g. a `threadsReason` in Ready), show it here and in the title below.
    badge.title = `Training runs in a Web Worker on the ${m.variant} build of the C++ core ` +
      `(${m.backend} kernels, ${m.threads} thread${m.threads === 1 ? '' : 's'}; module loaded in ${m.loadMs.toFixed(0)} ms).` +
      (m.fallbackReason ? ` Not the threads build: ${m.fallbackReason}.` : '');
  });
}
