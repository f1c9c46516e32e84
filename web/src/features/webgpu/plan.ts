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
  model: { n_layer: number; n_head: number; n_embd: number; block_size: number; vocab_size: number };
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
