// How the executor lays a batch out over the plan's regions (plan.ts: batchLayout), and which
// translations the GPU computes (translate/worker.ts: greedy). No GPU needed.
import { describe, expect, it } from 'vitest';

import { greedy } from '../src/features/translate/worker';
import { batchLayout, type GpuPlan } from '../src/features/webgpu/plan';

const plan = (io: GpuPlan['io'], batchInputs?: string[]) => ({ io, batchInputs }) as unknown as GpuPlan;

describe('a batch over the plan\'s regions', () => {
  it('follows batchInputs in order with each region\'s size (seq2seq: src, tgt_in, targets)', () => {
    const p = plan({ src: [1, 0, 18], tgt_in: [2, 0, 18], targets: [3, 0, 18], state: [0, 0, 16] }, ['src', 'tgt_in', 'targets']);
    expect(batchLayout(p)).toEqual([{ name: 'src', count: 18 }, { name: 'tgt_in', count: 18 }, { name: 'targets', count: 18 }]);
  });

  it('is tokens then targets for a plan without the list', () => {
    expect(batchLayout(plan({ tokens: [1, 0, 24], targets: [2, 0, 24] }))).toEqual([{ name: 'tokens', count: 24 }, { name: 'targets', count: 24 }]);
  });

  it('names a region the plan lacks', () => {
    expect(() => batchLayout(plan({}, ['src']))).toThrow(/no region 'src'/);
  });
});

describe('translations on the GPU', () => {
  it('are the greedy ones: beam search and sampling run on the host', () => {
    expect(greedy({})).toBe(true);
    expect(greedy({ beam: 1, temperature: 0, maxLen: 5 })).toBe(true);
    expect(greedy({ beam: 4 })).toBe(false);
    expect(greedy({ temperature: 0.7 })).toBe(false);
  });
});
