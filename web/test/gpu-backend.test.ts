// The WebGPU backend's page-side choices: ?backend=, the header badge, the fallback message.
import { describe, expect, it } from 'vitest';

import { backendBadge, chooseBackend, fallbackMessage } from '../src/gpu/backend';
import { GpuBackendError } from '../src/gpu/errors';

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
    expect(fallbackMessage(lost, 250)).toBe(
      'the GPU was lost (the GPU device was lost: reset): training continues on the CPU from the last autosave (step 250).');
    expect(fallbackMessage(new GpuBackendError('limits', 'head size 512'), null)).toMatch(/does not fit the GPU .* from the start\.$/);
  });
});
