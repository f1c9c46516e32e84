// session.ts — a training session whose steps run on the GPU: the wasm Session stays the host
// (corpus, batches, history, checkpoints: the core's gpu_host.h), the GpuExecutor computes.
// Its methods mirror the wasm Session's, asynchronously; save() and sync() bring the GPU's
// parameters and AdamW moments back into the wasm Session, so a checkpoint (or the CPU build,
// after a fallback) continues exactly where the GPU was.
import type { Slice } from '../../../../wasm/tinygpt';
import { GpuBackendError, isGpuBackendError } from './errors';
import { GpuExecutor, type ExecutorOptions, type GeneratedChunk, type Inspection, type PairInspection } from './executor';
import { parsePlan, type GpuPlan } from './plan';

/** tinygpt::StepPlan (core/include/tinygpt/run.h): what the core's run loop lets the GPU do next. */
export interface RunPlan {
  evaluate: boolean;       // an evaluation is due before any step (gpuRunRecordEvaluation)
  steps: number;           // then at most this many steps (gpuRunRecord)
  keepGoodState: boolean;  // once they are recorded, bring the state back: the good state a rollback returns to
  finished: boolean;       // the run is at its stop
}

type Rollback = { failedStep: number; restoredStep: number; lrScale: number; message: string; code?: string; args?: Record<string, string | number> };

// The wasm module's WebGPU block (wasm/webgpu.cpp).
export interface GpuHostModule {
  gpuPlan(session: unknown, fuseForward: boolean, fuseDecode: boolean): string;
  gpuBatchLengths(session: unknown): Int32Array; // a translator's [S, T] of every batch (its pairs'), else [0, 0]
  gpuExportState(session: unknown): { params: Float32Array; m: Float32Array; v: Float32Array; step: number; adamT: number };
  gpuImportState(session: unknown, params: Float32Array, m: Float32Array, v: Float32Array, adamT: number, goodState: boolean): void;
  gpuRollBack(session: unknown, reason: string): Rollback;
  gpuReturnToGoodState(session: unknown, reason: string): Rollback;
  gpuTranslateStart?(session: unknown, source: Uint8Array, maxLen: number): { src: Int32Array; length: number; steps: number; maxLen: number; bos: number };
  gpuTranslateFinish?(session: unknown, picks: Int32Array, probs: Float32Array, maxLen: number): GpuTranslation;
  gpuTranslationPair?(session: unknown, source: Uint8Array, target: Uint8Array): PairTokens;
  gpuBeamStart?(session: unknown, source: Uint8Array, beam: number, maxLen: number, lengthPenalty: number): GpuBeam;
  gpuSampledStart?(session: unknown, source: Uint8Array, options: object): GpuBeam;
  gpuNextBatches(session: unknown, k: number): Int32Array;
  gpuStepScalars(session: unknown, step: number, adamT: number, k: number): Float32Array;
  gpuValBatches(session: unknown): Int32Array;
  gpuRecordSteps(session: unknown, losses: Float32Array, gradNorms: Float32Array): void;
  gpuRecordEval(session: unknown, losses: Float32Array): number;
  gpuSampleOptions(session: unknown, options: object): { temperature: number; topK: number; topP: number; seed: number; windowKeep: number };
  gpuSampleDraws(seed: number, start: number, k: number): Float32Array;
  // the core's run loop (tinygpt::Run::plan / record / record_evaluation) with steps computed here
  gpuRunPlan(session: unknown, maxSteps: number): RunPlan;
  gpuRunRecord(session: unknown, losses: Float32Array, gradNorms: Float32Array, trainMs: number): Slice;
  gpuRunRecordEvaluation(session: unknown, batchLosses: Float32Array, ms: number): { step: number; loss: number; ms: number; exactMatch?: number; cer?: number };
}

// What this needs of the wasm Session.
export interface HostSession {
  step(): number;
  learningRate(): number;
  save(): Uint8Array;
  load(bytes: Uint8Array): void;
}

/** A translation as the wasm Session's translate() returns it, with the GPU's cross-attention weights. */
export interface GpuTranslation {
  text: Uint8Array;
  tokens: Int32Array;
  probs: Float32Array;
  logProb: number;
  score: number;
  finished: boolean;
  cross?: { Ld: number; NH: number; rows: number; S: number; weights: Float32Array }; // (Ld, NH, rows, S)
}

/** sample::BeamSearch in the wasm module (wasm/webgpu.cpp): the search on the host, the decoder here. */
export interface GpuBeam {
  source(block: number): { src: Int32Array; length: number };
  histories(block: number): { tokens: Int32Array; lengths: Int32Array };
  /** For a KV cache: each row's newest token, the row it continues, and its position (0: BOS). */
  next(): { tokens: Int32Array; parent: Int32Array; step: number };
  rows(): number;
  advance(logits: Float32Array): void;
  done(): boolean;
  result(): Omit<GpuTranslation, 'cross' | 'score'> & { score?: number };
  delete(): void;
}

/** A pair's tokens as the core reads them for inspection, padded to block_size (gpuTranslationPair). */
export interface PairTokens {
  src: Int32Array;
  tgtIn: Int32Array;
  S: number;
  T: number;
  Le: number;
  Ld: number;
  NH: number;
}

/** Steps computed on the GPU and not recorded anywhere yet (steps()). */
export interface GpuSteps {
  losses: Float32Array;    // one per step, up to and including a diverged one
  gradNorms: Float32Array;
  halted: boolean;         // the last one diverged: the GPU applied none of it, nor any step after it
  ms: number;              // GPU time: from when the GPU could start them to when their losses were back
}

export interface SampleOptions {
  temperature?: number;
  topK?: number;
  topP?: number;
  seed?: number;
  windowKeep?: number;
}

/** Which of the plan's fused paths a session uses (make_plan's fuse_forward, fuse_decode). */
export interface Fusion {
  forward: boolean;  // training's forward as block_forward dispatches (a workgroup per 16 rows through a block)
  decode: boolean;   // a generated byte with decode_layer (one workgroup per block)
}

/** How the session chose its Fusion: given, the software adapter's default, or timed on this GPU. */
export interface FusionChoice extends Fusion {
  how: 'given' | 'software' | 'timed' | 'same plan' | 'one fits';
  forwardMs?: { fused: number; wide: number }; // timed: the best of 3 forwards of a batch each way
}

export class WebGpuSession {
  private exec: GpuExecutor;
  private planJson: string;
  private tail: Promise<unknown> = Promise.resolve();
  private epoch = 0; // bumped when a run halts: results of steps submitted before are dropped
  private gpuAhead = false; // the GPU has steps the wasm Session's parameters do not
  private submitted = 0; // steps submitted to the GPU so far (ahead of the session while in flight)
  private updatesBehind = 0; // step - adam_t: every applied step advances both
  private gen: { seed: number; drawn: number; greedy: boolean; step: number } | null = null;
  private lastDone = 0; // performance.now() when the last queued operation finished
  private abandoned: GpuBackendError | null = null;
  /** Translations decode with the KV cache (greedy, sampled, and a beam that fits the plan's rows; false:
   *  every row's whole history each step, as a beam wider than the plan's rows does; the benchmark's before). */
  translateCache = true;

  private constructor(
    private readonly M: GpuHostModule,
    private readonly session: HostSession,
    exec: GpuExecutor,
    planJson: string,
    private readonly options: ExecutorOptions,
    readonly fusion: FusionChoice,
  ) {
    this.exec = exec;
    this.planJson = planJson;
  }

  // Plans the session's configuration, builds it on the GPU and uploads the session's state.
  // options.fuse: the plan's fused paths (make_plan). By default (docs/webgpu.md, "Fused or wide"):
  // both on a software adapter, where every dispatch costs most; on a real GPU the decoding is wide
  // (on an H100 at worst 0.97x, up to 3.3x faster) and the forward is whichever of the two plans runs
  // a batch faster here.
  static async create(M: GpuHostModule, session: HostSession, options: ExecutorOptions & { fuse?: Fusion } = {}): Promise<WebGpuSession> {
    let choice: FusionChoice;
    let json: string;
    let exec: GpuExecutor;
    if (options.fuse || softwareAdapter(options)) {
      choice = { ...(options.fuse ?? { forward: true, decode: true }), how: options.fuse ? 'given' : 'software' };
      json = M.gpuPlan(session, choice.forward, choice.decode);
      exec = await GpuExecutor.create(parsePlan(json), options);
    } else {
      ({ choice, json, exec } = await timeForward(M, session, options));
    }
    const s = new WebGpuSession(M, session, exec, json, options, choice);
    s.upload();
    return s;
  }

  // A translator's batches are sized by its pairs: new pairs of other lengths need a new plan.
  private pairsMoved(): boolean {
    if (this.plan.kind !== 'seq2seq') return false;
    const [S, T] = this.M.gpuBatchLengths(this.session);
    return S !== this.plan.srcLen || T !== this.plan.tgtLen;
  }

  // (inside queue()) The session's state to the host, then a new plan and executor when the plan
  // changed (another model, other pairs), then the state to the GPU.
  private async replan(): Promise<void> {
    await this.pull();
    const json = this.M.gpuPlan(this.session, this.fusion.forward, this.fusion.decode);
    if (json !== this.planJson) {
      const exec = await GpuExecutor.create(parsePlan(json), this.options);
      this.exec.destroy();
      this.exec = exec;
      this.planJson = json;
    }
    this.upload();
  }

  get plan(): GpuPlan {
    return this.exec.plan;
  }
  get executor(): GpuExecutor {
    return this.exec;
  }
  get adapterName(): string {
    return this.exec.adapterName;
  }

  private upload(): void {
    const st = this.M.gpuExportState(this.session);
    this.exec.uploadState(st);
    this.gpuAhead = false;
    this.submitted = st.step;
    this.updatesBehind = st.step - st.adamT;
  }

  // Runs f after everything queued before it (results are recorded in submission order).
  private queue<T>(f: () => Promise<T>): Promise<T> {
    const r = this.tail.then(async () => {
      this.alive();
      try {
        return await f();
      } finally {
        this.lastDone = performance.now();
      }
    });
    this.tail = r.catch(() => undefined);
    return r;
  }

  // Nothing touches the host once the GPU was given up (abandon()): it may have gone back meanwhile.
  private alive(): void {
    if (this.abandoned) throw this.abandoned;
  }

  // Submits k steps at once; the GPU's own step counter says later how many it applied.
  private submit(k: number) {
    const first = this.submitted;
    const scalars = this.M.gpuStepScalars(this.session, first, first - this.updatesBehind, k);
    const pending = this.exec.train(this.M.gpuNextBatches(this.session, k), scalars, k);
    pending.catch(() => undefined); // handled where it is collected (or, after a halt, deliberately dropped)
    this.submitted += k;
    this.gpuAhead = true;
    return { pending, first, k, epoch: this.epoch, at: performance.now() };
  }

  // The results of submitted steps, in submission order (inside queue()).
  private async collect(sub: ReturnType<WebGpuSession['submit']>): Promise<GpuSteps & { elapsedMs: number }> {
    const r = await sub.pending;
    const ms = performance.now() - Math.max(sub.at, this.lastDone);
    this.alive();
    if (sub.epoch !== this.epoch) throw new Error('training stopped: an earlier step diverged');
    // the GPU applied exactly the steps its counter advanced by; a halt stops at the first bad one
    const applied = r.stepAfter - sub.first;
    if (r.halted) {
      this.epoch++;
      this.submitted = r.stepAfter; // the steps after the halt did not apply
    } else if (applied !== sub.k) throw new Error(`internal: the GPU applied ${applied} of ${sub.k} steps`);
    const n = r.halted ? Math.min(applied + 1, sub.k) : applied;
    return { losses: r.losses.slice(0, n), gradNorms: r.gradNorms.slice(0, n), halted: r.halted, ms, elapsedMs: r.elapsedMs };
  }

  // k optimizer steps, submitted at once, recorded by nobody: the caller hands them to the core's
  // run loop (gpuRunRecord), which applies its policy (a diverged step: rollback, then reload()).
  // A caller may submit more before awaiting; after a halt, the ones behind it reject.
  steps(k: number): Promise<GpuSteps> {
    let sub: ReturnType<WebGpuSession['submit']>;
    try {
      this.alive();
      if (this.pairsMoved()) return this.queue(() => this.replan()).then(() => this.steps(k));
      sub = this.submit(k);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.queue(() => this.collect(sub));
  }

  // The validation loss (Trainer::evaluate's batches and mean), recorded in the history.
  evaluate(): Promise<number> {
    return this.queue(async () => {
      const losses = await this.validationLosses();
      this.alive();
      return this.M.gpuRecordEval(this.session, losses);
    });
  }

  // The losses of the eval_iters validation batches, recorded by nobody (gpuRunRecordEvaluation).
  evaluateLosses(): Promise<Float32Array> {
    return this.queue(() => this.validationLosses());
  }

  private async validationLosses(): Promise<Float32Array> {
    if (this.pairsMoved()) await this.replan();
    const batches = this.M.gpuValBatches(this.session);
    const count = batches.length / this.exec.batchTokens();
    return this.exec.evaluate(batches, count);
  }

  // Greedy translation on the GPU (a seq2seq plan), with the state the queued steps leave: the core
  // reads the source and makes the translation from the GPU's picks (translate.cpp's greedy loop).
  translate(source: Uint8Array, maxLen = 0): Promise<GpuTranslation> {
    if (this.plan.kind !== 'seq2seq' || !this.M.gpuTranslateStart || !this.M.gpuTranslateFinish)
      return Promise.reject(new Error('translate: this model is not a seq2seq translator'));
    let start: ReturnType<NonNullable<GpuHostModule['gpuTranslateStart']>>;
    try {
      start = this.M.gpuTranslateStart(this.session, source, maxLen); // validates: the CPU's errors
    } catch (e) {
      return Promise.reject(e);
    }
    return this.queue(async () => {
      const r = await this.exec.translate(start.src, start.length, start.bos, start.steps, this.translateCache);
      this.alive();
      const t = this.M.gpuTranslateFinish!(this.session, r.picks, r.probs, start.maxLen);
      return { ...t, cross: { Ld: r.Ld, NH: r.NH, rows: t.probs.length, S: r.S, weights: cropRows(r.cross, r.Ld * r.NH, r.rows, t.probs.length, r.S) } };
    });
  }

  // Beam search on the GPU (a seq2seq plan): the core keeps the search (sample::BeamSearch, the CPU's
  // rules and errors); each step the GPU runs the decoder over every live hypothesis and hands back
  // their logits. With the CPU's logits it is translate()'s beam search; the GPU's agree to rounding.
  beamTranslate(source: Uint8Array, beam: number, maxLen = 0, lengthPenalty = 1): Promise<Omit<GpuTranslation, 'cross'>> {
    const start = this.M.gpuBeamStart;
    return this.stepwise('beamTranslate', start && (() => start(this.session, source, beam, maxLen, lengthPenalty)));
  }

  // A sampled translation (temperature > 0) as the wasm Session's translate gives it for the same
  // options and seed: the decoder runs here, the core draws each token (the beam's stepper, one row).
  sampledTranslate(source: Uint8Array, options: { temperature: number; topK?: number; seed?: number; maxLen?: number }):
    Promise<Omit<GpuTranslation, 'cross'>> {
    const start = this.M.gpuSampledStart;
    return this.stepwise('sampledTranslate', start && (() => start(this.session, source, options)));
  }

  // Runs a stepper of the core to its end: each step, the GPU decodes every row one token further and
  // hands the logits back to the core. A beam of up to the plan's beam rows decodes with a KV cache
  // (translate.beam.step: one position for all rows, one submission a step); a wider one runs every
  // live row's whole history again (translate.logits, one submission per row). `start` makes the
  // stepper (its checks are the CPU's: their errors reject before anything is queued); absent without
  // a translator.
  private stepwise(what: string, start: (() => GpuBeam) | undefined): Promise<Omit<GpuTranslation, 'cross'>> {
    if (this.plan.kind !== 'seq2seq' || !start) return Promise.reject(new Error(`${what}: this model is not a seq2seq translator`));
    let search: GpuBeam;
    try {
      search = start();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.queue(async () => {
      try {
        const Tb = this.plan.model.block_size, N = search.rows();
        const cached = this.translateCache && N <= this.exec.beamRows();
        if (cached) this.exec.beamStart(search.source(Tb).src);
        else this.exec.beamEncode(search.source(Tb).src);
        // cached: slots (N, Tb), for each row and position j the cache row holding its hypothesis's token j
        let slots = new Uint32Array(N * Tb);
        while (!search.done()) {
          let logits: Float32Array;
          if (cached) {
            const { tokens, parent, step: p } = search.next();
            const next = new Uint32Array(N * Tb);
            for (let r = 0; r < N; r++) {
              next.set(slots.subarray(parent[r] * Tb, parent[r] * Tb + p), r * Tb);
              next[r * Tb + p] = r;
            }
            slots = next;
            logits = await this.exec.beamStep(tokens, slots, p);
          } else {
            const h = search.histories(Tb);
            logits = await this.exec.beamLogits(h.tokens, h.lengths);
          }
          this.alive();
          search.advance(logits);
        }
        const r = search.result();
        return { ...r, score: r.score ?? r.logProb };
      } finally {
        search.delete();
      }
    });
  }

  // A source and a target read by the translator on the GPU (teacher forcing), as the wasm Session's
  // inspectTranslation returns them: every attention map and the next-token probabilities.
  inspectTranslation(source: Uint8Array, target: Uint8Array): Promise<PairInspection> {
    let p: PairTokens;
    try {
      if (this.plan.kind !== 'seq2seq' || !this.M.gpuTranslationPair) throw new Error('inspectTranslation: this model is not a seq2seq translator');
      p = this.M.gpuTranslationPair(this.session, source, target); // the CPU's checks and errors
    } catch (e) {
      return Promise.reject(e);
    }
    return this.queue(() => this.exec.inspectPair(p));
  }

  // Attention maps and next-byte probabilities of the last block_size bytes of a text
  // (Trainer::inspect's contract).
  async inspect(text: Uint8Array): Promise<Inspection> {
    this.bytesOnly('inspect');
    if (text.length === 0) throw new Error('inspect: give at least one byte of text');
    const T = Math.min(text.length, this.plan.model.block_size);
    return this.exec.inspect(text.subarray(text.length - T));
  }

  // The GPU's sampler and inspection read bytes: a BPE model (its plan sized by vocab_size) trains
  // here and samples on the host (the page's onGpuBytesOr).
  private bytesOnly(what: string): void {
    const V = this.plan.model.vocab_size;
    if (V !== 256) throw new Error(`${what}: the GPU samples and inspects bytes; this model has ${V} BPE tokens (sync() and use the host)`);
  }

  // Streaming generation, as the wasm Session's beginGeneration / generateNext.
  async beginGeneration(prompt: Uint8Array, options: SampleOptions = {}): Promise<void> {
    this.bytesOnly('beginGeneration');
    const o = this.M.gpuSampleOptions(this.session, options); // the core validates and resolves
    const T = this.plan.model.block_size;
    const context = prompt.length === 0 ? new Uint8Array([10]) : prompt.subarray(Math.max(0, prompt.length - T));
    return this.queue(async () => {
      this.exec.startGeneration(context, o);
      this.gen = { seed: o.seed, drawn: 0, greedy: o.temperature <= 0, step: this.session.step() };
    });
  }

  generateNext(k: number): Promise<GeneratedChunk> {
    return this.queue(async () => {
      const g = this.gen;
      if (!g) throw new Error('call beginGeneration() first');
      if (g.step !== this.session.step()) throw new Error('the model was trained since beginGeneration(): start a new generation');
      const out: GeneratedChunk = { bytes: new Uint8Array(k), probs: new Float32Array(k), topBytes: new Uint8Array(5 * k), topProbs: new Float32Array(5 * k) };
      for (let at = 0; at < k; ) {
        const n = Math.min(this.plan.maxChunk, k - at);
        const draws = g.greedy ? null : this.M.gpuSampleDraws(g.seed, g.drawn, n);
        if (!g.greedy) g.drawn += n;
        const c = await this.exec.generate(n, draws);
        out.bytes.set(c.bytes, at);
        out.probs.set(c.probs, at);
        out.topBytes.set(c.topBytes, 5 * at);
        out.topProbs.set(c.topProbs, 5 * at);
        at += n;
      }
      return out;
    });
  }

  async generate(prompt: Uint8Array, n: number, options: SampleOptions = {}): Promise<GeneratedChunk> {
    await this.beginGeneration(prompt, options);
    return this.generateNext(n);
  }

  // Brings the GPU's parameters and moments into the wasm Session (after every queued step).
  // When no step is in flight, that state is also the one a rollback returns to.
  sync(): Promise<void> {
    return this.queue(() => this.pull());
  }

  // (inside queue()) sync()'s work: the GPU's state into the host when the GPU is ahead of it.
  private async pull(): Promise<void> {
    if (!this.gpuAhead) return;
    const s = await this.exec.downloadState();
    this.alive();
    if (s.step !== this.session.step())
      throw new Error(`internal: the GPU is at step ${s.step}, the session at ${this.session.step()}`);
    this.M.gpuImportState(this.session, s.params, s.m, s.v, s.adamT, this.submitted === s.step);
    this.gpuAhead = false;
  }

  // The NaN guard's recovery after a diverged step (train rejected with "training diverged at
  // step ..."): the session goes back to its last good state at half the learning rate
  // (Trainer::roll_back), and that state goes to the GPU.
  rollBack(reason: string): Promise<Rollback> {
    return this.queue(async () => {
      const r = this.M.gpuRollBack(this.session, reason);
      this.gen = null;
      this.upload();
      return r;
    });
  }

  // The host's state changed under the GPU (the core's run loop rolled back after a diverged
  // step): upload it, after everything queued.
  reload(): Promise<void> {
    return this.queue(async () => {
      this.gen = null;
      this.upload();
    });
  }

  // True when the host's parameters are the GPU's: nothing ran on the GPU since the last upload or sync.
  get hostInSync(): boolean {
    return !this.gpuAhead;
  }

  // The GPU is gone (a lost device, a failed kernel): from now on every call rejects, and the
  // host continues alone. If the GPU had run ahead of the host's parameters, the host goes back
  // to its last good state (the last sync with no step in flight), the learning rate unchanged.
  // Returns the step the host is at, and the step it came back from (null: nothing was lost).
  abandon(error: GpuBackendError): { step: number; rewoundFrom: number | null } {
    if (this.abandoned) return { step: this.session.step(), rewoundFrom: null };
    this.abandoned = error;
    let rewoundFrom: number | null = null;
    if (this.gpuAhead) {
      const at = this.session.step();
      this.M.gpuReturnToGoodState(this.session, error.message);
      if (this.session.step() < at) rewoundFrom = at;
    }
    this.gpuAhead = false;
    this.gen = null;
    try {
      this.exec.destroy();
    } catch {
      // a lost device has nothing left to free
    }
    return { step: this.session.step(), rewoundFrom };
  }

  // A checkpoint of the run (the CPU Session's format): sync, then the session saves.
  async save(): Promise<Uint8Array> {
    await this.sync();
    return this.session.save();
  }

  // Loads a checkpoint into the session (which validates it; on error nothing changes) and
  // uploads it; a different model or batch gets a new plan and executor.
  load(bytes: Uint8Array): Promise<void> {
    return this.queue(async () => {
      this.session.load(bytes);
      this.gen = null;
      this.gpuAhead = false; // the host holds the checkpoint's state now
      await this.replan();
    });
  }

  // Waits for everything queued.
  async idle(): Promise<void> {
    await this.queue(async () => this.exec.idle());
  }

  destroy(): void {
    this.exec.destroy();
  }
}

// A software adapter (SwiftShader, llvmpipe: a CPU), where each dispatch costs most and fusing
// always pays; an adapter that says nothing of itself counts as one.
export function softwareAdapter(options: ExecutorOptions): boolean {
  const info = options.adapter?.info ?? options.device?.adapterInfo;
  if (!info) return true;
  if ((info as { isFallbackAdapter?: boolean }).isFallbackAdapter) return true;
  return /swiftshader|llvmpipe|lavapipe|software|basic render/i.test([info.vendor, info.architecture, info.device, info.description].join(' '));
}

// A real GPU: the decoding wide (on an H100, 1.37x fused for tiny and 2.36x for S over 1,000 bytes:
// bench/results/webgpu-2026-11-26T165659Z.json), the forward timed. block_forward takes 16 rows
// a workgroup through a whole block: fewer dispatches, but few workgroups for a small batch (over
// 300 training steps the two plans were within 4% of each other for tiny and S; which wins depends
// on the model and the GPU). Both plans
// run the forward of 4 batches of zeros (eval, which changes no state) three times, interleaved;
// the faster plan's executor is kept, the other destroyed. Exported for the tests.
export async function timeForward(M: GpuHostModule, session: HostSession, options: ExecutorOptions):
  Promise<{ choice: FusionChoice; json: string; exec: GpuExecutor }> {
  const fusedJson = M.gpuPlan(session, true, false);
  const wideJson = M.gpuPlan(session, false, false);
  if (fusedJson === wideJson) {
    return { choice: { forward: false, decode: false, how: 'same plan' }, json: wideJson, exec: await GpuExecutor.create(parsePlan(wideJson), options) };
  }
  const fused = await GpuExecutor.create(parsePlan(fusedJson), options);
  let wide: GpuExecutor;
  try {
    wide = await GpuExecutor.create(parsePlan(wideJson), options);
  } catch (e) {
    // no room for both at once (out of memory, limits): the one that was built serves
    if (isGpuBackendError(e) && (e.kind === 'out-of-memory' || e.kind === 'limits'))
      return { choice: { forward: true, decode: false, how: 'one fits' }, json: fusedJson, exec: fused };
    fused.destroy();
    throw e;
  }
  const best = { fused: Infinity, wide: Infinity };
  try {
    const n = 4; // batches a timing: their readback's latency is paid once
    const batches = new Int32Array(n * fused.batchTokens());
    await fused.evaluate(batches, n); // the pipelines' first use
    await wide.evaluate(batches, n);
    for (let r = 0; r < 3; r++)
      for (const [name, e] of [['fused', fused], ['wide', wide]] as const) {
        const t0 = performance.now();
        await e.evaluate(batches, n);
        best[name] = Math.min(best[name], (performance.now() - t0) / n);
      }
  } catch (e) {
    fused.destroy();
    wide.destroy();
    throw e;
  }
  const forward = best.fused < best.wide;
  (forward ? wide : fused).destroy();
  return { choice: { forward, decode: false, how: 'timed', forwardMs: best }, json: forward ? fusedJson : wideJson, exec: forward ? fused : wide };
}

// (G, rows, S) -> (G, keep, S): the first `keep` rows of each map
function cropRows(a: Float32Array, G: number, rows: number, keep: number, S: number): Float32Array {
  const out = new Float32Array(G * keep * S);
  for (let g = 0; g < G; g++) out.set(a.subarray(g * rows * S, g * rows * S + keep * S), g * keep * S);
  return out;
}
