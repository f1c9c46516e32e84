// panel.ts (runtime) — which build of the core runs, with how many threads (top right), and the
// threads picker of the threads build.
import { type MapStore, view, watch } from '../../app/store';
import { t } from '../../i18n';
import { coreText } from '../../i18n/core-messages';
import { setText } from '../../ui';
import { backendBadge, type WebgpuSlice } from '../webgpu';
import type { RuntimeSlice } from './state';
import type { ThreadSetting } from './messages';

export function bindRuntimeBadge(badge: HTMLElement, runtime: MapStore<RuntimeSlice>, webgpu: MapStore<WebgpuSlice>): void {
  watch(view(runtime, webgpu), ['ready', 'loadFailed', 'backend', 'threadsNow', 'threadsReason', 'threadSetting', 'locale'], ({ ready: m, loadFailed, backend, threadsNow, threadsReason, threadSetting }) => {
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
      m.variant === 'threads' && threadSetting === 'auto' ? coreText(threadsReason?.message ?? '', threadsReason) : null, m.loadMs.toFixed(0));
    badge.title = onGpu
      ? msg.onGpu(backend.adapter, build)
      : msg.onCpu(build) + (m.fallback ? msg.notThreads(coreText(m.fallback.message, m.fallback)) : '') +
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

export function bindThreadsPicker(label: HTMLElement, store: MapStore<RuntimeSlice>, onChange: (s: ThreadSetting) => void): void {
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
