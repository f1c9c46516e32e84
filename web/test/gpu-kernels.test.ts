// The WGSL kernels (web/src/features/webgpu/kernels.ts) against the core's lists, as the plan's JSON carries them
// (core/include/tinygpt/gpu_plan.h: TINYGPT_GPU_KERNELS, TINYGPT_GPU_STATE): a kernel or a state word
// added, renamed or moved on one side only fails here. No GPU needed.
import { beforeAll, describe, expect, it } from 'vitest';

import { KERNELS, STATE } from '../src/features/webgpu/kernels';
import { parsePlan, type GpuPlan } from '../src/features/webgpu/plan';
import { loadScalar } from './wasm';

let plan: GpuPlan;
beforeAll(async () => {
  const M = await loadScalar();
  const s = new M.Session({ n_layer: 2, n_head: 2, n_embd: 16, block_size: 8, batch_size: 2, seed: 3, eval_interval: 0 });
  plan = parsePlan((M as unknown as { gpuPlan(s: unknown): string }).gpuPlan(s));
  s.delete();
});

describe('the WebGPU kernels', () => {
  it('are the ones the core lists, each with its number of arguments', () => {
    expect(Object.keys(KERNELS).sort()).toEqual(Object.keys(plan.kernels).sort());
    for (const [name, args] of Object.entries(plan.kernels)) expect([name, KERNELS[name].args.length]).toEqual([name, args]);
  });

  it('bind every op of every program with the element type of its buffer', () => {
    let ops = 0;
    for (const [program, list] of Object.entries(plan.programs))
      for (const op of list) {
        const def = KERNELS[op.kernel];
        expect(def, `${program}: ${op.label}`).toBeDefined();
        expect(op.args.length, `${program}: ${op.label}`).toBe(def.args.length);
        op.args.forEach((r, i) => {
          if (r) expect([op.label, i, plan.buffers[r[0]].type]).toEqual([op.label, i, def.args[i].includes('u32') ? 'u32' : 'f32']);
        });
        ops++;
      }
    expect(ops).toBeGreaterThan(50);
  });
});

describe('the WGSL state words', () => {
  it('are the core\'s slots (STEP is "step", ADAM_T is "adamT", ...)', () => {
    const words = [...STATE.matchAll(/const (\w+) = (\d+)u;/g)];
    expect(words.length).toBeGreaterThan(5);
    for (const [, name, word] of words) {
      const key = name.toLowerCase().replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
      expect([name, (plan.state as Record<string, number>)[key]]).toEqual([name, Number(word)]);
    }
    expect(plan.stateWords).toBeGreaterThan(Math.max(...Object.values(plan.state)));
  });
});
