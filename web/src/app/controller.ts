// controller.ts — turns the training worker's events into state changes, and the panels'
// requests into worker commands. It owns no DOM (apart from the download link): panels draw
// what the store holds.
import { MAGIC, checkpointFileName, isCheckpoint, isSafetensors } from '../checkpoint';
import type { WorkerClient } from '../client';
import { formatCount } from '../format';
import { fallbackMessage } from '../gpu/backend';
import type { CorpusKind, FromWorker, FullConfig, LossHistory as History, ModelKind, SampleOptions, ThreadSetting, Variant } from '../protocol';
import { normalise } from '../settings';
import { locale, type Messages, t } from '../i18n';
import { h } from '../ui/dom';
import { type Kind, notify as show } from '../ui/messages';
import { coreText } from '../i18n/core-messages';
import { coreInline, withData } from '../ui/note';
import { alignmentInput, canStart, corpusKindFor, defaultPair, describeModel, isBusy, previewPairs, tokenLosses } from './derive';
import { downloadBytes } from './download';
import { applyGuard, divergedStep, divergedWhy, initialGuard } from './guard';
import { LossHistory } from './history';
import { Insight } from './insight';
import { type AlignSource, type InspectSource, type Note, type Pair, type PageStore, type RunState, patch } from './state';

const LIVE_INSPECT_MS = 1000;

export interface GenerateRequest { prompt: Uint8Array; length: number; options: SampleOptions }
export interface TranslateRequest { source: string; beam: number }

/** The preset a mode starts at (the form remembers what was chosen per mode after that). */
const MODE_PRESET: Record<ModelKind, string> = { gpt: 'S', seq2seq: 's2s-small' };


/** What the controller needs of the worker client (a fake in the unit tests). */
export type ClientLike = Pick<WorkerClient, 'on' | 'onAny' | 'send'>;

/** A worker message of one type. */
type Msg<T extends FromWorker['type']> = Extract<FromWorker, { type: T }>;

export class Controller {
  constructor(private store: PageStore, private client: ClientLike) {
    client.onAny((m) => this.countMessage(m));
    client.on('ready', (m) => this.onReady(m));
    client.on('backend', (m) => this.onBackend(m));
    client.on('validation', (m) => this.onValidation(m));
    client.on('corpus', (m) => this.onCorpus(m));
    client.on('model', (m) => this.onModel(m));
    client.on('reset', () => this.onReset());
    client.on('state', (m) => this.onState(m));
    client.on('progress', (m) => this.onProgress(m));
    client.on('evalResult', (m) => this.onEvalResult(m));
    client.on('sampleChunk', (m) => this.onSampleChunk(m));
    client.on('inspection', (m) => this.onInspection(m));
    client.on('checkpoint', (m) => this.onCheckpoint(m));
    client.on('translation', (m) => this.onTranslation(m));
    client.on('translationInspection', (m) => this.onTranslationInspection(m));
    client.on('error', (m) => this.onError(m));
    client.on('insight', (m) => this.set({ insight: Insight.apply(this.get().insight, m), insightRev: this.get().insightRev + 1 }));
    client.on('tree', (m) => this.set({ tree: m, treeSelected: m.selected, treeNote: '' }));
    client.on('runCurves', (m) => this.set({ compare: { ...this.get().compare, [m.id]: m }, compareNote: '' }));
    // the actions are handed to panels as callbacks
    for (const name of ['init', 'setThreads', 'setSettings', 'startPause', 'reset', 'evaluate', 'generate', 'stopGeneration', 'inspect', 'refreshInspection',
      'anotherSlice', 'download', 'loadCheckpointFile', 'loadModelFile', 'setInspectSource', 'setInspectText', 'setInspectLive', 'setInspectVisible', 'setSamplePrompt',
      'setMode', 'translate', 'setAlignSource', 'setAlignCustom', 'anotherPair', 'setAlignVisible',
      'setLossUnit', 'treeStart', 'treeExtend', 'treeSelect'] as const) {
      (this as Record<string, unknown>)[name] = (this[name] as (...a: never[]) => unknown).bind(this);
    }
  }

  private get(): RunState {
    return this.store.get();
  }

  private set(changes: Partial<RunState>): void {
    patch(this.store, changes);
  }

  // ------------------------------------------------------------ worker events

  private countMessage(m: FromWorker): void {
    const counts = { ...this.get().counts };
    counts[m.type] = (counts[m.type] ?? 0) + 1;
    this.set({ counts });
  }

  private onReady(m: Msg<'ready'>): void {
    // the knobs and presets come from the core's schema; the form starts at preset S (or at what
    // the page before the service worker's reload had chosen: carry-over.ts)
    const s = this.get();
    const initial = normalise(m.schema, s.model?.config ?? s.formSettings ?? m.presets.find((p) => p.name === MODE_PRESET[s.mode])?.config ?? m.presets[0].config);
    this.set({
      threadSetting: m.threadSetting ?? 'auto', threadsNow: m.threads, threadsReason: '', threadsCoded: null,
      ready: m, schema: m.schema, presets: m.presets, tasks: m.tasks, formSettings: initial, settings: s.model ? s.settings : initial,
      mode: initial.model === 'seq2seq' ? 'seq2seq' : 'gpt',
      timing: { ...s.timing, readyMs: performance.now(), moduleLoadMs: m.loadMs },
    });
    // negative ids: the presets' estimates
    m.presets.forEach((p, i) => this.client.send({ type: 'validate', id: -(i + 1), config: p.config }));
    this.requestValidation();
  }

  /** Where the steps run (WebGPU or the wasm build), and WebGPU giving up on the current model. */
  private onBackend(m: Msg<'backend'>): void {
    const first = this.get().backend === null;
    this.set({ backend: m });
    const f = m.fallback;
    if (f) {
      // the GPU back end's words (gpu/backend.ts) on the English page; in another, the reason by its code and where the run goes on
      notify(() => (locale.get() === 'en' ? h('span', {}, capitalise(fallbackMessage(f, f)))
        : h('span', {}, coreInline(f.message, f), t().run.gpuContinues(f.kind === 'limits', f.step, f.lostSteps))), 'warning', { id: 'backend' });
      if (f.history) this.set(historyState(this.get(), f.history, f.step));   // the run went back to its last good state
    } else if (first && m.forced && m.backend === 'wasm' && m.reason && !m.reason.startsWith('?backend')) {
      notify(() => h('span', {}, coreInline(capitalise(m.reason), m), t().run.onCpu), 'warning', { id: 'backend' });
    }
  }

  private onValidation(m: Msg<'validation'>): void {
    if (m.id < 0) {
      const preset = this.get().presets[-m.id - 1];
      if (preset) this.set({ presetVerdicts: { ...this.get().presetVerdicts, [preset.name]: m } });
      return;
    }
    if (m.id !== this.get().validateId) return;
    this.set({ verdict: m });
  }

  private onCorpus(m: Msg<'corpus'>): void {
    const s = this.get();
    const c = s.pendingCorpus;
    if (!c) return;
    const replaced = s.corpus !== null && s.corpus.kind === c.kind;
    const alignPair = c.kind === 'pairs' ? defaultPair(previewPairs(c.preview)) : s.alignPair;
    this.set({ corpus: { ...c, pairs: m.pairs ?? null }, pendingCorpus: null, corpusOffset: 0, corpusProblem: null, alignPair });
    if (s.model && replaced) notify(() => withData((slot) => t().run.nowTrainsOn(slot(0)), [m.name]), 'info');
    if (s.model && !s.loading) this.inspect();
    else if (c.kind === 'pairs') this.requestValidation();   // the verdict says how the core reads them at the form's block_size
  }

  private onModel(m: Msg<'model'>): void {
    const s = this.get();
    const loading = s.loading;
    const settings = normalise(s.schema, m.config);
    const mode: ModelKind = m.config.model === 'seq2seq' ? 'seq2seq' : 'gpt';
    if (mode !== s.mode) this.formByMode[s.mode] = s.settings ?? s.formSettings;
    this.set({
      mode, alignment: null, inspection: null, translation: null,
      creating: false, loading: null, running: false, finished: m.step >= m.config.max_iters,
      model: { config: m.config, parameters: m.parameters },
      ...historyState(s, m.history, m.step),
      guard: initialGuard(),
      memoryBytes: m.memoryBytes, etaMs: null, tokensPerSec: 0, lr: null, gradNorm: null,
      elapsedMs: m.reason === 'create' ? 0 : loading?.elapsedMs ?? 0,
      settings, formSettings: settings,
      sample: endSample(s, (x) => x.sample.stoppedReplaced),
      resumeOffer: null,   // a new run has started: the offer goes (the old run stays in Your runs)
      tree: null, treeSelected: 0,   // the worker dropped the tree with the model
    });
    // a model of the other kind: the data of its kind the page had comes back (the corpus loader)
    const kind = corpusKindFor(mode);
    const restoring = s.corpus?.kind !== kind && this.restoreData(kind);
    const pairs = kind === 'pairs';
    const r = t().run;
    if (m.reason === 'load') {
      notify(() => m.name !== undefined ? withData((slot) => r.loaded(slot(0), describeModel(m.config), formatCount(m.step)), [m.name])
        : r.loaded(r.theCheckpoint, describeModel(m.config), formatCount(m.step)), 'success');
      if (!m.hasCorpus && !restoring) notify(r.chooseData(pairs), 'info');
      else if (m.hasCorpus && !m.corpusMatches) notify(r.otherData(pairs), 'warning', { timeout: 10000 });
    } else if (m.reason === 'resume') {
      notify(r.resumed(formatCount(m.step)), 'success');
    }
    if (this.get().pendingStart) {
      this.set({ pendingStart: false });
      this.sendStart();
    }
    if (this.get().corpus) this.inspect();
  }

  private onReset(): void {
    const s = this.get();
    this.set({
      model: null, step: 0, running: false, finished: false, lastLoss: null, valLoss: null, valStep: null, lr: null, gradNorm: null,
      valExactMatch: null, valCer: null,
      elapsedMs: 0, tokensPerSec: 0, etaMs: null, history: new LossHistory(), historyRev: s.historyRev + 1, guard: initialGuard(),
      sample: endSample(s, (x) => x.sample.stoppedReset), inspection: null, tokenLosses: [], inspectNote: null,
      insight: null, insightRev: s.insightRev + 1, tree: null, treeSelected: 0,
      translation: null, alignment: null,
    });
    this.setSettings(this.get().settings);
  }

  private onState(m: Msg<'state'>): void {
    if (m.running) this.set({ running: true, finished: false, lastTick: performance.now(), guard: { ...this.get().guard, paused: null } });
    else {
      this.set({ running: false, finished: m.reason === 'finished' });
      if (m.reason === 'finished') notify(t().run.finished(formatCount(m.step)), 'success');
      this.refreshInspection();
    }
  }

  private onProgress(m: Msg<'progress'>): void {
    if (!this.get().model) return;
    this.onGuard(m);
    const s = this.get();
    const k = m.losses.length;
    if (k) s.history.appendTrain(m.step - k + 1, m.losses);
    const now = performance.now();
    const dt = now - s.lastTick;
    const last = s.history.train;
    this.set({
      step: m.step, historyRev: s.historyRev + 1, lastLoss: k ? m.losses[k - 1] : last.length ? last[last.length - 1] : null,
      tokensPerSec: s.tokensPerSec > 0 ? 0.8 * s.tokensPerSec + 0.2 * m.tokensPerSec : m.tokensPerSec,
      lr: m.lr, gradNorm: m.gradNorm, memoryBytes: m.memoryBytes, lastTick: now, elapsedMs: s.elapsedMs + dt,
      threadsNow: m.threads ?? s.threadsNow, threadsReason: m.threadsReason ?? '', threadsCoded: m.threadsCoded ?? null,
      etaMs: m.etaSeconds >= 0 ? m.etaSeconds * 1000 : null,   // the core's run loop estimates it
      timing: s.timing.firstStepMs ? s.timing : { ...s.timing, firstStepMs: now },
    });
    this.maybeLiveInspect();
  }

  /** The core's NaN guard undid steps (the history drops them) or paused the run: say what, where and why. */
  private onGuard(m: Msg<'progress'>): void {
    const s = this.get();
    const g = applyGuard(s.history, s.guard, m);
    if (!g) return;
    const h = g.history;
    const n = h.valSteps.length;
    this.set({ ...g, valLoss: n ? h.valLosses[n - 1] : null, valStep: n ? h.valSteps[n - 1] : null });
    const r = m.rollbacks?.[m.rollbacks.length - 1];
    if (m.pausedBecause) notify(t().run.guardPaused, 'error', { id: 'nan-guard' });
    else if (r) notify(t().run.guardRollback(divergedStep(r), divergedWhy(r), r.restoredStep, r.lrScale), 'warning', { id: 'nan-guard', timeout: 15000 });
  }

  private onEvalResult(m: Msg<'evalResult'>): void {
    const s = this.get();
    s.history.addVal(m.step, m.loss, m.exactMatch, m.cer);
    this.set({ valLoss: m.loss, valStep: m.step, historyRev: s.historyRev + 1, valExactMatch: m.exactMatch ?? null, valCer: m.cer ?? null });
    if (m.snapshotMs) this.set({ timing: { ...s.timing, snapshotMs: s.timing.snapshotMs + m.snapshotMs } });
  }

  private onSampleChunk(m: Msg<'sampleChunk'>): void {
    const g = this.get().sample;
    if (!g || m.id !== g.id) return;
    this.set({ sample: { ...g, chunks: [...g.chunks, m], generating: !m.done } });
  }

  private onInspection(m: Msg<'inspection'>): void {
    const s = this.get();
    if (m.id !== s.inspectId) return;
    const of = s.inspectLen !== null && s.inspectLen > m.T ? s.inspectLen : null;
    this.set({
      inspectInFlight: false, lastInspectAt: performance.now(), inspection: m, tokenLosses: tokenLosses(m),
      inspectNote: (x) => x.inspect.notes.inspected(m.T, m.step) + (of !== null ? x.inspect.notes.cut(m.T, of) : ''),
    });
  }

  private onTranslation(m: Msg<'translation'>): void {
    const t = this.get().translation;
    if (!t || m.id !== t.id) return;
    this.set({ translation: { ...t, busy: false, result: m, note: null } });
    if (this.get().alignSource === 'translation') this.inspect();
  }

  private onTranslationInspection(m: Msg<'translationInspection'>): void {
    const s = this.get();
    if (m.id !== s.inspectId) return;
    this.set({
      inspectInFlight: false, lastInspectAt: performance.now(), alignment: m,
      inspectNote: (x) => x.translate.notes.inspected(m.S, m.T, m.step, '⟨BOS⟩'),
    });
  }

  private onCheckpoint(m: Msg<'checkpoint'>): void {
    if (m.reason !== 'download') return;   // autosaves: see autosave.ts
    this.set({ download: false });
    const name = checkpointFileName(this.get().corpus?.ref.name ?? 'model', m.step);
    downloadBytes(name, m.bytes);
    const bytes = formatCount(m.bytes.byteLength);
    notify(() => h('span', {}, withData((slot) => t().run.downloaded(slot(0), bytes), [name]), h('code', {}, `tinygpt train --resume ${name}`)), 'success');
  }

  private onError(m: Msg<'error'>): void {
    const s = this.get();
    this.set({ errors: [...s.errors, `${m.during}: ${m.message}`] });
    switch (m.during) {
      case 'init':
        this.set({ loadFailed: m.message });
        notify(() => h('span', {}, t().run.initFailed, coreInline(m.message, m)), 'error');
        return;
      case 'setCorpus': {
        // worded at render time (data-panel.ts): the core's message, then what is kept
        const pairs = s.pendingCorpus?.kind === 'pairs';
        const name = s.pendingCorpus?.ref.name;
        const keptPairs = s.corpus ? s.corpus.kind === 'pairs' : null;
        this.set({ pendingCorpus: null, corpusBusy: null,
          corpusProblem: {
            kind: 'core', title: (x) => x.data.problem.cantUse(name ?? x.data.problem.theseData(pairs)), core: { text: sentence(m.message), from: m },
            message: keptPairs === null ? null : (x) => (keptPairs ? x.data.problem.keptPairs : x.data.problem.keptText), data: name ? [name] : [], actions: [],
          } });
        return;
      }
      case 'translate': {
        const t = s.translation;
        if (t) this.set({ translation: { ...t, busy: false, note: { core: capitalise(m.message), from: m } } });
        return;
      }
      case 'inspectTranslation':
        this.set({ inspectInFlight: false, inspectNote: { core: capitalise(m.message), from: m } });
        return;
      case 'builtinTask':
        return;   // the corpus loader shows it
      case 'create':
        this.set({ creating: false, pendingStart: false });
        notify(() => h('span', {}, t().run.createFailed, coreInline(m.message, m)), 'error');
        return;
      case 'load':
      case 'loadSafetensors': {
        const l = s.loading;
        this.set({ loading: null });
        const r = t().run;
        if (l?.reason === 'resume') notify(() => h('span', {}, t().keep.couldNotResume, coreInline(m.message, m)), 'error');
        else {
          const name = l?.name ?? r.theCheckpoint;
          notify(() => h('span', {}, withData((slot) => r.loadFailed(slot(0)), [name]), coreInline(m.message, m), r.unchanged), 'error');
        }
        return;
      }
      case 'generate':
      case 'stopGeneration':
        this.set({ sample: endSample(s, { before: (x) => x.sample.stopped, core: m.message, from: m }) });
        return;
      case 'inspect':
        this.set({ inspectInFlight: false, inspectNote: { core: capitalise(m.message), from: m } });
        return;
      case 'treeStart':
      case 'treeExtend':
        this.set({ treeNote: coreText(capitalise(m.message), m) });   // a string: the learn views show it as it is
        return;
      case 'runCurves':
        this.set({ compareNote: t().run.curvesFailed + coreText(m.message, m) });   // a string, as treeNote
        return;
      case 'save':
        this.set({ download: false });
        notify(() => h('span', {}, t().run.saveFailed, coreInline(m.message, m)), 'error');
        return;
      default:
        notify(() => coreInline(capitalise(m.message), m), 'error');
    }
  }

  // ------------------------------------------------------------ settings

  /**
   * The form changed (null: a field is unusable). With a model only the schema's `run` fields
   * (eval_interval, eval_iters) can change; the core's run loop takes them at its next slice.
   */
  setSettings(settings: FullConfig | null): void {
    const s = this.get();
    if (s.model) {
      if (!settings || !s.settings) return;
      for (const f of s.schema.filter((x) => x.group === 'run')) {
        const name = f.name as 'eval_interval' | 'eval_iters';
        const v = settings[name];
        if (v !== s.settings[name] && Number.isInteger(v) && v >= f.min && v <= f.max) {
          this.client.send({ type: 'update', name, value: v });
          const now = this.get();
          this.set({ settings: { ...now.settings!, [name]: v }, model: { ...now.model!, config: { ...now.model!.config, [name]: v } } });
        }
      }
      return;
    }
    this.set({ settings, verdict: null });
    this.requestValidation();
  }

  // ------------------------------------------------------------ the mode: language model or translation

  /** The form each mode had when it was left (the other mode's comes back as it was). */
  private formByMode: Partial<Record<ModelKind, FullConfig | null>> = {};

  /** Switches between the language model and the translator (no model yet: Reset first, or load one). */
  setMode(mode: ModelKind): void {
    const s = this.get();
    if (mode === s.mode || s.model || isBusy(s) || !s.ready) return;
    this.formByMode[s.mode] = s.settings ?? s.formSettings;
    const preset = s.presets.find((p) => p.name === MODE_PRESET[mode]) ?? s.presets.find((p) => p.config.model === mode);
    const form = this.formByMode[mode] ?? (preset ? normalise(s.schema, preset.config) : null);
    if (!form) return;
    this.set({ mode, formSettings: form, settings: form, verdict: null, alignment: null, translation: null });
    this.requestValidation();
    this.modeChanged(mode);
  }

  /** The mode changed: the corpus loader brings the data of its kind (main.ts wires it). */
  modeChanged: (mode: ModelKind) => void = () => undefined;
  /** A model of this kind came without data: the corpus loader gives it the data of its kind it had (true if it does). */
  restoreData: (kind: CorpusKind) => boolean = () => false;

  // ------------------------------------------------------------ translating

  translate(req: TranslateRequest): void {
    const s = this.get();
    if (!s.model || s.mode !== 'seq2seq') return;
    const id = (s.translation?.id ?? 0) + 1;
    this.set({ translation: { id, source: req.source, beam: req.beam, busy: true, result: null, note: null } });
    this.client.send({ type: 'translate', id, source: new TextEncoder().encode(req.source).buffer as ArrayBuffer, options: { beam: req.beam } });
  }

  setAlignSource(alignSource: AlignSource): void {
    this.set({ alignSource });
    this.inspect();
  }

  setAlignCustom(alignCustom: Pair): void {
    this.set({ alignCustom });
  }

  /** Another pair of the data for the attention maps (of the first ones the page has seen). */
  anotherPair(): void {
    const s = this.get();
    if (s.corpus?.kind !== 'pairs') return;
    const pairs = previewPairs(s.corpus.preview, 200);
    if (!pairs.length) return;
    let k = Math.floor(Math.random() * pairs.length);
    if (pairs.length > 1 && pairs[k].source === s.alignPair?.source) k = (k + 1) % pairs.length;
    this.set({ alignPair: pairs[k], alignSource: 'pair' });
    this.inspect();
  }

  setAlignVisible(visible: boolean): void {
    const was = this.get().alignVisible;
    this.set({ alignVisible: visible });
    if (visible && !was) this.refreshInspection();
  }

  private requestValidation(): void {
    const s = this.get();
    if (!s.ready || !s.settings || s.model) return;
    const id = s.validateId + 1;
    this.set({ validateId: id });
    this.client.send({ type: 'validate', id, config: s.settings });
  }

  // ------------------------------------------------------------ training

  startPause(): void {
    const s = this.get();
    if (isBusy(s) || (!s.running && !canStart(s))) return;   // the button says why (aria-disabled, title)
    if (s.running) {
      this.client.send({ type: 'pause' });
      return;
    }
    if (!s.model) {
      if (!s.settings || !s.corpus) return;
      this.set({ creating: true, pendingStart: true });
      this.client.send({ type: 'create', config: s.settings, history: this.keepHistory });
      return;
    }
    this.sendStart();
  }

  private sendStart(): void {
    const s = this.get();
    if (!s.model) return;
    const steps = s.model.config.max_iters;
    this.client.send({ type: 'start', stopAt: s.step < steps ? steps : -1 });
  }

  // ------------------------------------------------------------ sampling

  generate(req: GenerateRequest): void {
    const s = this.get();
    if (!s.model) return;
    const id = (s.sample?.id ?? 0) + 1;
    this.set({ sample: { id, prompt: req.prompt.slice(), chunks: [], generating: true, note: null } });
    this.client.send({ type: 'generate', id, prompt: req.prompt.buffer as ArrayBuffer, length: req.length, options: req.options });
  }

  stopGeneration(): void {
    const g = this.get().sample;
    if (g) this.client.send({ type: 'stopGeneration', id: g.id });
  }

  // ------------------------------------------------------------ looking inside

  /** Asks for the attention maps of the chosen text (the store's inspectSource / inspectText). */
  inspect(): void {
    const s = this.get();
    if (!s.model) return;
    if (s.mode === 'seq2seq') return this.inspectTranslation();
    let text: Uint8Array | null = null;
    const source: InspectSource = s.inspectSource;
    const note = (inspectNote: Note) => this.set({ inspectNote });
    if (source === 'corpus') {
      if (!s.corpus) return note((x) => x.inspect.notes.chooseText);
    } else if (source === 'prompt') {
      text = new TextEncoder().encode(s.samplePrompt);
      if (!text.length) text = new TextEncoder().encode('\n');
    } else if (source === 'sample') {
      text = sampleText(s);
      if (!text.length) return note((x) => x.inspect.notes.sampleFirst);
    } else {
      text = new TextEncoder().encode(s.inspectText);
      if (!text.length) return note((x) => x.inspect.notes.typeText);
    }
    const id = s.inspectId + 1;
    this.set({ inspectId: id, inspectInFlight: true, inspectLen: text ? text.length : null });
    this.client.send({ type: 'inspect', id, text: text ? text.buffer as ArrayBuffer : null, corpusOffset: s.corpusOffset });
  }

  /** The translator's attention maps for the chosen source and target (alignmentInput). */
  private inspectTranslation(): void {
    const s = this.get();
    const input = alignmentInput(s);
    if (!input) {
      const why: (x: Messages) => string = s.alignSource === 'translation' ? (x) => x.translate.notes.translateFirst
        : s.alignSource === 'custom' ? (x) => x.translate.notes.typePair : (x) => x.translate.notes.choosePairs;
      this.set({ inspectNote: why });
      return;
    }
    const id = s.inspectId + 1;
    const enc = new TextEncoder();
    this.set({ inspectId: id, inspectInFlight: true });
    this.client.send({ type: 'inspectTranslation', id, source: enc.encode(input.source).buffer as ArrayBuffer, target: enc.encode(input.target).buffer as ArrayBuffer });
  }

  /** What the visible "look inside" panel shows, and whether it is on screen (the mode's panel). */
  private shown(s: RunState): { visible: boolean; step: number | null } {
    return s.mode === 'seq2seq'
      ? { visible: s.alignVisible, step: s.alignment?.step ?? null }
      : { visible: s.inspectVisible, step: s.inspection?.step ?? null };
  }

  /** Brings the attention maps up to date with the model (on pause, or when scrolled into view). */
  refreshInspection(): void {
    const s = this.get();
    const { step } = this.shown(s);
    if (!s.model || s.inspectInFlight || step === null || step === s.step) return;
    this.inspect();
  }

  private maybeLiveInspect(): void {
    const s = this.get();
    const { visible, step } = this.shown(s);
    if (!visible || !s.inspectLive || s.inspectInFlight || step === null) return;
    if (performance.now() - s.lastInspectAt < LIVE_INSPECT_MS) return;
    this.inspect();
  }

  anotherSlice(): void {
    const s = this.get();
    if (!s.corpus || !s.model) return;
    const max = Math.max(0, s.corpus.stats.size - s.model.config.block_size);
    this.set({ corpusOffset: Math.floor(Math.random() * (max + 1)), inspectSource: 'corpus' });
    this.inspect();
  }

  // ------------------------------------------------------------ checkpoints

  download(): void {
    const s = this.get();
    if (!s.model || s.download) return;
    this.set({ download: true });
    this.client.send({ type: 'save', reason: 'download' });
  }

  async loadCheckpointFile(file: File): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (e) {
      notify(() => withData((slot) => t().run.cantRead(slot(0), slot(1)), [file.name, `${e instanceof Error ? e.message : e}`]), 'error');   // the browser's words: as data
      return;
    }
    if (!isCheckpoint(bytes)) {
      if (isSafetensors(bytes, bytes.length)) return this.loadModelFile(file);
      notify(() => withData((slot) => t().run.notCheckpoint(slot(0), slot(1)), [file.name, MAGIC]), 'error');
      return;
    }
    const s = this.get();
    if (s.model && !confirm(t().run.confirmLoad(formatCount(s.step), file.name))) return;
    if (s.model) this.beforeReplace();   // the worker answers in order: that checkpoint is the current model's
    notify(() => withData((slot) => t().run.loading(slot(0)), [file.name]), 'info', { id: 'loading', timeout: 3000 });
    this.set({ loading: { name: file.name, reason: 'file' } });
    this.client.send({ type: 'load', bytes: bytes.buffer as ArrayBuffer, reason: 'file', name: file.name });
  }

  // ------------------------------------------------------------ start

  /** Threads of the threads build: 'auto' (tuned by the core) or a fixed count; remembered by the page. */
  setThreads(setting: ThreadSetting): void {
    this.set({ threadSetting: setting, threadsReason: '', threadsCoded: null });
    this.client.send({ type: 'threads', setting });
  }

  init(options: { variant?: Variant; maxThreads?: number; threads?: ThreadSetting; backend?: 'webgpu' | 'wasm'; backendForced?: boolean }): void {
    this.client.send({ type: 'init', wasmBase: new URL('./wasm/', document.baseURI).href, ...options });
  }

  /** A .safetensors model file (tinygpt export, python/tinygpt): a new run from its weights and config. */
  async loadModelFile(file: File): Promise<void> {
    let bytes: ArrayBuffer;
    try {
      bytes = await file.arrayBuffer();
    } catch (e) {
      notify(() => withData((slot) => t().run.cantRead(slot(0), slot(1)), [file.name, `${e instanceof Error ? e.message : e}`]), 'error');   // the browser's words: as data
      return;
    }
    const s = this.get();
    if (s.model && !confirm(t().run.confirmModelFile(formatCount(s.step), file.name))) return;
    if (s.model) this.beforeReplace();
    notify(() => withData((slot) => t().run.loading(slot(0)), [file.name]), 'info', { id: 'loading', timeout: 3000 });
    this.set({ loading: { name: file.name, reason: 'file' } });
    this.client.send({ type: 'loadSafetensors', bytes, name: file.name });
  }

  /** New runs keep a history of snapshots (main.ts: ?history=off turns it off; bench:page measures its cost). */
  keepHistory = true;

  /** Called before the live model goes (reset, a checkpoint loaded over it): main.ts saves its run. */
  beforeReplace: () => void = () => undefined;

  reset(): void {
    this.beforeReplace();
    this.client.send({ type: 'reset' });
  }

  evaluate(): void {
    this.client.send({ type: 'evaluate' });
  }

  setInspectSource(source: InspectSource): void {
    this.set({ inspectSource: source });
    this.inspect();
  }

  setInspectText(inspectText: string): void {
    this.set({ inspectText });
  }

  setInspectLive(inspectLive: boolean): void {
    this.set({ inspectLive });
  }

  setInspectVisible(visible: boolean): void {
    const was = this.get().inspectVisible;
    this.set({ inspectVisible: visible });
    if (visible && !was) this.refreshInspection();
  }

  setSamplePrompt(samplePrompt: string): void {
    this.set({ samplePrompt });
  }

  // ------------------------------------------------------------ watch it learn

  setLossUnit(lossUnit: 'nats' | 'bits'): void {
    this.set({ lossUnit });
  }

  /** Step-through generation: a new tree from a prompt, with the top-k next bytes at every node. */
  treeStart(prompt: Uint8Array, topK: number): void {
    if (!this.get().model) return;
    const id = (this.get().tree?.id ?? 0) + 1;
    this.set({ treeNote: t().run.growing });   // a string: the learn views show it as it is
    this.client.send({ type: 'treeStart', id, prompt: prompt.slice().buffer as ArrayBuffer, topK });
  }

  /** Grows the selected branch by a candidate byte (or walks to the child that has it). */
  treeExtend(node: number, token: number): void {
    const t = this.get().tree;
    if (!t) return;
    const child = t.nodes[node]?.children.find((c) => t.nodes[c].token === token);
    if (child !== undefined) return this.treeSelect(child);
    this.client.send({ type: 'treeExtend', id: t.id, node, token });
  }

  treeSelect(node: number): void {
    const t = this.get().tree;
    if (t && node >= 0 && node < t.nodes.length) this.set({ treeSelected: node });
  }
}

/** The store's curves and latest values for a model's history (at `step`). */
function historyState(s: RunState, h: History, step: number): Partial<RunState> {
  const history = new LossHistory();
  if (h.train.length) history.appendTrain(1, h.train);
  for (let i = 0; i < h.valSteps.length; i++) history.addVal(h.valSteps[i], h.valLosses[i], h.valExactMatch?.[i], h.valCer?.[i]);
  const last = h.valSteps.length - 1;
  // a translator's held-out exact match and CER (NaN, or absent, for a language model)
  const metric = (m: ArrayLike<number> | undefined) => (last >= 0 && m && Number.isFinite(m[last]) ? m[last] : null);
  return {
    step, history, historyRev: s.historyRev + 1,
    lastLoss: h.train.length ? h.train[h.train.length - 1] : null,
    valLoss: h.valLosses.length ? h.valLosses[h.valLosses.length - 1] : null,
    valStep: h.valSteps.length ? h.valSteps[h.valSteps.length - 1] : null,
    valExactMatch: metric(h.valExactMatch), valCer: metric(h.valCer),
  };
}

/** The sample ended early (the model changed under it, or an error). */
function endSample(s: RunState, note: Note): RunState['sample'] {
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

/**
 * A notice; one with DOM in it (data marked, a core message, code) is built only where there is
 * a page to show it (the controller's unit tests run in Node, without a DOM).
 */
function notify(content: string | (() => string | Node), kind?: Kind, options?: { timeout?: number; id?: string }): void {
  if (typeof content === 'function' && typeof document === 'undefined') return;
  show(typeof content === 'function' ? content() : content, kind, options);
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The core's message as a sentence: capitalised, with one full stop (some already end with one). */
function sentence(s: string): string {
  const t = capitalise(s.trim());
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
