// The WGSL kernels (web/src/features/webgpu/kernels.ts) against the core's lists, as the plan's JSON carries them
// (core/include/tinygpt/gpu_plan.h: TINYGPT_GPU_KERNELS, TINYGPT_GPU_STATE): a kernel or a state word
// added, renamed or moved on one side only fails here. No GPU needed.
import { beforeAll, describe, expect, it } from 'vitest';

import { KERNELS, STATE } from '../src/features/webgpu/kernels';
import { parsePlan, type GpuPlan } from '../src/features/webgpu/plan';
import { loadScalar } from './wasm';

let plan: GpuPlan;
let s2s: GpuPlan; // the encoder-decoder's plan (train, eval, translate.*, pair.inspect)
beforeAll(async () => {
  const M = await loadScalar();
  const gpuPlan = (s: unknown) => parsePlan((M as unknown as { gpuPlan(s: unknown, f: boolean, d: boolean): string }).gpuPlan(s, true, true));
  const s = new M.Session({ n_layer: 2, n_head: 2, n_embd: 16, block_size: 8, batch_size: 2, seed: 3, eval_interval: 0 });
  plan = gpuPlan(s);
  s.delete();
  const t = new M.Session({ model: 'seq2seq', n_enc_layer: 2, n_dec_layer: 1, n_head: 2, n_embd: 16, d_ff: 24, block_size: 9, batch_size: 2, seed: 3, eval_interval: 0 });
  t.setCorpus(M.builtinTask('reverse', 1));
  s2s = gpuPlan(t);
  t.delete();
});

describe('the WebGPU kernels', () => {
  it('are the ones the core lists, each with its number of arguments', () => {
    expect(Object.keys(KERNELS).sort()).toEqual(Object.keys(plan.kernels).sort());
    for (const [name, args] of Object.entries(plan.kernels)) expect([name, KERNELS[name].args.length]).toEqual([name, args]);
  });

  it('bind every op of every program with the element type of its buffer (the GPT\'s and the encoder-decoder\'s)', () => {
    let ops = 0;
    for (const [program, list] of [...Object.entries(plan.programs), ...Object.entries(s2s.programs).map(([n, l]) => [`seq2seq ${n}`, l] as const)])
      for (const op of list) {
        const def = KERNELS[op.kernel];
        expect(def, `${program}: ${op.label}`).toBeDefined();
        expect(op.args.length, `${program}: ${op.label}`).toBe(def.args.length);
        const buffers = program.startsWith('seq2seq ') ? s2s.buffers : plan.buffers;
        op.args.forEach((r, i) => {
          if (r) expect([op.label, i, buffers[r[0]].type]).toEqual([op.label, i, def.args[i].includes('u32') ? 'u32' : 'f32']);
        });
        ops++;
      }
    expect(ops).toBeGreaterThan(50);
    expect(Object.keys(s2s.programs).sort()).toEqual(['eval', 'pair.inspect', 'train', 'translate.beam.pick', 'translate.beam.start', 'translate.beam.step', 'translate.encode', 'translate.logits', 'translate.step']);
    expect(s2s.batchInputs).toEqual(['src', 'tgt_in', 'targets']);
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
