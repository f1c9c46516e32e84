// webgpu — where the steps run: on WebGPU when the browser has an adapter and the model fits it,
// else on the wasm build (docs/webgpu.md). The page keeps the worker's latest word on it, and
// says so when WebGPU gives up on a model (the run goes on on the CPU).
import { map, type MapStore, patch } from '../../app/store';
import { locale, t } from '../../i18n';
import type { Port } from '../../lib/wire';
import { coreInline, h, notify } from '../../ui';
import { fallbackMessage } from './backend';
import type { BackendInfo, WebgpuEvents } from './messages';
import type { WebgpuSlice } from './state';

export { backendBadge, chooseBackend } from './backend';
export type { BackendInfo, WebgpuSlice };

export interface Webgpu {
  readonly $: MapStore<WebgpuSlice>;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function onBackend($: MapStore<WebgpuSlice>, m: BackendInfo): void {
  const first = $.get().backend === null;
  patch($, { backend: m });
  const f = m.fallback;
  if (f) {
    // the GPU back end's words (backend.ts) on the English page; in another, the reason by its code and where the run goes on
    notify(() => (locale.get() === 'en' ? h('span', {}, capitalise(fallbackMessage(f, f)))
      : h('span', {}, coreInline(f.message, f), t().run.gpuContinues(f.kind === 'limits', f.step, f.lostSteps))), 'warning', { id: 'backend' });
  } else if (first && m.forced && m.backend === 'wasm' && m.reason && !m.reason.startsWith('?backend')) {
    notify(() => h('span', {}, coreInline(capitalise(m.reason), m), t().run.onCpu), 'warning', { id: 'backend' });
  }
}

export function createWebgpu(port: Port<object, WebgpuEvents>): Webgpu {
  const $ = map<WebgpuSlice>({ backend: null });
  port.on('backend', (m) => onBackend($, m));
  return { $ };
}
