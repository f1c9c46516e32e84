// runtime-badge.ts — which build of the core runs, with how many threads (top right).
import { type PageStore, watch } from '../app/state';
import { backendBadge } from '../gpu/backend';
import { setText } from './dom';

export function bindRuntimeBadge(badge: HTMLElement, store: PageStore): void {
  watch(store, ['ready', 'loadFailed', 'backend'], ({ ready: m, loadFailed, backend }) => {
    if (loadFailed) {
      setText(badge, 'wasm failed to load');
      badge.classList.add('bad');
      return;
    }
    if (!m) return;
    const threads = m.variant === 'threads' ? ` ×${m.threads}` : '';
    const onGpu = backend?.backend === 'webgpu';
    setText(badge, onGpu ? backendBadge('webgpu', backend.adapter) : `wasm ${m.variant}${threads} · ${m.backend}`);
    badge.dataset.variant = m.variant;
    badge.dataset.threads = String(m.threads);
    badge.dataset.backend = m.backend;
    badge.dataset.device = onGpu ? 'webgpu' : 'wasm';
    badge.classList.add('ok');
    // THREAD CHOICE (issue 11, item 13, another engineer's): when the worker reports why it chose
    // this many threads (e.g. a `threadsReason` in Ready), show it here and in the title below.
    const build = `the ${m.variant} build of the C++ core (${m.backend} kernels, ${m.threads} thread${m.threads === 1 ? '' : 's'}; ` +
      `module loaded in ${m.loadMs.toFixed(0)} ms)`;
    badge.title = onGpu
      ? `Training runs on the GPU through WebGPU (${backend.adapter}). A Web Worker runs ${build}: it draws the batches, ` +
        'keeps the run loop and the checkpoints, and takes over if the GPU fails.'
      : `Training runs in a Web Worker on ${build}.` + (m.fallbackReason ? ` Not the threads build: ${m.fallbackReason}.` : '') +
        (backend?.reason ? ` Not WebGPU: ${backend.reason}.` : '');
  });
}
