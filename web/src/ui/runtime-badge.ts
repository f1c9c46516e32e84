// runtime-badge.ts — which build of the core runs, with how many threads (top right).
import { type PageStore, watch } from '../app/state';
import type { ThreadSetting } from '../protocol';
import { backendBadge } from '../gpu/backend';
import { t } from '../i18n';
import { coreText } from '../i18n/core-messages';
import { setText } from './dom';

export function bindRuntimeBadge(badge: HTMLElement, store: PageStore): void {
  watch(store, ['ready', 'loadFailed', 'backend', 'threadsNow', 'threadsReason', 'threadsCoded', 'threadSetting', 'locale'], ({ ready: m, loadFailed, backend, threadsNow, threadsReason, threadsCoded, threadSetting }) => {
    if (loadFailed) {
      setText(badge, t().page.wasmFailed);
      badge.classList.add('bad');
      return;
    }
    if (!m) return;
    const n = threadsNow || m.threads;
    const msg = t().page;
    const threads = m.variant === 'threads' ? ` ×${n}${threadSetting === 'auto' ? ` ${msg.badgeAuto}` : ''}` : '';
    const onGpu = backend?.backend === 'webgpu';
    setText(badge, onGpu ? backendBadge('webgpu', backend.adapter) : `wasm ${m.variant}${threads} · ${m.backend}`);
    badge.dataset.variant = m.variant;
    badge.dataset.threads = String(n);
    badge.dataset.backend = m.backend;
    badge.dataset.device = onGpu ? 'webgpu' : 'wasm';
    badge.classList.add('ok');
    const build = msg.buildDescription(m.variant, m.backend, n,
      m.variant === 'threads' && threadSetting === 'auto' ? coreText(threadsReason, threadsCoded) : null, m.loadMs.toFixed(0));
    badge.title = onGpu
      ? msg.onGpu(backend.adapter, build)
      : msg.onCpu(build) + (m.fallbackReason ? msg.notThreads(coreText(m.fallbackReason, m.fallbackCoded)) : '') +
        (backend?.reason ? msg.notWebgpu(coreText(backend.reason, backend)) : '');
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
  watch(store, ['ready', 'threadSetting', 'locale'], ({ ready, threadSetting }) => {
    label.hidden = !ready || ready.variant !== 'threads' || ready.maxThreads < 2;
    if (!ready) return;
    const options = ['auto', ...Array.from({ length: ready.maxThreads }, (_, i) => String(i + 1))];
    if (select.options.length !== options.length || select.options[0].textContent !== t().page.threadsAuto(ready.maxThreads)) {
      select.replaceChildren(...options.map((v) => {
        const o = document.createElement('option');
        o.value = v;
        o.textContent = v === 'auto' ? t().page.threadsAuto(ready.maxThreads) : v;
        return o;
      }));
    }
    const value = String(threadSetting);
    select.value = options.includes(value) ? value : 'auto';
  });
}
