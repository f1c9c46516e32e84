// main.ts — the page: the worker's bridge, the features (page.ts: each a folder under features/),
// their panels in the page's workflow order, and the start. web/src/worker.ts is the other half.
import './styles.css';

import { Bridge } from './app/bridge';
import { RunsDb } from './app/db';
import { Storage } from './app/storage';
import { bindStatic, localeReady, t } from './i18n';
import { createPage } from './page';
import type { Calls, Events } from './protocol';
import { $, bindLanguageSwitch, installDropTarget, installShortcuts, notify } from './ui';
import { storedThreadSetting, type Variant } from './features/runtime';
import { chooseBackend } from './features/webgpu';

const params = new URLSearchParams(location.search);
const bridge = new Bridge<Calls, Events>(new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'tinygpt-trainer' }));
const page = createPage(bridge, new Storage(), { keepHistory: params.get('history') !== 'off', poolStats: params.get('poolstats') === 'on' });   // ?history=off, ?poolstats=on: bench:page
const { runtime, webgpu, settings, data, train, estimate, sample, translate, inspect, runs, share, watch, learn, hidden, tokens, offline, session } = page;
/** Read by the end-to-end tests and the benchmark (`__tinygpt.get()`), and handy in the console. */
(window as unknown as { __tinygpt: unknown }).__tinygpt = page.state;

// the page's language before any panel is built (its catalogue: a chunk of its own for Chinese)
await localeReady;
bindStatic(document);
bindLanguageSwitch($('#language-slot'));

// workflow order: 1 data, 2 settings, 3 train, 4 sample, 5 look inside, 6 keep, 7 learn by hand, 8 watch it learn,
// 9 what a cell remembers (recurrent models), 10 tokens
runtime.mount($('#runtime'), $('#threads-picker'), webgpu);
settings.mount($('#col-right'), $('#mode-slot'));
data.mount($('#col-left'));
const wide = $('#wide');
const trainPanel = train.mount(wide, $('#run-bar'), watch.baselines);
const guard = trainPanel.el.querySelector('#guard')!;
estimate.mount(guard);
const generateNow = sample.mount(wide);
const translateSlot = document.createComment('translate panel');
const alignmentSlot = document.createComment('alignment panel');
wide.append(translateSlot);
const translateNow = translate.mount(translateSlot);
inspect.mount(wide, alignmentSlot);
wide.append(alignmentSlot);
runs.mount(wide, $('#banner-slot'));
page.export.mount($('#runs'));
share.mount(guard, $('#banner-slot'));
learn.mount(wide);
watch.mount(wide);
hidden.mount(wide);
tokens.mount(wide);
installDropTarget($('#drop-overlay'), (files) => void data.handleFiles(files));
// the keyboard's path: the skip link goes to Start (to the data first when there is none yet), and
// a text or a preset chosen with the keyboard moves the focus on to Start
$('.skip').addEventListener('click', (e) => {
  e.preventDefault();
  if (!train.focusStart()) data.focusFirst();
});
data.onKeyboardPick(() => train.focusStartSoon());
settings.onKeyboardPick(() => train.focusStartSoon());
installShortcuts($('#help') as HTMLDialogElement, $('#btn-help'), {
  startPause: () => train.startPause(),
  generate: () => (settings.$.get().mode === 'seq2seq' ? translateNow() : generateNow()),
});

// a run link opens the replay (share); one pasted into this tab's address bar changes only the
// fragment: no reload, so set it up here (over a model, only once the person has reset it)
if (/[#?&]tinygpt=/.test(location.hash)) void share.open(location.href);
window.addEventListener('hashchange', () => {
  if (!/[#?&]tinygpt=/.test(location.hash)) return;
  if (session.$.get().model) notify(t().page.sharedLinkPasted, 'info', { timeout: 12000 });
  else void share.open(location.href);
});
/** Test hooks, only with ?test-hooks in the address (the e2e tests): the next n steps get a NaN gradient, as corrupted batches would give; a shorter wait before a run without progress is called stuck. */
if (params.has('test-hooks')) {
  (window as unknown as { __tinygptTest: unknown }).__tinygptTest = { injectNanGradient: (n: number) => train.injectNan(n), corpusBytesRead: () => data.bytesRead(), setStallMs: (ms: number) => train.setStallMs(ms) };
}

async function boot(): Promise<void> {
  const variant = params.get('variant');
  const threads = Number(params.get('threads'));
  // WebGPU when the browser has it (the worker checks for an adapter; ?backend=webgpu|wasm forces one)
  const backend = chooseBackend(location.search, 'gpu' in navigator);
  runtime.init({
    variant: variant === 'threads' || variant === 'simd' || variant === 'scalar' ? (variant as Variant) : undefined,
    maxThreads: threads > 0 ? threads : undefined, threads: storedThreadSetting(), backend: backend.backend, backendForced: backend.forced,
  });
  // the service worker's first-visit reload keeps the settings and the text (features/offline)
  const carried = offline.takeCarryOver();
  await runs.open(() => RunsDb.open(), carried?.corpus?.id ?? null);
  offline.apply(carried);
  await offline.register($('#offline'));
}

void boot();
