// GGUF export (core/src/export_gguf.cpp) in llama.cpp, through node-llama-cpp 3.21.1 (its CPU build):
// the file loads as a gpt2 model, its tokenizer gives the prompt's bytes as the ids, and its greedy
// continuation of 50 tokens is the core's (Session.generate at temperature 0). llama.cpp computes
// GELU through an fp16 table, so its logits differ from the core's by ~5e-3: a continuation may
// part from the core's only where the core's two likeliest tokens are that close (then everything
// after differs). f32 and f16 must agree within 0.02 and 0.05 logits of a tie, q8_0 within 0.1.
// A model with a head of its own and no bias (its output.weight transposed) works too; one with a
// head bias is refused (llama.cpp's gpt2 has none).
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, before, after } from 'node:test';

import { getLlama } from 'node-llama-cpp';

import { loadModule, runCli, shakespeare, tmpPath } from './helpers.mjs';

const GPT2_LAYOUT = {
  model: 'gpt', tie_weights: 1, n_layer: 2, n_head: 4, n_embd: 64, block_size: 64, batch_size: 16, max_iters: 300,
  warmup_iters: 10, learning_rate: 1e-2, min_lr: 1e-3, eval_interval: 0, eval_iters: 1, seed: 11,
};
const PROMPT = 'ROMEO:\nWhat ';
const NEW = 50;
const V = 256;
const enc = new TextEncoder();

// The core's logits gap between its two likeliest tokens after prompt + ours[0..i)
function gapAt(M, s, ours, i) {
  const all = Int32Array.from([...enc.encode(PROMPT), ...ours.slice(0, i + 1)]);
  const logits = M.exportLogits(s, all);
  const row = Array.from(logits.subarray((all.length - 2) * V, (all.length - 1) * V)).sort((a, b) => b - a);
  return row[0] - row[1];
}

async function continuation(llama, bytes, name) {
  const path = tmpPath(name);
  fs.writeFileSync(path, bytes);
  const model = await llama.loadModel({ modelPath: path });
  const ctx = await model.createContext({ contextSize: 64, threads: 1 });
  const prompt = model.tokenize(PROMPT, false);
  const out = [];
  for await (const token of ctx.getSequence().evaluate(prompt, { temperature: 0 })) {
    out.push(token);
    if (out.length === NEW) break;
  }
  await ctx.dispose();
  await model.dispose();
  return { prompt, out };
}

// Equal, or parted first where the core's top two were within `tol` of each other.
function sameOrNearTie(t, M, s, ours, theirs, tol, what) {
  const at = ours.findIndex((b, i) => b !== theirs[i]);
  if (at < 0) {
    t.diagnostic(`${what}: the same ${NEW} tokens`);
    return;
  }
  const gap = gapAt(M, s, ours, at);
  t.diagnostic(`${what}: the same first ${at} tokens; at ${at} the core's top two are ${gap.toFixed(4)} apart`);
  assert.ok(gap < tol, `${what} parts from the core at token ${at}, where the core's top two are ${gap} apart (more than ${tol})`);
}

describe('GGUF export: llama.cpp (node-llama-cpp) against the core', () => {
  let M, s, llama, ours;

  before(async () => {
    M = await loadModule('simd');
    s = new M.Session(GPT2_LAYOUT);
    s.setCorpus(shakespeare.subarray(0, 200_000));
    s.advance(300, 0);
    ours = Array.from(s.generate(enc.encode(PROMPT), NEW, { temperature: 0 }).bytes);
    llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error', maxThreads: 1 });  // one thread: ggml's spin-waiting threads crawl on a busy machine
  });
  after(async () => { await llama?.dispose(); });

  for (const [dtype, tol] of [['f32', 0.02], ['f16', 0.05], ['q8_0', 0.1]]) {
    it(`continues a prompt greedily as the core does, ${dtype}`, async (t) => {
      const [file] = M.exportModel(s, 'gguf', { dtype });
      assert.equal(file.path, `model-${dtype}.gguf`);
      t.diagnostic(`${dtype}: ${file.bytes.length} bytes`);
      const { prompt, out } = await continuation(llama, file.bytes, file.path);
      assert.deepEqual(prompt, Array.from(enc.encode(PROMPT)));  // the 256 byte tokens: ids are bytes
      assert.equal(out.length, NEW);
      sameOrNearTie(t, M, s, ours, out, tol, dtype);
    });
  }

  it('writes f32 as the CLI does', () => {
    const ckpt = tmpPath('gguf.ckpt');
    fs.writeFileSync(ckpt, s.save());
    const out = tmpPath('cli.gguf');
    runCli(['export', '--ckpt', ckpt, '--format', 'gguf', '--dtype', 'f32', '--out', out]);
    assert.deepEqual(new Uint8Array(fs.readFileSync(out)), M.exportModel(s, 'gguf', { dtype: 'f32' })[0].bytes);
  });

  it('exports a head of its own without a bias (output.weight), and refuses a head bias', async (t) => {
    const untied = new M.Session({ ...GPT2_LAYOUT, tie_weights: 0 });
    untied.setCorpus(shakespeare.subarray(0, 200_000));
    untied.advance(100, 0);
    assert.throws(() => M.exportModel(untied, 'gguf', {}), (e) => e.code === 'export.head_bias');
    // the same weights with the bias set to zero, through a model file
    const [st] = M.exportModel(untied, 'safetensors', {});
    const n = Number(new DataView(st.bytes.buffer).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(st.bytes.subarray(8, 8 + n)));
    const [b, e] = header['lm_head.bias'].data_offsets;
    st.bytes.fill(0, 8 + n + b, 8 + n + e);
    const zero = M.sessionFromSafetensors(st.bytes);
    const mine = Array.from(zero.generate(enc.encode(PROMPT), NEW, { temperature: 0 }).bytes);
    const { out } = await continuation(llama, M.exportModel(zero, 'gguf', {})[0].bytes, 'untied.gguf');
    sameOrNearTie(t, M, zero, mine, out, 0.02, 'untied f32');
    untied.delete();
    zero.delete();
  });
});
