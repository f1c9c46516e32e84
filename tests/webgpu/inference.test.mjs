// Inspection and KV-cached generation on the GPU against the wasm build's: attention maps and
// next-byte probabilities within 1e-4, the same bytes (greedy and sampled with the same seed, the
// draws come from the core's generator) across window rebuilds, chunked streaming.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { WebGpuSession } from '../../web/src/features/webgpu/session.ts';
import { closeness, loadWasm, shakespeare, sharedDevice } from './helpers.mjs';

const TINY = { n_layer: 2, n_head: 2, n_embd: 32, block_size: 16, batch_size: 2, max_iters: 40, warmup_iters: 3,
  learning_rate: 1e-2, seed: 11, eval_iters: 2, eval_interval: 0 };
const enc = new TextEncoder();

let M, cpu, host, g;
before(async () => {
  M = await loadWasm('simd');
  cpu = new M.Session(TINY);
  cpu.setCorpus(shakespeare);
  cpu.advance(30, 0); // a model whose predictions are not uniform
  host = new M.Session(TINY);
  host.setCorpus(shakespeare);
  host.load(cpu.save());
  g = await WebGpuSession.create(M, host, { device: await sharedDevice() });
});

function expectClose(got, want, atol, rtol, what) {
  const c = closeness(got, want, atol, rtol);
  assert.ok(c.worst <= 1, `${what}: element ${c.at} is ${c.got}, the wasm build's ${c.want}`);
}

describe('inspection', () => {
  for (const text of ['a', 'To be, or', 'ROMEO:\nWhat?', 'First Citizen:\nBefore we proceed any further, hear me speak.'])
    it(`matches the wasm build on ${text.length} bytes`, async () => {
      const bytes = enc.encode(text);
      const want = cpu.inspect(bytes);
      const got = await g.inspect(bytes);
      assert.deepEqual([got.T, got.L, got.NH], [want.T, want.L, want.NH]);
      expectClose(got.attention, want.attention, 1e-5, 1e-4, 'attention');
      expectClose(got.probs, want.probs, 1e-6, 1e-4, 'probabilities');
      // causal rows that sum to one
      for (let r = 0; r < got.L * got.NH * got.T; r++) {
        const i = r % got.T;
        const row = got.attention.subarray(r * got.T, (r + 1) * got.T);
        assert.ok(Math.abs(row.reduce((s, v) => s + v, 0) - 1) < 1e-5);
        assert.ok(row.subarray(i + 1).every((v) => v === 0));
      }
    });
});

describe('generation with the KV cache', () => {
  const cases = [
    ['greedy', { temperature: 0 }],
    ['sampled', { temperature: 1, seed: 5 }],
    ['top-k and top-p', { temperature: 0.8, topK: 20, topP: 0.9, seed: 3 }],
    ['the exact sliding window', { temperature: 1, seed: 9, windowKeep: 16 }],
    ['a short kept window', { temperature: 0, windowKeep: 3 }],
  ];
  for (const [name, options] of cases)
    it(`${name}: the wasm build's bytes and probabilities, past several window rebuilds`, async () => {
      const prompt = enc.encode('KING HENRY:\n');
      const want = cpu.generate(prompt, 60, options);
      const got = await g.generate(prompt, 60, options);
      assert.equal(new TextDecoder().decode(got.bytes), new TextDecoder().decode(want.bytes));
      expectClose(got.probs, want.probs, 1e-6, 1e-4, 'probabilities');
      assert.deepEqual(got.topBytes, Uint8Array.from(want.topTokens));   // a byte model's tokens are bytes
      expectClose(got.topProbs, want.topProbs, 1e-6, 1e-4, 'top-5 probabilities');
    });

  it('streams in chunks exactly as in one call, from an empty and from a long prompt', async () => {
    for (const prompt of [new Uint8Array(0), enc.encode('O Romeo, Romeo! wherefore art thou Romeo? Deny thy father.')]) {
      const whole = cpu.generate(prompt, 40, { temperature: 1, seed: 21 });
      await g.beginGeneration(prompt, { temperature: 1, seed: 21 });
      const parts = [await g.generateNext(1), await g.generateNext(17), await g.generateNext(22)];
      const bytes = Uint8Array.from(parts.flatMap((p) => [...p.bytes]));
      assert.deepEqual(bytes, whole.bytes);
    }
  });

  it('a model wider than decode_layer serves (n_embd 272): five dispatches per block, the wasm build\'s bytes', async () => {
    const wide = { ...TINY, n_layer: 1, n_embd: 272, n_head: 2 };
    const c = new M.Session(wide);
    c.setCorpus(shakespeare);
    const h = new M.Session(wide);
    h.setCorpus(shakespeare);
    const w = await WebGpuSession.create(M, h, { device: await sharedDevice() });
    assert.equal(w.plan.programs.decode.length, 1 + 5 + 1);
    for (const options of [{ temperature: 0 }, { temperature: 1, seed: 4 }]) {
      const want = c.generate(enc.encode('To be'), 20, options);
      const got = await w.generate(enc.encode('To be'), 20, options);
      assert.deepEqual(got.bytes, want.bytes);
      expectClose(got.probs, want.probs, 1e-6, 1e-4, 'probabilities');
    }
    w.destroy();
    c.delete();
    h.delete();
  });

  it('refuses what the wasm build refuses', async () => {
    await assert.rejects(g.beginGeneration(enc.encode('x'), { topP: 0 }), /top-p/);
    await assert.rejects(g.beginGeneration(enc.encode('x'), { windowKeep: 17 }), /window_keep/);
    await assert.rejects(g.inspect(new Uint8Array(0)), /at least one byte/);
  });
});
