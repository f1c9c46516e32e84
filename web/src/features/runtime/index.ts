// runtime — which build of the core runs (threads, SIMD128 or scalar), with how many threads, and
// how the page talks with its worker: the count of each event (tests wait for the nth
// 'evalResult') and every failure the worker reported (tests check there are none).
import type { Bridge } from '../../app/bridge';
import { map, type MapStore, patch } from '../../app/store';
import { t } from '../../i18n';
import type { Coded } from '../../lib/coded';
import { coreInline, h, notify } from '../../ui';
import type { Webgpu } from '../webgpu';
import type { InitOptions, Ready, RuntimeCalls, RuntimeEvents, ThreadSetting, ThreadsNow } from './messages';
import type { RuntimeSlice } from './state';
import { bindRuntimeBadge, bindThreadsPicker } from './panel';

export { storedThreadSetting } from './panel';
export type { InitOptions, Ready, ThreadSetting, Variant } from './messages';
export type { RuntimeSlice };


export interface Runtime {
  readonly $: MapStore<RuntimeSlice>;
  /** Loads the module in the worker (the page's ?variant=, ?threads=, WebGPU choice). */
  init(options: Omit<InitOptions, 'wasmBase'>): void;
  /** Threads of the threads build: 'auto' (tuned by the core) or a fixed count; remembered by the page. */
  setThreads(setting: ThreadSetting): void;
  /** The badge (top right) and the threads picker. */
  mount(badge: HTMLElement, picker: HTMLElement, webgpu: Webgpu): void;
  /** Resolves once the module is ready; rejects if it failed to load (`what` waits meanwhile). */
  whenReady(): Promise<Ready>;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function createRuntime(bridge: Bridge<RuntimeCalls, RuntimeEvents>): Runtime {
  const $ = map<RuntimeSlice>({ ready: null, loadFailed: null, threadSetting: 'auto', threadsNow: 0, threadsReason: null, counts: {}, errors: [] });
  bridge.onAnyEvent((type) => {
    const counts = { ...$.get().counts };
    counts[type] = (counts[type] ?? 0) + 1;
    patch($, { counts });
  });
  bridge.onRejected((type, e) => patch($, { errors: [...$.get().errors, `${type}: ${e.message}`] }));
  // a failure nobody waited for: the core's (or the worker's) words
  bridge.onUnhandled((type, e) => {
    if (type !== 'init') notify(() => coreInline(capitalise(e.message), e), 'error');
  });
  bridge.on('ready', (m) => patch($, { ready: m, threadSetting: m.threadSetting, threadsNow: m.threads, threadsReason: null }));
  bridge.on('threads', (m: ThreadsNow) => patch($, { threadsNow: m.threads, threadsReason: m.reason }));
  bridge.on('threadDied', (m) => {
    patch($, { threadSetting: 1, threadsNow: 1, threadsReason: null, errors: [...$.get().errors, `threadDied: ${m.message}`] });
    notify(t().run.threadDied(m.message), 'warning', { id: 'thread-died', timeout: 0 });
  });
  const failed = (e: Coded) => {
    patch($, { loadFailed: e.message });
    notify(() => h('span', {}, t().run.initFailed, coreInline(e.message, e)), 'error');
  };
  bridge.onUnhandled((type, e) => void (type === 'init' && failed(e)));
  return {
    $,
    init(options) {
      bridge.call('init', { wasmBase: new URL('./wasm/', document.baseURI).href, ...options }).catch((e: Coded) => failed(e));
    },
    setThreads(setting) {
      patch($, { threadSetting: setting, threadsReason: null });
      bridge.send('threads', { setting });
    },
    mount(badge, picker, webgpu) {
      bindRuntimeBadge(badge, $, webgpu.$);
      bindThreadsPicker(picker, $, (s) => this.setThreads(s));
    },
    whenReady() {
      return new Promise((resolve, reject) => {
        const check = (s: RuntimeSlice) => {
          if (s.ready) resolve(s.ready);
          else if (s.loadFailed) reject(new Error(t().data.problem.notLoaded(String(s.loadFailed))));
          else return false;
          return true;
        };
        if (check($.get())) return;
        const off = $.listen((s) => void (check(s) && off()));
      });
    },
  };
}
