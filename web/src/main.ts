// main.ts — the composition root: one store, the worker client, the controller and the
// modules around it (corpus loading, autosave, drag and drop), and the panels, each of which
// subscribes to the part of the store it shows. See app/state.ts for the store's rules.
import './styles.css';

import { createAutosave } from './app/autosave';
import { createController } from './app/controller';
import { createCorpusLoader } from './app/corpus-loader';
import { pageMode } from './app/derive';
import { installDropTarget } from './app/drag-drop';
import { createPageStore, watch } from './app/state';
import { WorkerClient } from './client';
import type { Variant } from './protocol';
import { RunsDb } from './runs-db';
import { registerServiceWorker } from './sw-register';
import { DataPanel } from './ui/data-panel';
import { $ } from './ui/dom';
import { InspectPanel } from './ui/inspect-panel';
import { KeepPanel, ResumeBanner } from './ui/keep-panel';
import { initMessages, notify } from './ui/messages';
import { bindRuntimeBadge } from './ui/runtime-badge';
import { SamplePanel } from './ui/sample-panel';
import { SettingsPanel } from './ui/settings-panel';
import { TrainPanel } from './ui/train-panel';

const store = createPageStore();
/** Read by the end-to-end tests and the benchmark (`__tinygpt.get()`), and handy in the console. */
(window as unknown as { __tinygpt: typeof store }).__tinygpt = store;

const client = new WorkerClient();
const controller = createController(store, client);
const corpus = createCorpusLoader(store, client, { db: () => autosave.db(), loadCheckpointFile: controller.loadCheckpointFile });
const autosave = createAutosave(store, client, corpus);

initMessages($('#messages'));
bindRuntimeBadge($('#runtime'), store);
const dataPanel = new DataPanel(store, {
  onFile: (f) => void corpus.handleFile(f),
  onBuiltin: () => void corpus.loadBuiltin(),
  onProblem: (id) => (id ? corpus.problemAction(id) : corpus.dismissProblem()),
});
const settingsPanel = new SettingsPanel(store, controller.setSettings);
const trainPanel = new TrainPanel(store, { onStartPause: controller.startPause, onReset: controller.reset, onEvaluate: controller.evaluate });
const samplePanel = new SamplePanel(store, { onGenerate: controller.generate, onStop: controller.stopGeneration, onPrompt: controller.setSamplePrompt });
const inspectPanel = new InspectPanel(store, {
  onRequest: controller.inspect, onSource: controller.setInspectSource, onText: controller.setInspectText,
  onLive: controller.setInspectLive, onAnotherSlice: controller.anotherSlice, onVisible: controller.setInspectVisible,
});
const keepPanel = new KeepPanel(store, { onDownload: controller.download, onLoadFile: (f) => void controller.loadCheckpointFile(f) });
const banner = new ResumeBanner(store, () => void autosave.resume(), () => void autosave.discard());

$('#banner-slot').append(banner.el);
$('#col-left').append(dataPanel.el, keepPanel.el);
$('#col-right').append(settingsPanel.el);
$('#wide').append(trainPanel.el, samplePanel.el, inspectPanel.el);
watch(store, ['running', 'model'], (s) => (document.body.dataset.state = pageMode(s)));
installDropTarget($('#drop-overlay'), (f) => void corpus.handleFile(f));

async function boot(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const variant = params.get('variant');
  const threads = Number(params.get('threads'));
  controller.init({
    variant: variant === 'threads' || variant === 'simd' || variant === 'scalar' ? (variant as Variant) : undefined,
    maxThreads: threads > 0 ? threads : undefined,
  });
  await autosave.open(() => RunsDb.open());
  const s = () => store.get();
  const sw = await registerServiceWorker(() => !s().corpus && !s().model && !autosave.hasSaved(), (text) => notify(text, 'info', { timeout: 15000 }));
  $('#offline').textContent = sw.registered ? 'works offline' : '';
}

void boot();
