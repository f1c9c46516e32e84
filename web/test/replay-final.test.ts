// checkReplay's `final` (share::Replay::final): the core says when a replay's verdict is the
// answer, and the worker only reads it (features/share/worker.ts checkReplay).
import { beforeAll, describe, expect, it } from 'vitest';

import type { ShareLink, TinyGPTModule } from '../../wasm/tinygpt';
import { loadScalar } from './wasm';

let M: TinyGPTModule;
let link: ShareLink;
beforeAll(async () => {
  M = await loadScalar();
  link = M.parseShareLink('#tinygpt=1&corpus=builtin:tinyshakespeare.txt');
  link.variant = 'wasm-scalar';
  link.losses = new Float32Array([2.0, 1.9, 1.8]);
});

const run = (...l: number[]) => new Float32Array(l);
const off = Math.fround(1.9) + 1e-6;

describe('a replay\'s verdict', () => {
  it('is final when it matches every step of the link, not before', () => {
    expect(M.checkReplay(link, run(2.0), 'wasm-scalar')).toMatchObject({ status: 'pending', final: false });
    expect(M.checkReplay(link, run(2.0, 1.9, 1.8), 'wasm-scalar')).toMatchObject({ status: 'matches', final: true });
  });
  it('is final at a difference on the same build variant', () => {
    expect(M.checkReplay(link, run(2.0, off), 'wasm-scalar')).toMatchObject({ status: 'diverged', final: true });
  });
  it('waits for all the link\'s steps on another variant', () => {
    expect(M.checkReplay(link, run(2.0, off), 'wasm-simd128')).toMatchObject({ status: 'diverged', sameVariant: false, final: false });
    expect(M.checkReplay(link, run(2.0, off, 1.8), 'wasm-simd128')).toMatchObject({ status: 'diverged', final: true });
  });
});
