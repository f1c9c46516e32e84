// executor.ts — runs the core's GPU plan with WebGPU: creates the device, the buffers and the
// pipelines once per configuration, then records one command buffer per training step. It does
// no model arithmetic: the plan (from the C++ core) says which kernel runs over which regions.
//
// Results come back asynchronously: train() submits its steps at once and returns a promise of
// their losses, mapped from a small buffer after the GPU is done, so the caller can submit the
// next slice before the last one's losses arrive. No step reads anything else back.
import { GpuBackendError } from './errors';
import { KERNELS, MAX_HEAD_SIZE, opFlops, type KernelConsts } from './kernels';
import { batchLayout, ioRegion, type GpuPlan, type PlanOp, type Region } from './plan';

const UNIFORM_SLOT = 256; // bytes per op: 32 u32 dims + 8 f32 scalars, at the uniform-offset alignment
const UNIFORM_BYTES = 160;
// GPUBufferUsage / GPUMapMode values (the WebGPU spec's; spelled out so this module loads before
// Dawn's globals are installed in Node)
const GB = { MAP_READ: 0x0001, COPY_SRC: 0x0004, COPY_DST: 0x0008, UNIFORM: 0x0040, STORAGE: 0x0080 };
const MAP_READ_MODE = 0x0001;

interface CompiledOp {
  op: PlanOp;
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
  grid: [number, number, number];
}

export interface ExecutorOptions {
  gpu?: GPU; // navigator.gpu, or Dawn's GPU object in Node
  adapter?: GPUAdapter; // an adapter not yet used for a device
  device?: GPUDevice; // a device to share (tests); not destroyed by destroy()
}

export interface GpuState {
  params: Float32Array; // GPU layout (plan.gpuParams)
  m: Float32Array;
  v: Float32Array;
  step: number;
  adamT: number;
}

export interface TrainResult {
  losses: Float32Array; // one per submitted step (the ones after a halt were not applied)
  gradNorms: Float32Array;
  stepAfter: number; // the GPU's step counter after the last of them
  halted: boolean; // a step had a non-finite loss or gradient: no update since
  elapsedMs: number;
}

export interface GenerationOptions {
  temperature: number;
  topK: number;
  topP: number;
  windowKeep: number; // resolved (1 .. block_size)
}

export interface GeneratedChunk {
  bytes: Uint8Array;
  probs: Float32Array;
  topBytes: Uint8Array; // (k, 5)
  topProbs: Float32Array; // (k, 5)
}

export interface Inspection {
  T: number;
  L: number;
  NH: number;
  attention: Float32Array; // (L, NH, T, T)
  probs: Float32Array; // (T, V)
}

/** Greedy translation's steps on the GPU (the plan's translate.encode / translate.step). */
export interface GpuTranslationSteps {
  picks: Int32Array;   // the token picked at each step (the core's gpuTranslateFinish makes the translation)
  probs: Float32Array; // its probability among the allowed tokens
  S: number;           // source tokens (the maps' columns)
  rows: number;        // decoder positions read back (the maps' rows): BOS and the picks before the last
  Ld: number;
  NH: number;
  cross: Float32Array; // (Ld, NH, rows, S) cross-attention weights of the last step
}

/** A pair read by the translator (Session.inspectTranslation's shape). */
export interface PairInspection {
  S: number;
  T: number;
  Le: number;
  Ld: number;
  NH: number;
  src: Int32Array;
  tgtIn: Int32Array;
  encSelf: Float32Array; // (Le, NH, S, S)
  decSelf: Float32Array; // (Ld, NH, T, T)
  cross: Float32Array;   // (Ld, NH, T, S)
  probs: Float32Array;   // (T, V)
}

export interface OpProfile {
  label: string;
  kernel: string;
  ms: number;
  gflops: number;
}

// Pipelines by device and kernel source: executors on one device (a new plan after loading a
// checkpoint, the tests) share them instead of compiling again.
const pipelineCache = new WeakMap<GPUDevice, Map<string, Promise<GPUComputePipeline>>>();

export class GpuExecutor {
  readonly plan: GpuPlan;
  readonly device: GPUDevice;
  readonly adapterName: string;
  private readonly buffers: GPUBuffer[];
  private readonly programs = new Map<string, CompiledOp[]>();
  private readonly consts: KernelConsts;
  private lost: string | null = null;
  private uncaptured: string | null = null;
  private gen: { len: number; keep: number } | null = null;
  private haltPending = false;

  private constructor(plan: GpuPlan, device: GPUDevice, adapterName: string, buffers: GPUBuffer[], private readonly ownsDevice: boolean) {
    this.plan = plan;
    this.device = device;
    this.adapterName = adapterName;
    this.buffers = buffers;
    this.consts = { HS: plan.headSize };
    device.lost.then((info) => {
      this.lost = info.message || info.reason || 'the GPU device was lost';
    });
    device.onuncapturederror = (e) => {
      this.uncaptured ??= e.error.message;
    };
  }

  static async create(plan: GpuPlan, options: ExecutorOptions = {}): Promise<GpuExecutor> {
    let adapter: GPUAdapter | null = null;
    if (!options.device) {
      const gpu = options.gpu ?? (globalThis.navigator as { gpu?: GPU } | undefined)?.gpu;
      if (!gpu && !options.adapter) throw new GpuBackendError('unavailable', 'WebGPU is not available in this browser');
      adapter = options.adapter ?? (await gpu!.requestAdapter({ powerPreference: 'high-performance' }));
      if (!adapter) throw new GpuBackendError('unavailable', 'WebGPU found no GPU adapter');
    }
    const info = adapter?.info ?? options.device?.adapterInfo;
    const adapterName = [info?.vendor, info?.architecture, info?.device, info?.description]
      .filter((s) => s).join(' ') || 'unknown adapter';

    // what the plan needs of the device
    if (plan.headSize > MAX_HEAD_SIZE)
      throw new GpuBackendError('limits', `head size ${plan.headSize} is above the ${MAX_HEAD_SIZE} the WebGPU kernels support: use more heads`);
    const L = adapter?.limits ?? options.device!.limits;
    const bufferBytes = Math.max(...plan.buffers.map((b) => b.elements * 4));
    let bindingBytes = 0;
    let maxGrid = 0;
    for (const ops of Object.values(plan.programs))
      for (const op of ops) {
        for (const r of op.args) if (r) bindingBytes = Math.max(bindingBytes, r[2] * 4);
        maxGrid = Math.max(maxGrid, ...kernelDef(op.kernel).grid(op.dims, { HS: plan.headSize }));
      }
    const mib = (n: number) => `${Math.ceil(n / 2 ** 20)} MiB`;
    if (bufferBytes > L.maxBufferSize)
      throw new GpuBackendError('limits', `the model needs a ${mib(bufferBytes)} GPU buffer; this GPU allows ${mib(L.maxBufferSize)}`);
    if (bindingBytes > L.maxStorageBufferBindingSize)
      throw new GpuBackendError('limits', `the model binds ${mib(bindingBytes)} at once; this GPU allows ${mib(L.maxStorageBufferBindingSize)}`);
    if (maxGrid > L.maxComputeWorkgroupsPerDimension)
      throw new GpuBackendError('limits', `a kernel needs ${maxGrid} workgroups in one dimension; this GPU allows ${L.maxComputeWorkgroupsPerDimension}: use a smaller batch`);
    if (L.maxStorageBuffersPerShaderStage < 8)
      throw new GpuBackendError('limits', 'this GPU binds fewer than 8 storage buffers per kernel');

    let device = options.device;
    if (!device) {
      try {
        // ask for no more than the plan needs (at least WebGPU's defaults)
        device = await adapter!.requestDevice({
          requiredLimits: {
            maxBufferSize: Math.min(L.maxBufferSize, Math.max(bufferBytes, 256 * 2 ** 20)),
            maxStorageBufferBindingSize: Math.min(L.maxStorageBufferBindingSize, Math.max(bindingBytes, 128 * 2 ** 20)),
          },
        });
      } catch (e) {
        throw new GpuBackendError('unavailable', `WebGPU could not create a device: ${(e as Error).message}`);
      }
    }

    // buffers (zero-filled by WebGPU: the parameter padding stays zero)
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const buffers = plan.buffers.map((b) =>
      device.createBuffer({ label: b.name, size: Math.max(256, b.elements * 4), usage: GB.STORAGE | GB.COPY_SRC | GB.COPY_DST }));
    const invalid = await device.popErrorScope();
    const oom = await device.popErrorScope();
    const total = plan.buffers.reduce((s, b) => s + b.elements * 4, 0);
    if (oom || invalid) {
      buffers.forEach((b) => b.destroy());
      if (!options.device) device.destroy();
      throw new GpuBackendError('out-of-memory', `the GPU could not allocate ${mib(total)} for the model: ${(oom ?? invalid)!.message}`);
    }
    const exec = new GpuExecutor(plan, device, adapterName, buffers, !options.device);
    try {
      await exec.build();
    } catch (e) {
      exec.destroy();
      throw e;
    }
    return exec;
  }

  // Pipelines (one per kernel and variant), the ops' uniform blocks and bind groups.
  private async build(): Promise<void> {
    const device = this.device;
    let pipelines = pipelineCache.get(device);
    if (!pipelines) pipelineCache.set(device, (pipelines = new Map()));
    const pipeline = (kernel: string, variant: string) => {
      const key = `${kernel}:${variant}:${this.consts.HS}`;
      let p = pipelines.get(key);
      if (!p) {
        const code = kernelDef(kernel).source(this.consts, variant);
        const module = device.createShaderModule({ label: key, code });
        p = device.createComputePipelineAsync({ label: key, layout: 'auto', compute: { module, entryPoint: 'main' } })
          .catch(async (e: Error) => {
            const info = await module.getCompilationInfo();
            const errors = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
            throw new GpuBackendError('pipeline', `kernel ${key} failed to build: ${errors.join('; ') || e.message}`);
          });
        pipelines!.set(key, p);
      }
      return p;
    };
    const names = Object.keys(this.plan.programs);
    const allOps = names.flatMap((n) => this.plan.programs[n]);
    const uniforms = device.createBuffer({ label: 'op parameters', size: Math.max(1, allOps.length) * UNIFORM_SLOT, usage: GB.UNIFORM | GB.COPY_DST });
    const data = new ArrayBuffer(allOps.length * UNIFORM_SLOT);
    const dummies = new Map<number, GPUBuffer>(); // one per argument position: unused arguments never alias
    const dummy = (i: number) => {
      let d = dummies.get(i);
      if (!d) dummies.set(i, (d = device.createBuffer({ label: `unused argument ${i}`, size: 256, usage: GB.STORAGE })));
      return d;
    };
    device.pushErrorScope('validation');
    let slot = 0;
    for (const name of names) {
      const compiled: CompiledOp[] = [];
      for (const op of this.plan.programs[name]) {
        const def = kernelDef(op.kernel);
        if (op.args.length !== def.args.length)
          throw new GpuBackendError('internal', `${op.label}: ${op.kernel} takes ${def.args.length} arguments, the plan gives ${op.args.length}`);
        if (op.dims.length > 32 || op.scalars.length > 8) throw new GpuBackendError('internal', `${op.label}: too many dims or scalars`);
        new Uint32Array(data, slot * UNIFORM_SLOT, 32).set(op.dims);
        new Uint32Array(data, slot * UNIFORM_SLOT + 128, 8).set(op.scalars); // f32 bit patterns
        const p = await pipeline(op.kernel, def.variant ? def.variant(op.dims) : '');
        const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: uniforms, offset: slot * UNIFORM_SLOT, size: UNIFORM_BYTES } }];
        op.args.forEach((r: Region, i) => {
          entries.push({
            binding: i + 1,
            resource: r ? { buffer: this.buffers[r[0]], offset: r[1] * 4, size: Math.max(1, r[2]) * 4 } : { buffer: dummy(i) },
          });
        });
        compiled.push({ op, pipeline: p, bindGroup: device.createBindGroup({ label: op.label, layout: p.getBindGroupLayout(0), entries }), grid: def.grid(op.dims, this.consts) });
        slot++;
      }
      this.programs.set(name, compiled);
    }
    device.queue.writeBuffer(uniforms, 0, data);
    // the core's constant tables (bit patterns: the GPU gets exactly the core's floats)
    for (const [name, bits] of Object.entries(this.plan.constants ?? {})) this.write(name, new Uint32Array(bits));
    const err = await device.popErrorScope();
    if (err) throw new GpuBackendError('internal', `binding the plan failed: ${err.message}`);
  }

  // ---- basics ----

  private check(): void {
    if (this.lost !== null) throw new GpuBackendError('device-lost', `the GPU device was lost: ${this.lost}`);
    if (this.uncaptured !== null) throw new GpuBackendError('internal', `WebGPU error: ${this.uncaptured}`);
  }

  private buffer(r: Region): GPUBuffer {
    return this.buffers[r![0]];
  }

  // Dispatches a program's ops into a compute pass.
  private encode(pass: GPUComputePassEncoder, program: string): void {
    for (const c of this.programs.get(program)!) {
      pass.setPipeline(c.pipeline);
      pass.setBindGroup(0, c.bindGroup);
      pass.dispatchWorkgroups(c.grid[0], c.grid[1], c.grid[2]);
    }
  }

  // Runs a program on its own (inspect, prefill; tests run single ops).
  run(program: string): void {
    this.check();
    this.submitProgram(program);
  }

  private submitProgram(program: string): void {
    const enc = this.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    this.encode(pass, program);
    pass.end();
    this.device.queue.submit([enc.finish()]);
  }

  write(region: Region | string, data: ArrayBufferView, elementOffset = 0): void {
    const r = typeof region === 'string' ? ioRegion(this.plan, region) : region!;
    if (data.byteLength / 4 + elementOffset > r[2]) throw new Error(`write: ${data.byteLength / 4} elements do not fit region of ${r[2]}`);
    this.device.queue.writeBuffer(this.buffer(r), (r[1] + elementOffset) * 4, data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  }

  private writeState(slot: number, value: number): void {
    this.write('state', new Uint32Array([value]), slot);
  }

  private async mapped(staging: GPUBuffer): Promise<ArrayBuffer> {
    try {
      await staging.mapAsync(MAP_READ_MODE);
    } catch (e) {
      this.check();
      throw new GpuBackendError('device-lost', `reading from the GPU failed: ${(e as Error).message}`);
    }
    const copy = staging.getMappedRange().slice(0);
    staging.unmap();
    staging.destroy();
    this.check();
    return copy;
  }

  // Copies regions into one staging buffer and maps it once.
  async read(regions: Region[]): Promise<ArrayBuffer[]> {
    this.check();
    const total = regions.reduce((s, r) => s + r![2] * 4, 0);
    const staging = this.device.createBuffer({ size: Math.max(4, total), usage: GB.MAP_READ | GB.COPY_DST });
    const enc = this.device.createCommandEncoder();
    let at = 0;
    for (const r of regions) {
      enc.copyBufferToBuffer(this.buffer(r), r![1] * 4, staging, at, r![2] * 4);
      at += r![2] * 4;
    }
    this.device.queue.submit([enc.finish()]);
    const all = await this.mapped(staging);
    at = 0;
    return regions.map((r) => {
      const part = all.slice(at, at + r![2] * 4);
      at += r![2] * 4;
      return part;
    });
  }

  dispatchCount(program: string): number {
    return this.programs.get(program)?.length ?? 0;
  }

  // ---- state ----

  uploadState(s: GpuState): void {
    this.check();
    const n = this.plan.gpuParams;
    if (s.params.length !== n || s.m.length !== n || s.v.length !== n) throw new Error(`uploadState: expected ${n} floats each`);
    this.write('params', s.params);
    this.write('adam_m', s.m);
    this.write('adam_v', s.v);
    const state = new Uint32Array(this.plan.stateWords);
    state[this.plan.state.step] = s.step;
    state[this.plan.state.adamT] = s.adamT;
    this.write('state', state);
    this.haltPending = false;
  }

  async downloadState(): Promise<GpuState & { halted: boolean }> {
    const [p, m, v, st] = await this.read(['params', 'adam_m', 'adam_v', 'state'].map((n) => ioRegion(this.plan, n)));
    const state = new Uint32Array(st);
    return {
      params: new Float32Array(p), m: new Float32Array(m), v: new Float32Array(v),
      step: state[this.plan.state.step], adamT: state[this.plan.state.adamT], halted: state[this.plan.state.halted] !== 0,
    };
  }

  // ---- training and evaluation ----

  // Writes batch i of `batches` (laid out as the plan's batchInputs: x (B, T) then y (B, T) for a GPT;
  // src, tgt_in, targets for seq2seq, as the core's gpuNextBatches lays them out) into its regions.
  private writeBatch(batches: Int32Array, i: number): void {
    const layout = batchLayout(this.plan);
    const n = layout.reduce((s, r) => s + r.count, 0);
    let at = n * i;
    for (const r of layout) {
      this.write(r.name, batches.subarray(at, at + r.count));
      at += r.count;
    }
  }

  // Tokens of one batch (all its batchInputs).
  batchTokens(): number {
    return batchLayout(this.plan).reduce((s, r) => s + r.count, 0);
  }

  // k steps on k batches (writeBatch's layout) with each step's learning rate and bias corrections
  // (the core's gpuStepScalars: 3 floats a step): one command buffer per step; the losses are read
  // back once, after the last.
  train(batches: Int32Array, scalars: Float32Array, k: number): Promise<TrainResult> {
    this.check();
    const n = this.batchTokens();
    if (k < 1 || batches.length !== k * n) throw new Error(`train: expected ${k} batches of ${n} tokens`);
    if (scalars.length !== 3 * k) throw new Error(`train: expected 3 scalars for each of ${k} steps`);
    if (this.haltPending) {
      this.writeState(this.plan.state.halted, 0);
      this.haltPending = false;
    }
    const stateR = ioRegion(this.plan, 'state');
    const lossAt = (stateR[1] + this.plan.state.loss) * 4;
    if (this.plan.state.gradNorm !== this.plan.state.loss + 1) throw new Error('train: loss and gradient norm are not adjacent state words');
    const staging = this.device.createBuffer({ size: k * 8 + 16, usage: GB.MAP_READ | GB.COPY_DST });
    const t0 = performance.now();
    for (let i = 0; i < k; i++) {
      this.writeBatch(batches, i);
      this.write('step.scalars', scalars.subarray(3 * i, 3 * i + 3));
      const enc = this.device.createCommandEncoder();
      const pass = enc.beginComputePass();
      this.encode(pass, 'train');
      pass.end();
      enc.copyBufferToBuffer(this.buffer(stateR), lossAt, staging, i * 8, 8);
      if (i === k - 1) enc.copyBufferToBuffer(this.buffer(stateR), stateR[1] * 4, staging, k * 8, 16);
      this.device.queue.submit([enc.finish()]);
    }
    return this.mapped(staging).then((buf) => {
      const f = new Float32Array(buf, 0, 2 * k);
      const tail = new Uint32Array(buf, k * 8, 4);
      const halted = tail[this.plan.state.halted] !== 0;
      if (halted) this.haltPending = true;
      return {
        losses: f.filter((_, i) => i % 2 === 0), gradNorms: f.filter((_, i) => i % 2 === 1),
        stepAfter: tail[this.plan.state.step], halted, elapsedMs: performance.now() - t0,
      };
    });
  }

  // The mean loss of each batch (laid out like train's), without training.
  evaluate(batches: Int32Array, count: number): Promise<Float32Array> {
    this.check();
    const n = this.batchTokens();
    if (batches.length !== count * n) throw new Error(`evaluate: expected ${count} batches of ${n} tokens`);
    const stateR = ioRegion(this.plan, 'state');
    const staging = this.device.createBuffer({ size: Math.max(4, count * 4), usage: GB.MAP_READ | GB.COPY_DST });
    for (let i = 0; i < count; i++) {
      this.writeBatch(batches, i);
      const enc = this.device.createCommandEncoder();
      const pass = enc.beginComputePass();
      this.encode(pass, 'eval');
      pass.end();
      enc.copyBufferToBuffer(this.buffer(stateR), (stateR[1] + this.plan.state.evalLoss) * 4, staging, i * 4, 4);
      this.device.queue.submit([enc.finish()]);
    }
    return this.mapped(staging).then((b) => new Float32Array(b));
  }

  // ---- inspection ----

  // Attention maps and next-byte probabilities of one sequence of 1..block_size tokens.
  async inspect(tokens: Uint8Array): Promise<Inspection> {
    this.check();
    const Tb = this.plan.model.block_size, L = this.plan.model.n_layer, NH = this.plan.model.n_head, V = this.plan.model.vocab_size;
    const T = tokens.length;
    if (T < 1 || T > Tb) throw new Error(`inspect: 1 to ${Tb} tokens, got ${T}`);
    const padded = new Uint32Array(Tb); // causal: the padding does not change rows 0..T-1
    padded.set(tokens);
    this.write('inspect.tokens', padded);
    this.submitProgram('inspect');
    const regions = [...Array(L).keys()].map((l) => ioRegion(this.plan, `inspect.attention.${l}`));
    const parts = await this.read([...regions, ioRegion(this.plan, 'inspect.probs')]);
    const attention = new Float32Array(L * NH * T * T);
    for (let l = 0; l < L; l++) {
      const a = new Float32Array(parts[l]); // (NH, Tb, Tb)
      for (let h = 0; h < NH; h++)
        for (let i = 0; i < T; i++)
          attention.set(a.subarray((h * Tb + i) * Tb, (h * Tb + i) * Tb + T), ((l * NH + h) * T + i) * T);
    }
    const probs = new Float32Array(parts[L]).slice(0, T * V);
    return { T, L, NH, attention, probs };
  }

  // ---- translation (seq2seq) ----

  // Greedy decoding of one source: src (block_size tokens: the source, then PAD), `length` of them
  // real; BOS first; `steps` picks (max_len + 1), all in one command buffer, read back once. Cached
  // (where the plan has the beam's KV cache): translate.beam.start, then per step translate.beam.step
  // over one position and translate.beam.pick, row 0 of the beam's rows; else translate.encode, then
  // translate.step over the whole prefix each step.
  async translate(src: Int32Array, length: number, bos: number, steps: number, cached = true): Promise<GpuTranslationSteps> {
    this.check();
    const Tb = this.plan.model.block_size, NH = this.plan.model.n_head, Ld = this.plan.model.n_dec_layer ?? 0;
    if (!this.plan.programs['translate.step']) throw new Error('translate: this plan has no translation programs');
    if (src.length !== Tb || length < 1 || length > Tb) throw new Error(`translate: a source of 1 to ${Tb} tokens, padded to ${Tb}`);
    if (steps < 1 || steps > Tb) throw new Error(`translate: 1 to ${Tb} steps`);
    this.write('translate.src', new Uint32Array(src));
    this.writeState(this.plan.state.genLen, 1);
    const enc = this.device.createCommandEncoder();
    if (cached && this.beamRows() > 0) {
      const R = this.beamRows();
      const first = new Uint32Array(R);
      first[0] = bos;
      this.write('translate.beam.tokens', first);
      this.write('translate.beam.slots', new Uint32Array(R * Tb)); // row 0's ancestors are row 0
      const start = enc.beginComputePass();
      this.encode(start, 'translate.beam.start');
      start.end();
      for (let p = 0; p < steps; p++) {
        this.copyPositionRow(enc, p);
        const pass = enc.beginComputePass();
        this.encode(pass, 'translate.beam.step');
        this.encode(pass, 'translate.beam.pick');
        pass.end();
        // row 0's cross-attention weights, (NH, R, S) per layer -> row p of translate.cross.l (NH, Tb, Tb)
        for (let l = 0; l < Ld; l++) {
          const from = ioRegion(this.plan, `translate.beam.cross.${l}`), to = ioRegion(this.plan, `translate.cross.${l}`);
          for (let h = 0; h < NH; h++)
            enc.copyBufferToBuffer(this.buffer(from), (from[1] + h * R * Tb) * 4, this.buffer(to), (to[1] + (h * Tb + p) * Tb) * 4, Tb * 4);
        }
      }
    } else {
      const tgt = new Uint32Array(Tb); // past the tokens so far: hidden by the causal mask
      tgt[0] = bos;
      this.write('translate.tgt_in', tgt);
      const pass = enc.beginComputePass();
      this.encode(pass, 'translate.encode');
      for (let i = 0; i < steps; i++) this.encode(pass, 'translate.step');
      pass.end();
    }
    this.device.queue.submit([enc.finish()]);
    const parts = await this.read([ioRegion(this.plan, 'translate.out'),
      ...[...Array(Ld).keys()].map((l) => ioRegion(this.plan, `translate.cross.${l}`))]);
    const out = new Uint32Array(parts[0]).subarray(0, 2 * steps);
    const picks = Int32Array.from({ length: steps }, (_, i) => out[2 * i]);
    const probs = new Float32Array(Uint32Array.from({ length: steps }, (_, i) => out[2 * i + 1]).buffer);
    const rows = steps, S = length;
    const cross = new Float32Array(Ld * NH * rows * S);
    for (let l = 0; l < Ld; l++) {
      const a = new Float32Array(parts[1 + l]); // (NH, Tb, Tb)
      for (let h = 0; h < NH; h++)
        for (let i = 0; i < rows; i++) cross.set(a.subarray((h * Tb + i) * Tb, (h * Tb + i) * Tb + S), ((l * NH + h) * rows + i) * S);
    }
    return { picks, probs, S, rows, Ld, NH, cross };
  }

  // Beam search's encoder: the source (block_size tokens: the source, then PAD) through
  // translate.encode, once; beamLogits then decodes hypotheses against it.
  beamEncode(src: Int32Array): void {
    this.check();
    const Tb = this.plan.model.block_size;
    if (!this.plan.programs['translate.logits']) throw new Error('beamEncode: this plan has no beam program');
    if (src.length !== Tb) throw new Error(`beamEncode: a source padded to ${Tb}`);
    this.write('translate.src', new Uint32Array(src));
    const enc = this.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    this.encode(pass, 'translate.encode');
    pass.end();
    this.device.queue.submit([enc.finish()]);
  }

  // The next-token logits of each live hypothesis (tokens: (rows, block_size), BOS first; lengths:
  // (rows), 0 for a row that is not live) after beamEncode's source: the decoder over each row's
  // tokens (translate.logits), one submission a row (each writes translate.tgt_in), read back once.
  // (rows, V); rows that are not live are 0.
  async beamLogits(tokens: Int32Array, lengths: Int32Array): Promise<Float32Array> {
    this.check();
    const Tb = this.plan.model.block_size, V = this.plan.model.vocab_size, N = lengths.length;
    if (tokens.length !== N * Tb) throw new Error(`beamLogits: ${N} rows of ${Tb} tokens`);
    const logits = ioRegion(this.plan, 'translate.logits');
    const staging = this.device.createBuffer({ size: N * V * 4, usage: GB.MAP_READ | GB.COPY_DST });
    for (let r = 0; r < N; r++) {
      const n = lengths[r];
      if (n === 0) continue;
      if (n < 1 || n > Tb) throw new Error(`beamLogits: a hypothesis of 1 to ${Tb} tokens`);
      this.write('translate.tgt_in', new Uint32Array(tokens.subarray(r * Tb, (r + 1) * Tb)));
      this.writeState(this.plan.state.genLen, n);
      const enc = this.device.createCommandEncoder();
      const pass = enc.beginComputePass();
      this.encode(pass, 'translate.logits');
      pass.end();
      enc.copyBufferToBuffer(this.buffer(logits), (logits[1] + (n - 1) * V) * 4, staging, r * V * 4, V * 4);
      this.device.queue.submit([enc.finish()]);
    }
    return new Float32Array(await this.mapped(staging));
  }

  // ---- beam search with a KV cache (translate.beam.*: kBeamRows rows, one position a step) ----

  /** The rows the cached beam decodes side by side (0: this plan has none). */
  beamRows(): number {
    return this.plan.programs['translate.beam.step'] ? ioRegion(this.plan, 'translate.beam.tokens')[2] : 0;
  }

  // The source (block_size tokens: the source, then PAD) through the encoder, and the cross-attention's
  // keys and values, once (translate.beam.start); beamStep then decodes against them.
  beamStart(src: Int32Array): void {
    this.check();
    const Tb = this.plan.model.block_size;
    if (this.beamRows() === 0) throw new Error('beamStart: this plan has no cached beam');
    if (src.length !== Tb) throw new Error(`beamStart: a source padded to ${Tb}`);
    this.write('translate.src', new Uint32Array(src));
    this.submitProgram('translate.beam.start');
  }

  // PE[p] into translate.beam.pe, in the command buffer of the step at position p (the cached
  // decoder's embedding reads one row of the sinusoidal table).
  private copyPositionRow(enc: GPUCommandEncoder, p: number): void {
    const C = this.plan.model.n_embd, pe = ioRegion(this.plan, 'pe'), row = ioRegion(this.plan, 'translate.beam.pe');
    enc.copyBufferToBuffer(this.buffer(pe), (pe[1] + p * C) * 4, this.buffer(row), row[1] * 4, C * 4);
  }

  // Every row one token further at position p (0 for BOS): tokens (up to beamRows): each row's newest
  // token; slots (rows, block_size): for j < p, the cache row that holds the row's ancestor at step j
  // (attention_beam). Returns the next-token logits (rows, V), in one submission and one readback.
  async beamStep(tokens: Int32Array, slots: Uint32Array, p: number): Promise<Float32Array> {
    this.check();
    const R = this.beamRows(), Tb = this.plan.model.block_size, V = this.plan.model.vocab_size;
    const N = tokens.length;
    if (N < 1 || N > R) throw new Error(`beamStep: 1 to ${R} rows`);
    if (slots.length !== N * Tb) throw new Error(`beamStep: ${N} rows of ${Tb} slots`);
    if (!(p >= 0 && p < Tb)) throw new Error(`beamStep: a position in 0..${Tb - 1}`);
    const t = new Uint32Array(R), s = new Uint32Array(R * Tb);
    t.set(tokens), s.set(slots);  // rows past N: token 0 and slots 0, decoded and never read
    this.write('translate.beam.tokens', t);
    this.write('translate.beam.slots', s);
    this.writeState(this.plan.state.genLen, p + 1);
    const logits = ioRegion(this.plan, 'translate.beam.logits');
    const staging = this.device.createBuffer({ size: N * V * 4, usage: GB.MAP_READ | GB.COPY_DST });
    const enc = this.device.createCommandEncoder();
    this.copyPositionRow(enc, p);
    const pass = enc.beginComputePass();
    this.encode(pass, 'translate.beam.step');
    pass.end();
    enc.copyBufferToBuffer(this.buffer(logits), logits[1] * 4, staging, 0, N * V * 4);
    this.device.queue.submit([enc.finish()]);
    return new Float32Array(await this.mapped(staging));
  }

  // Every attention map and the next-token probabilities of a pair (tokens padded to block_size; S
  // and T of them real), read back once.
  async inspectPair(p: { src: Int32Array; tgtIn: Int32Array; S: number; T: number; Le: number; Ld: number; NH: number }): Promise<PairInspection> {
    this.check();
    const Tb = this.plan.model.block_size, V = this.plan.model.vocab_size, { S, T, Le, Ld, NH } = p;
    if (p.src.length !== Tb || p.tgtIn.length !== Tb) throw new Error(`inspectPair: tokens padded to ${Tb}`);
    this.write('pair.src', new Uint32Array(p.src));
    this.write('pair.tgt_in', new Uint32Array(p.tgtIn));
    this.submitProgram('pair.inspect');
    const names = [...[...Array(Le).keys()].map((l) => `pair.encoder.${l}`), ...[...Array(Ld).keys()].map((l) => `pair.decoder.${l}`),
      ...[...Array(Ld).keys()].map((l) => `pair.cross.${l}`), 'pair.probs'];
    const parts = (await this.read(names.map((n) => ioRegion(this.plan, n)))).map((b) => new Float32Array(b));
    // (L, NH, Tq, Tk) from per-layer (NH, Tb, Tb) maps
    const crop = (maps: Float32Array[], Tq: number, Tk: number) => {
      const out = new Float32Array(maps.length * NH * Tq * Tk);
      maps.forEach((a, l) => {
        for (let h = 0; h < NH; h++)
          for (let i = 0; i < Tq; i++) out.set(a.subarray((h * Tb + i) * Tb, (h * Tb + i) * Tb + Tk), ((l * NH + h) * Tq + i) * Tk);
      });
      return out;
    };
    return {
      S, T, Le, Ld, NH, src: p.src.slice(0, S), tgtIn: p.tgtIn.slice(0, T),
      encSelf: crop(parts.slice(0, Le), S, S), decSelf: crop(parts.slice(Le, Le + Ld), T, T),
      cross: crop(parts.slice(Le + Ld, Le + 2 * Ld), T, S), probs: parts[Le + 2 * Ld].slice(0, T * V),
    };
  }

  // ---- generation with the KV cache ----

  // Fills the cache from a context of 1..block_size bytes (the caller picks them, as sample.cpp's
  // Generator::set_prompt does).
  startGeneration(context: Uint8Array, o: GenerationOptions): void {
    this.check();
    const T = this.plan.model.block_size;
    if (context.length < 1 || context.length > T) throw new Error(`startGeneration: 1 to ${T} bytes of context`);
    if (!(o.windowKeep >= 1 && o.windowKeep <= T)) throw new Error('startGeneration: windowKeep must be resolved to 1..block_size');
    const window = new Uint32Array(T);
    window.set(context);
    this.write('decode.window', window);
    this.write('decode.options', new Float32Array([o.temperature, o.topK, o.topP, o.windowKeep]));
    this.writeState(this.plan.state.genLen, context.length);
    this.submitProgram('prefill');
    this.gen = { len: context.length, keep: o.windowKeep };
  }

  // The next k bytes (k <= plan.maxChunk); draws: one uniform number per byte (null when greedy).
  // The window policy mirrors sample.cpp's Generator::append: when the window is full the
  // sample kernel keeps its last windowKeep - 1 bytes and the new one, and the cache is rebuilt.
  async generate(k: number, draws: Float32Array | null): Promise<GeneratedChunk> {
    this.check();
    if (!this.gen) throw new Error('generate: call startGeneration first');
    if (k < 1 || k > this.plan.maxChunk) throw new Error(`generate: 1 to ${this.plan.maxChunk} bytes per chunk`);
    if (draws) this.write('decode.draws', draws.subarray(0, k));
    this.writeState(this.plan.state.genCount, 0);
    const T = this.plan.model.block_size;
    const enc = this.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    for (let i = 0; i < k; i++) {
      this.encode(pass, 'sample');
      if (this.gen.len === T) {
        this.gen.len = this.gen.keep;
        this.encode(pass, 'prefill');
      } else {
        this.gen.len++;
        this.encode(pass, 'decode');
      }
    }
    pass.end();
    const W = this.plan.sampleRecordWords;
    const out = ioRegion(this.plan, 'decode.out');
    const staging = this.device.createBuffer({ size: k * W * 4, usage: GB.MAP_READ | GB.COPY_DST });
    enc.copyBufferToBuffer(this.buffer(out), out[1] * 4, staging, 0, k * W * 4);
    this.device.queue.submit([enc.finish()]);
    const buf = await this.mapped(staging);
    const u = new Uint32Array(buf), f = new Float32Array(buf);
    const r: GeneratedChunk = { bytes: new Uint8Array(k), probs: new Float32Array(k), topBytes: new Uint8Array(5 * k), topProbs: new Float32Array(5 * k) };
    for (let i = 0; i < k; i++) {
      r.bytes[i] = u[i * W];
      r.probs[i] = f[i * W + 1];
      for (let j = 0; j < 5; j++) {
        r.topBytes[i * 5 + j] = u[i * W + 2 + j];
        r.topProbs[i * 5 + j] = f[i * W + 7 + j];
      }
    }
    return r;
  }

  // ---- measurement (bench) ----

  // Time of each op of a program, dispatched `reps` times in a compute pass of its own: from GPU
  // timestamps when the device has 'timestamp-query' (request it when creating the device), else
  // the wall time of a submission each. It runs ops out of order: the buffers hold garbage
  // afterwards (upload the state again).
  async profile(program: string, reps: number): Promise<OpProfile[]> {
    const ops = this.programs.get(program)!;
    const out = (c: CompiledOp, ms: number): OpProfile => ({
      label: c.op.label, kernel: c.op.kernel, ms, gflops: opFlops(c.op.kernel, c.op.dims, this.consts) / (ms * 1e6),
    });
    const dispatch = (pass: GPUComputePassEncoder, c: CompiledOp) => {
      pass.setPipeline(c.pipeline);
      pass.setBindGroup(0, c.bindGroup);
      for (let r = 0; r < reps; r++) pass.dispatchWorkgroups(c.grid[0], c.grid[1], c.grid[2]);
    };
    if (this.device.features.has('timestamp-query')) {
      const querySet = this.device.createQuerySet({ type: 'timestamp', count: 2 * ops.length });
      const resolved = this.device.createBuffer({ size: 16 * ops.length, usage: 0x0200 /* QUERY_RESOLVE */ | GB.COPY_SRC });
      const staging = this.device.createBuffer({ size: 16 * ops.length, usage: GB.MAP_READ | GB.COPY_DST });
      const enc = this.device.createCommandEncoder();
      ops.forEach((c, i) => {
        const pass = enc.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
        dispatch(pass, c);
        pass.end();
      });
      enc.resolveQuerySet(querySet, 0, 2 * ops.length, resolved, 0);
      enc.copyBufferToBuffer(resolved, 0, staging, 0, 16 * ops.length);
      this.device.queue.submit([enc.finish()]);
      const t = new BigUint64Array(await this.mapped(staging));
      querySet.destroy();
      resolved.destroy();
      return ops.map((c, i) => out(c, Number(t[2 * i + 1] - t[2 * i]) / 1e6 / reps));
    }
    const result: OpProfile[] = [];
    for (const c of ops) {
      const enc = this.device.createCommandEncoder();
      const pass = enc.beginComputePass();
      dispatch(pass, c);
      pass.end();
      await this.device.queue.onSubmittedWorkDone();
      const t0 = performance.now();
      this.device.queue.submit([enc.finish()]);
      await this.device.queue.onSubmittedWorkDone();
      result.push(out(c, (performance.now() - t0) / reps));
    }
    this.check();
    return result;
  }

  async idle(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
    this.check();
  }

  destroy(): void {
    this.buffers.forEach((b) => b.destroy());
    if (this.ownsDevice) this.device.destroy();
  }
}

function kernelDef(name: string) {
  const def = KERNELS[name];
  if (!def) throw new GpuBackendError('internal', `the plan names an unknown kernel '${name}'`);
  return def;
}
