// main.ts — the composition root: one store, the worker client, the controller and the modules
// around it (corpus loading, runs and saving, drag and drop, the carry-over), and the panels,
// each of which subscribes to the part of the store it shows. See app/state.ts for the rules.
import './styles.css';

import { Controller } from './app/controller';
import { saveCarryOver, takeCarryOver } from './app/carry-over';
import { CorpusLoader } from './app/corpus-loader';
import { pageMode } from './app/derive';
import { installDropTarget } from './app/drag-drop';
import { Runs } from './app/runs';
import { EstimateRunner } from './app/estimate';
import { Replay } from './app/replay';
import { createPageStore, patch, watch } from './app/state';
import { WorkerClient } from './client';
import { chooseBackend } from './gpu/backend';
import type { Variant } from './protocol';
import { RunsDb } from './runs-db';
import { registerServiceWorker } from './sw-register';
import { DataPanel } from './ui/data-panel';
import { EstimateBox } from './ui/estimate-box';
import { GuardNotice } from './ui/guard-notice';
import { bindStatic, locale, localeReady, t, tr } from './i18n';
import { $, h, panelHeader } from './ui/dom';
import { InspectPanel } from './ui/inspect-panel';
import { KeepPanel, ResumeBanner } from './ui/keep-panel';
import { bindLanguageSwitch } from './ui/language-switch';
import { initMessages, notify } from './ui/messages';
import { bindModeSwitch } from './ui/mode-switch';
import { bindRunBar } from './ui/run-bar';
import { bindRuntimeBadge, bindThreadsPicker, storedThreadSetting } from './ui/runtime-badge';
import { SamplePanel } from './ui/sample-panel';
import { SettingsPanel } from './ui/settings-panel';
import { ReplayBanner, ShareBox } from './ui/share-box';
import { installShortcuts } from './ui/shortcuts';
import { TrainPanel } from './ui/train-panel';

const store = createPageStore();
/** Read by the end-to-end tests and the benchmark (`__tinygpt.get()`), and handy in the console. */
(window as unknown as { __tinygpt: typeof store }).__tinygpt = store;
// the page's language before any panel is built (its catalogue: a chunk of its own for Chinese),
// index.html's text, the switcher, and the store's mirror of it
await localeReady;
bindStatic(document);
bindLanguageSwitch($('#language-slot'));
patch(store, { locale: locale.get() });
locale.listen((l) => patch(store, { locale: l }));

const client = new WorkerClient();
const controller = new Controller(store, client);
const corpus: CorpusLoader = new CorpusLoader(store, client, {
  db: () => runs.database(), holdCorpus: (id) => runs.holdCorpus(id), loadCheckpointFile: controller.loadCheckpointFile,
  loadModelFile: controller.loadModelFile, setMode: controller.setMode,
});
const runs: Runs = new Runs(store, client, corpus);
controller.beforeReplace = runs.saveIfBehind;
// each mode has its own data: the loader puts one aside and brings the other back
controller.modeChanged = corpus.modeChanged;
controller.restoreData = corpus.restoreFor;

initMessages($('#messages'));
bindRuntimeBadge($('#runtime'), store);
bindThreadsPicker($('#threads-picker'), store, controller.setThreads);
const dataPanel = new DataPanel(store, {
  onFile: (f) => void corpus.handleFile(f),
  onBuiltin: () => void corpus.loadBuiltin(),
  onTask: (name) => void corpus.loadTask(name),
  onProblem: (id) => (id ? corpus.problemAction(id) : corpus.dismissProblem()),
});
const settingsPanel = new SettingsPanel(store, controller.setSettings);
const trainPanel = new TrainPanel(store, {
  onStartPause: controller.startPause, onReset: controller.reset, onEvaluate: controller.evaluate, onUnit: controller.setLossUnit,
});
const samplePanel = new SamplePanel(store, { onGenerate: controller.generate, onStop: controller.stopGeneration, onPrompt: controller.setSamplePrompt });
const inspectPanel = new InspectPanel(store, {
  onRequest: controller.inspect, onSource: controller.setInspectSource, onText: controller.setInspectText,
  onLive: controller.setInspectLive, onAnotherSlice: controller.anotherSlice, onVisible: controller.setInspectVisible,
});
// translation mode: the translate box and the translator's attention maps in place of 4 and 5.
// A chunk of their own, fetched the first time the page is in translation mode: a visit that only
// trains the language model never loads them. Until then they hold their places as comments.
const translateSlot = document.createComment('translate panel');
const alignmentSlot = document.createComment('alignment panel');
let translateNow: (() => void) | null = null;
let translationViews: Promise<void> | null = null;
function loadTranslationViews(): Promise<void> {
  translationViews ??= import('./ui/translation-views').then(({ TranslatePanel, AlignmentPanel }) => {
    const translatePanel = new TranslatePanel(store, { onTranslate: controller.translate });
    const alignmentPanel = new AlignmentPanel(store, {
      onRequest: controller.inspect, onSource: controller.setAlignSource, onCustom: controller.setAlignCustom,
      onAnotherPair: controller.anotherPair, onLive: controller.setInspectLive, onVisible: controller.setAlignVisible,
    });
    translateSlot.replaceWith(translatePanel.el);
    alignmentSlot.replaceWith(alignmentPanel.el);
    translateNow = () => translatePanel.translateNow();
  }).catch((e: unknown) => {
    translationViews = null;   // tried again at the next switch
    notify(t().page.translationViewsFailed(e instanceof Error ? e.message : String(e)), 'error');
  });
  return translationViews;
}
const keepPanel = new KeepPanel(store, {
  onDownload: controller.download, onLoadFile: (f) => void controller.loadCheckpointFile(f),
  onResume: (id) => void runs.resume(id), onRename: (id) => void runs.rename(id), onDownloadRun: (id) => void runs.download(id),
  onDelete: (id) => void runs.remove(id), onPersist: runs.persist,
});
const banner = new ResumeBanner(store, (id) => void runs.resume(id), runs.dismissOffer);

// "Watch it learn" (views of the run's history): its code loads when the panel nears the screen
const watchPanel = h('section', { id: 'watch', class: 'card wide', 'aria-labelledby': 'watch-title' },
  panelHeader(8, tr((m) => m.page.watchTitle), tr((m) => m.page.watchExplain)),
  h('div', { id: 'watch-body' }, h('p', { class: 'muted small' }, tr((m) => m.page.watchLoading))));
watchPanel.querySelector('h2')!.id = 'watch-title';
let watchLoading = false;
const loadLearn = () => {
  if (watchLoading) return;
  watchLoading = true;
  observer.disconnect();
  void import('./ui/learn/views').then(({ LearnViews }) => {
    const body = $('#watch-body');
    body.replaceChildren();
    new LearnViews(store, body, {
      treeStart: controller.treeStart, treeExtend: controller.treeExtend, treeSelect: controller.treeSelect, compareRun: (id) => void runs.curves(id),
    });
    watchPanel.dataset.loaded = 'true';
  });
};
const observer = new IntersectionObserver((e) => { if (e.some((x) => x.isIntersecting)) loadLearn(); }, { rootMargin: '600px' });
observer.observe(watchPanel);
watchPanel.addEventListener('focusin', loadLearn);

$('#banner-slot').append(banner.el);
bindModeSwitch($('#mode-slot'), store, controller.setMode);
// workflow order: 1 data, 2 settings, 3 train, 4 sample, 5 look inside, 6 keep, 7 learn by hand, 8 watch it learn
$('#col-left').append(dataPanel.el);
$('#col-right').append(settingsPanel.el);
$('#wide').append(trainPanel.el, samplePanel.el, translateSlot, inspectPanel.el, alignmentSlot, keepPanel.el, learnSection(), watchPanel);
watch(store, ['mode'], (s) => {
  if (s.mode === 'seq2seq') void loadTranslationViews();
});
// issue 16: what the NaN guard did, under the training controls
trainPanel.el.querySelector('.progress-row')!.before(new EstimateBox(store).el, new GuardNotice(store).el);
new EstimateRunner(store, client);   // the pre-flight measurement (app/estimate.ts)
const replay = new Replay(store, client, {
  loadBuiltin: () => corpus.loadBuiltin(),
  setSettings: (s) => controller.setSettings(s),
});
trainPanel.el.querySelector('#guard')!.after(new ShareBox(store, replay.share).el);
$('#banner-slot').append(new ReplayBanner(store).el);
if (/[#?&]tinygpt=/.test(location.hash)) replay.open(location.href);   // opened with a run link (app/replay.ts)
// a link pasted into this tab's address bar changes only the fragment: no reload, so set it up here
// (over a model, only once the person has reset it: a link never replaces a run by itself)
window.addEventListener('hashchange', () => {
  if (!/[#?&]tinygpt=/.test(location.hash)) return;
  if (store.get().model) notify(t().page.sharedLinkPasted, 'info', { timeout: 12000 });
  else replay.open(location.href);
});
/** Test hooks, only with ?test-hooks in the address (the e2e tests): the next n steps get a NaN gradient, as corrupted batches would give. */
if (new URLSearchParams(location.search).has('test-hooks')) {
  (window as unknown as { __tinygptTest: unknown }).__tinygptTest = { injectNanGradient: (steps: number) => client.send({ type: 'injectNan', steps }) };
}
watch(store, ['running', 'model'], (s) => (document.body.dataset.state = pageMode(s)));
installDropTarget($('#drop-overlay'), (f) => void corpus.handleFile(f));
bindRunBar($('#run-bar'), store, controller.startPause);
installShortcuts($('#help') as HTMLDialogElement, $('#btn-help'), {
  startPause: controller.startPause,
  generate: () => (store.get().mode === 'seq2seq' ? translateNow?.() : samplePanel.generateNow()),
});

// 7 learn by hand: its code (ui/learn-panel.ts) is a chunk of its own, loaded when the mode opens
function learnSection(): HTMLElement {
  const host = h('div', { id: 'learn-host' });
  let opened = false;
  const open = async () => {
    if (opened) return;
    opened = true;
    openBtn.disabled = true;
    openBtn.replaceChildren(h('span', {}, tr((m) => m.common.loading)));
    const { mountLearn } = await import('./ui/learn-panel');
    let nextId = 0;
    await mountLearn(host, {
      trace: async (model, edits) => {
        // the worker answers 'walk' once the module has loaded
        if (!store.get().ready) await new Promise<void>((resolve) => { const off = watch(store, ['ready'], (st) => { if (st.ready) { queueMicrotask(() => off()); resolve(); } }); });
        const id = ++nextId;
        const answer = client.next('walkTrace', (m) => m.id === id);
        client.send({ type: 'walk', id, model, edits });
        return await answer;   // the trace, or the core's refusal with its code and args (core-messages.ts)
      },
    });
    openBtn.hidden = true;
  };
  const openBtn = h('button', { type: 'button', id: 'walk-open', class: 'primary', onclick: () => void open() }, tr((m) => m.page.learnOpen));
  if (location.hash === '#learn') queueMicrotask(() => void open());
  const section = h('section', { id: 'learn', class: 'card wide', 'aria-labelledby': 'learn-title' },
    panelHeader(7, tr((m) => m.page.learnTitle), tr((m) => m.page.learnExplain)),
    openBtn, host);
  section.querySelector('h2')!.id = 'learn-title';
  return section;
}

async function boot(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const variant = params.get('variant');
  const threads = Number(params.get('threads'));
  controller.keepHistory = params.get('history') !== 'off';   // ?history=off: runs without snapshots (bench:page)
  // WebGPU when the browser has it (the worker checks for an adapter; ?backend=webgpu|wasm forces one)
  const backend = chooseBackend(location.search, 'gpu' in navigator);
  controller.init({
    variant: variant === 'threads' || variant === 'simd' || variant === 'scalar' ? (variant as Variant) : undefined,
    maxThreads: threads > 0 ? threads : undefined,
    threads: storedThreadSetting(),
    backend: backend.backend, backendForced: backend.forced,
  });
  // the service worker's first-visit reload keeps the settings and the text (carry-over.ts)
  const carried = takeCarryOver();
  await runs.open(() => RunsDb.open(), carried?.corpus?.id ?? null);
  if (carried?.settings) {
    patch(store, { formSettings: carried.settings, mode: carried.settings.model === 'seq2seq' ? 'seq2seq' : 'gpt' });
    controller.setSettings(carried.settings);
  }
  if (carried?.corpus) void corpus.restore(carried.corpus);
  const prepareReload = async () => {
    if (store.get().model) return false;   // a model lives in the worker only: a reload is the person's call
    await saveCarryOver(store, corpus.stored);
    return true;
  };
  const sw = await registerServiceWorker(prepareReload, (text) => notify(text, 'info', { timeout: 15000 }));
  if (sw.registered) $('#offline').append(h('span', {}, tr((m) => m.page.worksOffline)));
}

void boot();
