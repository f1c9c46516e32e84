// ONNX export (core/src/export_onnx.cpp) against the core: onnxruntime-node runs the exported GPT
// and its logits must be those of the core (exportLogits: the module's forward pass) within 1e-4,
// on awkward sizes (head size 4, 3 heads of a width 12 that is no power of two, a context of 13),
// without past keys/values and with them (the prompt, then one token at a time as a decoder does),
// and with a batch whose second row is left-padded (attention_mask 0) as transformers.js pads.
// The CLI writes the same file (tinygpt export --format onnx). The recurrent models (ONNX's RNN, GRU and
// LSTM ops) give the core's logits from a zero state and with the state carried between calls.
// The seq2seq translator (an encoder and a decoder with past) gives the core's logits and greedy translation.
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

// The translator as two graphs (export.h export_seq2seq): the encoder, which also gives the decoder
// layers' cross-attention keys and values once per source, and the decoder with past keys/values.
// Awkward sizes again (3 heads of 4, d_ff 20, 2 + 3 layers); the logits of a teacher-forced target
// are the core's (exportTranslationLogits) within 1e-4, all at once and one token at a time; greedy
// decoding with the cache translates as the core's own decoder does (Session.translate, beam 1);
// a padded source (PAD tokens, attention_mask 0) in a batch gives its own logits.
describe('ONNX export of the translator (seq2seq): the encoder and the decoder with past against the core', () => {
  const CFG = {
    model: 'seq2seq', n_enc_layer: 2, n_dec_layer: 3, n_head: 3, n_embd: 12, d_ff: 20, block_size: 12, batch_size: 16, max_iters: 300,
    warmup_iters: 10, learning_rate: 5e-3, min_lr: 5e-4, eval_interval: 0, eval_iters: 1, seed: 3,
  };
  const V = 259, BOS = 256, EOS = 257, PAD = 258, HS = 4, Ld = 3;
  const enc = new TextEncoder();
  let M, s, encoder, decoder, files;

  // the decoder's feeds: target tokens (B, T) after the past (the last call's outputs, or none)
  const decoderFeeds = (tokens, encOut, srcMask, past) => {
    const B = tokens.length, T = tokens[0].length;
    const f = { input_ids: int64(tokens.flat(), [B, T]), encoder_attention_mask: srcMask };
    for (let l = 0; l < Ld; l++) {
      for (const kv of ['key', 'value']) {
        f[`past_key_values.${l}.decoder.${kv}`] = past ? past[`present.${l}.decoder.${kv}`] : new ort.Tensor('float32', new Float32Array(0), [B, 3, 0, HS]);
        f[`past_key_values.${l}.encoder.${kv}`] = encOut[`present.${l}.encoder.${kv}`];
      }
    }
    return f;
  };
  const encode = (rows) => encoder.run({
    input_ids: int64(rows.flat(), [rows.length, rows[0].length]),
    attention_mask: int64(rows.flat().map((id) => (id === PAD ? 0 : 1)), [rows.length, rows[0].length]),
  });

  before(async () => {
    M = await loadModule('simd');
    s = new M.Session(CFG);
    s.setCorpus(M.builtinTask('reverse', 1));
    s.advance(300, 0);
    files = M.exportModel(s, 'onnx', {});
    encoder = await ort.InferenceSession.create(files[0].bytes);
    decoder = await ort.InferenceSession.create(files[1].bytes);
  });

  it('is an encoder and a decoder with past, in the Hugging Face (optimum) names', () => {
    assert.deepEqual(files.map((f) => f.path), ['encoder_model.onnx', 'decoder_model.onnx']);
    assert.deepEqual([...encoder.inputNames].sort(), ['attention_mask', 'input_ids']);
    const cross = range(0, Ld).flatMap((l) => [`present.${l}.encoder.key`, `present.${l}.encoder.value`]);
    assert.deepEqual([...encoder.outputNames].sort(), ['last_hidden_state', ...cross].sort());
    const past = range(0, Ld).flatMap((l) => ['decoder', 'encoder'].flatMap((w) => [`past_key_values.${l}.${w}.key`, `past_key_values.${l}.${w}.value`]));
    assert.deepEqual([...decoder.inputNames].sort(), ['encoder_attention_mask', 'input_ids', ...past].sort());
    const present = range(0, Ld).flatMap((l) => [`present.${l}.decoder.key`, `present.${l}.decoder.value`]);
    assert.deepEqual([...decoder.outputNames].sort(), ['logits', ...present].sort());
  });

  it('gives the core\'s logits for a target at once and one token at a time', async (t) => {
    const src = Array.from(enc.encode('abcdefgh'));
    const tgtIn = [BOS, ...Array.from(enc.encode('hgfedcba'))];   // 9 positions
    const core = M.exportTranslationLogits(s, Int32Array.from(src), Int32Array.from(tgtIn));
    const e = await encode([src]);
    assert.deepEqual(e.last_hidden_state.dims, [1, 8, 12]);
    assert.deepEqual(e['present.2.encoder.key'].dims, [1, 3, 8, HS]);
    const mask = int64(new Array(8).fill(1), [1, 8]);
    const whole = await decoder.run(decoderFeeds([tgtIn], e, mask, null));
    assert.deepEqual(whole.logits.dims, [1, 9, V]);
    let worst = maxDiff(core, V, 0, whole.logits.data);
    let out = await decoder.run(decoderFeeds([tgtIn.slice(0, 3)], e, mask, null));
    worst = Math.max(worst, maxDiff(core, V, 0, out.logits.data));
    for (let i = 3; i < 9; i++) {
      out = await decoder.run(decoderFeeds([[tgtIn[i]]], e, mask, out));
      assert.deepEqual(out['present.1.decoder.value'].dims, [1, 3, i + 1, HS]);
      worst = Math.max(worst, maxDiff(core, V, i, out.logits.data));
    }
    t.diagnostic(`seq2seq: max |onnx - core| = ${worst}`);
    assert.ok(worst < TOL, `max |onnx - core| = ${worst}`);
  });

  it('translates greedily as the core does, the encoder run once and the decoder one token at a time', async (t) => {
    for (const source of ['abcdefgh', 'tinygpt', 'xyz']) {
      const src = Array.from(enc.encode(source));
      const ours = s.translate(enc.encode(source), { beam: 1 });
      const e = await encode([src]);
      const mask = int64(new Array(src.length).fill(1), [1, src.length]);
      const theirs = [];
      let out = null, next = BOS;
      for (let step = 0; step < CFG.block_size; step++) {
        out = await decoder.run(decoderFeeds([[next]], e, mask, out));
        const row = out.logits.data;
        next = 0;
        for (let v = 1; v < V; v++) if ((v < BOS || v === EOS) && row[v] > row[next]) next = v;   // text tokens and EOS, as the core
        if (next === EOS || step === CFG.block_size - 1) break;   // the core stops after block_size - 1 tokens
        theirs.push(next);
      }
      assert.deepEqual(theirs, Array.from(ours.tokens), source);
      t.diagnostic(`${source} -> ${JSON.stringify(new TextDecoder().decode(ours.text))} in both`);
    }
  });

  it('masks a padded source: its row of a batch gives the unpadded source\'s logits', async (t) => {
    const long = Array.from(enc.encode('abcdefgh')), short = Array.from(enc.encode('abcde'));
    const tgtIn = [BOS, ...Array.from(enc.encode('edc'))];
    const core = M.exportTranslationLogits(s, Int32Array.from(short), Int32Array.from(tgtIn));
    const rows = [long, [...short, PAD, PAD, PAD]];
    const e = await encode(rows);
    const mask = int64(rows.flat().map((id) => (id === PAD ? 0 : 1)), [2, 8]);
    const out = await decoder.run(decoderFeeds([[BOS, ...Array.from(enc.encode('hgf'))], tgtIn], e, mask, null));
    const d = maxDiff(core, V, 0, out.logits.data.subarray(4 * V));
    t.diagnostic(`seq2seq padded: max |onnx - core| = ${d}`);
    assert.ok(d < TOL, `max |onnx - core| = ${d}`);
  });

  it('is what the CLI writes from the same run\'s checkpoint: a folder of the two graphs', () => {
    const ckpt = tmpPath('s2s.ckpt');
    fs.writeFileSync(ckpt, s.save());
    const dir = `${ckpt}-onnx`;
    runCli(['export', '--ckpt', ckpt, '--format', 'onnx', '--out', dir]);
    for (const f of files) assert.deepEqual(new Uint8Array(fs.readFileSync(`${dir}/${f.path}`)), f.bytes, f.path);
  });
});

// The LSTM translator (export.h export_lstm_seq2seq): the encoder (ONNX LSTMs given each source's
// length) gives its outputs and the decoder's first state; the decoder carries its state from one
// call to the next. 1 encoder layer and 2 decoder layers (the second starts from zeros).
describe('ONNX export of the LSTM translator (lstm_seq2seq): the encoder and the decoder with its state against the core', () => {
  const CFG = {
    model: 'lstm_seq2seq', n_enc_layer: 1, n_dec_layer: 2, n_embd: 12, n_hidden: 20, block_size: 12, batch_size: 16, max_iters: 300,
    warmup_iters: 10, learning_rate: 5e-3, min_lr: 5e-4, eval_interval: 0, eval_iters: 1, seed: 3,
  };
  const V = 259, BOS = 256, EOS = 257, PAD = 258;
  const enc = new TextEncoder();
  let M, s, encoder, decoder, files;
  const mask = (rows) => int64(rows.flat().map((id) => (id === PAD ? 0 : 1)), [rows.length, rows[0].length]);
  const encode = (rows) => encoder.run({ input_ids: int64(rows.flat(), [rows.length, rows[0].length]), attention_mask: mask(rows) });
  const decode = (tokens, e, srcMask, state) => decoder.run({
    input_ids: int64(tokens.flat(), [tokens.length, tokens[0].length]), encoder_hidden_states: e.last_hidden_state,
    encoder_attention_mask: srcMask, h0: state.h0 ?? state.hn, c0: state.c0 ?? state.cn,
  });

  before(async () => {
    M = await loadModule('simd');
    s = new M.Session(CFG);
    s.setCorpus(M.builtinTask('reverse', 1));
    s.advance(300, 0);
    files = M.exportModel(s, 'onnx', {});
    encoder = await ort.InferenceSession.create(files[0].bytes);
    decoder = await ort.InferenceSession.create(files[1].bytes);
  });

  it('is an encoder giving the decoder\'s first state and a decoder with its state in and out', () => {
    assert.deepEqual(files.map((f) => f.path), ['encoder_model.onnx', 'decoder_model.onnx']);
    assert.deepEqual([...encoder.outputNames], ['last_hidden_state', 'h0', 'c0']);
    assert.deepEqual([...decoder.inputNames], ['input_ids', 'encoder_hidden_states', 'encoder_attention_mask', 'h0', 'c0']);
    assert.deepEqual([...decoder.outputNames], ['logits', 'hn', 'cn']);
  });

  it('gives the core\'s logits for a target at once and one token at a time, and for a padded source in a batch', async (t) => {
    const src = Array.from(enc.encode('abcdefgh')), short = Array.from(enc.encode('abcde'));
    const tgtIn = [BOS, ...Array.from(enc.encode('hgfedcba'))];
    const core = M.exportTranslationLogits(s, Int32Array.from(src), Int32Array.from(tgtIn));
    const e = await encode([src]);
    assert.deepEqual(e.h0.dims, [2, 1, 20]);
    const m = mask([src]);
    const whole = await decode([tgtIn], e, m, e);
    let worst = maxDiff(core, V, 0, whole.logits.data);
    let out = await decode([tgtIn.slice(0, 4)], e, m, e);
    worst = Math.max(worst, maxDiff(core, V, 0, out.logits.data));
    for (let i = 4; i < 9; i++) {
      out = await decode([[tgtIn[i]]], e, m, out);
      worst = Math.max(worst, maxDiff(core, V, i, out.logits.data));
    }
    // a batch of the long source and the short one padded: the short row's logits are its own
    const rows = [src, [...short, PAD, PAD, PAD]];
    const shortIn = [BOS, ...Array.from(enc.encode('edc'))];
    const eb = await encode(rows);
    const batch = await decode([tgtIn.slice(0, 4), shortIn], eb, mask(rows), eb);
    const padded = maxDiff(M.exportTranslationLogits(s, Int32Array.from(short), Int32Array.from(shortIn)), V, 0, batch.logits.data.subarray(4 * V));
    t.diagnostic(`lstm_seq2seq: max |onnx - core| = ${worst}; a padded source: ${padded}`);
    assert.ok(worst < TOL && padded < TOL, `max |onnx - core| = ${worst}, padded ${padded}`);
  });

  it('translates greedily as the core does, and is what the CLI writes', async (t) => {
    for (const source of ['abcdefgh', 'tinygpt', 'xyz']) {
      const src = Array.from(enc.encode(source));
      const ours = s.translate(enc.encode(source), { beam: 1 });
      const e = await encode([src]);
      const m = mask([src]);
      const theirs = [];
      let state = e, next = BOS;
      for (let step = 0; step < CFG.block_size; step++) {
        state = await decode([[next]], e, m, state);
        const row = state.logits.data;
        next = 0;
        for (let v = 1; v < V; v++) if ((v < BOS || v === EOS) && row[v] > row[next]) next = v;
        if (next === EOS || step === CFG.block_size - 1) break;
        theirs.push(next);
      }
      assert.deepEqual(theirs, Array.from(ours.tokens), source);
      t.diagnostic(`${source} -> ${JSON.stringify(new TextDecoder().decode(ours.text))} in both`);
    }
    const ckpt = tmpPath('lstm-s2s.ckpt');
    fs.writeFileSync(ckpt, s.save());
    runCli(['export', '--ckpt', ckpt, '--format', 'onnx', '--out', `${ckpt}-onnx`]);
    for (const f of files) assert.deepEqual(new Uint8Array(fs.readFileSync(`${ckpt}-onnx/${f.path}`)), f.bytes, f.path);
  });
});
