// protocol.ts — every message between the page and the training worker.
//
// Why a hand-written discriminated union and not Comlink: the worker is not a request/response
// service. Once started it *pushes* a stream of events (progress after every slice, periodic
// validation results, streamed sample chunks, autosave checkpoints) and it must stay responsive
// to commands (pause, generate, inspect) between training slices. A union of plain messages
// keeps that event stream explicit, lets TypeScript check both ends with one `switch`, and lets us
// list exactly which ArrayBuffers are transferred (never copied) for each message — see
// `transferables()` below. Comlink would need proxied callbacks for every stream and would hide
// the transfer lists.
import type {
  FieldSpec, FullConfig, PairsReport, PreflightResult, Preset, ReplayCheck, SampleOptions, SessionConfig, ShareLink, Sniffed,
  TaskInfo, TranslateOptions, LearnEdits, LearnTrace,
} from '../../wasm/tinygpt';

export type {
  FieldSpec, FullConfig, PairsReport, PreflightResult, Preset, ReplayCheck, SampleOptions, SessionConfig, ShareLink, Sniffed,
  TaskInfo, TranslateOptions, LearnEdits, LearnTrace,
};

/** The model kinds of the config schema (`model`): a language model, or the encoder-decoder that translates. */
export type ModelKind = 'gpt' | 'seq2seq';
/** What a corpus is: a text (the language model's) or source<TAB>target pairs (the translator's). */
export type CorpusKind = 'text' | 'pairs';

/** The three builds of the core (build/wasm-dist/tinygpt-<variant>.js). */
export type Variant = 'threads' | 'simd' | 'scalar';
export type ThreadSetting = 'auto' | number;

export interface LossHistory {
  train: Float32Array;     // one loss per step (step i+1 has train[i])
  valSteps: Float64Array;  // steps at which validation ran
  valLosses: Float32Array;
  valExactMatch?: Float32Array;  // seq2seq: held-out exact match at each validation (NaN for gpt)
  valCer?: Float32Array;         // seq2seq: character error rate
}

// ---------------------------------------------------------------- page → worker

export type ToWorker =
  /**
   * Load the wasm module. `wasmBase` is the absolute URL of the folder with tinygpt-*.js. `backend`:
   * train on WebGPU when the worker finds an adapter (and the model fits it), or on the wasm build
   * only; `backendForced`: ?backend= asked for it (a missing WebGPU is then worth a message).
   */
  /** Threads of the threads build: 'auto' (up to all cores, tuned by the core from its step times) or a fixed count. */
  | { type: 'threads'; setting: ThreadSetting }
  | { type: 'init'; wasmBase: string; variant?: Variant; maxThreads?: number; threads?: ThreadSetting; backend?: 'webgpu' | 'wasm'; backendForced?: boolean }
  /** Check a configuration with the core's own rules and estimate its size (no allocation). */
  | { type: 'validate'; id: number; config: SessionConfig }
  /**
   * Give the worker the corpus (transferred). Replaces the current one, also in a live model.
   * Pairs are checked with the core's TSV reader at `blockSize` (the form's) when no translation model exists.
   */
  | { type: 'setCorpus'; bytes: ArrayBuffer; name: string; kind?: CorpusKind; blockSize?: number }
  /** Create a fresh model (GPT-2 init from config.seed) and AdamW state; the corpus is kept. */
  | { type: 'create'; config: SessionConfig; history?: boolean }  // history (default true): the run keeps snapshots for the 'watch it learn' views
  /** Train in slices (the core's run loop) until paused, or until `stopAt` steps (-1: until paused). */
  | { type: 'start'; stopAt: number }
  /** Change a field of a live run: eval_interval, eval_iters, or max_iters (extends the schedule). */
  | { type: 'update'; name: 'eval_interval' | 'eval_iters' | 'max_iters'; value: number }
  | { type: 'pause' }
  /** Drop the model (the corpus stays). */
  | { type: 'reset' }
  /** Validation loss now. */
  | { type: 'evaluate' }
  /** Stream `length` bytes after `prompt` (transferred) in chunks (sampleChunk messages). */
  | { type: 'generate'; id: number; prompt: ArrayBuffer; length: number; options: SampleOptions }
  | { type: 'stopGeneration'; id: number }
  /** Attention maps and next-byte distributions for a text (transferred) or a slice of the corpus. */
  | { type: 'inspect'; id: number; text: ArrayBuffer | null; corpusOffset?: number }
  /** A checkpoint of the current model (the native CLI's format). */
  | { type: 'save'; reason: CheckpointReason }
  /** Replace the model with a checkpoint's (transferred). On failure the current model is untouched. */
  | { type: 'load'; bytes: ArrayBuffer; reason: 'file' | 'resume'; name: string }
  /** Start a new run from a .safetensors model file (transferred): its weights and config, step 0; the corpus is kept. */
  | { type: 'loadSafetensors'; bytes: ArrayBuffer; name: string }
  /** "What is this file?" (the core's sniffer) for the first bytes of a file (transferred). */
  | { type: 'sniff'; id: number; head: ArrayBuffer; size: number; name: string }
  /** Step-through generation: a new branch tree from a prompt (transferred), top-k candidates per node. */
  | { type: 'treeStart'; id: number; prompt: ArrayBuffer; topK: number }
  /** Grows node `node` of tree `id` by `token` (the existing child when there is one). */
  | { type: 'treeExtend'; id: number; node: number; token: number }
  /** The loss curves and config of a stored run's checkpoint (transferred), for "compare runs". */
  | { type: 'runCurves'; id: string; bytes: ArrayBuffer }
  /** A built-in translation task's pairs (TSV bytes, generated by the core): answered with 'task'. */
  | { type: 'builtinTask'; id: number; name: string; seed: number }
  /** Translate a source (transferred) with the seq2seq model: answered with 'translation'. */
  | { type: 'translate'; id: number; source: ArrayBuffer; options: TranslateOptions }
  /** The seq2seq model reading a source and a target (transferred): its attention maps ('translationInspection'). */
  | { type: 'inspectTranslation'; id: number; source: ArrayBuffer; target: ArrayBuffer }
  /** Test hook (the e2e test of the NaN guard): the next `steps` steps get a NaN gradient. */
  | { type: 'injectNan'; steps: number }
  /** Pre-flight: time a few real steps of `config` on the current text with a throw-away trainer (about budgetMs). */
  | { type: 'measure'; id: number; config: SessionConfig; budgetMs: number }
  /** A link to the current run (its settings, text and first losses), made from the page's address `base`. */
  | { type: 'share'; id: number; base: string; corpus: ShareLink['corpus'] }
  /** Parse a run link (the page was opened with one). */
  | { type: 'openLink'; id: number; url: string }
  /** Compare the current run's first losses with this link's after every slice (null: stop comparing). */
  | { type: 'replay'; link: ShareLink | null }
  /** Learn by hand: one traced training step of the walkthrough's tiny model (the module's learnTrace). */
  | { type: 'walk'; id: number; model: 'walkthrough' | 'two-heads'; edits: LearnEdits };

export type CheckpointReason = 'autosave' | 'download';

// ---------------------------------------------------------------- worker → page

export interface Ready {
  type: 'ready';
  variant: Variant;
  backend: string;          // the SIMD backend compiled in: 'simd128' or 'scalar'
  threads: number;          // threads the kernels use
  maxThreads: number;       // the most the page offers: min(cores, the module's pool)
  threadSetting?: ThreadSetting;  // what init asked for (default 'auto')
  crossOriginIsolated: boolean;
  loadMs: number;           // time to fetch + compile + instantiate the module
  fallbackReason?: string;  // why a faster variant was not used
  fallbackCoded?: CoreCoded;  // fallbackReason's code (variant.*) and args: coreNode(r.fallbackReason, r.fallbackCoded)
  schema: FieldSpec[];      // the config schema: the page builds its knobs from it
  presets: Preset[];        // the same presets as the CLI's --preset
  tasks: TaskInfo[];        // the built-in translation tasks
  buildVariant?: string;    // the core's build variant ("wasm-simd128"): runs are bit-identical within one
}

export interface ModelInfo {
  type: 'model';
  reason: 'create' | 'load' | 'resume';
  name?: string;            // file name of a loaded checkpoint
  config: FullConfig;
  parameters: number;
  step: number;
  history: LossHistory;
  corpusMatches: boolean;   // false when a checkpoint was trained on another corpus
  memoryBytes: number;
  hasCorpus: boolean;       // the worker's corpus went with the model (false: a checkpoint of the other kind)
}

/** A diverged step the core's NaN guard undid (tinygpt::train::Rollback). */
export interface RollbackInfo {
  failedStep: number;       // steps done when the step diverged: the step itself is failedStep + 1
  restoredStep: number;     // the run went back to this step (later losses are dropped)
  lrScale: number;          // the learning rate is now the schedule's times this
  message: string;          // the core's sentence: "training diverged at step N: the loss is nan"
  code?: string;            // message's code (train.diverged_*) and args
  args?: Record<string, string | number>;
}

/** One slice of the core's run loop (Session.advance). Its evaluations follow as evalResult messages. */
export interface Progress {
  type: 'progress';
  step: number;             // steps done after this slice
  losses: Float32Array;     // one per step of the slice: steps step - losses.length + 1 .. step
  // the NaN guard (optional: a slice without rollbacks may leave them out)
  firstStep?: number;       // steps done before the slice (after a rollback: the step it went back to)
  rollbacks?: RollbackInfo[];  // diverged steps the guard undid during the slice, in order
  pausedBecause?: string;   // the core's reason when the guard paused the run (three rollbacks in a row), else ''
  threadsCoded?: CoreCoded; // threadsReason's code (threads.*) and args: coreText(p.threadsReason, p.threadsCoded)
  pausedCoded?: CoreCoded;  // pausedBecause's code (train.paused) and args: coreNode(p.pausedBecause, p.pausedCoded)
  tokensPerSec: number;     // the core's own timing of the slice (training time only)
  lr: number;               // learning rate of the next step
  gradNorm: number;
  etaSeconds: number;       // to the stop, evaluations included (-1: no stop or not measured yet)
  memoryBytes: number;
  threads?: number;         // kernel threads the next step runs with
  threadsReason?: string;   // the core's thread tuner: what it chose and why ('' when the count is fixed)
}

export interface SampleChunk {
  type: 'sampleChunk';
  id: number;
  bytes: Uint8Array;
  probs: Float32Array;      // p(byte) under the model (temperature 1)
  topBytes: Uint8Array;     // (n, 5)
  topProbs: Float32Array;   // (n, 5)
  done: boolean;
  step: number;             // the model step that generated it
}

export interface InspectionMsg {
  type: 'inspection';
  id: number;
  step: number;
  bytes: Uint8Array;        // the T bytes inspected (the last `context` bytes of the text)
  T: number;
  L: number;
  NH: number;
  attention: Float32Array;  // (L, NH, T, T): rows sum to 1, zero above the diagonal
  probs: Float32Array;      // (T, 256): p(next byte | bytes 0..t)
}

/**
 * Where the steps run: after `ready` (the page's choice), after every model created or loaded (that
 * model's), and when WebGPU gives up. The wasm Session is the host either way (docs/webgpu.md).
 */
export interface BackendInfo {
  type: 'backend';
  backend: 'webgpu' | 'wasm';
  adapter: string;          // the WebGPU adapter ('' if none was found)
  reason: string;           // why not WebGPU ('' on WebGPU): no adapter, ?backend=wasm, a seq2seq model, a failure
  forced: boolean;          // ?backend= chose
  code?: string;            // reason's code (gpu.*) and args: coreNode(b.reason, b)
  args?: Record<string, string | number>;
  /** WebGPU just gave up on the current model: it continues on the CPU at `step`. */
  fallback?: {
    kind: string;           // GpuErrorKind: unavailable, limits, out-of-memory, pipeline, device-lost, internal
    message: string;
    code?: string;          // message's code (gpu.<kind>) and args: coreNode(f.message, f)
    args?: Record<string, string | number>;
    step: number;           // where the model is now
    lostSteps: number;      // steps the GPU had trained past the last state it brought back (trained again)
    history: LossHistory | null;  // the run's history after going back (null: nothing went back)
  };
}

/** A translation by the seq2seq model (Session.translate). */
export interface TranslationMsg {
  type: 'translation';
  id: number;
  step: number;             // the model step that translated
  source: Uint8Array;
  text: Uint8Array;         // UTF-8 bytes, without EOS
  probs: Float32Array;      // p of each output byte, then of EOS if finished
  logProb: number;
  finished: boolean;        // ended with EOS (false: stopped at the length limit)
  beam: number;
}

/** The seq2seq model reading a source and a target (Session.inspectTranslation). Tokens: bytes, 256 BOS, 257 EOS. */
export interface TranslationInspectionMsg {
  type: 'translationInspection';
  id: number;
  step: number;
  S: number; T: number; Le: number; Ld: number; NH: number;
  src: Int32Array;          // (S) source bytes
  tgtIn: Int32Array;        // (T) BOS then the target bytes
  encSelf: Float32Array;    // (Le, NH, S, S)
  decSelf: Float32Array;    // (Ld, NH, T, T), causal
  cross: Float32Array;      // (Ld, NH, T, S): target rows x source columns
  probs: Float32Array;      // (T, 259): p(next token | source, target so far)
}

/** Entropy baselines of the training data (watch.h), nats and bits per byte. */
export interface Baselines {
  unigram: number; bigram: number; uniform: number;
  unigramBits: number; bigramBits: number; uniformBits: number;
  distinct: number; tokens: number;
}

/** The run's history of snapshots (wasm watchHistory): the whole of it (`reset`) or the snapshots after the last message. */
export interface InsightMsg {
  type: 'insight';
  reset: boolean;
  enabled: boolean;
  kind: 'gpt' | 'seq2seq';
  L: number; NH: number; T: number; N: number; P: number;
  Le: number; S: number;    // seq2seq: encoder layers, source length of the probe pair
  attentionBytes: number;   // A: per snapshot
  probe: Uint8Array;        // (T) gpt probe text; seq2seq: the probe's target (T - 1)
  probeSource: Uint8Array;  // (S) seq2seq: the probe's source
  /** Every mapped byte's nearest (cosine, full embedding space) at the weights of `step` (wasm watchNeighbours). */
  neighbours: { k: number; step: number; index: Int32Array; similarity: Float32Array };
  bytes: Uint8Array;        // (N) byte values on the embedding map
  baselines: Baselines;
  total: number;            // snapshots kept in the core (after this message)
  sizeBytes: number;
  steps: Float64Array;      // (K) these snapshots' steps
  attention: Uint8Array;    // (K, A) quantised: q = round(255 sqrt(p)), causal rows packed
  embedding: Float32Array;  // (K, N, 2)
  probeLoss: Float32Array;  // (K, T) nats; NaN at t = 0
  positionLoss: Float32Array; // (K, P) nats
}

/** A node of the step-through generation tree (wasm GenerationTree.node). */
export interface TreeNode {
  id: number;
  parent: number;
  token: number;            // the byte this node appends (-1: the prompt)
  prob: number;             // p(token | parent's text)
  depth: number;
  topTokens: Int32Array;    // (k) likeliest next bytes
  topProbs: Float32Array;   // (k)
  children: Int32Array;
}

export interface TreeMsg {
  type: 'tree';
  id: number;
  step: number;             // the model step the tree was grown at
  prompt: Uint8Array;
  nodes: TreeNode[];
  selected: number;         // the node just grown (0 after treeStart)
  positionsComputed: number;  // positions the model computed: how much the KV caches saved
}

export interface RunCurvesMsg {
  type: 'runCurves';
  id: string;
  config: FullConfig;
  step: number;
  train: Float32Array;
  valSteps: Float64Array;
  valLosses: Float32Array;
}

export type FromWorker =
  | Ready
  | BackendInfo
  | {
    type: 'validation'; id: number; problems: ({ field: string; message: string } & CoreCoded)[]; parameters: number; trainingBytes: number;
    pairs?: PairsReport;    // seq2seq with pairs: how the core reads them at this block_size
  }
  | { type: 'corpus'; name: string; size: number; pairs?: PairsReport }
  | ModelInfo
  | { type: 'reset' }
  | { type: 'state'; running: boolean; reason: 'started' | 'paused' | 'finished' | 'error'; step: number }
  | Progress
  | { type: 'evalResult'; step: number; loss: number; exactMatch?: number; cer?: number; snapshotMs?: number }  // snapshotMs: of the evaluation, the history's snapshot
  | SampleChunk
  | InspectionMsg
  | { type: 'checkpoint'; reason: CheckpointReason; step: number; bytes: ArrayBuffer }
  | { type: 'sniffed'; id: number; result: Sniffed }
  | InsightMsg
  | TreeMsg
  | RunCurvesMsg
  | { type: 'task'; id: number; name: string; bytes: Uint8Array }
  | TranslationMsg
  | TranslationInspectionMsg
  /** The pre-flight measurement, or why there is none. */
  | ({ type: 'measured'; id: number; result: PreflightResult | null; error: string } & CoreCoded)
  | ({ type: 'shared'; id: number; url: string; error: string } & CoreCoded)
  | ({ type: 'link'; id: number; link: ShareLink | null; error: string; variant: string } & CoreCoded)
  /** The replay compared with its link: sent when it is decided (matches or diverged). */
  | { type: 'replayCheck'; check: ReplayCheck; variant: string }
  /** The answer to 'walk': the trace, or the core's message for a refused edit (nothing else changes). */
  | ({ type: 'walkTrace'; id: number; trace: LearnTrace | null; error: string | null } & CoreCoded)
  /** code/args (when the core or the worker coded it) word `message`: coreNode(m.message, m). */
  | ({ type: 'error'; message: string; recoverable: boolean; during: ToWorker['type'] | 'train' } & CoreCoded);

export type ToWorkerType = ToWorker['type'];
export type FromWorkerType = FromWorker['type'];
export type MessageOf<U extends { type: string }, T extends U['type']> = Extract<U, { type: T }>;

// ---- coded messages ---------------------------------------------------------------------
/**
 * A message's stable code and parameters next to its English text on the same object: the core's
 * (core error.h, wasm messageCodes()) or the worker's own (WORKER_MESSAGE_CODES). The page words it
 * from the catalogue (web/src/i18n/core-messages.ts: coreNode(text, object)); without a code it
 * shows the English.
 */
export interface CoreCoded {
  code?: string;
  args?: Record<string, string | number>;
}

/** The codes of the worker's own messages (beside the core's): each has a wording in errors.core. */
export const WORKER_MESSAGE_CODES = [
  'worker.loading', 'worker.no_model', 'worker.no_corpus', 'worker.no_pairs', 'worker.choose_text', 'worker.tree_gone',
  'worker.tree_stale', 'worker.inspect_empty',
  'variant.requested', 'variant.not_isolated', 'variant.no_threads', 'variant.no_simd', 'variant.threads_need_isolation',
  'variant.load_failed',
  'gpu.off_requested', 'gpu.not_available', 'gpu.no_adapter', 'gpu.no_device', 'gpu.device_lost', 'gpu.seq2seq',
  'gpu.limits', 'gpu.out-of-memory', 'gpu.pipeline', 'gpu.internal', 'gpu.unavailable', 'gpu.device-lost',
  'gpu.generate_lost',
] as const;
export type WorkerMessageCode = (typeof WORKER_MESSAGE_CODES)[number];

/** An Error whose message the page can word: code + args beside the English (as the wasm module's). */
export function codedError(code: WorkerMessageCode, message: string, args: Record<string, string | number> = {}): Error {
  return Object.assign(new Error(message), { code, args });
}

/** The code and args an error carries (a wasm Error or codedError), as fields to spread into a message; {} if none. */
export function codedOf(e: unknown): CoreCoded {
  const c = (typeof e === 'object' && e !== null ? e : {}) as CoreCoded;
  return typeof c.code === 'string' && c.code !== '' ? { code: c.code, args: c.args ?? {} } : {};
}

/** The ArrayBuffers a message hands over (transferred, not copied). */
export function transferables(msg: ToWorker | FromWorker): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  const add = (x: ArrayBuffer | ArrayBufferView | null | undefined) => {
    if (!x) return;
    const buf = ArrayBuffer.isView(x) ? x.buffer : x;
    // a SharedArrayBuffer can't be transferred, and one buffer may not be listed twice
    if (buf instanceof ArrayBuffer && !out.includes(buf)) out.push(buf);
  };
  switch (msg.type) {
    case 'setCorpus':
    case 'load':
    case 'loadSafetensors':
    case 'checkpoint':
      add(msg.bytes);
      break;
    case 'generate':
    case 'treeStart':
      add(msg.prompt);
      break;
    case 'runCurves':
      if ('bytes' in msg) add(msg.bytes);
      else {
        add(msg.train);
        add(msg.valSteps);
        add(msg.valLosses);
      }
      break;
    case 'insight':
      add(msg.steps);
      add(msg.attention);
      add(msg.embedding);
      add(msg.probeLoss);
      add(msg.positionLoss);
      add(msg.neighbours.index);
      add(msg.neighbours.similarity);
      break;
    case 'sniff':
      add(msg.head);
      break;
    case 'inspect':
      add(msg.text);
      break;
    case 'translate':
      add(msg.source);
      break;
    case 'inspectTranslation':
      add(msg.source);
      add(msg.target);
      break;
    case 'task':
      add(msg.bytes);
      break;
    case 'translation':
      add(msg.source);
      add(msg.text);
      add(msg.probs);
      break;
    case 'translationInspection':
      add(msg.src);
      add(msg.tgtIn);
      add(msg.encSelf);
      add(msg.decSelf);
      add(msg.cross);
      add(msg.probs);
      break;
    case 'model':
      add(msg.history.train);
      add(msg.history.valSteps);
      add(msg.history.valLosses);
      add(msg.history.valExactMatch);
      add(msg.history.valCer);
      break;
    case 'backend':
      add(msg.fallback?.history?.train);
      add(msg.fallback?.history?.valSteps);
      add(msg.fallback?.history?.valLosses);
      add(msg.fallback?.history?.valExactMatch);
      add(msg.fallback?.history?.valCer);
      break;
    case 'progress':
      add(msg.losses);
      break;
    case 'sampleChunk':
      add(msg.bytes);
      add(msg.probs);
      add(msg.topBytes);
      add(msg.topProbs);
      break;
    case 'walkTrace':
      for (const e of msg.trace?.entries ?? []) add(e.values);
      break;
    case 'inspection':
      add(msg.bytes);
      add(msg.attention);
      add(msg.probs);
      break;
    default:
      break;
  }
  return out;
}

/** Minimal shape of a Worker / DedicatedWorkerGlobalScope for posting. */
export interface PostTarget {
  postMessage(message: unknown, transfer: Transferable[]): void;
}

/** Posts a message, transferring its buffers. */
export function post<M extends ToWorker | FromWorker>(target: PostTarget, msg: M): void {
  target.postMessage(msg, transferables(msg));
}

const toWorkerTypes: ReadonlySet<string> = new Set<ToWorkerType>([
  'init', 'validate', 'setCorpus', 'create', 'start', 'update', 'pause', 'reset', 'evaluate', 'generate',
  'stopGeneration', 'inspect', 'save', 'load', 'loadSafetensors', 'sniff', 'threads', 'treeStart', 'treeExtend', 'runCurves', 'builtinTask', 'translate', 'inspectTranslation', 'injectNan', 'measure', 'share', 'openLink', 'replay', 'walk',
]);

/** Guards the worker against anything that is not one of our messages. */
export function isToWorker(x: unknown): x is ToWorker {
  return typeof x === 'object' && x !== null && typeof (x as { type?: unknown }).type === 'string' &&
    toWorkerTypes.has((x as { type: string }).type);
}
