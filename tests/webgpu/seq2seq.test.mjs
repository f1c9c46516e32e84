// The encoder-decoder (seq2seq) on WebGPU: its kernels against the core's scalar reference
// (kernels::ref::mha_forward / mha_backward, crossentropy_ignore, relu; tests/webgpu/ref_module.cpp)
// on awkward shapes, then the core's seq2seq plan against the wasm CPU trainer: 10 training steps
// (losses within 1e-4 relative), evaluation, and checkpoints both ways. Tiny shapes: SwiftShader
// does ~0.1 GFLOP/s.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { GpuBackendError } from '../../web/src/features/webgpu/errors.ts';
import { GpuExecutor } from '../../web/src/features/webgpu/executor.ts';
import { parsePlan } from '../../web/src/features/webgpu/plan.ts';
import { WebGpuSession } from '../../web/src/features/webgpu/session.ts';
import { expectClose, loadRef, loadWasm, nodeGpu, randoms, runKernel, sharedDevice, trainSteps } from './helpers.mjs';

let ref, M, device;
before(async () => {
  ref = await loadRef();
  M = await loadWasm('simd');
  device = await sharedDevice();
});

const gpu = (kernel, args, dims, HS = 1) => runKernel(device, kernel, args, dims, [], HS);

const PAD = 258;
// key tokens (B, Tk): right padding of a different length per row (row 0 none; one row all padding
// when allPad), the rest arbitrary non-pad tokens
function keyTokens(B, Tk, seed, allPad = false) {
  const t = new Uint32Array(B * Tk);
  for (let b = 0; b < B; b++) {
    const real = allPad && b === B - 1 ? 0 : Math.max(1, Tk - ((b * 3 + seed) % Math.max(Tk, 1)));
    for (let j = 0; j < Tk; j++) t[b * Tk + j] = j < (b === 0 ? Tk : real) ? (j * 7 + b + seed) % 256 : PAD;
  }
  return t;
}

describe('seq2seq kernels against the core\'s reference', () => {
  // [B, Tq, Tk, C, NH, causal, self]: self-attention reads q, k, v from one qkv region (row 3C)
  const cases = [
    [1, 1, 1, 4, 1, false, true],
    [2, 5, 5, 8, 2, true, true],
    [3, 17, 17, 12, 3, false, true],
    [2, 70, 70, 8, 2, true, true], // two query tiles
    [2, 7, 5, 8, 2, false, false], // cross-attention: Tq != Tk
    [3, 66, 9, 16, 4, false, false],
    [2, 3, 130, 6, 2, false, false],
  ];
  for (const [B, Tq, Tk, C, NH, causal, self] of cases)
    it(`masked attention B=${B} Tq=${Tq} Tk=${Tk} C=${C} NH=${NH}${causal ? ' causal' : ''}${self ? ' self' : ' cross'}: forward, weights, backward`, async () => {
      const HS = C / NH;
      const tokens = keyTokens(B, Tk, Tq, !self && B > 2); // a cross row with no real key: zeros, no NaN
      const pad = Int32Array.from(tokens, (t) => (t === PAD ? 1 : 0));
      const dout = randoms(B * Tq * C, 7 + Tq, 1);
      let q, kv, qRow, qOff, kvRow, kOff, vOff;
      if (self) {
        q = kv = randoms(B * Tq * 3 * C, 3 + C, 1.5);
        [qRow, qOff, kvRow, kOff, vOff] = [3 * C, 0, 3 * C, C, 2 * C];
      } else {
        q = randoms(B * Tq * C, 3 + C, 1.5);
        kv = randoms(B * Tk * 2 * C, 5 + Tk, 1.5);
        [qRow, qOff, kvRow, kOff, vOff] = [C, 0, 2 * C, 0, C];
      }
      const r = ref.mha(q, kv, pad, dout, B, Tq, Tk, C, NH, qRow, qOff, kvRow, kOff, vOff, causal);
      const dims = [B, Tq, Tk, C, NH, qRow, qOff, kvRow, kOff, vOff, causal ? 1 : 0, PAD];
      const [out, lse] = await gpu('attention_masked_forward', [B * Tq * C, B * NH * Tq, q, kv, tokens], dims, HS);
      expectClose(out, r.out, 1e-5, 1e-4, 'out');
      const [att] = await gpu('attention_masked_probs', [B * NH * Tq * Tk, q, kv, lse, tokens], dims, HS);
      expectClose(att, r.att, 1e-6, 1e-4, 'attention weights');
      if (self) {
        // dq into the one dqkv region at column 0 (no dq argument), dk and dv at C and 2C
        const [, dqkv] = await gpu('attention_masked_backward', [null, B * Tq * 3 * C, dout, out, q, kv, lse, tokens],
          [...dims, 3 * C, 0, 3 * C, C, 2 * C, 0], HS);
        expectClose(dqkv, r.dq.map((v, i) => v + r.dkv[i]), 1e-5, 1e-4, 'dqkv');
      } else {
        const [dq, dkv] = await gpu('attention_masked_backward', [B * Tq * C, B * Tk * 2 * C, dout, out, q, kv, lse, tokens],
          [...dims, C, 0, 2 * C, 0, C, 1], HS);
        expectClose(dq, r.dq, 1e-5, 1e-4, 'dq');
        expectClose(dkv, r.dkv, 1e-5, 1e-4, 'dk, dv');
      }
    });

  it('cross-entropy ignores padding targets: per-row losses scaled to the counted mean, and its gradient', async () => {
    for (const [N, V, ignored] of [[1, 1, []], [7, 259, [2, 5]], [40, 300, [0, 1, 2, 39]], [3, 5, [0, 1, 2]]]) {
      const logits = randoms(N * V, N + V, 4);
      const targets = Int32Array.from({ length: N }, (_, i) => (ignored.includes(i) ? -1 : (i * 31) % V));
      const r = ref.crossentropy_ignore(logits, targets, N, V);
      const counted = N - ignored.length;
      const [, losses] = await gpu('crossentropy_masked', [logits.slice(), N, new Uint32Array(targets.buffer)], [N, V, 0]);
      expectClose(losses, r.losses.map((l) => (counted ? l * N / counted : 0)), 1e-5, 1e-5, `losses N=${N} V=${V}`);
      const mean = losses.reduce((s, l) => s + l, 0) / N;
      assert.ok(Math.abs(mean - r.mean) <= 1e-5 * Math.max(1, r.mean), `mean ${mean} vs ${r.mean}`);
      const [dz] = await gpu('crossentropy_masked', [logits.slice(), N, new Uint32Array(targets.buffer)], [N, V, 1]);
      expectClose(dz, r.dlogits, 1e-7, 1e-4, `dlogits N=${N} V=${V}`);
    }
  });

  it('fuses ReLU into matmul (forward) and linear_backward (backward, accumulating the input gradient)', async () => {
    for (const [R, I, O] of [[1, 1, 1], [9, 70, 13], [67, 33, 17]]) {
      const A = randoms(R * I, R + 1, 2), W = randoms(I * O, O + 2, 2), bias = randoms(O, 3);
      const pre = ref.sgemm(false, false, R, O, I, A, W, new Float32Array(R * O), false).map((p, i) => Math.fround(p + bias[i % O]));
      const [out, , , , , aux] = await gpu('matmul', [R * O, A, W, bias, null, R * O, null], [R, O, I, 0, 0, 0, 3, 1, 0, 1, 0]);
      expectClose(aux, pre, 1e-5, 1e-4, 'pre-activation');
      expectClose(out, ref.relu_forward(pre), 1e-5, 1e-4, 'relu');
      // a linear layer y (R, O) = h (R, I) @ W (I, O) whose input h = relu(.): dh = (dy @ W^T) * (h > 0), added to dh0
      const h = ref.relu_forward(randoms(R * I, R + 5, 2)), dy = randoms(R * O, O + 6), dh0 = randoms(R * I, 8);
      const [dh, , , , dW] = await gpu('linear_backward', [dh0, dy, W, h, I * O, h, null], [R, I, O, 3, 0, 1]);
      const prod = ref.sgemm(false, true, R, I, O, dy, W, new Float32Array(R * I), false);
      expectClose(dh, ref.relu_backward(dh0, h, prod), 1e-5, 1e-4, 'dinp += relu backward');
      expectClose(dW, ref.sgemm(true, false, I, O, R, h, dy, new Float32Array(I * O), false), 1e-5, 1e-4, 'dweight');
    }
  });
});

// a tiny translator on the built-in reverse task (sources of up to 8 letters)
const TINY = { model: 'seq2seq', n_enc_layer: 2, n_dec_layer: 2, n_head: 2, n_embd: 16, d_ff: 32, block_size: 9,
  batch_size: 4, max_iters: 40, warmup_iters: 3, learning_rate: 3e-3, seed: 5, eval_iters: 2, eval_interval: 0 };

function session(config = TINY) {
  const s = new M.Session(config);
  s.setCorpus(M.builtinTask('reverse', 1));
  return s;
}
const relErr = (a, b) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);

describe('seq2seq training on the GPU', () => {
  let cpuLosses, cpuCheckpointAt5, cpuEval;
  before(() => {
    const cpu = session();
    const first = cpu.advance(5, 0);
    cpuCheckpointAt5 = cpu.save();
    cpuLosses = [...first.losses, ...cpu.advance(5, 0).losses];
    cpuEval = cpu.evaluate();
    cpu.delete();
  });

  it('has a plan of the encoder-decoder: batches of src, tgt_in, targets, and the core\'s sinusoidal table', (t) => {
    const s = session();
    const plan = parsePlan(M.gpuPlan(s, true, true));
    assert.equal(plan.kind, 'seq2seq');
    assert.deepEqual(plan.batchInputs, ['src', 'tgt_in', 'targets']);
    assert.equal(plan.numParams, s.numParameters());
    assert.equal(plan.io.src[2], TINY.batch_size * plan.srcLen);
    assert.equal(plan.io.targets[2], TINY.batch_size * plan.tgtLen);
    const pe = new Float32Array(new Uint32Array(plan.constants.pe).buffer);
    assert.equal(pe.length, TINY.block_size * TINY.n_embd);
    assert.equal(pe[1], 1); // cos(0)
    assert.ok(Math.abs(pe[TINY.n_embd] - Math.sin(1)) < 1e-7); // position 1, channel 0
    t.diagnostic(`seq2seq dispatches per training step: ${plan.programs.train.length}, per evaluation batch: ${plan.programs.eval.length}`);
    s.delete();
  });

  it('follows the wasm build\'s losses for 10 steps within 1e-4 relative, and evaluates alike', async (t) => {
    const host = session();
    const g = await WebGpuSession.create(M, host, { device });
    const a = trainSteps(M, host, g, 4), b = trainSteps(M, host, g, 6);
    const losses = [...(await a).losses, ...(await b).losses];
    let worst = 0;
    losses.forEach((l, i) => {
      const e = relErr(l, cpuLosses[i]);
      worst = Math.max(worst, e);
      assert.ok(e < 1e-4, `step ${i}: GPU ${l}, wasm ${cpuLosses[i]} (relative ${e})`);
    });
    assert.equal(host.step(), 10);
    t.diagnostic(`seq2seq: max relative loss difference GPU vs wasm over 10 steps: ${worst.toExponential(2)}`);
    const ev = await g.evaluate();
    assert.ok(relErr(ev, cpuEval) < 1e-4, `evaluation: GPU ${ev}, wasm ${cpuEval}`);
    g.destroy();
    host.delete();
  });

  it('sizes batches by the pairs, not by block_size, and plans again when new pairs are longer', async (t) => {
    // block_size 24: the reverse task's pairs (sources of up to 8 letters) train as 8 + 16 tokens, not 24 + 24
    const wide = { ...TINY, block_size: 24 };
    const cpu = session(wide), host = session(wide);
    const g = await WebGpuSession.create(M, host, { device });
    assert.deepEqual([g.plan.srcLen, g.plan.tgtLen], [8, 16]);
    assert.deepEqual([...M.gpuBatchLengths(host)], [8, 16]);
    const want = [...cpu.advance(3, 0).losses];
    const got = [...(await trainSteps(M, host, g, 3)).losses];
    // then pairs of 13 to 20 letters, in both: the GPU brings its state back, plans 24 + 24 and goes on
    let tsv = '';
    for (let i = 0; i < 40; i++) {
      let w = '';
      for (let k = 0; k < 13 + (i % 8); k++) w += String.fromCharCode(97 + ((i * 5 + k * 3) % 26));
      tsv += `${w}\t${[...w].reverse().join('')}\n`;
    }
    const longer = new TextEncoder().encode(tsv);
    cpu.setCorpus(longer);
    host.setCorpus(longer);
    want.push(...cpu.advance(3, 0).losses);
    got.push(...(await trainSteps(M, host, g, 3)).losses);
    assert.deepEqual([g.plan.srcLen, g.plan.tgtLen], [24, 24]);
    let worst = 0;
    got.forEach((l, i) => {
      worst = Math.max(worst, relErr(l, want[i]));
      assert.ok(relErr(l, want[i]) < 1e-4, `step ${i}: GPU ${l}, wasm ${want[i]}`);
    });
    assert.equal(host.step(), 6);
    t.diagnostic(`pairs-sized batches: max relative loss difference over 6 steps (a new plan after 3): ${worst.toExponential(2)}`);
    g.destroy();
    host.delete();
    cpu.delete();
  });

  it('saves a checkpoint the wasm build continues (GPU -> wasm), with the same logits', async () => {
    const host = session();
    const g = await WebGpuSession.create(M, host, { device });
    await trainSteps(M, host, g, 5);
    const bytes = await g.save();
    g.destroy();
    const cpu = session();
    cpu.load(bytes);
    assert.equal(cpu.step(), 5);
    // the same model: the next-token probabilities of a pair read by the GPU-trained parameters and by
    // the CPU-trained ones agree to rounding, and greedy translation gives the same tokens
    const ref5 = session();
    ref5.load(cpuCheckpointAt5);
    const enc = new TextEncoder();
    const [p, q] = [cpu, ref5].map((s) => s.inspectTranslation(enc.encode('abcdef'), enc.encode('fedcba')).probs);
    expectClose(p, q, 1e-4, 1e-3, 'next-token probabilities, GPU-trained vs CPU-trained');
    assert.deepEqual([...cpu.translate(enc.encode('abcdef'), {}).tokens], [...ref5.translate(enc.encode('abcdef'), {}).tokens]);
    const { losses } = cpu.advance(5, 0);
    losses.forEach((l, i) => assert.ok(relErr(l, cpuLosses[5 + i]) < 1e-4, `step ${5 + i}: ${l} vs ${cpuLosses[5 + i]}`));
    [host, cpu, ref5].forEach((s) => s.delete());
  });

  it('continues a checkpoint of the wasm build (wasm -> GPU)', async () => {
    const host = session();
    const g = await WebGpuSession.create(M, host, { device });
    await g.load(cpuCheckpointAt5);
    assert.equal(host.step(), 5);
    const { losses } = await trainSteps(M, host, g, 5);
    losses.forEach((l, i) => assert.ok(relErr(l, cpuLosses[5 + i]) < 1e-4, `step ${5 + i}: ${l} vs ${cpuLosses[5 + i]}`));
    g.destroy();
    host.delete();
  });
});

describe('seq2seq translation on the GPU', () => {
  it('translates greedily as the CPU does, with the cross-attention weights the CPU computes', async (t) => {
    const host = session({ ...TINY, learning_rate: 1e-2 });
    const g = await WebGpuSession.create(M, host, { device });
    await trainSteps(M, host, g, 10);
    const enc = new TextEncoder();
    const sources = ['abc', 'hello', 'zyxwvuts'];
    const onGpu = [];
    for (const src of sources) onGpu.push(await g.translate(enc.encode(src)));
    // on the KV cache (the default) and over the whole prefix each step: the same picks and maps
    g.translateCache = false;
    const full = await g.translate(enc.encode('hello'));
    g.translateCache = true;
    assert.deepEqual([...full.tokens], [...onGpu[1].tokens], 'with and without the KV cache');
    expectClose(full.cross.weights, onGpu[1].cross.weights, 1e-6, 1e-4, 'cross-attention with and without the KV cache');
    await g.sync(); // the host's parameters are the GPU's
    let worstP = 0, worstA = 0;
    sources.forEach((src, k) => {
      const cpu = host.translate(enc.encode(src), {});
      const gt = onGpu[k];
      assert.deepEqual([...gt.tokens], [...cpu.tokens], `"${src}": GPU and CPU pick the same tokens`);
      assert.equal(gt.finished, cpu.finished);
      assert.equal(gt.probs.length, cpu.probs.length);
      gt.probs.forEach((p, i) => { worstP = Math.max(worstP, Math.abs(p - cpu.probs[i])); });
      assert.ok(Math.abs(gt.logProb - cpu.logProb) < 1e-3 * Math.max(1, Math.abs(cpu.logProb)), `log p ${gt.logProb} vs ${cpu.logProb}`);
      // the cross-attention weights of the output as the CPU reads the pair (teacher forcing: the same decoder inputs)
      const ins = host.inspectTranslation(enc.encode(src), cpu.text);
      const { Ld, NH, rows, S } = gt.cross;
      assert.equal(S, ins.S);
      const n = Math.min(rows, ins.T);
      for (let l = 0; l < Ld; l++)
        for (let h = 0; h < NH; h++)
          for (let i = 0; i < n; i++)
            for (let j = 0; j < S; j++) {
              const a = gt.cross.weights[((l * NH + h) * rows + i) * S + j], b = ins.cross[((l * NH + h) * ins.T + i) * S + j];
              worstA = Math.max(worstA, Math.abs(a - b));
            }
    });
    t.diagnostic(`greedy translation GPU vs CPU: max |p| difference ${worstP.toExponential(2)}, cross-attention ${worstA.toExponential(2)}`);
    assert.ok(worstP < 1e-4, `probabilities differ by ${worstP}`);
    assert.ok(worstA < 1e-4, `cross-attention weights differ by ${worstA}`);
    await assert.rejects(g.translate(new Uint8Array(0)), /empty/);
    g.destroy();
    host.delete();
  });

  it('searches a beam with the GPU\'s decoder as the CPU does (sample::BeamSearch on the host)', async (t) => {
    const host = session({ ...TINY, learning_rate: 1e-2 });
    const g = await WebGpuSession.create(M, host, { device });
    await trainSteps(M, host, g, 10);
    const enc = new TextEncoder();
    // up to kBeamRows (8) rows decode with the KV cache; a wider beam runs each row's history again
    const rows = g.plan.io['translate.beam.tokens'][2];
    assert.equal(rows, 8);
    const cases = [['abc', 3, 1], ['hello', 2, 0], ['zyxw', 4, 1], ['abcdefg', rows, 1], ['abcdefg', rows + 1, 1]];
    const onGpu = [];
    for (const [src, beam, alpha] of cases) onGpu.push(await g.beamTranslate(enc.encode(src), beam, 0, alpha));
    // the cache off: the same search without it
    g.translateCache = false;
    const full = await g.beamTranslate(enc.encode('zyxw'), 4, 0, 1);
    g.translateCache = true;
    assert.deepEqual([...full.tokens], [...onGpu[2].tokens], 'with and without the KV cache');
    await g.sync();
    let worstP = 0;
    cases.forEach(([src, beam, alpha], k) => {
      const cpu = host.translate(enc.encode(src), { beam, lengthPenalty: alpha });
      const gt = onGpu[k];
      assert.deepEqual([...gt.tokens], [...cpu.tokens], `"${src}" beam ${beam}: GPU and CPU find the same output`);
      assert.equal(gt.finished, cpu.finished);
      assert.equal(gt.probs.length, cpu.probs.length);
      gt.probs.forEach((p, i) => { worstP = Math.max(worstP, Math.abs(p - cpu.probs[i])); });
      assert.ok(Math.abs(gt.logProb - cpu.logProb) < 1e-3 * Math.max(1, Math.abs(cpu.logProb)), `log p ${gt.logProb} vs ${cpu.logProb}`);
    });
    t.diagnostic(`beam search GPU vs CPU: max |p| difference ${worstP.toExponential(2)}`);
    assert.ok(worstP < 1e-4, `probabilities differ by ${worstP}`);
    // the CPU's errors, before anything runs
    await assert.rejects(g.beamTranslate(new Uint8Array(0), 3), /empty/);
    await assert.rejects(g.beamTranslate(enc.encode('abc'), 100), /beam width/);
    g.destroy();
    host.delete();
  });

  it('samples the CPU\'s translation for the same options and seed, the decoder on the GPU', async (t) => {
    const host = session();
    const g = await WebGpuSession.create(M, host, { device });
    await trainSteps(M, host, g, 10);
    const enc = new TextEncoder();
    // [source, temperature, topK, seed]: hot enough that the draws matter
    const cases = [['abc', 1.5, 0, 1], ['hello', 2, 5, 2], ['zyxw', 1, 0, 3], ['abc', 3, 0, 4]];
    const onGpu = [];
    for (const [src, temperature, topK, seed] of cases) onGpu.push(await g.sampledTranslate(enc.encode(src), { temperature, topK, seed }));
    await g.sync();
    let worstP = 0, differ = 0;
    cases.forEach(([src, temperature, topK, seed], k) => {
      const cpu = host.translate(enc.encode(src), { temperature, topK, seed });
      const gt = onGpu[k];
      assert.deepEqual([...gt.tokens], [...cpu.tokens], `"${src}" at temperature ${temperature}, seed ${seed}: GPU and CPU draw the same output`);
      assert.equal(gt.finished, cpu.finished);
      assert.equal(gt.probs.length, cpu.probs.length);
      gt.probs.forEach((p, i) => { worstP = Math.max(worstP, Math.abs(p - cpu.probs[i])); });
      assert.ok(Math.abs(gt.logProb - cpu.logProb) < 1e-3 * Math.max(1, Math.abs(cpu.logProb)), `log p ${gt.logProb} vs ${cpu.logProb}`);
      differ += [...cpu.tokens].join() !== [...host.translate(enc.encode(src), {}).tokens].join();
    });
    t.diagnostic(`sampled translation GPU vs CPU: max |p| difference ${worstP.toExponential(2)}; ${differ} of ${cases.length} differ from greedy`);
    assert.ok(worstP < 1e-4, `probabilities differ by ${worstP}`);
    assert.ok(differ > 0, 'the draws changed some output (else the test would not see the sampler)');
    // the CPU's errors, before anything runs
    await assert.rejects(g.sampledTranslate(enc.encode('abc'), { temperature: 1, beam: 3 }), /exclude each other/);
    await assert.rejects(g.sampledTranslate(enc.encode('abc'), { temperature: 1, topK: 10000 }), /top-k/);
    await assert.rejects(g.sampledTranslate(new Uint8Array(0), { temperature: 1 }), /empty/);
    g.destroy();
    host.delete();
  });
});

describe('a pair read by the translator on the GPU (the alignment panel\'s maps)', () => {
  it('gives every attention map and the next-token probabilities the CPU gives', async (t) => {
    const host = session();
    const g = await WebGpuSession.create(M, host, { device });
    await trainSteps(M, host, g, 3);
    const enc = new TextEncoder();
    const pairs = [['abcdef', 'fedcba'], ['q', ''], ['hello', 'olleh']];
    const onGpu = [];
    for (const [a, b] of pairs) onGpu.push(await g.inspectTranslation(enc.encode(a), enc.encode(b)));
    await g.sync();
    let worst = 0;
    pairs.forEach(([a, b], k) => {
      const cpu = host.inspectTranslation(enc.encode(a), enc.encode(b)), gp = onGpu[k];
      for (const key of ['S', 'T', 'Le', 'Ld', 'NH']) assert.equal(gp[key], cpu[key], key);
      assert.deepEqual([...gp.src], [...cpu.src]);
      assert.deepEqual([...gp.tgtIn], [...cpu.tgtIn]);
      for (const key of ['encSelf', 'decSelf', 'cross', 'probs']) {
        expectClose(gp[key], cpu[key], 1e-5, 1e-3, `${a} -> ${b}: ${key}`);
        gp[key].forEach((v, i) => { worst = Math.max(worst, Math.abs(v - cpu[key][i])); });
      }
    });
    t.diagnostic(`pair inspection GPU vs CPU: max absolute difference ${worst.toExponential(2)}`);
    await assert.rejects(g.inspectTranslation(new Uint8Array(0), enc.encode('x')), /source/);
    g.destroy();
    host.delete();
  });
});

describe('a translator\'s fallback to the CPU (the GPT\'s typed errors)', () => {
  it('no adapter: unavailable; a lost device: device-lost on the next call, translation included; the last checkpoint continues on the CPU', async () => {
    const plan = parsePlan(M.gpuPlan(session(), true, true));
    await assert.rejects(GpuExecutor.create(plan, { gpu: { requestAdapter: async () => null } }),
      (e) => e instanceof GpuBackendError && e.kind === 'unavailable');
    const host = session();
    const g = await WebGpuSession.create(M, host, { gpu: await nodeGpu() }); // a device of its own
    await trainSteps(M, host, g, 1);
    const autosave = await g.save();
    g.executor.device.destroy();
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(trainSteps(M, host, g, 1), (e) => e instanceof GpuBackendError && e.kind === 'device-lost');
    await assert.rejects(g.translate(new TextEncoder().encode('abc')), (e) => e instanceof GpuBackendError && e.kind === 'device-lost');
    const cpu = session();
    cpu.load(autosave);
    assert.equal(cpu.step(), 1);
    assert.ok(Number.isFinite(cpu.advance(1, 0).losses[0]));
    cpu.delete();
    host.delete();
  });
});
