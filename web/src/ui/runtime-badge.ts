// runtime-badge.ts — which build of the core runs, with how many threads (top right).
import { type PageStore, watch } from '../app/state';
import type { ThreadSetting } from '../protocol';
import { backendBadge } from '../gpu/backend';
import { setText } from './dom';

export function bindRuntimeBadge(badge: HTMLElement, store: PageStore): void {
  watch(store, ['ready', 'loadFailed', 'backend', 'threadsNow', 'threadsReason', 'threadSetting'], ({ ready: m, loadFailed, backend, threadsNow, threadsReason, threadSetting }) => {
    if (loadFailed) {
      setText(badge, 'wasm failed to load');
      badge.classList.add('bad');
      return;
    }
    if (!m) return;
    const n = threadsNow || m.threads;
    const threads = m.variant === 'threads' ? ` ×${n}${threadSetting === 'auto' ? ' auto' : ''}` : '';
    const onGpu = backend?.backend === 'webgpu';
    setText(badge, onGpu ? backendBadge('webgpu', backend.adapter) : `wasm ${m.variant}${threads} · ${m.backend}`);
    badge.dataset.variant = m.variant;
    badge.dataset.threads = String(n);
    badge.dataset.backend = m.backend;
    badge.dataset.device = onGpu ? 'webgpu' : 'wasm';
    badge.classList.add('ok');
    const build = `the ${m.variant} build of the C++ core (${m.backend} kernels, ${n} thread${n === 1 ? '' : 's'}` +
      (m.variant === 'threads' && threadSetting === 'auto'
        ? `, chosen by the core's thread tuner from the step times${threadsReason ? `: ${threadsReason}` : ''}` : '') + '; ' +
      `module loaded in ${m.loadMs.toFixed(0)} ms)`;
    badge.title = onGpu
      ? `Training runs on the GPU through WebGPU (${backend.adapter}). A Web Worker runs ${build}: it draws the batches, ` +
        'keeps the run loop and the checkpoints, and takes over if the GPU fails.'
      : `Training runs in a Web Worker on ${build}.` + (m.fallbackReason ? ` Not the threads build: ${m.fallbackReason}.` : '') +
        (backend?.reason ? ` Not WebGPU: ${backend.reason}.` : '');
  });
}

/**
 * The threads setting of the threads build: "auto" (the core's thread tuner picks 1..N from the
 * step times, so another program on a core costs less) or a fixed count up to the cores the
 * browser reports. Remembered in localStorage; hidden for the single-thread builds.
 */
export const THREADS_KEY = 'tinygpt.threads';

export function storedThreadSetting(): ThreadSetting {
  const v = localStorage.getItem(THREADS_KEY);
  const n = Number(v);
  return v && v !== 'auto' && Number.isInteger(n) && n > 0 ? n : 'auto';
}

export function bindThreadsPicker(label: HTMLElement, store: PageStore, onChange: (s: ThreadSetting) => void): void {
  const select = label.querySelector('select') as HTMLSelectElement;
  select.addEventListener('change', () => {
    const setting: ThreadSetting = select.value === 'auto' ? 'auto' : Number(select.value);
    localStorage.setItem(THREADS_KEY, String(setting));
    onChange(setting);
  });
  watch(store, ['ready', 'threadSetting'], ({ ready, threadSetting }) => {
    label.hidden = !ready || ready.variant !== 'threads' || ready.maxThreads < 2;
    if (!ready) return;
    const options = ['auto', ...Array.from({ length: ready.maxThreads }, (_, i) => String(i + 1))];
    if (select.options.length !== options.length) {
      select.replaceChildren(...options.map((v) => {
        const o = document.createElement('option');
        o.value = v;
        o.textContent = v === 'auto' ? `auto (up to ${ready.maxThreads})` : v;
        return o;
      }));
    }
    const value = String(threadSetting);
    select.value = options.includes(value) ? value : 'auto';
  });
}
