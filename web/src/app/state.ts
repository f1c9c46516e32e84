// state.ts — the page's one store: everything the panels show, in one typed object.
//
// A nanostores `map` (about 1 kB, no dependencies): `get()` reads it, `patch()` below changes
// several keys in one notification, and a panel subscribes to the keys it shows with `watch()`
// (nanostores' listenKeys), so a progress event redraws the training numbers but not the
// settings form. `window.__tinygpt` is this store (the e2e tests read `__tinygpt.get()`).
//
// Rules: only the controller (worker events), the corpus loader and the runs module write;
// panels read and call actions. Values are replaced, never mutated, except the two append-only
// series (`history`, `sample.chunks`), which announce growth with a new `rev`.
import { listenKeys, map, type MapStore } from 'nanostores';

import type { CorpusStats } from '../corpus';
import type { BackendInfo, CoreCoded, CorpusKind, FieldSpec, FullConfig, InspectionMsg, ModelKind, PairsReport, Preset, Ready, RunCurvesMsg, SampleChunk, TaskInfo, ThreadSetting, TranslationInspectionMsg, TranslationMsg, TreeMsg } from '../protocol';
import { type Locale, locale, type Msg } from '../i18n';
import type { CorpusRef } from '../runs-db';
import type { EstimateState } from './estimate';
import { type GuardState, initialGuard } from './guard';
import { LossHistory } from './history';
import type { Insight } from './insight';
import type { ReplayState, ShareState } from './replay';

export interface Verdict {
  problems: { field: string; message: string }[];  // empty when the core accepts the settings
  parameters: number;
  trainingBytes: number;
  pairs?: PairsReport;      // translation: how the core reads the pairs at the form's block_size
}

export interface CorpusState {
  ref: CorpusRef;
  stats: CorpusStats;
  preview: Uint8Array;          // the first bytes
  kind: CorpusKind;             // a text (language model) or source<TAB>target pairs (translation)
  pairs: PairsReport | null;    // pairs: how the core read them (at the block_size of the time)
}
/** The model in the worker; replaced only when another one is created or loaded (its step is `step`). */
export interface ModelState { config: FullConfig; parameters: number }

/** An action a refused file offers besides Cancel (the corpus loader knows what it does); worded at render time. */
export interface ProblemAction { id: string; label: Msg }
/**
 * A refused file, worded at render time (a language switch rewords it): a title, the core's
 * verdict if it gave one (`core`: its text and the protocol object that carried it, for
 * coreInline), then the page's own words. `data` are the values in them that are data (a file's
 * name, a glimpse of its text): shown marked translate="no".
 */
export interface CorpusProblem {
  kind: string;
  title: Msg;
  core?: { text: string; from?: object };
  message: Msg | null;
  data: string[];
  actions: ProblemAction[];
}
/** What the corpus loader is doing ("Reading x.txt…"), worded at render time; `data` as in CorpusProblem. */
export interface CorpusBusy { say: Msg; data: string[] }

export type InspectSource = 'corpus' | 'prompt' | 'sample' | 'custom';

/** A source and a target, as text. */
export interface Pair { source: string; target: string }
/** What the attention maps of the translator show: a pair of the data, the last translation, or one typed. */
export type AlignSource = 'pair' | 'translation' | 'custom';

/**
 * A sentence the page shows, worded when it is drawn (a language switch rewords it; ui/note.ts
 * draws one): a catalogue message, or a message of the core or the worker (`core`: its English;
 * `from`: the protocol object carrying its code and args, i18n/core-messages.ts) between
 * catalogue words.
 */
export type Note = Msg | CoreNote;
export interface CoreNote { core: string; from?: object; before?: Msg; after?: Msg }

export interface TranslationState {
  id: number;
  source: string;
  beam: number;
  busy: boolean;
  result: TranslationMsg | null;
  note: Note | null;        // why it failed
}

export interface SampleState {
  id: number;
  prompt: Uint8Array;
  chunks: SampleChunk[];    // append-only while it streams
  generating: boolean;
  note: Note | null;        // why it ended early
}

export interface ResumeOffer { id: string; name: string; savedAt: number; step: number; steps: number; corpusName: string; model: string; config: ModelShape }

/** What describeModel (derive.ts) words: the model's shape, as a run record stored it. */
export type ModelShape = Partial<Pick<FullConfig, 'model' | 'n_layer' | 'n_enc_layer' | 'n_dec_layer' | 'd_ff' | 'n_head' | 'n_embd' | 'block_size'>>;

/** A run kept in this browser, as the "Your runs" list shows it. */
export interface RunSummary {
  id: string;
  name: string;
  savedAt: number;
  step: number;
  steps: number;
  corpusName: string;
  model: string;            // "2 layers × 2 heads, width 64, context 32", in the language of the last refresh (runs.ts refreshes at a switch)
  config: ModelShape;       // the shape it describes: word it at render time (describeModel)
  valLoss: number | null;
  bytes: number;            // checkpoint + stored text
  busy: boolean;            // another tab trains it
  current: boolean;         // this tab trains it
}

export interface StorageInfo { usage: number; quota: number; persisted: boolean | null }

export interface RunState {
  locale: Locale;                         // the page's language (i18n/index.ts; mirrored here so panels watch it)
  // the module
  ready: Ready | null;
  loadFailed: string | null;
  backend: BackendInfo | null;            // where the steps run: WebGPU or the wasm build (docs/webgpu.md)
  threadSetting: ThreadSetting;           // 'auto' (the core's thread tuner) or a fixed count
  threadsNow: number;                     // kernel threads of the latest slice
  threadsReason: string;                  // the tuner's last decision ('' when the count is fixed)
  threadsCoded: CoreCoded | null;         // its code (threads.*) and args, for the page's language
  tasks: TaskInfo[];                      // the core's built-in translation tasks (with 'ready')
  // what is trained: the config's `model` (the form's, or the live model's)
  mode: ModelKind;
  // the text
  corpus: CorpusState | null;
  pendingCorpus: CorpusState | null;      // sent to the worker, not yet accepted
  corpusBusy: CorpusBusy | null;
  corpusProblem: CorpusProblem | null;
  corpusOffset: number;                   // where "a slice of the corpus" starts
  // the settings form (built from the core's schema) and the core's verdict on it
  schema: FieldSpec[];                    // configSchema(), sent with 'ready'
  presets: Preset[];                      // presets(), the same as the CLI's --preset
  settings: FullConfig | null;            // null: a field is unusable, or no schema yet
  formSettings: FullConfig | null;        // rewrites the form when replaced (a preset, a model's or a checkpoint's settings)
  verdict: (Verdict & { id: number }) | null;
  validateId: number;
  presetVerdicts: Record<string, Verdict>;
  // the model and its training
  model: ModelState | null;
  step: number;                           // steps the model has trained (0 without one)
  creating: boolean;
  pendingStart: boolean;
  loading: null | { name: string; reason: 'file' | 'resume'; elapsedMs?: number };
  running: boolean;
  finished: boolean;
  lastLoss: number | null;
  valLoss: number | null;
  valStep: number | null;
  valExactMatch: number | null;           // seq2seq: held-out exact match of the last evaluation
  valCer: number | null;                  // seq2seq: its character error rate
  tokensPerSec: number;                   // moving average
  lr: number | null;
  gradNorm: number | null;
  elapsedMs: number;
  etaMs: number | null;                   // to the end of the schedule (the core's run loop estimates it)
  lastTick: number;
  memoryBytes: number | null;
  history: LossHistory;                   // append-only; `historyRev` announces growth
  historyRev: number;
  lossUnit: 'nats' | 'bits';              // the loss chart's unit (bits = nats / ln 2)
  // watch it learn (app/insight.ts; ui/learn/*)
  insight: Insight | null;                // the run's history of snapshots; `insightRev` announces growth
  insightRev: number;
  tree: TreeMsg | null;                   // step-through generation
  treeSelected: number;
  treeNote: string;
  compare: Record<string, RunCurvesMsg>;  // stored runs' curves loaded for "compare runs", by run id
  compareNote: string;
  guard: GuardState;                      // what the core's NaN guard undid (app/guard.ts)
  estimate: EstimateState | null;         // the pre-flight measurement of the settings on this text (app/estimate.ts writes it)
  replay: ReplayState | null;             // the page was opened with a run link (app/replay.ts writes it)
  shareUrl: ShareState | null;            // the last link made with Share
  // keeping it (app/runs.ts)
  download: boolean;
  runId: string | null;                   // the run this tab trains and saves
  lastSave: { at: number; step: number; bytes: number } | null;
  saveNote: Note | null;                  // shown when nothing is saved yet, or why saving failed
  runs: RunSummary[];
  storage: StorageInfo | null;
  resumeOffer: ResumeOffer | null;
  // sampling and looking inside
  sample: SampleState | null;
  samplePrompt: string;                   // the prompt box as typed (inspect's "the sampling prompt")
  inspectSource: InspectSource;
  inspectText: string;                    // "your own text"
  inspectLive: boolean;
  inspectVisible: boolean;
  inspectId: number;
  inspectInFlight: boolean;
  inspectLen: number | null;
  lastInspectAt: number;
  inspectNote: Note | null;
  inspection: InspectionMsg | null;
  tokenLosses: number[];
  // translating and its attention maps (seq2seq; the inspect* scheduling keys are shared)
  translation: TranslationState | null;
  alignSource: AlignSource;
  alignPair: Pair | null;                 // the pair of the data shown ("Another pair")
  alignCustom: Pair;
  alignVisible: boolean;
  alignment: TranslationInspectionMsg | null;
  // for the tests and the console
  timing: { readyMs: number; firstStepMs: number; moduleLoadMs: number; snapshotMs: number };  // snapshotMs: the history's snapshots so far (bench:page)
  counts: Record<string, number>;
  errors: string[];
}

export function initialState(): RunState {
  return {
    locale: locale.get(), ready: null, loadFailed: null, backend: null, threadSetting: 'auto', threadsNow: 0, threadsReason: '', threadsCoded: null, tasks: [], mode: 'gpt',
    corpus: null, pendingCorpus: null, corpusBusy: null, corpusProblem: null, corpusOffset: 0,
    schema: [], presets: [], settings: null, formSettings: null, verdict: null, validateId: 0, presetVerdicts: {},
    model: null, step: 0, creating: false, pendingStart: false, loading: null, running: false, finished: false,
    lastLoss: null, valLoss: null, valStep: null, valExactMatch: null, valCer: null, tokensPerSec: 0, lr: null, gradNorm: null, elapsedMs: 0, etaMs: null,
    lastTick: 0, memoryBytes: null, history: new LossHistory(), historyRev: 0,
    lossUnit: 'nats', insight: null, insightRev: 0, tree: null, treeSelected: 0, treeNote: '', compare: {}, compareNote: '',
    guard: initialGuard(), estimate: null, replay: null, shareUrl: null,
    download: false, runId: null, lastSave: null, saveNote: (m) => m.keep.nothingSaved, runs: [], storage: null, resumeOffer: null,
    sample: null, samplePrompt: '', inspectSource: 'corpus', inspectText: '', inspectLive: true, inspectVisible: false,
    inspectId: 0, inspectInFlight: false, inspectLen: null, lastInspectAt: 0, inspectNote: null, inspection: null, tokenLosses: [],
    translation: null, alignSource: 'pair', alignPair: null, alignCustom: { source: '', target: '' }, alignVisible: false, alignment: null,
    timing: { readyMs: 0, firstStepMs: 0, moduleLoadMs: 0, snapshotMs: 0 }, counts: {}, errors: [],
  };
}

export type PageStore = MapStore<RunState>;
export type Key = keyof RunState;

export function createPageStore(init: RunState = initialState()): PageStore {
  return map<RunState>(init);
}

/** Changes several keys with one notification (listeners of unchanged keys are not called). */
export function patch(store: PageStore, changes: Partial<RunState>): void {
  store.set({ ...store.get(), ...changes });
}

/** Calls fn(state) now and whenever one of `keys` changes. */
export function watch(store: PageStore, keys: Key[], fn: (s: RunState) => void): () => void {
  const off = listenKeys(store, keys, (s) => fn(s));
  fn(store.get());
  return off;
}
