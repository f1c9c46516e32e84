// main.ts — the page: builds the panels, talks to the training worker, keeps the run's state,
// autosaves it to IndexedDB. The worker does all computing; this thread only draws.
import './styles.css';

import { checkpointFileName, isCheckpoint, isSafetensors } from './checkpoint';
import { WorkerClient } from './client';
import { type CorpusStats, analyzeCorpus, checkSize, checkText, readHead } from './corpus';
import { formatCount, formatDuration, formatParams, formatRate } from './format';
import type { FieldSpec, FullConfig, InspectionMsg, Preset, Ready, Variant } from './protocol';
import { checkCorpusLength, normalise } from './settings';
import { type CorpusRef, type SavedRun, Store } from './store';
import { registerServiceWorker } from './sw-register';
import { DataPanel } from './ui/data-panel';
import { $, h, setText, throttle } from './ui/dom';
import { InspectPanel, type InspectSource } from './ui/inspect-panel';
import { KeepPanel, ResumeBanner } from './ui/keep-panel';
import { initMessages, notify } from './ui/messages';
import { SamplePanel } from './ui/sample-panel';
import { SettingsPanel, type Verdict } from './ui/settings-panel';
import { hideTooltip } from './ui/tooltip';
import { TrainPanel } from './ui/train-panel';

const AUTOSAVE_EVERY = 250;   // steps
const LIVE_INSPECT_MS = 1000;
const BUILTIN = { name: 'tinyshakespeare.txt', url: './data/tinyshakespeare.txt' };

const params = new URLSearchParams(location.search);

// ---------------------------------------------------------------- state

interface CorpusState { ref: CorpusRef; stats: CorpusStats; preview: Uint8Array }
interface ModelState { config: FullConfig; parameters: number; step: number }

const state = {
  ready: null as Ready | null,
  corpus: null as CorpusState | null,
  pendingCorpus: null as CorpusState | null,
  schema: [] as FieldSpec[],      // the core's config schema and presets (sent with 'ready')
  presets: [] as Preset[],
  settings: null as FullConfig | null,
  verdict: null as (Verdict & { id: number }) | null,
  validateId: 0,
  model: null as ModelState | null,
  creating: false,
  pendingStart: false,
  loading: null as null | { name: string; reason: 'file' | 'resume'; run?: SavedRun },
  running: false,
  finished: false,
  lastLoss: null as number | null,
  valLoss: null as number | null,
  valStep: null as number | null,
  tokensPerSec: 0,
  lr: null as number | null,
  gradNorm: null as number | null,
  elapsedMs: 0,
  etaMs: null as number | null,  // to the end of the schedule (the core's run loop)
  lastTick: 0,
  memoryBytes: null as number | null,
  autosave: { inFlight: false, again: false, lastStep: -1 },
  download: false,
  generateId: 0,
  inspectId: 0,
  inspectInFlight: false,
  inspectLen: null as number | null,
  lastInspectAt: 0,
  corpusOffset: 0,
};

/** Read by the end-to-end tests (and handy in the console). */
const debug = {
  ready: null as Ready | null,
  step: 0,
  lastLoss: null as number | null,
  valLoss: null as number | null,
  tokensPerSec: 0,
  running: false,
  inspection: null as InspectionMsg | null,
  tokenLosses: [] as number[],
  timing: { readyMs: 0, firstStepMs: 0, moduleLoadMs: 0 },
  counts: {} as Record<string, number>,
  errors: [] as string[],
};
(window as unknown as { __tinygpt: typeof debug }).__tinygpt = debug;

// ---------------------------------------------------------------- building the page

const client = new WorkerClient();
let store: Store | null = null;

initMessages($('#messages'));
const runtimeBadge = $('#runtime');

const dataPanel = new DataPanel({ onFile: (f) => void handleFile(f), onBuiltin: () => void loadBuiltin() });
const settingsPanel = new SettingsPanel((s) => onSettings(s));
const trainPanel = new TrainPanel({ onStartPause, onReset, onEvaluate: () => client.send({ type: 'evaluate' }) });
const samplePanel = new SamplePanel({
  onGenerate: (req) => {
    if (!state.model) return;
    const id = ++state.generateId;
    samplePanel.begin();
    client.send({ type: 'generate', id, prompt: req.prompt.buffer as ArrayBuffer, length: req.length, options: req.options });
  },
  onStop: () => client.send({ type: 'stopGeneration', id: state.generateId }),
});
const inspectPanel = new InspectPanel({ onRequest: requestInspect, onAnotherSlice, onVisible: () => refreshInspection() });
const keepPanel = new KeepPanel({ onDownload, onLoadFile: (f) => void loadCheckpointFile(f) });
const banner = new ResumeBanner(() => void resumeSaved(), () => void discardSaved());

$('#banner-slot').append(banner.el);
$('#col-left').append(dataPanel.el, keepPanel.el);
$('#col-right').append(settingsPanel.el);
$('#wide').append(trainPanel.el, samplePanel.el, inspectPanel.el);

// ---------------------------------------------------------------- worker messages

client.onAny((m) => {
  debug.counts[m.type] = (debug.counts[m.type] ?? 0) + 1;
});

client.on('ready', (m) => {
  state.ready = m;
  debug.ready = m;
  debug.timing.readyMs = performance.now();
  debug.timing.moduleLoadMs = m.loadMs;
  const threads = m.variant === 'threads' ? ` ×${m.threads}` : '';
  setText(runtimeBadge, `wasm ${m.variant}${threads} · ${m.backend}`);
  runtimeBadge.dataset.variant = m.variant;
  runtimeBadge.dataset.threads = String(m.threads);
  runtimeBadge.dataset.backend = m.backend;
  runtimeBadge.classList.add('ok');
  runtimeBadge.title = `Training runs in a Web Worker on the ${m.variant} build of the C++ core ` +
    `(${m.backend} kernels, ${m.threads} thread${m.threads === 1 ? '' : 's'}; module loaded in ${m.loadMs.toFixed(0)} ms).` +
    (m.fallbackReason ? ` Not the threads build: ${m.fallbackReason}.` : '');
  state.schema = m.schema;
  state.presets = m.presets;
  const initial = state.model?.config ?? m.presets.find((p) => p.name === 'S')?.config ?? m.presets[0].config;
  settingsPanel.build(m.schema, m.presets, normalise(m.schema, initial));
  if (!state.model) state.settings = settingsPanel.read();
  m.presets.forEach((p, i) => client.send({ type: 'validate', id: -(i + 1), config: p.config }));  // negative ids: the presets' estimates
  lockSettings();
  requestValidation();
  refresh();
});

client.on('validation', (m) => {
  if (m.id < 0) {
    const preset = state.presets[-m.id - 1];
    if (preset) settingsPanel.setPresetVerdict(preset.name, m);
    return;
  }
  if (m.id !== state.validateId) return;
  state.verdict = m;
  showVerdict();
  refresh();
});

client.on('corpus', (m) => {
  const c = state.pendingCorpus;
  state.pendingCorpus = null;
  if (!c) return;
  const replaced = state.corpus !== null;
  state.corpus = c;
  state.corpusOffset = 0;
  dataPanel.clearProblem();
  dataPanel.show({ name: m.name, builtin: c.ref.builtin, stats: c.stats, preview: c.preview });
  if (state.model && replaced) notify(`The model now trains on ${m.name}.`, 'info');
  showVerdict();
  refresh();
  if (state.model && !state.loading) requestInspect(inspectPanel.source.value as InspectSource, '');
});

client.on('model', (m) => {
  state.creating = false;
  samplePanel.cancel('Stopped: the model was replaced.');
  state.model = { config: m.config, parameters: m.parameters, step: m.step };
  state.finished = m.step >= m.config.max_iters;
  state.running = false;
  const h_ = m.history;
  trainPanel.chart.clear();
  if (h_.train.length) trainPanel.chart.appendTrain(1, h_.train);
  for (let i = 0; i < h_.valSteps.length; i++) trainPanel.chart.addVal(h_.valSteps[i], h_.valLosses[i]);
  state.lastLoss = h_.train.length ? h_.train[h_.train.length - 1] : null;
  state.valLoss = h_.valLosses.length ? h_.valLosses[h_.valLosses.length - 1] : null;
  state.valStep = h_.valSteps.length ? h_.valSteps[h_.valSteps.length - 1] : null;
  state.memoryBytes = m.memoryBytes;
  state.etaMs = null;
  state.tokensPerSec = 0;
  state.lr = null;
  state.gradNorm = null;
  const loading = state.loading;
  state.loading = null;
  if (m.reason === 'create') {
    state.elapsedMs = 0;
    state.autosave.lastStep = 0;
  } else {
    state.elapsedMs = loading?.run?.elapsedMs ?? 0;
    state.autosave.lastStep = m.step;
  }
  const s = normalise(state.schema, m.config);
  if (settingsPanel.ready) settingsPanel.set(s);
  state.settings = s;
  lockSettings();
  if (m.reason === 'load') {
    notify(`Loaded ${m.name ?? 'the checkpoint'}: ${describeModel(m.config)}, step ${formatCount(m.step)}.`, 'success');
    if (!state.corpus) notify('Choose the text this model was trained on to continue training it.', 'info');
    else if (!m.corpusMatches) notify('This checkpoint was trained on a different text; training now continues on the current one.', 'warning', { timeout: 10000 });
    void autosave();
  } else if (m.reason === 'resume') {
    banner.hide();
    notify(`Resumed the saved run at step ${formatCount(m.step)}.`, 'success');
  }
  if (state.pendingStart) {
    state.pendingStart = false;
    sendStart();
  }
  if (state.corpus) requestInspect(inspectPanel.source.value as InspectSource, '');
  renderTrain();
  refresh();
});

client.on('reset', () => {
  samplePanel.cancel('Stopped: the model was reset.');
  state.model = null;
  state.running = false;
  state.finished = false;
  state.lastLoss = state.valLoss = state.valStep = state.lr = state.gradNorm = null;
  state.elapsedMs = 0;
  state.tokensPerSec = 0;
  state.etaMs = null;
  trainPanel.chart.clear();
  lockSettings();
  void store?.deleteRun().catch(() => undefined);
  keepPanel.setStatus('Nothing saved yet.');
  onSettings(settingsPanel.read());
  drawTrain();
  refresh();
});

client.on('state', (m) => {
  state.running = m.running;
  debug.running = m.running;
  if (m.running) {
    state.finished = false;
    state.lastTick = performance.now();
  } else {
    state.finished = m.reason === 'finished';
    if (m.reason === 'finished') notify(`Finished the schedule: ${formatCount(m.step)} steps.`, 'success');
    void autosave();
    refreshInspection();
  }
  drawTrain();
  refresh();
});

client.on('progress', (m) => {
  if (!state.model) return;
  const k = m.losses.length;
  trainPanel.chart.appendTrain(m.step - k + 1, m.losses);
  state.model.step = m.step;
  state.lastLoss = m.losses[k - 1];
  state.tokensPerSec = state.tokensPerSec > 0 ? 0.8 * state.tokensPerSec + 0.2 * m.tokensPerSec : m.tokensPerSec;
  state.lr = m.lr;
  state.gradNorm = m.gradNorm;
  state.memoryBytes = m.memoryBytes;
  const now = performance.now();
  state.elapsedMs += now - state.lastTick;
  state.lastTick = now;
  state.etaMs = m.etaSeconds >= 0 ? m.etaSeconds * 1000 : null;  // the core's run loop estimates it
  if (!debug.timing.firstStepMs) debug.timing.firstStepMs = now;
  if (m.step - state.autosave.lastStep >= AUTOSAVE_EVERY) void autosave();
  maybeLiveInspect();
  renderTrain();
});

client.on('evalResult', (m) => {
  trainPanel.chart.addVal(m.step, m.loss);
  state.valLoss = m.loss;
  state.valStep = m.step;
  renderTrain();
});

client.on('sampleChunk', (m) => {
  if (m.id !== state.generateId) return;
  samplePanel.chunk(m);
});

client.on('inspection', (m) => {
  if (m.id !== state.inspectId) return;
  state.inspectInFlight = false;
  state.lastInspectAt = performance.now();
  inspectPanel.show(m, state.inspectLen);
  debug.inspection = m;
  debug.tokenLosses = inspectPanel.losses;
});

client.on('checkpoint', (m) => {
  if (m.reason === 'download') {
    state.download = false;
    const name = checkpointFileName(state.corpus?.ref.name ?? 'model', m.step);
    const url = URL.createObjectURL(new Blob([m.bytes], { type: 'application/octet-stream' }));
    const a = h('a', { href: url, download: name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    notify(`Saved ${name} (${formatCount(m.bytes.byteLength)} bytes). Continue it with: tinygpt train --resume ${name}`, 'success');
    refresh();
    return;
  }
  void finishAutosave(m.step, m.bytes);
});

client.on('error', (m) => {
  debug.errors.push(`${m.during}: ${m.message}`);
  switch (m.during) {
    case 'init':
      setText(runtimeBadge, 'wasm failed to load');
      runtimeBadge.classList.add('bad');
      notify(`The model could not be loaded: ${m.message}`, 'error');
      return;
    case 'setCorpus': {
      const name = state.pendingCorpus?.ref.name ?? 'this text';
      state.pendingCorpus = null;
      dataPanel.setBusy(null);
      dataPanel.showProblem(`Can't use ${name}`, `${capitalise(m.message)}. The previous text is kept.`, 'core');
      return;
    }
    case 'create':
      state.creating = false;
      state.pendingStart = false;
      lockSettings();
      notify(`Could not create the model: ${m.message}`, 'error');
      break;
    case 'load':
    case 'loadSafetensors': {
      const l = state.loading;
      state.loading = null;
      if (l?.reason === 'resume') notify(`Could not resume the saved run: ${m.message}`, 'error');
      else notify(`Could not load ${l?.name ?? 'the checkpoint'}: ${m.message}. The current model is unchanged.`, 'error');
      break;
    }
    case 'generate':
    case 'stopGeneration':
      samplePanel.end(`Stopped: ${m.message}`);
      break;
    case 'inspect':
      state.inspectInFlight = false;
      inspectPanel.setNote(capitalise(m.message));
      break;
    case 'save':
      state.autosave.inFlight = false;
      state.download = false;
      notify(`Could not save: ${m.message}`, 'error');
      break;
    default:
      notify(capitalise(m.message), 'error');
  }
  refresh();
});

// ---------------------------------------------------------------- settings

function onSettings(s: FullConfig | null): void {
  if (state.model) {
    // only the `run` fields (eval_interval, eval_iters) can change while a model exists; the core's
    // run loop picks them up at its next slice
    if (!s || !state.settings) return;
    for (const f of state.schema.filter((x) => x.group === 'run')) {
      const name = f.name as 'eval_interval' | 'eval_iters';
      if (s[name] !== state.settings[name] && Number.isInteger(s[name]) && s[name] >= f.min && s[name] <= f.max) {
        client.send({ type: 'update', name, value: s[name] });
        state.settings = { ...state.settings, [name]: s[name] };
        if (state.model) state.model.config = { ...state.model.config, [name]: s[name] };
      }
    }
    return;
  }
  state.settings = s;
  state.verdict = null;
  if (s) requestValidation();
  else settingsPanel.setFieldProblem();
  refresh();
}

function requestValidation(): void {
  if (!state.ready || !state.settings || state.model) return;
  const id = ++state.validateId;
  client.send({ type: 'validate', id, config: state.settings });
}

function showVerdict(): void {
  if (state.model) return;
  const s = state.settings;
  if (!s) return;
  settingsPanel.setVerdict(state.verdict, checkCorpusLength(s, state.corpus?.stats.size ?? null));
}

function lockSettings(): void {
  if (state.model) settingsPanel.setLocked(true, 'These are the settings of the current model. Reset to choose new ones (only "Validate every" can change now).');
  else settingsPanel.setLocked(false);
  if (state.model) settingsPanel.setVerdict({ problems: [], parameters: state.model.parameters, trainingBytes: state.verdict?.trainingBytes ?? 0 });
}

function describeModel(c: Partial<Pick<FullConfig, 'n_layer' | 'n_head' | 'n_embd' | 'block_size'>>): string {
  if (c.n_layer === undefined) return 'a model';  // a run saved by an older version of the page
  return `${c.n_layer} layers × ${c.n_head} heads, width ${c.n_embd}, context ${c.block_size}`;
}

// ---------------------------------------------------------------- corpus

async function handleFile(file: File): Promise<void> {
  hideTooltip();
  let head: Uint8Array;
  try {
    head = await readHead(file, 16);
  } catch (e) {
    dataPanel.showProblem(`Can't read ${file.name}`, String(e instanceof Error ? e.message : e), 'read');
    return;
  }
  if (isCheckpoint(head)) return loadCheckpointFile(file);
  if (isSafetensors(head, file.size)) return loadModelFile(file);
  return loadTextFile(file);
}

function currentContext(): number {
  return state.model?.config.block_size ?? state.settings?.block_size ?? 64;
}

async function loadTextFile(file: File): Promise<void> {
  const problem = checkSize(file.size, currentContext());
  if (problem) {
    const titles = { empty: `${file.name} is empty`, tooLarge: `${file.name} is too large`, tooShort: `${file.name} is too short`, binary: '' };
    dataPanel.showProblem(titles[problem.kind], `${problem.message} The previous text is kept.`, problem.kind);
    return;
  }
  dataPanel.clearProblem();
  dataPanel.setBusy(`Reading ${file.name}…`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (e) {
    dataPanel.setBusy(null);
    dataPanel.showProblem(`Can't read ${file.name}`, `${e instanceof Error ? e.message : e}. The previous text is kept.`, 'read');
    return;
  }
  const stats = await analyzeCorpus(bytes, (f) => dataPanel.setBusy(`Analysing ${file.name}… ${Math.round(f * 100)}%`));
  dataPanel.setBusy(null);
  const binary = checkText(stats);
  if (binary) {
    dataPanel.showProblem(`${file.name} doesn't look like text`, `${binary.message} The previous text is kept unless you choose to train on it.`, 'binary',
      { label: 'Train anyway', run: () => acceptCorpus(file.name, bytes, stats, false) });
    return;
  }
  acceptCorpus(file.name, bytes, stats, false);
}

async function fetchBuiltin(): Promise<Uint8Array> {
  const r = await fetch(BUILTIN.url);
  if (!r.ok) throw new Error(`${BUILTIN.url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function loadBuiltin(): Promise<void> {
  dataPanel.clearProblem();
  dataPanel.setBusy('Loading tiny Shakespeare…');
  try {
    const bytes = await fetchBuiltin();
    const stats = await analyzeCorpus(bytes);
    dataPanel.setBusy(null);
    acceptCorpus(BUILTIN.name, bytes, stats, true);
  } catch (e) {
    dataPanel.setBusy(null);
    dataPanel.showProblem('Could not load the built-in text', String(e instanceof Error ? e.message : e), 'read');
  }
}

function acceptCorpus(name: string, bytes: Uint8Array, stats: CorpusStats, builtin: boolean): void {
  const ref: CorpusRef = { id: `${stats.fingerprint}-${stats.size}`, name, size: stats.size, builtin };
  const buffer = bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer as ArrayBuffer : bytes.slice().buffer;
  if (!builtin && store) {
    // IndexedDB copies the bytes during this call, before they are transferred to the worker below
    store.putCorpus(ref, buffer).catch((e) => notify(`This text can't be stored in the browser, so the run won't be resumable after a reload (${e instanceof Error ? e.message : e}).`, 'warning'));
  }
  state.pendingCorpus = { ref, stats, preview: bytes.slice(0, 3000) };
  client.send({ type: 'setCorpus', bytes: buffer, name });
}

// ---------------------------------------------------------------- training

function onStartPause(): void {
  if (state.running) {
    client.send({ type: 'pause' });
    return;
  }
  if (!state.model) {
    const s = state.settings;
    if (!s || !state.corpus) return;
    state.creating = true;
    state.pendingStart = true;
    settingsPanel.setLocked(true, 'Creating the model…');
    client.send({ type: 'create', config: s });
    refresh();
    return;
  }
  sendStart();
}

function sendStart(): void {
  if (!state.model) return;
  const { step, config } = state.model;
  client.send({ type: 'start', stopAt: step < config.max_iters ? config.max_iters : -1 });
}

function onReset(): void {
  client.send({ type: 'reset' });
}

/** Brings the attention maps up to date with the model (e.g. on pause, or when scrolled into view). */
function refreshInspection(): void {
  if (!state.model || state.inspectInFlight || !debug.inspection || debug.inspection.step === state.model.step) return;
  requestInspect(inspectPanel.source.value as InspectSource, ($('#inspect-text') as HTMLTextAreaElement).value);
}

function maybeLiveInspect(): void {
  if (!inspectPanel.visible || !inspectPanel.live.checked || state.inspectInFlight || !debug.inspection) return;
  if (performance.now() - state.lastInspectAt < LIVE_INSPECT_MS) return;
  requestInspect(inspectPanel.source.value as InspectSource, ($('#inspect-text') as HTMLTextAreaElement).value);
}

function requestInspect(source: InspectSource, custom: string): void {
  if (!state.model) return;
  let text: Uint8Array | null = null;
  if (source === 'corpus') {
    if (!state.corpus) return inspectPanel.setNote('Choose a text first.');
  } else if (source === 'prompt') {
    text = samplePanel.promptBytesNow();
    if (!text.length) text = new TextEncoder().encode('\n');
  } else if (source === 'sample') {
    text = samplePanel.text();
    if (!text.length) return inspectPanel.setNote('Generate a sample first.');
  } else {
    text = new TextEncoder().encode(custom);
    if (!text.length) return inspectPanel.setNote('Type a text to look inside.');
  }
  const id = ++state.inspectId;
  state.inspectInFlight = true;
  state.inspectLen = text ? text.length : null;
  client.send({ type: 'inspect', id, text: text ? text.buffer as ArrayBuffer : null, corpusOffset: state.corpusOffset });
}

function onAnotherSlice(): void {
  if (!state.corpus || !state.model) return;
  const max = Math.max(0, state.corpus.stats.size - state.model.config.block_size);
  state.corpusOffset = Math.floor(Math.random() * (max + 1));
  inspectPanel.source.value = 'corpus';
  requestInspect('corpus', '');
}

// Numbers change every slice; redrawing them 4 times a second is plenty, and painting is
// what the page's main thread spends its time on while training (it shares the CPU).
// State changes (pause, finish) draw at once through drawTrain.
function drawTrain(): void {
  const m = state.model;
  const steps = m?.config.max_iters ?? state.settings?.max_iters ?? 0;
  const step = m?.step ?? 0;
  trainPanel.update({
    step, steps, lastLoss: state.lastLoss, smoothLoss: trainPanel.chart.smoothed(), valLoss: state.valLoss, valStep: state.valStep,
    tokensPerSec: state.tokensPerSec, lr: state.lr, gradNorm: state.gradNorm, elapsedMs: state.elapsedMs,
    etaMs: step < steps ? state.etaMs : null, memoryBytes: state.memoryBytes,
  });
  debug.step = step;
  debug.lastLoss = state.lastLoss;
  debug.valLoss = state.valLoss;
  debug.tokensPerSec = state.tokensPerSec;
  let status: string;
  if (!state.ready) status = 'Loading the model code…';
  else if (state.creating) status = 'Creating the model…';
  else if (state.running) status = `Training at ${formatRate(state.tokensPerSec)} tokens/s…`;
  else if (m && state.finished) status = `Finished the schedule (${formatCount(m.config.max_iters)} steps). "Train more" continues at the final learning rate.`;
  else if (m) status = `Paused at step ${formatCount(step)}. ${formatParams(m.parameters)} parameters, trained for ${formatDuration(state.elapsedMs)}.`;
  else if (!state.corpus) status = 'Choose a text, then press Start.';
  else status = 'Ready: Start creates a model with random weights and trains it.';
  trainPanel.setStatus(status);
}
const renderTrain = throttle(drawTrain, 250);

// ---------------------------------------------------------------- checkpoints and autosave

function onDownload(): void {
  if (!state.model || state.download) return;
  state.download = true;
  client.send({ type: 'save', reason: 'download' });
}

async function loadCheckpointFile(file: File): Promise<void> {
  hideTooltip();
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (e) {
    notify(`Can't read ${file.name}: ${e instanceof Error ? e.message : e}`, 'error');
    return;
  }
  if (!isCheckpoint(bytes)) {
    if (isSafetensors(bytes, bytes.length)) return loadModelFile(file);
    notify(`${file.name} is not a tinygpt checkpoint (it doesn't start with TGPTCKPT). The current model is unchanged.`, 'error');
    return;
  }
  notify(`Loading ${file.name}…`, 'info', { id: 'loading', timeout: 3000 });
  state.loading = { name: file.name, reason: 'file' };
  client.send({ type: 'load', bytes: bytes.buffer as ArrayBuffer, reason: 'file', name: file.name });
}

// A .safetensors model file (tinygpt export, python/tinygpt): a new run from its weights and config.
async function loadModelFile(file: File): Promise<void> {
  hideTooltip();
  let bytes: ArrayBuffer;
  try {
    bytes = await file.arrayBuffer();
  } catch (e) {
    notify(`Can't read ${file.name}: ${e instanceof Error ? e.message : e}`, 'error');
    return;
  }
  notify(`Loading ${file.name}…`, 'info', { id: 'loading', timeout: 3000 });
  state.loading = { name: file.name, reason: 'file' };
  client.send({ type: 'loadSafetensors', bytes, name: file.name });
}

async function autosave(): Promise<void> {
  if (!store || !state.model || !state.corpus) return;
  if (state.autosave.inFlight) {
    state.autosave.again = true;
    return;
  }
  state.autosave.inFlight = true;
  client.send({ type: 'save', reason: 'autosave' });
}

async function finishAutosave(step: number, bytes: ArrayBuffer): Promise<void> {
  const corpus = state.corpus;
  try {
    if (!store || !corpus || !state.model) return;
    const run: SavedRun = {
      id: 'current', savedAt: Date.now(), step, settings: normalise(state.schema, state.model.config),
      checkpoint: bytes, corpus: corpus.ref, elapsedMs: state.elapsedMs, variant: state.ready?.variant ?? '',
    };
    await store.saveRun(run, [corpus.ref.id]);
    state.autosave.lastStep = step;
    keepPanel.setStatus(`Saved in this browser at step ${formatCount(step)} (${new Date().toLocaleTimeString()}), ${formatCount(bytes.byteLength)} bytes.`, step);
  } catch (e) {
    keepPanel.setStatus(`Autosave failed: ${e instanceof Error ? e.message : e}`);
  } finally {
    state.autosave.inFlight = false;
    if (state.autosave.again) {
      state.autosave.again = false;
      if (state.model && state.model.step !== state.autosave.lastStep) void autosave();
    }
  }
}

let saved: SavedRun | undefined;

async function resumeSaved(): Promise<void> {
  const run = saved;
  if (!run) return;
  banner.hide();
  try {
    let bytes: Uint8Array;
    if (run.corpus.builtin) bytes = await fetchBuiltin();
    else {
      const c = await store!.getCorpus(run.corpus.id);
      if (!c) throw new Error(`the text it was trained on (${run.corpus.name}) is no longer stored in this browser`);
      bytes = new Uint8Array(c.bytes);
    }
    const stats = await analyzeCorpus(bytes);
    state.pendingCorpus = { ref: run.corpus, stats, preview: bytes.slice(0, 3000) };
    client.send({ type: 'setCorpus', bytes: bytes.buffer as ArrayBuffer, name: run.corpus.name });
    state.loading = { name: 'the saved run', reason: 'resume', run };
    client.send({ type: 'load', bytes: run.checkpoint, reason: 'resume', name: 'autosave' });
  } catch (e) {
    notify(`Could not resume the saved run: ${e instanceof Error ? e.message : e}`, 'error');
  }
}

async function discardSaved(): Promise<void> {
  banner.hide();
  saved = undefined;
  await store?.deleteRun().catch(() => undefined);
}

// ---------------------------------------------------------------- page-wide

function refresh(): void {
  const ready = !!state.ready;
  const m = state.model;
  const s = state.settings;
  const corpusErr = s ? checkCorpusLength(s, state.corpus?.stats.size ?? null) : '';
  const settingsOk = !!s && !!state.verdict && state.verdict.id === state.validateId && state.verdict.problems.length === 0 && !corpusErr;
  const busy = state.creating || !!state.loading;
  const canStart = ready && !!state.corpus && (m ? true : settingsOk);
  const why = !ready ? 'The model code is still loading' : !state.corpus ? 'Choose a text first'
    : !m && !settingsOk ? 'Fix the settings first' : '';
  trainPanel.setControls({ canStart, running: state.running, hasModel: !!m, busy, finished: state.finished, startTitle: why });
  samplePanel.setEnabled(!!m, 'Train or load a model to sample from it.');
  inspectPanel.setEnabled(!!m, 'Train or load a model, then look inside.');
  keepPanel.setEnabled(!!m && !state.download);
  document.body.dataset.state = state.running ? 'running' : m ? 'paused' : 'idle';
  renderTrain();
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// drag and drop anywhere on the page
const overlay = $('#drop-overlay');
let dragDepth = 0;
const hasFiles = (e: DragEvent) => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
window.addEventListener('dragenter', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  overlay.hidden = false;
});
window.addEventListener('dragover', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  e.dataTransfer!.dropEffect = 'copy';
});
window.addEventListener('dragleave', (e) => {
  if (!hasFiles(e)) return;
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) overlay.hidden = true;
});
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  overlay.hidden = true;
  const file = e.dataTransfer?.files?.[0];
  if (file) void handleFile(file);
});

// save when the tab is hidden (it may be closed next)
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden' && state.model && state.model.step !== state.autosave.lastStep) void autosave();
});

// ---------------------------------------------------------------- start

async function boot(): Promise<void> {
  const variant = params.get('variant');
  const threads = Number(params.get('threads'));
  client.send({
    type: 'init', wasmBase: new URL('./wasm/', document.baseURI).href,
    variant: variant === 'threads' || variant === 'simd' || variant === 'scalar' ? (variant as Variant) : undefined,
    maxThreads: threads > 0 ? threads : undefined,
  });
  refresh();
  try {
    store = await Store.open();
    saved = await store.loadRun();
    if (saved) {
      const c = saved.settings;
      banner.show({ savedAt: saved.savedAt, step: saved.step, steps: c.max_iters ?? 0, corpusName: saved.corpus.name, model: describeModel(c) });
      keepPanel.setStatus(`A saved run at step ${formatCount(saved.step)} is waiting (see the top of the page).`);
    }
  } catch (e) {
    store = null;
    keepPanel.setStatus(`Autosave is unavailable in this browser (${e instanceof Error ? e.message : e}).`);
  }
  const sw = await registerServiceWorker(() => !state.corpus && !state.model && !saved, (text) => notify(text, 'info', { timeout: 15000 }));
  $('#offline').textContent = sw.registered ? 'works offline' : '';
}

void boot();
