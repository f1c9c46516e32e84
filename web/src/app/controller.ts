// controller.ts — turns the training worker's events into state changes, and the panels'
// requests into worker commands. It owns no DOM (apart from the download link): panels draw
// what the store holds.
import { checkpointFileName, isCheckpoint, readHeader } from '../checkpoint';
import type { WorkerClient } from '../client';
import { formatCount } from '../format';
import { type SampleOptions, type Variant, toSessionConfig } from '../protocol';
import { PRESETS, type PresetName, type UiSettings, normalise } from '../settings';
import { notify } from '../ui/messages';
import { describeModel, tokenLosses } from './derive';
import { LossHistory } from './history';
import { type InspectSource, type PageStore, type RunState, patch } from './state';

const LIVE_INSPECT_MS = 1000;

export interface GenerateRequest { prompt: Uint8Array; length: number; options: SampleOptions }

export type Controller = ReturnType<typeof createController>;

/** What the controller needs of the worker client (a fake in the unit tests). */
export type ClientLike = Pick<WorkerClient, 'on' | 'onAny' | 'send'>;

export function createController(store: PageStore, client: ClientLike) {
  const get = () => store.get();
  const set = (changes: Partial<RunState>) => patch(store, changes);

  // ------------------------------------------------------------ worker events

  client.onAny((m) => {
    const counts = { ...get().counts };
    counts[m.type] = (counts[m.type] ?? 0) + 1;
    set({ counts });
  });

  client.on('ready', (m) => {
    set({ ready: m, timing: { ...get().timing, readyMs: performance.now(), moduleLoadMs: m.loadMs } });
    const names = Object.keys(PRESETS) as PresetName[];
    // negative ids: the presets' estimates
    names.forEach((name, i) => client.send({ type: 'validate', id: -(i + 1), config: toSessionConfig(PRESETS[name]) }));
    requestValidation();
  });

  client.on('validation', (m) => {
    if (m.id < 0) {
      const name = (Object.keys(PRESETS) as PresetName[])[-m.id - 1];
      set({ presetVerdicts: { ...get().presetVerdicts, [name]: m } });
      return;
    }
    if (m.id !== get().validateId) return;
    set({ verdict: m });
  });

  client.on('corpus', (m) => {
    const s = get();
    const c = s.pendingCorpus;
    if (!c) return;
    const replaced = s.corpus !== null;
    set({ corpus: c, pendingCorpus: null, corpusOffset: 0, corpusProblem: null });
    if (s.model && replaced) notify(`The model now trains on ${m.name}.`, 'info');
    if (s.model && !s.loading) inspect();
  });

  client.on('model', (m) => {
    const s = get();
    const loading = s.loading;
    const history = new LossHistory();
    const h = m.history;
    if (h.train.length) history.appendTrain(1, h.train);
    for (let i = 0; i < h.valSteps.length; i++) history.addVal(h.valSteps[i], h.valLosses[i]);
    const settings: UiSettings = normalise({ ...m.config, evalEvery: loading?.evalEvery ?? s.evalEvery });
    set({
      creating: false, loading: null, running: false, finished: m.step >= m.config.steps,
      model: { config: m.config, parameters: m.parameters }, step: m.step,
      history, historyRev: s.historyRev + 1,
      lastLoss: h.train.length ? h.train[h.train.length - 1] : null,
      valLoss: h.valLosses.length ? h.valLosses[h.valLosses.length - 1] : null,
      valStep: h.valSteps.length ? h.valSteps[h.valSteps.length - 1] : null,
      memoryBytes: m.memoryBytes, msPerStep: 0, tokensPerSec: 0, lr: null, gradNorm: null,
      elapsedMs: m.reason === 'create' ? 0 : loading?.elapsedMs ?? 0,
      settings, formSettings: settings, evalEvery: settings.evalEvery,
      sample: endSample(s, 'Stopped: the model was replaced.'),
      resumeOffer: m.reason === 'resume' ? null : s.resumeOffer,
    });
    if (m.reason === 'load') {
      notify(`Loaded ${m.name ?? 'the checkpoint'}: ${describeModel(m.config)}, step ${formatCount(m.step)}.`, 'success');
      if (!s.corpus) notify('Choose the text this model was trained on to continue training it.', 'info');
      else if (!m.corpusMatches) notify('This checkpoint was trained on a different text; training now continues on the current one.', 'warning', { timeout: 10000 });
    } else if (m.reason === 'resume') {
      notify(`Resumed the saved run at step ${formatCount(m.step)}.`, 'success');
    }
    if (get().pendingStart) {
      set({ pendingStart: false });
      sendStart();
    }
    if (get().corpus) inspect();
  });

  client.on('reset', () => {
    const s = get();
    set({
      model: null, step: 0, running: false, finished: false, lastLoss: null, valLoss: null, valStep: null, lr: null, gradNorm: null,
      elapsedMs: 0, tokensPerSec: 0, msPerStep: 0, history: new LossHistory(), historyRev: s.historyRev + 1,
      sample: endSample(s, 'Stopped: the model was reset.'), inspection: null, tokenLosses: [], inspectNote: null,
    });
    setSettings(get().settings);
  });

  client.on('state', (m) => {
    if (m.running) set({ running: true, finished: false, lastTick: performance.now() });
    else {
      set({ running: false, finished: m.reason === 'finished' });
      if (m.reason === 'finished') notify(`Finished the schedule: ${formatCount(m.step)} steps.`, 'success');
      refreshInspection();
    }
  });

  client.on('progress', (m) => {
    const s = get();
    if (!s.model) return;
    const k = m.losses.length;
    s.history.appendTrain(m.step - k + 1, m.losses);
    const now = performance.now();
    const dt = now - s.lastTick;
    const per = dt / k;
    set({
      step: m.step, historyRev: s.historyRev + 1, lastLoss: m.losses[k - 1],
      tokensPerSec: s.tokensPerSec > 0 ? 0.8 * s.tokensPerSec + 0.2 * m.tokensPerSec : m.tokensPerSec,
      lr: m.lr, gradNorm: m.gradNorm, memoryBytes: m.memoryBytes, lastTick: now, elapsedMs: s.elapsedMs + dt,
      msPerStep: s.msPerStep > 0 ? 0.9 * s.msPerStep + 0.1 * per : per,
      timing: s.timing.firstStepMs ? s.timing : { ...s.timing, firstStepMs: now },
    });
    maybeLiveInspect();
  });

  client.on('evalResult', (m) => {
    const s = get();
    s.history.addVal(m.step, m.loss);
    set({ valLoss: m.loss, valStep: m.step, historyRev: s.historyRev + 1 });
  });

  client.on('sampleChunk', (m) => {
    const g = get().sample;
    if (!g || m.id !== g.id) return;
    set({ sample: { ...g, chunks: [...g.chunks, m], generating: !m.done } });
  });

  client.on('inspection', (m) => {
    const s = get();
    if (m.id !== s.inspectId) return;
    const cut = s.inspectLen !== null && s.inspectLen > m.T ? ` (the last ${m.T} of ${s.inspectLen}: the model sees at most its context)` : '';
    set({
      inspectInFlight: false, lastInspectAt: performance.now(), inspection: m, tokenLosses: tokenLosses(m),
      inspectNote: `${m.T} bytes, model at step ${m.step}${cut}`,
    });
  });

  client.on('checkpoint', (m) => {
    if (m.reason !== 'download') return;   // autosaves: see autosave.ts
    set({ download: false });
    const name = checkpointFileName(get().corpus?.ref.name ?? 'model', m.step);
    const url = URL.createObjectURL(new Blob([m.bytes], { type: 'application/octet-stream' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    notify(`Saved ${name} (${formatCount(m.bytes.byteLength)} bytes). Continue it with: tinygpt train --resume ${name}`, 'success');
  });

  client.on('error', (m) => {
    const s = get();
    set({ errors: [...s.errors, `${m.during}: ${m.message}`] });
    switch (m.during) {
      case 'init':
        set({ loadFailed: m.message });
        notify(`The model could not be loaded: ${m.message}`, 'error');
        return;
      case 'setCorpus': {
        const name = s.pendingCorpus?.ref.name ?? 'this text';
        set({ pendingCorpus: null, corpusBusy: null,
          corpusProblem: { title: `Can't use ${name}`, message: `${capitalise(m.message)}. The previous text is kept.`, kind: 'core', actions: [] } });
        return;
      }
      case 'create':
        set({ creating: false, pendingStart: false });
        notify(`Could not create the model: ${m.message}`, 'error');
        return;
      case 'load': {
        const l = s.loading;
        set({ loading: null });
        if (l?.reason === 'resume') notify(`Could not resume the saved run: ${m.message}`, 'error');
        else notify(`Could not load ${l?.name ?? 'the checkpoint'}: ${m.message}. The current model is unchanged.`, 'error');
        return;
      }
      case 'generate':
      case 'stopGeneration':
        set({ sample: endSample(s, `Stopped: ${m.message}`) });
        return;
      case 'inspect':
        set({ inspectInFlight: false, inspectNote: capitalise(m.message) });
        return;
      case 'save':
        set({ download: false });
        notify(`Could not save: ${m.message}`, 'error');
        return;
      default:
        notify(capitalise(m.message), 'error');
    }
  });

  // ------------------------------------------------------------ settings

  /** The form changed (null: a field is unusable). With a model only "validate every" can change. */
  function setSettings(settings: UiSettings | null): void {
    const s = get();
    if (s.model) {
      set({ settings });
      // a running loop picks up a new validation cadence at once
      if (settings && settings.evalEvery !== s.evalEvery) {
        set({ evalEvery: settings.evalEvery });
        if (s.running) sendStart();
      }
      return;
    }
    set({ settings, verdict: null, evalEvery: settings?.evalEvery ?? s.evalEvery });
    requestValidation();
  }

  function requestValidation(): void {
    const s = get();
    if (!s.ready || !s.settings || s.model) return;
    const id = s.validateId + 1;
    set({ validateId: id });
    client.send({ type: 'validate', id, config: toSessionConfig(s.settings) });
  }

  // ------------------------------------------------------------ training

  function startPause(): void {
    const s = get();
    if (s.running) {
      client.send({ type: 'pause' });
      return;
    }
    if (!s.model) {
      if (!s.settings || !s.corpus) return;
      set({ creating: true, pendingStart: true, evalEvery: s.settings.evalEvery });
      client.send({ type: 'create', config: toSessionConfig(s.settings) });
      return;
    }
    sendStart();
  }

  function sendStart(): void {
    const s = get();
    if (!s.model) return;
    const steps = s.model.config.steps;
    client.send({ type: 'start', evalEvery: s.evalEvery, stopAt: s.step < steps ? steps : null });
  }

  // ------------------------------------------------------------ sampling

  function generate(req: GenerateRequest): void {
    const s = get();
    if (!s.model) return;
    const id = (s.sample?.id ?? 0) + 1;
    set({ sample: { id, prompt: req.prompt.slice(), chunks: [], generating: true, note: '' } });
    client.send({ type: 'generate', id, prompt: req.prompt.buffer as ArrayBuffer, length: req.length, options: req.options });
  }

  function stopGeneration(): void {
    const g = get().sample;
    if (g) client.send({ type: 'stopGeneration', id: g.id });
  }

  // ------------------------------------------------------------ looking inside

  /** Asks for the attention maps of the chosen text (the store's inspectSource / inspectText). */
  function inspect(): void {
    const s = get();
    if (!s.model) return;
    let text: Uint8Array | null = null;
    const source: InspectSource = s.inspectSource;
    const note = (inspectNote: string) => set({ inspectNote });
    if (source === 'corpus') {
      if (!s.corpus) return note('Choose a text first.');
    } else if (source === 'prompt') {
      text = new TextEncoder().encode(s.samplePrompt);
      if (!text.length) text = new TextEncoder().encode('\n');
    } else if (source === 'sample') {
      text = sampleText(s);
      if (!text.length) return note('Generate a sample first.');
    } else {
      text = new TextEncoder().encode(s.inspectText);
      if (!text.length) return note('Type a text to look inside.');
    }
    const id = s.inspectId + 1;
    set({ inspectId: id, inspectInFlight: true, inspectLen: text ? text.length : null });
    client.send({ type: 'inspect', id, text: text ? text.buffer as ArrayBuffer : null, corpusOffset: s.corpusOffset });
  }

  /** Brings the attention maps up to date with the model (on pause, or when scrolled into view). */
  function refreshInspection(): void {
    const s = get();
    if (!s.model || s.inspectInFlight || !s.inspection || s.inspection.step === s.step) return;
    inspect();
  }

  function maybeLiveInspect(): void {
    const s = get();
    if (!s.inspectVisible || !s.inspectLive || s.inspectInFlight || !s.inspection) return;
    if (performance.now() - s.lastInspectAt < LIVE_INSPECT_MS) return;
    inspect();
  }

  function anotherSlice(): void {
    const s = get();
    if (!s.corpus || !s.model) return;
    const max = Math.max(0, s.corpus.stats.size - s.model.config.context);
    set({ corpusOffset: Math.floor(Math.random() * (max + 1)), inspectSource: 'corpus' });
    inspect();
  }

  // ------------------------------------------------------------ checkpoints

  function download(): void {
    const s = get();
    if (!s.model || s.download) return;
    set({ download: true });
    client.send({ type: 'save', reason: 'download' });
  }

  async function loadCheckpointFile(file: File): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (e) {
      notify(`Can't read ${file.name}: ${e instanceof Error ? e.message : e}`, 'error');
      return;
    }
    if (!isCheckpoint(bytes)) {
      notify(`${file.name} is not a tinygpt checkpoint (it doesn't start with TGPTCKPT). The current model is unchanged.`, 'error');
      return;
    }
    const head = readHeader(bytes);
    if (head) notify(`Loading ${file.name}: ${describeModel(head)}, step ${formatCount(head.step)}…`, 'info', { id: 'loading', timeout: 3000 });
    set({ loading: { name: file.name, reason: 'file' } });
    client.send({ type: 'load', bytes: bytes.buffer as ArrayBuffer, reason: 'file', name: file.name });
  }

  // ------------------------------------------------------------ start

  function init(options: { variant?: Variant; maxThreads?: number }): void {
    client.send({ type: 'init', wasmBase: new URL('./wasm/', document.baseURI).href, ...options });
  }

  return {
    init, setSettings, startPause, reset: () => client.send({ type: 'reset' }), evaluate: () => client.send({ type: 'evaluate' }),
    generate, stopGeneration, inspect, refreshInspection, anotherSlice, download, loadCheckpointFile,
    setInspectSource(source: InspectSource): void {
      set({ inspectSource: source });
      inspect();
    },
    setInspectText: (inspectText: string) => set({ inspectText }),
    setInspectLive: (inspectLive: boolean) => set({ inspectLive }),
    setInspectVisible(visible: boolean): void {
      const was = get().inspectVisible;
      set({ inspectVisible: visible });
      if (visible && !was) refreshInspection();
    },
    setSamplePrompt: (samplePrompt: string) => set({ samplePrompt }),
  };
}

/** The sample ended early (the model changed under it, or an error). */
function endSample(s: RunState, note: string): RunState['sample'] {
  return s.sample && s.sample.generating ? { ...s.sample, generating: false, note } : s.sample;
}

/** The prompt and the generated bytes, as the sample panel shows them. */
export function sampleText(s: Pick<RunState, 'sample'>): Uint8Array {
  const g = s.sample;
  if (!g) return new Uint8Array(0);
  const n = g.chunks.reduce((a, c) => a + c.bytes.length, g.prompt.length);
  const out = new Uint8Array(n);
  out.set(g.prompt);
  let o = g.prompt.length;
  for (const c of g.chunks) {
    out.set(c.bytes, o);
    o += c.bytes.length;
  }
  return out;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
