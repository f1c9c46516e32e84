// ONNX export (core/src/export_onnx.cpp) against the core: onnxruntime-node runs the exported GPT
// and its logits must be those of the core (exportLogits: the module's forward pass) within 1e-4,
// on awkward sizes (head size 4, 3 heads of a width 12 that is no power of two, a context of 13),
// without past keys/values and with them (the prompt, then one token at a time as a decoder does),
// and with a batch whose second row is left-padded (attention_mask 0) as transformers.js pads.
// The CLI writes the same file (tinygpt export --format onnx). The recurrent models (ONNX's RNN, GRU and
// LSTM ops) give the core's logits from a zero state and with the state carried between calls.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, before } from 'node:test';

import * as ort from 'onnxruntime-node';

import { loadModule, runCli, shakespeare, tmpPath } from './helpers.mjs';

// Awkward sizes: C = 12 split into 3 heads of 4, 3 layers, a context of 13.
const AWKWARD = {
  model: 'gpt', n_layer: 3, n_head: 3, n_embd: 12, block_size: 13, batch_size: 4, max_iters: 40, warmup_iters: 2,
  learning_rate: 3e-3, eval_interval: 0, eval_iters: 1, seed: 7,
};
const TOL = 1e-4;

const int64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);
const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);

// The feeds of one call: tokens (B, T) after P past positions; mask (B, P + T), default all ones.
function feeds(cfg, tokens, past, { mask, positions } = {}) {
  const B = tokens.length, T = tokens[0].length, HS = cfg.n_embd / cfg.n_head;
  const P = past ? past['present.0.key'].dims[2] : 0;
  const f = {
    input_ids: int64(tokens.flat(), [B, T]),
    attention_mask: int64(mask ? mask.flat() : new Array(B * (P + T)).fill(1), [B, P + T]),
    position_ids: int64(positions ? positions.flat() : tokens.flatMap(() => range(P, P + T)), [B, T]),
  };
  for (let l = 0; l < cfg.n_layer; l++)
    for (const kv of ['key', 'value'])
      f[`past_key_values.${l}.${kv}`] = past ? past[`present.${l}.${kv}`] : new ort.Tensor('float32', new Float32Array(0), [B, cfg.n_head, 0, HS]);
  return f;
}

// max |a - b| over the rows [from, from + rows) of the core's (T, V) logits against ORT's rows
function maxDiff(core, V, from, ort_, ortRow = 0) {
  let worst = 0;
  const rows = ort_.length / V;
  for (let r = 0; r < rows; r++)
    for (let v = 0; v < V; v++) worst = Math.max(worst, Math.abs(core[(from + r) * V + v] - ort_[(ortRow + r) * V + v]));
  return worst;
}

describe('ONNX export: onnxruntime-node against the core', () => {
  let M, s, model, V;
  const text = new TextEncoder().encode('To be, or not to be');  // 19 bytes: longer than the context
  const tokens = Array.from(text.subarray(0, 13));

  before(async () => {
    M = await loadModule('simd');
    s = new M.Session(AWKWARD);
    s.setCorpus(shakespeare.subarray(0, 20000));
    s.advance(40, 0);  // trained weights: the head's bias and the LayerNorms are no longer their start values
    const files = M.exportModel(s, 'onnx', {});
    assert.deepEqual(files.map((f) => f.path), ['model.onnx']);
    model = await ort.InferenceSession.create(files[0].bytes);
    V = 256;
  });

  it('declares the inputs and outputs of the Hugging Face GPT-2 layout', () => {
    const past = range(0, 3).flatMap((l) => [`past_key_values.${l}.key`, `past_key_values.${l}.value`]);
    assert.deepEqual([...model.inputNames].sort(), ['attention_mask', 'input_ids', 'position_ids', ...past].sort());
    const present = range(0, 3).flatMap((l) => [`present.${l}.key`, `present.${l}.value`]);
    assert.deepEqual([...model.outputNames].sort(), ['logits', ...present].sort());
  });

  it('gives the core\'s logits for a whole context at once (no past)', async (t) => {
    const out = await model.run(feeds(AWKWARD, [tokens], null));
    assert.deepEqual(out.logits.dims, [1, 13, V]);
    const core = M.exportLogits(s, Int32Array.from(tokens));
    const d = maxDiff(core, V, 0, out.logits.data);
    t.diagnostic(`max |onnx - core| = ${d}`);
    assert.ok(d < TOL, `max |onnx - core| = ${d}`);
    assert.deepEqual(out['present.2.value'].dims, [1, 3, 13, 4]);
  });

  it('gives the core\'s logits with past keys/values: a prompt of 6, then 7 tokens one at a time', async (t) => {
    const core = M.exportLogits(s, Int32Array.from(tokens));
    let out = await model.run(feeds(AWKWARD, [tokens.slice(0, 6)], null));
    let worst = maxDiff(core, V, 0, out.logits.data);
    for (let t = 6; t < 13; t++) {
      out = await model.run(feeds(AWKWARD, [[tokens[t]]], out));
      assert.deepEqual(out.logits.dims, [1, 1, V]);
      assert.deepEqual(out['present.0.key'].dims, [1, 3, t + 1, 4]);
      worst = Math.max(worst, maxDiff(core, V, t, out.logits.data));
    }
    t.diagnostic(`max |onnx - core| = ${worst}`);
    assert.ok(worst < TOL, `max |onnx - core| = ${worst}`);
  });

  it('gives the core\'s logits with a past of 5 and 4 new tokens at once', async (t) => {
    const core = M.exportLogits(s, Int32Array.from(tokens.slice(0, 9)));
    const first = await model.run(feeds(AWKWARD, [tokens.slice(0, 5)], null));
    const out = await model.run(feeds(AWKWARD, [tokens.slice(5, 9)], first));
    const d = Math.max(maxDiff(core, V, 0, first.logits.data), maxDiff(core, V, 5, out.logits.data));
    t.diagnostic(`max |onnx - core| = ${d}`);
    assert.ok(d < TOL, `max |onnx - core| = ${d}`);
  });

  it('masks left padding: a padded row of a batch gives its own sequence\'s logits', async (t) => {
    const short = tokens.slice(0, 9);
    const core = M.exportLogits(s, Int32Array.from(short));
    const padded = [0, 0, 0, 0, ...short];
    const out = await model.run(feeds(AWKWARD, [tokens, padded], null, {
      mask: [new Array(13).fill(1), [0, 0, 0, 0, ...new Array(9).fill(1)]],
      positions: [range(0, 13), [0, 0, 0, 0, ...range(0, 9)]],
    }));
    const rowB = out.logits.data.subarray(13 * V + 4 * V, 2 * 13 * V);  // the second row's real positions
    const d = maxDiff(core, V, 0, rowB);
    t.diagnostic(`max |onnx - core| = ${d}`);
    assert.ok(d < TOL, `max |onnx - core| = ${d}`);
  });

  it('is what the CLI writes from the same run\'s checkpoint', async () => {
    const ckpt = tmpPath('awkward.ckpt');
    fs.writeFileSync(ckpt, s.save());
    const out = tmpPath('model.onnx');
    assert.match(runCli(['export', '--ckpt', ckpt, '--format', 'onnx', '--out', out]), /to .*model\.onnx as onnx \(\d+ bytes\)/);
    const fromCli = new Uint8Array(fs.readFileSync(out));
    assert.deepEqual(fromCli, M.exportModel(s, 'onnx', {})[0].bytes);
  });
});

describe('ONNX export of the recurrent models: onnxruntime-node against the core', () => {
  let M;
  before(async () => { M = await loadModule('simd'); });
  const tokens = Array.from(new TextEncoder().encode('To be, or not to'));  // 16 bytes: the window

  for (const kind of ['rnn', 'gru', 'lstm']) {
    it(`${kind}: the core's logits from a zero state, and with the state carried from one call to the next`, async (t) => {
      const L = 2, H = 20, V = 256;
      const s = new M.Session({ model: kind, n_layer: L, n_embd: 12, n_hidden: H, block_size: 16, batch_size: 4, max_iters: 30,
        warmup_iters: 2, learning_rate: 3e-3, eval_interval: 0, eval_iters: 1, seed: 5 });
      s.setCorpus(shakespeare.subarray(0, 20000));
      s.advance(30, 0);
      const model = await ort.InferenceSession.create(M.exportModel(s, 'onnx', {})[0].bytes);
      const zeros = new ort.Tensor('float32', new Float32Array(L * H), [L, 1, H]);
      const run = (ids, h, c) => model.run({ input_ids: int64(ids, [1, ids.length]), h0: h, ...(kind === 'lstm' ? { c0: c } : {}) });
      const core = M.exportLogits(s, Int32Array.from(tokens));
      const whole = await run(tokens, zeros, zeros);
      const first = await run(tokens.slice(0, 7), zeros, zeros);
      const second = await run(tokens.slice(7), first.hn, first.cn);
      assert.deepEqual(first.hn.dims, [L, 1, H]);
      const d = Math.max(maxDiff(core, V, 0, whole.logits.data), maxDiff(core, V, 0, first.logits.data), maxDiff(core, V, 7, second.logits.data));
      t.diagnostic(`${kind}: max |onnx - core| = ${d}`);
      assert.ok(d < TOL, `max |onnx - core| = ${d}`);
      s.delete();
    });
  }
});
