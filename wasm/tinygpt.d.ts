// Types of the WebAssembly module built from wasm/*.cpp (build/wasm-dist/tinygpt-<variant>.js).
// Every call is documented in wasm/README.md.

/**
 * A run's configuration, keyed by the names of the one config schema (core/include/tinygpt/config.h;
 * the same names as the CLI's flags). Every field is optional; missing fields take the schema's
 * defaults (preset S). `configSchema()` describes every field; `presets()` gives whole configs.
 */
/** The thread pool's counters (tinygpt::PoolStats): times in ms since setPoolProfiling(true). */
export interface PoolStats {
  threads: number;
  wallMs: number;
  /** The caller's time inside split jobs; the rest of wallMs ran on one thread. */
  parallelMs: number;
  /** Part of parallelMs: the caller out of chunks, waiting for the other threads'. */
  barrierMs: number;
  /** Summed over workers' first claims of a job: publish to claim. */
  wakeMs: number;
  /** Time inside tasks, per thread (0: the caller). */
  busyMs: number[];
  jobs: number;
  inlineJobs: number;
  chunks: number;
  joined: number;
  sleeps: number;
}

export interface KernelTiming { name: string; calls: number; ms: number }

export interface SessionConfig {
  model?: ModelKind;       // a language model (gpt, rnn, gru, lstm), or an encoder-decoder that translates (seq2seq, lstm_seq2seq)
  n_layer?: number;        // 4   (gpt; rnn, gru, lstm: recurrent layers)
  n_enc_layer?: number;    // 2   (seq2seq, lstm_seq2seq) encoder layers
  n_dec_layer?: number;    // 2   (seq2seq, lstm_seq2seq) decoder layers
  d_ff?: number;           // 256 (seq2seq) feed-forward width
  n_head?: number;         // 4   (n_embd must be divisible by n_head)
  tie_weights?: number;    // 0   (gpt) 1: the GPT-2 layout: the head is wte, no head bias (exports as a Hugging Face GPT-2 folder)
  n_embd?: number;         // 128
  n_hidden?: number;       // 256 (rnn, gru, lstm, lstm_seq2seq) hidden units per recurrent layer
  block_size?: number;     // 64  context length (tokens)
  tokenizer?: TokenizerKind; // 'bytes': every byte a token; 'bpe': a BPE vocabulary of vocab_size tokens (Session.setTokenizer)
  vocab_size?: number;     // 256 (bytes); 257..65536 with tokenizer 'bpe'
  seed?: number;           // 1337 initialisation and data order
  batch_size?: number;     // 12
  learning_rate?: number;  // 1e-3 peak learning rate
  min_lr?: number;         // 1e-4 floor of the cosine decay
  warmup_iters?: number;   // 100 linear warmup steps
  max_iters?: number;      // 2000 length of the schedule
  weight_decay?: number;   // 0.1
  beta1?: number;          // 0.9
  beta2?: number;          // 0.99
  eps?: number;            // 1e-8
  grad_clip?: number;      // 1.0 (0 = off)
  stateful?: number;       // 0 (rnn, gru, lstm) 1: each window continues the last, from its hidden state
  eval_interval?: number;  // 100 steps between validation losses (0 = only when asked)
  eval_iters?: number;     // 20 validation batches per evaluation
  memory_limit_mb?: number; // 2048: larger configurations are refused before allocating (not a config field)
}

export type FullConfig = Required<Omit<SessionConfig, 'memory_limit_mb'>>;

/** How a text becomes tokens (core/include/tinygpt/config.h TokenizerKind). */
export type TokenizerKind = 'bytes' | 'bpe';

/** The config's model kinds (core/include/tinygpt/config.h ModelKind). */
export type ModelKind = 'gpt' | 'seq2seq' | 'rnn' | 'gru' | 'lstm' | 'lstm_seq2seq';

/** One row of the config schema. */
export interface FieldSpec {
  name: keyof FullConfig;
  type: 'integer' | 'real' | 'choice';
  default: number | string;
  min: number; max: number; minOpen: boolean; maxOpen: boolean;
  range: string;           // "[1, 96]", "(0, 1]"
  kinds: string[];         // model kinds that read the field
  group: 'model' | 'training' | 'run';  // model: fixed at creation; training: optimizer and schedule; run: any time
  label: string;
  help: string;
  choices: string[];       // choice fields only
}

export interface Preset { name: string; label: string; blurb: string; config: FullConfig }

/**
 * A coded message (core error.h): a stable code (one of messageCodes()) and its parameters, next
 * to the English text on the same object. The page words it (web/src/i18n/core-messages.ts).
 * An Error thrown by the module carries them too (`e.code`, `e.args`) when the core coded it.
 */
export interface CoreCoded {
  code?: string;
  args?: Record<string, string | number>;
}

/**
 * A coded sentence, the one shape every call returns one in: the English text as `message`, its
 * code and args beside it (as on an Error the module throws: e.message, e.code, e.args).
 */
export interface Coded {
  message: string;
  code?: string;
  args?: Record<string, string | number>;
}

export interface ConfigCheck {
  problems: ({ field: string } & Coded)[];  // empty when the config is valid
  parameters: number;      // 0 if invalid
  trainingBytes: number;
}

export interface CheckpointSummary {
  version: number;
  config: FullConfig;
  step: number;
  corpusFingerprint: string;  // FNV-1a 64, 16 hex digits
  corpusSize: number;
  parameters: number;
  historySnapshots: number;   // snapshots in the run's history (0: none kept)
  tokenizerFingerprint: string;  // a BPE run's tokenizer (16 hex digits), '' for bytes
  tokensPerByte: number;      // of the validation text (0: not kept)
}

/** The sniffer's verdict on a file (core/include/tinygpt/sniff.h). */
export interface Sniffed extends Coded {
  kind: 'empty' | 'checkpoint' | 'not_checkpoint' | 'utf8_text' | 'tsv_pairs' | 'latin1_text' | 'utf16_text' | 'binary';
  encoding: '' | 'utf-8' | 'windows-1252' | 'iso-8859-1' | 'utf-16le' | 'utf-16be';
  message: string;        // for the person who chose the file
  code?: string;          // message's code ("sniff.utf8_text", ...) and args ({name, ...})
  args?: Record<string, string>;
  bytesLookedAt: number;
  invalidUtf8: number;
  nulBytes: number;
  controlBytes: number;
  highBytes: number;
  tsvLines: number;       // lines "source<TAB>target"
  lines: number;          // non-empty lines
  badLines: number;       // tsv_pairs: the non-empty lines that are not "source<TAB>target" (code sniff.tsv_pairs_bad)
  badLineNumbers: number[];  // the first few of them (1-based)
  distinctBytes: number;  // distinct byte values in the bytes looked at
  entropyBits: number;    // entropy of their histogram, bits per byte (0 .. 8)
  lowVariety: boolean;    // fewer than 2 distinct bytes or very low entropy (utf8_text: code sniff.low_entropy)
}

export interface SampleOptions {
  temperature?: number;   // 1.0; 0 = always the most likely byte
  topK?: number;          // 0 = off
  topP?: number;          // 1.0 = off
  seed?: number;          // 0
  windowKeep?: number;    // 0 = context / 2 (default: rebuild the cache every half window); context = exact sliding window
}

/** A diverged step the NaN guard undid: the run went back to restoredStep at lrScale x the learning rate. */
export interface Rollback extends Coded {
  failedStep: number;      // steps done when the step diverged (the step itself is failedStep + 1)
  restoredStep: number;    // the run went back to this step (later losses are dropped)
  lrScale: number;         // the learning rate is now the schedule's times this
  // message: "training diverged at step N: the loss is nan" (code train.diverged_*)
}

/** What one call of advance() did (tinygpt::Run::advance). */
export interface Slice {
  firstStep: number;       // steps done before the slice
  step: number;            // steps done after it
  losses: Float32Array;    // one per step, measured before the update
  /** Validation taken during the slice; seq2seq also held-out exact match and CER (NaN for gpt). */
  evals: { step: number; loss: number; exactMatch: number; cer: number; ms: number; snapshotMs: number }[];  // snapshotMs: of ms, the history's snapshot
  trainMs: number;         // time spent in training steps
  tokensPerSec: number;    // the slice's training throughput
  lr: number;              // learning rate of the next step
  gradNorm: number;        // global gradient norm of the last step, before clipping
  finished: boolean;       // the run reached its stop
  etaSeconds: number;      // to the stop at the current pace (-1: no stop, or not yet measured)
  rollbacks: Rollback[];   // diverged steps the NaN guard undid, in order
  paused: Coded | null;    // why the run paused (three rollbacks in a row: train.paused; its data could not be read: corpus.file_*); null if it did not
  threads: number;         // kernel threads the next step runs with
  threadsReason: Coded | null;  // the thread tuner's last decision (threads.*); null unless tuneThreads is on
}

/** n generated tokens (a byte model's: bytes; a BPE model's: its tokenizer's ids). */
export interface Generated {
  tokens: Int32Array;     // (n) generated tokens
  bytes: Uint8Array;      // their bytes, one token after the other (a byte model: bytes[i] is token i)
  ends: Uint32Array;      // (n) where each token's bytes end in `bytes`
  probs: Float32Array;    // (n) the model's probability of each token (temperature 1)
  topTokens: Int32Array;  // (n, 5) the five most likely tokens at each step
  topProbs: Float32Array; // (n, 5) their probabilities
}

export interface Inspection {
  T: number; L: number; NH: number;
  V: number;               // the vocabulary (256 for bytes)
  tokens: Int32Array;      // (T) the context's tokens: the text's last T (a byte model's: bytes)
  labels: string[];        // (T) their texts (Tokenizer.tokenText)
  attention: Float32Array; // (L, NH, T, T): rows sum to 1, zero above the diagonal
  probs: Float32Array;     // (T, V): p(next token | tokens 0..t)
}

export interface History {
  train: Float32Array;     // one loss per step
  valSteps: Float64Array;  // steps at which validation ran
  valLosses: Float32Array;
  valExactMatch: Float32Array;  // seq2seq: held-out exact match at each validation (NaN for gpt)
  valCer: Float32Array;         // seq2seq: character error rate
  valBitsPerByte: Float32Array; // each validation loss in bits per byte (loss x tokensPerByte / ln 2; NaN if not known)
  tokensPerByte: number;        // of the validation text (1 for bytes; 0: not known yet)
}

/** sample::BeamSearch driven from outside (wasm/webgpu.cpp): histories() to decode, advance() with their logits. */
export interface GpuBeam {
  source(block: number): { src: Int32Array; length: number };        // padded with PAD to block
  histories(block: number): { tokens: Int32Array; lengths: Int32Array }; // (rows, block) BOS first; lengths 0 = not live
  // for a KV cache: each row's newest token, the row it continues (parent), its position (step: 0 = BOS)
  next(): { tokens: Int32Array; parent: Int32Array; step: number };
  advance(logits: Float32Array): void;                                 // (rows, vocabSize)
  done(): boolean;
  rows(): number;
  vocabSize(): number;
  result(): Translation;
  delete(): void;
}

export interface TranslateOptions {
  beam?: number;           // 1 = greedy (or sampled with temperature > 0)
  temperature?: number;    // 0 = the most likely token
  topK?: number;           // 0 = all
  maxLen?: number;         // 0 = block_size - 1
  lengthPenalty?: number;  // beam ranking: log p / length^lengthPenalty
  seed?: number;
}

export interface Translation {
  text: Uint8Array;        // UTF-8 bytes, without EOS
  tokens: Int32Array;      // the output's tokens, without EOS (bytes, or BPE ids)
  probs: Float32Array;     // p of each output token (then of EOS if finished)
  logProb: number;
  score: number;
  finished: boolean;       // ended with EOS (false: stopped at maxLen)
}

/** The seq2seq model reading a source and a target. V = vocab_size + 3 (259 for bytes: 256 + BOS, EOS, PAD). */
export interface TranslationInspection {
  S: number; T: number; Le: number; Ld: number; NH: number;
  src: Int32Array;         // (S)
  tgtIn: Int32Array;       // (T): BOS then the target bytes
  encSelf: Float32Array;   // (Le, NH, S, S)
  decSelf: Float32Array;   // (Ld, NH, T, T), causal
  cross: Float32Array;     // (Ld, NH, T, S): target rows x source columns
  probs: Float32Array;     // (T, 259)
}

export interface TaskInfo { name: string; description: string; pairs: number; longest: number }

/** A TSV of pairs as a seq2seq session with some block_size reads it (pairsReport). */
export interface PairsReport {
  pairs: number;           // usable pairs
  trainPairs: number;
  valPairs: number;        // held out (10%)
  longestSource: number;   // bytes
  longestTarget: number;
  /** "3000 pairs from 3000 lines; skipped: 2 without a tab (lines 4, 9)", code pairs.report, args the counts (line numbers as "4, 9"). */
  report: Coded;
}

/**
 * A file read a window at a time (corpusFromReader, corpusFromShards): `read` fills `into` (a view
 * of wasm memory, n bytes) with the bytes at `at` and returns null, or returns why it could not.
 * It must not throw.
 */
export interface CorpusReader {
  name: string;
  size: number;
  read(at: number, n: number, into: Uint8Array): CorpusReadError | null;
}
export interface CorpusReadError { code: 'corpus.file_changed' | 'corpus.file_gone' | 'corpus.file_unreadable'; message: string }

export interface ShardEntry { name: string; split: 'train' | 'val'; version: number; tokens: number }

/** A corpus the module reads a window at a time (core/include/tinygpt/data.h): give it to sessions with useCorpus. */
export interface Corpus {
  size(): number;          // tokens (a text's bytes)
  trainSize(): number;     // tokens of the training split
  fingerprint(): string;   // 16 hex digits: FNV-1a 64 of the bytes up to 64 MiB, of a sample above (source.h)
  describe(): string;
  shards(): ShardEntry[];  // [] for a text
  delete(): void;          // frees the C++ object (sessions keep what they were given)
}

export interface Session {
  setCorpus(bytes: Uint8Array): void;
  /** The corpus to train on, shared with the Corpus object (nothing is copied). */
  useCorpus(corpus: Corpus): void;
  hasCorpus(): boolean;
  corpusSize(): number;
  corpusMatchesCheckpoint(): boolean;
  /** null, or what differs between the loaded checkpoint's corpus and this one (corpus.other_size / other_content). */
  corpusMismatch(): Coded | null;
  /** The run loop: at most maxSteps steps, returning after about budgetMs (0 = no time limit). */
  advance(maxSteps: number, budgetMs: number): Slice;
  stopAt(): number;                                   // -1 = no stop
  setStopAt(step: number): void;                      // -1 = train until paused
  tuneThreads(maxThreads: number): void;              // pick 1..maxThreads threads from step times; 0 = off
  updateField(name: 'eval_interval' | 'eval_iters' | 'max_iters', value: number): void;
  injectNanGradient(steps: number): void;             // test hook: NaN gradients for the next steps
  evaluate(): number;
  // options may be undefined (the defaults) but not left out: Embind counts the arguments
  generate(prompt: Uint8Array, n: number, options: SampleOptions | undefined): Generated;
  beginGeneration(prompt: Uint8Array, options: SampleOptions | undefined): void;
  generateNext(n: number): Generated;
  inspect(text: Uint8Array): Inspection;
  save(): Uint8Array;
  load(checkpoint: Uint8Array): void;
  config(): FullConfig;
  step(): number;
  learningRate(): number;
  numParameters(): number;
  history(): History;
  kind(): ModelKind;
  dataReport(): string;                               // seq2seq: pairs used and lines skipped, with line numbers
  translate(source: Uint8Array, options: TranslateOptions | undefined): Translation;  // seq2seq
  inspectTranslation(source: Uint8Array, target: Uint8Array): TranslationInspection; // seq2seq
  /** The run's tokenizer (tokenizer 'bpe'): give it before the corpus; a checkpoint brings its own. Throws tokenizer.config_mismatch for one that does not fit the config. */
  setTokenizer(tokenizer: Tokenizer): void;
  tokenizer(): Tokenizer | null;                      // the run's (shared; delete() the object), null for bytes
  tokensPerByte(): number;                            // of the validation text (1 for bytes; 0 before a corpus)
  tokenTexts(ids: Int32Array | number[]): string[];   // labels of tokens (bytes, BPE tokens, BOS/EOS/PAD)
  delete(): void;          // frees the C++ object
}

/** Loss of simple models of a text, in nats per byte (core/include/tinygpt/estimate.h). */
export interface TextEntropy {
  unigram: number;         // H(X): byte frequencies only
  bigram: number;          // H(X_t | X_t-1): the byte before predicts the next (a 256 x 256 table)
  bytes: number;           // bytes counted
}

/** A pre-flight measurement: real steps of a config timed on a throw-away trainer (tinygpt::preflight). */
export interface PreflightResult {
  stepsTimed: number;      // steps timed after the first one
  firstStepMs: number;     // the first step (it allocates the activations)
  msPerStep: number;
  tokensPerSec: number;
  tokensPerByte: number;   // of the text under the run's tokenizer (1 for bytes)
  bytesPerSec: number;     // tokensPerSec / tokensPerByte
  msPerEval: number;       // one validation loss (eval_iters batches)
  evaluations: number;     // validation losses the run takes (step 0, every eval_interval, the end)
  totalSeconds: number;    // max_iters steps and the evaluations at this pace
  memoryBytes: number;     // weights, gradients, AdamW moments, the good state, activations and the text
  estimatedBytes: number;  // the config's own estimate (checkConfig's trainingBytes)
  parameters: number;
  measuredMs: number;      // how long the measurement took
  entropy: TextEntropy;    // of the text (its first 64 MiB)
}

/** A run as a link (core/include/tinygpt/share.h): what `tinygpt train --from-link URL` replays too. */
export interface ShareLink {
  config: FullConfig;
  variant: string;         // the build variant that made it: "wasm-simd128", "native-avx2", ...
  corpus: {
    builtin: string;       // "tinyshakespeare.txt" for the built-in text, else ''
    fingerprint: string;   // a person's file: FNV-1a 64 of its bytes, 16 hex digits ('' for a built-in text)
    size: number;          // its size in bytes
    name: string;          // its name when shared (a hint)
  };
  losses: Float32Array;    // the run's first training losses (at most 50)
  tokenizer?: string;      // a BPE run's tokenizer fingerprint (16 hex digits); '' or absent for bytes
  tokensPerByte?: number;  // of its validation text (0 or absent: not given)
}

/** A replay compared with a link's losses, bit for bit (share::check_replay). */
export interface ReplayCheck extends Coded {
  status: 'pending' | 'matches' | 'diverged';
  compared: number;        // steps compared
  expected: number;        // steps the link holds
  divergedAt: number;      // first step (from 1) whose loss differs; 0 if none
  linkLoss: number;
  runLoss: number;
  linkBitsPerByte: number; // the two in bits per byte (x the link's tokensPerByte / ln 2); NaN without it
  runBitsPerByte: number;
  sameVariant: boolean;
  maxDifference: number;   // max |run - link| over the compared steps
  final: boolean;          // the verdict is the answer (share::Replay::final): report it, stop checking
  message: string;         // "matches the shared run at step 50: ..." / "differs from the shared run at step 7: ..."
}

/** One named number or tensor of the traced step (core/include/tinygpt/learn.h). */
export interface LearnEntry {
  name: string;                                        // "ln_1.mean", "d(qkv)", "m[wte]", ...
  phase: 'data' | 'forward' | 'backward' | 'update';
  node: string;                                        // the box of the step's graph: "embedding", "ln_1", "attention", ...
  shape: number[];
  values: Float32Array;                                // row-major; masked scores are -Infinity
  equation: string;                                    // plain text with Unicode symbols
  function: string;                                    // the core function, as docs/ names it: "nn::layernorm_lastdim"
  doc: string;                                         // docs/ page and section: "walkthrough.md#3-layernorm"
}

export interface LearnTrace {
  model: { name: 'walkthrough' | 'two-heads'; V: number; C: number; NH: number; T: number; tokens: Int32Array;
           params: { name: string; shape: number[]; decay: boolean }[] };
  loss: number;
  gradNorm: number;                                    // before clipping
  entries: LearnEntry[];                                // data, forward, backward (autograd's order), update
}

/** Edits applied to the named model before the step; every call starts from the model's own numbers. */
export interface LearnEdits {
  tokens?: number[];                                   // all T + 1 tokens
  weights?: { param: string; index: number; value: number }[];
}

// ---- the tokenizer (wasm/tokenizer.cpp, core/include/tinygpt/tokenizer.h; docs/tokenizer.md) ----

/** The merges in the order they were learned, as parallel arrays: merge r joins left[r] and right[r] into id[r]. */
export interface TokenizerMerges {
  left: Int32Array;
  right: Int32Array;
  id: Int32Array;
  count: Float64Array;  // how often the pair occurred in the training text when merged (0: a loaded vocabulary)
}
export interface SpecialToken { text: string; id: number }
export interface TokenizerStats { bytes: number; tokens: number }  // the training text under the vocabulary (0, 0 when loaded)
/** What trainTokenizer's progress callback is given; returning false from it stops training. */
export interface TokenizerTrainProgress { phase: 'counting' | 'merging'; done: number; total: number; pieces: number }
export interface EncodeProgress { done: number; total: number }  // bytes

/**
 * A byte-level BPE vocabulary. Text tokens have ids [0, vocabSize()): the 256 bytes, then one per
 * merge; the special tokens <|bos|>, <|eos|>, <|pad|>, <|endoftext|> follow (specials()).
 */
export interface Tokenizer {
  vocabSize(): number;
  idCount(): number;  // vocabSize() + the special tokens
  encode(bytes: Uint8Array): Int32Array;
  /** Throws (tokenizer.unknown_id) for an id outside [0, idCount()). */
  decode(ids: Int32Array | number[]): Uint8Array;
  /** A label: the token's text, control and invalid bytes escaped (\n, \xFF); a special token's name. */
  tokenText(id: number): string;
  /** tokenText of many ids. */
  tokenTexts(ids: Int32Array | number[]): string[];
  /** The tokenizer of the first r merges (a vocabulary learned here): how a text splits after r of them. Throws for GPT-2's numbering. */
  prefix(r: number): Tokenizer;
  tokenBytes(id: number): Uint8Array;
  merges(): TokenizerMerges;
  specials(): SpecialToken[];
  trainingStats(): TokenizerStats;
  /** Where the pre-tokenization rule cuts a text: [begin0, end0, begin1, end1, ...] byte offsets. */
  pieces(bytes: Uint8Array): Int32Array;
  /** Hugging Face's tokenizer.json. */
  toJson(): string;
  /** The compact form (for a checkpoint section); tokenizerFromBytes reads it. */
  serialize(): Uint8Array;
  fingerprint(): string;  // 16 hex digits
  delete(): void;
}

/** The formats of exportModel (core export.h): tinygpt's model file, ONNX, a Hugging Face GPT-2 folder, GGUF. */
export type ExportFormat = 'safetensors' | 'onnx' | 'hf' | 'gguf';
export interface ExportOptions {
  /** gguf: the matrices' type (default f32). */
  dtype?: 'f32' | 'f16' | 'q8_0';
}
/** One file of an export: its path inside the export ("model.onnx", "onnx/model.onnx") and its bytes. */
export interface ExportFile { path: string; bytes: Uint8Array }

export interface TinyGPTModule {
  Session: new (config: SessionConfig) => Session;
  /** The byte tokenizer: 256 tokens, no merges. */
  Tokenizer: new () => Tokenizer;
  /** Learns a vocabulary of vocabSize tokens (256..65,536) from the text; null when progress returned false. The caller deletes it. */
  trainTokenizer(text: Uint8Array, vocabSize: number, progress: ((p: TokenizerTrainProgress) => boolean | void) | null): Tokenizer | null;
  /** The same on a text read a window at a time (corpusFromReader); token shards are refused (tokenizer.not_text). */
  trainTokenizerOnCorpus(corpus: Corpus, vocabSize: number, progress: ((p: TokenizerTrainProgress) => boolean | void) | null): Tokenizer | null;
  /** A run's tokenizer: learned from the training split of the text only (all but its last tenth), as `tinygpt train --vocab_size N` learns it. */
  trainTokenizerForRun(corpus: Corpus, vocabSize: number, progress: ((p: TokenizerTrainProgress) => boolean | void) | null): Tokenizer | null;
  /** A ByteLevel BPE tokenizer.json (ours or GPT-2's); throws the core's coded message for a damaged or other one. */
  tokenizerFromJson(json: string): Tokenizer;
  /** GPT-2's vocab.json and merges.txt. */
  tokenizerFromGpt2(vocabJson: string, mergesTxt: string): Tokenizer;
  /** The compact form (Tokenizer.serialize). */
  tokenizerFromBytes(blob: Uint8Array): Tokenizer;
  /** A text corpus's BPE tokens, encoded once and kept in wasm memory (2 bytes a token); null when progress returned false. */
  tokenizeCorpus(corpus: Corpus, tokenizer: Tokenizer, progress: ((p: EncodeProgress) => boolean | void) | null): Corpus | null;
  backend(): 'simd128' | 'scalar' | string;
  memoryBytes(): number;
  maxThreads(): number;
  numThreads(): number;
  setThreads(n: number): void;
  /** Switches the thread pool's counters on (and resets them) or off; for benchmarks (each split job then reads the clock). */
  setPoolProfiling(on: boolean): void;
  /** The pool's counters since profiling was switched on (all zero in a build without threads). */
  poolStats(): PoolStats;
  /** Times every kernel call (wall clock) while on; for benchmarks. */
  setKernelProfiling(on: boolean): void;
  /** The kernels called since the last read, with their summed wall time; resets them. */
  kernelTimings(): KernelTiming[];
  checkConfig(config: SessionConfig): ConfigCheck;
  /** Every code the core's coded messages can carry (error.h message_codes()). */
  messageCodes(): string[];
  configSchema(): FieldSpec[];
  presets(): Preset[];
  describeCheckpoint(bytes: Uint8Array): CheckpointSummary;
  builtinTasks(): TaskInfo[];
  builtinTask(name: string, seed: number): Uint8Array;  // TSV bytes
  /** How a seq2seq session with this block_size reads a TSV of pairs; throws the core's message if no line is usable. */
  pairsReport(tsv: Uint8Array, blockSize: number): PairsReport;
  /** A new run from a .safetensors model file (tinygpt export): its weights and config, step 0. The caller deletes it. */
  sessionFromSafetensors(bytes: Uint8Array, options?: { memory_limit_mb?: number }): Session;
  /** "What is this file?" (core/include/tinygpt/sniff.h): give the first bytes (a few hundred KiB), the file's size and name. */
  sniff(head: Uint8Array, totalSize: number, name: string): Sniffed;
  /** A text read through `reader` a window at a time: the file never enters wasm memory. The caller deletes it. */
  corpusFromReader(reader: CorpusReader): Corpus;
  /** llm.c token shards (named *_train_*.bin and *_val_*.bin; others are left out); throws what is wrong with a bad or mixed one. */
  corpusFromShards(readers: CorpusReader[]): Corpus;
  /** Times a few real steps of `config` on (the first MiB of) `corpus` for about budgetMs, with a trainer thrown away afterwards. */
  /** tokenizer: a bpe config's (null: a stand-in learned from the text's first MiB). */
  preflight(config: SessionConfig, corpus: Uint8Array, budgetMs: number, tokenizer: Tokenizer | null): PreflightResult;
  /** The same on a corpus read a window at a time: none of it counts in memoryBytes; the entropies are of its first 4 MiB. */
  preflightCorpus(config: SessionConfig, corpus: Corpus, budgetMs: number, tokenizer: Tokenizer | null): PreflightResult;
  textEntropy(bytes: Uint8Array): TextEntropy;
  /** This build's variant: "wasm-simd128" or "wasm-scalar" (runs are bit-identical only within one). */
  buildVariant(): string;
  /** The URL of a link: base's address (its fragment dropped) + "#tinygpt=1&..." */
  makeShareLink(link: ShareLink, base: string): string;
  /** Parses a link (a URL, or its fragment); throws the core's message for a bad one. */
  parseShareLink(url: string): ShareLink;
  checkReplay(link: ShareLink, losses: Float32Array, variant: string): ReplayCheck;
  /** null, or share.other_tokenizer: this run's tokenizer (fingerprint, '' for bytes) is not the link's. */
  checkTokenizer(link: ShareLink, fingerprint: string): Coded | null;
  /** One training step of the walkthrough's tiny GPT ("walkthrough": T 3, C 2, V 4, one head; "two-heads": C 4, V 8), every intermediate named. */
  learnTrace(model: 'walkthrough' | 'two-heads', edits?: LearnEdits): LearnTrace;
  /** Entropy baselines of the session's training data (gpt: train split; seq2seq: the targets). */
  watchBaselines(session: Session): Baselines;
  /** Starts (or restarts, forgetting snapshots) the run's history; null probe: chosen from the validation split. */
  watchStartHistory(session: Session, probe: Uint8Array | null, probeTarget: Uint8Array | null): void;
  watchStopHistory(session: Session): void;
  /** The history, with the snapshots after `afterStep` (-1: all). */
  watchHistory(session: Session, afterStep: number): WatchHistory;
  /** Takes a snapshot now (advance() takes one at every evaluation by itself). */
  watchRecordSnapshot(session: Session): void;
  /** Every mapped byte's k nearest by cosine in the full embedding space, at the current weights. */
  watchNeighbours(session: Session, k: number): EmbeddingNeighbours;
  /** A branch tree from a prompt (gpt) or source (seq2seq) with the top-k tokens per node. The caller deletes it. */
  growGenerationTree(session: Session, prompt: Uint8Array, topK: number): GenerationTree;

  // ---- the hidden-state view (wasm/hidden.cpp, core/include/tinygpt/hidden.h): rnn, gru, lstm ----
  /** Every unit's activation over a text (its first 4096 bytes), window after window with the state carried. */
  hiddenTrace(session: Session, text: Uint8Array): HiddenTrace;
  /** The patterns a unit may track. */
  hiddenPatterns(): { name: string; description: string }[];
  /** A pattern's value at each byte of a text. */
  hiddenSignal(pattern: string, text: Uint8Array): Float32Array;
  /** The k units whose activation correlates most with the pattern on the text. */
  hiddenSearch(session: Session, text: Uint8Array, pattern: string, k: number): UnitMatch[];

  // ---- export (wasm/export.cpp, core/include/tinygpt/export.h; docs/export.md) ----
  /** The session's model in another tool's format: its files in order (one for safetensors, onnx and gguf; the folder's for hf). Throws the core's message when the model cannot be written so. */
  exportModel(session: Session, format: ExportFormat, options: ExportOptions): ExportFile[];
  /** The core's logits (T × V; row t after tokens[0..t]) of a language model: what a runtime's outputs are checked against. */
  exportLogits(session: Session, tokens: Int32Array | number[]): Float32Array;
  /** The seq2seq translator's logits (T × V) for a source and its decoder input (BOS, then the target so far), teacher-forced (core export.h reference_translation_logits). */
  exportTranslationLogits(session: Session, source: Int32Array | number[], targetIn: Int32Array | number[]): Float32Array;
  /** A Hugging Face GPT-2 folder's files by name (config.json, model.safetensors, tokenizer.json or vocab.json + merges.txt; others ignored) as a tinygpt model file for sessionFromSafetensors. Throws the core's coded message (import.*). */
  modelFileFromFolder(files: Record<string, Uint8Array>): Uint8Array;
  /** 'gguf' or 'onnx' for a file of those export formats (a run cannot start from one), else ''. */
  exportFormatOf(bytes: Uint8Array): 'gguf' | 'onnx' | '';
  /** Throws the core's import.export_format message (naming the file) for a file of an export format; nothing for another file. */
  refuseExportFormat(bytes: Uint8Array, name: string): void;

  // ---- the WebGPU backend's host half (wasm/webgpu.cpp, core/include/tinygpt/gpu_host.h; docs/webgpu.md) ----
  /** The GPU plan of the session's configuration, as JSON (core/include/tinygpt/gpu_plan.h). */
  gpuPlan(session: Session, fuseForward: boolean, fuseDecode: boolean): string; // block_forward, decode_layer where they fit
  gpuBatchLengths(session: Session): Int32Array;                            // a translator's [S, T] of every batch; [0, 0] otherwise
  gpuExportState(session: Session): GpuState;
  /** The GPU's state back into the session; with goodState (no step in flight) also the state a rollback returns to. */
  gpuImportState(session: Session, params: Float32Array, m: Float32Array, v: Float32Array, adamT: number, goodState: boolean): void;
  // (k, 2, B, T): x then y of each (seq2seq: (k, 3, B, block_size): src, tgt_in, targets, padded); consumed
  gpuNextBatches(session: Session, k: number): Int32Array;
  gpuStepScalars(session: Session, step: number, adamT: number, k: number): Float32Array;  // (k, 3): lr and AdamW's bias corrections
  gpuValBatches(session: Session): Int32Array;                              // (eval_iters, ...) laid out as gpuNextBatches
  gpuRecordSteps(session: Session, losses: Float32Array, gradNorms: Float32Array): void;
  gpuRecordEval(session: Session, losses: Float32Array): number;
  /** After a diverged step: the session's last good state at half the learning rate. */
  gpuRollBack(session: Session, reason: string): Rollback;
  /** The GPU's state is lost: the session's last good state, the learning rate unchanged. */
  gpuReturnToGoodState(session: Session, reason: string): Rollback;
  gpuSampleOptions(session: Session, options: SampleOptions): ResolvedSampleOptions;
  gpuSampleDraws(seed: number, start: number, k: number): Float32Array;    // the generator's uniform numbers from `start` on
  /** The run loop with steps computed on the GPU (tinygpt::Run::plan / record / record_evaluation). */
  gpuRunPlan(session: Session, maxSteps: number): RunPlan;
  gpuRunRecord(session: Session, losses: Float32Array, gradNorms: Float32Array, trainMs: number): Slice;
  gpuRunRecordEvaluation(session: Session, batchLosses: Float32Array, ms: number): GpuEvaluation;
  /** seq2seq: greedy translation on the GPU. The source's tokens padded to block_size, and the steps to run. */
  gpuTranslateStart(session: Session, source: Uint8Array, maxLen: number): { src: Int32Array; length: number; steps: number; maxLen: number; bos: number };
  /** seq2seq: the translation from the GPU's picks (token, probability per step), as Session.translate returns it. */
  gpuTranslateFinish(session: Session, picks: Int32Array, probs: Float32Array, maxLen: number): Translation;
  /** seq2seq: a pair's tokens as inspectTranslation reads them, padded to block_size (the GPU's pair.inspect). */
  gpuTranslationPair(session: Session, source: Uint8Array, target: Uint8Array):
    { src: Int32Array; tgtIn: Int32Array; S: number; T: number; Le: number; Ld: number; NH: number };
  /** Beam search whose decoder runs on the GPU (sample::BeamSearch: the search stays here). Throws translate()'s errors; delete() it. */
  gpuBeamStart(session: Session, source: Uint8Array, beam: number, maxLen: number, lengthPenalty: number): GpuBeam;
  /** Sampled translation (temperature > 0) whose decoder runs on the GPU: the same stepper with one row; the core draws
   *  each token with the seeded generator, as Session.translate does. Throws translate()'s errors; delete() it. */
  gpuSampledStart(session: Session, source: Uint8Array, options: TranslateOptions): GpuBeam;
}

// ---- the WebGPU backend's host half (wasm/webgpu.cpp) ----

/** A session's parameters and AdamW moments in the plan's GPU layout (decay-first, padded to 64 floats). */
export interface GpuState {
  params: Float32Array;
  m: Float32Array;
  v: Float32Array;
  step: number;
  adamT: number;
}

/** tinygpt::StepPlan (core/include/tinygpt/run.h): what the core's run loop lets the GPU do next. */
export interface RunPlan {
  evaluate: boolean;       // an evaluation is due before any step (gpuRunRecordEvaluation)
  steps: number;           // then at most this many steps (gpuRunRecord)
  keepGoodState: boolean;  // once they are recorded, bring the state back: the good state a rollback returns to
  finished: boolean;       // the run is at its stop
}

export interface GpuEvaluation { step: number; loss: number; ms: number; exactMatch?: number; cer?: number }  // a translator: held-out exact match and CER

/** Sampling options validated and resolved as the CPU's generator does them (windowKeep 0 -> half the context). */
export interface ResolvedSampleOptions {
  temperature: number; topK: number; topP: number; seed: number; windowKeep: number;
}

// ---- the hidden-state view (issue 25; wasm/hidden.cpp, core/include/tinygpt/hidden.h) ----

/** hiddenTrace: what every unit of a recurrent model does on a text. */
export interface HiddenTrace {
  kind: 'rnn' | 'gru' | 'lstm';
  T: number; L: number; H: number;
  G: number;               // gate rows per unit: lstm 4 (i f g o), gru 3 (r z n), rnn 0
  tokens: Int32Array;      // (T) the ids read: a byte model's bytes, a BPE model's tokens
  ends: Int32Array;        // (T) the text's byte offset after each position's token (a byte model's: t + 1)
  labels: string[];        // (T) each token's text (Tokenizer.tokenText)
  h: Float32Array;         // (L, T, H) hidden units after each position
  c: Float32Array;         // (L, T, H) the LSTM's cell states (empty otherwise)
  gates: Float32Array;     // (L, T, G, H)
}

/** hiddenSearch: a unit and how closely (Pearson r) it follows the pattern; r < 0: it falls where the pattern rises. */
export interface UnitMatch { layer: number; unit: number; state: 'h' | 'c'; correlation: number }

// ---- watch it learn (issue 15; wasm/watch.cpp, core/include/tinygpt/watch.h) ----

/** Entropy baselines of the training data: nats per byte, and the same in bits. */
export interface Baselines {
  unigram: number; bigram: number; uniform: number;
  unigramBits: number; bigramBits: number; uniformBits: number;
  distinct: number;        // different bytes seen
  tokens: number;          // bytes counted
}

/** The run's history (watchHistory): the layout, the probe, and the snapshots after a step. */
export interface WatchHistory {
  enabled: boolean;
  kind: ModelKind;         // rnn, gru, lstm: no attention (NH 0, attentionBytes 0); lstm_seq2seq: one cross map (1, 1, T, S)
  L: number; NH: number; Le: number; S: number; T: number; N: number; P: number;
  attentionBytes: number;  // A: bytes of one snapshot's quantised attention
  probe: Uint8Array;       // gpt: the probe text (T; a BPE model's: its tokens' bytes); seq2seq: the target (T - 1)
  probeSource: Uint8Array; // seq2seq: the probe's source (S)
  bytes: Uint8Array;       // (N) byte values on the embedding map (a byte model's)
  probeTokens: Int32Array; // a BPE language model's: (T) the probe's tokens (empty for bytes)
  mapTokens: Int32Array;   // a BPE language model's: (N) the tokens on the embedding map, its most frequent (empty for bytes)
  probeLabels: string[];   // (T) the probe's tokens by their text (Tokenizer.tokenText; empty for bytes)
  mapLabels: string[];     // (N) the map's tokens by their text (empty for bytes)
  baselines: Baselines;
  total: number;           // snapshots kept
  sizeBytes: number;       // what they add to a checkpoint
  budgetBytes: number;     // 4 MiB: over it, every second snapshot goes
  steps: Float64Array;     // (K) the returned snapshots' steps
  attention: Uint8Array;   // (K, A) q = round(255 sqrt(p)); gpt: (L, NH, T(T+1)/2), causal rows packed
  embedding: Float32Array; // (K, N, 2) PCA of the byte embeddings
  probeLoss: Float32Array; // (K, T) -ln p(probe byte t | before); NaN at t = 0 (gpt)
  positionLoss: Float32Array; // (K, P) mean validation loss at each window position
}

/** watchNeighbours: indices into WatchHistory.bytes, most alike (cosine) first. */
export interface EmbeddingNeighbours {
  k: number;               // min(k asked, N - 1)
  step: number;            // the weights' step
  index: Int32Array;       // (N, k)
  similarity: Float32Array; // (N, k) cosines
}

export interface GenerationNode {
  id: number;
  parent: number;          // -1 for the root (the prompt)
  token: number;           // the token this node appends (-1 for the root)
  label: string;           // its text (Tokenizer.tokenText; '' for the root)
  topLabels: string[];     // (k) the texts of topTokens
  prob: number;            // p(token | the parent's text)
  depth: number;           // tokens of text, prompt included
  topTokens: Int32Array;   // (k) likeliest next tokens
  topProbs: Float32Array;  // (k)
  children: Int32Array;    // in the order they were grown
}

/** Step-through generation (watch::BranchTree) on a session's model at its current step. */
export interface GenerationTree {
  node(id: number): GenerationNode;
  /** The child of `node` that appends `token` (grown now unless it exists): its id. Throws once the model trained. */
  extend(node: number, token: number): number;
  text(node: number): Uint8Array;   // the prompt and the path's tokens, as bytes
  size(): number;
  positionsComputed(): number;      // positions the model computed (KV caches reused along branches)
  step(): number;                   // the model step it was grown at
  current(): boolean;               // false once the model trained or was replaced
  delete(): void;
}

export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;           // required in Node (see wasm/README.md)
  locateFile?: (path: string, prefix: string) => string;
}

declare function createTinyGPT(options?: ModuleOptions): Promise<TinyGPTModule>;
export default createTinyGPT;
