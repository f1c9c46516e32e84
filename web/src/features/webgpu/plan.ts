// plan.ts — the GPU plan as the core hands it over (core/include/tinygpt/gpu_plan.h, to_json).
// The executor only reads it: buffers to create, regions to bind, kernels to dispatch in order.

// [buffer index, offset, count] in 4-byte elements; null: no argument
export type Region = [number, number, number] | null;

export interface PlanOp {
  kernel: string;
  label: string;
  args: Region[];
  dims: number[];
  scalars: number[]; // f32 values as their bit patterns (u32): exact

}

export interface GpuPlan {
  version: number;
  kind?: 'gpt' | 'seq2seq'; // the model (absent in single-op test plans: gpt)
  // seq2seq: n_layer is the decoder's layers; n_enc_layer, n_dec_layer, d_ff as the core's Config
  model: { n_layer: number; n_head: number; n_embd: number; block_size: number; vocab_size: number;
    n_enc_layer?: number; n_dec_layer?: number; d_ff?: number };
  srcLen?: number; // seq2seq: S and T of every batch (the pairs' longest, rounded up to 8)
  tgtLen?: number;
  fusedForward?: number; // gpt: 1 = training's forward as block_forward dispatches, 0 = a dispatch per GEMM
  fusedDecode?: number;  // gpt: 1 = a byte decoded with decode_layer (a dispatch per block), 0 = five per block
  // the io regions a train / eval batch fills, in the order of the core's batches (gpu_host.h: next_batches)
  batchInputs?: string[];
  // io regions the executor fills once from the core's numbers (f32 bit patterns), e.g. the sinusoidal table
  constants?: Record<string, number[]>;
  batch: number;
  headSize: number;
  align: number;
  numParams: number;
  gpuParams: number;
  decayParams: number;
  stateWords: number;
  sampleRecordWords: number;
  maxChunk: number;
  state: Record<'step' | 'adamT' | 'halted' | 'lr' | 'clipScale' | 'bc1' | 'bc2' | 'loss' | 'gradNorm' | 'evalLoss' | 'genLen' | 'genCount', number>;
  kernels: Record<string, number>; // every kernel the core lists (gpu_plan.h) and its number of arguments
  buffers: { name: string; elements: number; type: 'f32' | 'u32' }[];
  params: { name: string; cpu: number; gpu: number; count: number; decay: boolean }[];
  io: Record<string, Region>;
  programs: Record<string, PlanOp[]>;
}

export function parsePlan(json: string): GpuPlan {
  const plan = JSON.parse(json) as GpuPlan;
  if (plan.version !== 1) throw new Error(`GPU plan version ${plan.version} is not supported`);
  return plan;
}

export function ioRegion(plan: GpuPlan, name: string): [number, number, number] {
  const r = plan.io[name];
  if (!r) throw new Error(`GPU plan has no region '${name}'`);
  return r;
}

// The regions a batch fills and their sizes, in order (a GPT plan without the list: tokens, targets).
export function batchLayout(plan: GpuPlan): { name: string; count: number }[] {
  return (plan.batchInputs ?? ['tokens', 'targets']).map((name) => ({ name, count: ioRegion(plan, name)[2] }));
}
