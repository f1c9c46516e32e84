// The WebGPU backend's page-side choices: ?backend=, the header badge, the fallback message.
import { describe, expect, it } from 'vitest';

import { backendBadge, chooseBackend, fallbackMessage } from '../src/features/webgpu/backend';
import { GpuBackendError } from '../src/features/webgpu/errors';

describe('backend choice', () => {
  it('picks WebGPU when the browser has it, the wasm build otherwise', () => {
    expect(chooseBackend('', true)).toEqual({ backend: 'webgpu', forced: false });
    expect(chooseBackend('?variant=simd', false)).toEqual({ backend: 'wasm', forced: false });
  });
  it('lets ?backend= force either, and ignores other values', () => {
    expect(chooseBackend('?backend=wasm', true)).toEqual({ backend: 'wasm', forced: true });
    expect(chooseBackend('?x=1&backend=webgpu', false)).toEqual({ backend: 'webgpu', forced: true });
    expect(chooseBackend('?backend=cuda', true)).toEqual({ backend: 'webgpu', forced: false });
  });
});

describe('what the page shows', () => {
  it('badges WebGPU with its adapter', () => {
    expect(backendBadge('webgpu', 'nvidia hopper')).toBe('webgpu · nvidia hopper');
    expect(backendBadge('wasm', 'simd')).toBe('simd');
  });
  it('says why it fell back and where training resumes', () => {
    const lost = new GpuBackendError('device-lost', 'the GPU device was lost: reset');
    expect(fallbackMessage(lost, { step: 200, lostSteps: 37 })).toBe(
      'the GPU was lost (the GPU device was lost: reset): the run continues on the CPU from step 200, ' +
      'the last state brought back from the GPU (the 37 steps after it are trained again).');
    expect(fallbackMessage(lost, { step: 12, lostSteps: 0 })).toMatch(/continues on the CPU at step 12; nothing was lost\.$/);
    expect(fallbackMessage(new GpuBackendError('limits', 'head size 512'), { step: 0, lostSteps: 0 }))
      .toBe('this model does not fit the GPU (head size 512): this model trains on the CPU.');
    expect(fallbackMessage({ kind: 'something new', message: 'x' }, { step: 1, lostSteps: 1 })).toMatch(/^the GPU backend hit an error \(x\).*the 1 step after it/);
  });
});
