// Every WGSL kernel against the core's scalar reference (tests/webgpu/ref_module.cpp: kernels::ref,
// the ops, optimizer, schedule and sampler) on awkward sizes, on whatever adapter Dawn finds
// (SwiftShader on the CPU in CI). Run: npm run test:webgpu
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { expectClose, loadRef, nodeAdapter, randoms, runKernel } from './helpers.mjs';

let ref, device;
before(async () => {
  ref = await loadRef();
  const adapter = await nodeAdapter();
  device = await adapter.requestDevice();
});

// Runs one kernel on the shared device; returns every argument's contents afterwards.
const gpu = (kernel, args, dims, scalars = [], HS = 1) => runKernel(device, kernel, args, dims, scalars, HS);

const f = Math.fround;

describe('GEMM', () => {
  const shapes = [[1, 1, 1], [5, 7, 3], [67, 33, 17], [64, 64, 16], [65, 130, 31]];
  for (const [ta, tb] of [[0, 0], [0, 1], [1, 0], [1, 1]])
    for (const [M, N, K] of shapes)
      it(`matmul transA=${ta} transB=${tb} ${M}x${N}x${K} with bias, residual and accumulation`, async () => {
        const A = randoms(M * K, 1 + M), B = randoms(K * N, 2 + N), bias = randoms(N, 3), res = randoms(M * N, 4);
        const C0 = randoms(M * N, 5);
        const prod = ref.sgemm(!!ta, !!tb, M, N, K, A, B, new Float32Array(M * N), false);
        // plain
        let [out] = await gpu('matmul', [M * N, A, B, null, null, null, null], [M, N, K, ta, tb, 0, 0, 0, 0, 0, 0]);
        expectClose(out, prod, 1e-5, 1e-4, 'op(A) @ op(B)');
        // + bias + residual, accumulated into C0
        [out] = await gpu('matmul', [C0, A, B, bias, res, null, null], [M, N, K, ta, tb, 1, 0, 1, 1, 0, 0]);
        const want = prod.map((p, i) => f(C0[i] + f(res[i] + f(p + bias[i % N]))));
        expectClose(out, want, 1e-5, 1e-4, 'out + res + A @ B + bias');
      });

  it('fuses GELU into the epilogue, forward (keeping the input) and backward', async () => {
    const M = 9, N = 70, K = 13;
    const A = randoms(M * K, 11, 2), B = randoms(K * N, 12, 2), bias = randoms(N, 13);
    const pre = ref.sgemm(false, false, M, N, K, A, B, new Float32Array(M * N), false).map((p, i) => f(p + bias[i % N]));
    const [out, , , , , aux] = await gpu('matmul', [M * N, A, B, bias, null, M * N, null], [M, N, K, 0, 0, 0, 1, 1, 0, 1, 0]);
    expectClose(aux, pre, 1e-5, 1e-4, 'pre-activation');
    expectClose(out, ref.gelu_forward(pre), 1e-5, 1e-4, 'gelu');
    const x = randoms(M * N, 14, 6); // GELU inputs, tails included
    const prod = ref.sgemm(false, true, M, N, K, A, randoms(N * K, 15), new Float32Array(M * N), false);
    const [dx] = await gpu('matmul', [M * N, A, randoms(N * K, 15), null, null, x, null], [M, N, K, 0, 1, 0, 2, 0, 0, 1, 0]);
    expectClose(dx, ref.gelu_backward(x, prod), 1e-5, 1e-4, 'gelu backward');
  });

  it('sums the bias gradient beside the weight gradient (dbias = column sums of op(B))', async () => {
    for (const [M, N, K, tb] of [[1, 1, 1, 0], [3, 5, 7, 0], [70, 40, 77, 0], [9, 130, 33, 1]]) {
      const A = randoms(K * M, M + N), B = randoms(K * N, K);
      const [out, , , , , , db] = await gpu('matmul', [M * N, A, B, null, null, null, N], [M, N, K, 1, tb, 0, 0, 0, 0, 0, 1]);
      expectClose(out, ref.sgemm(true, !!tb, M, N, K, A, B, new Float32Array(M * N), false), 1e-5, 1e-4, 'dweight');
      const opB = tb ? Float32Array.from({ length: K * N }, (_, i) => B[(i % N) * K + Math.floor(i / N)]) : B;
      expectClose(db, ref.matmul_backward_dbias(opB, K, N), 1e-5, 1e-4, `dbias ${K}x${N}`);
    }
  });
});

describe('a LayerNorm in the GEMM\'s prologue (matmul_ln)', () => {
  for (const [M, N, K] of [[1, 1, 1], [5, 7, 3], [70, 33, 65], [64, 130, 17]])
    for (const gelu of [0, 1])
      it(`out = LN(x) @ W + b${gelu ? ', then GELU keeping the pre-activation' : ''}, M=${M} N=${N} K=${K}; stores LN(x), mean and rstd`, async () => {
        const x = randoms(M * K, M + K, 3), W = randoms(K * N, N), b = randoms(N, 3), lw = randoms(K, 4), lb = randoms(K, 5);
        // the parameters at offsets of one binding, as the plan lays them out
        const at = { W: 64, b: 64 + Math.ceil(K * N / 64) * 64 };
        at.lw = at.b + Math.ceil(N / 64) * 64;
        at.lb = at.lw + Math.ceil(K / 64) * 64;
        const params = new Float32Array(at.lb + K);
        params.set(W, at.W); params.set(b, at.b); params.set(lw, at.lw); params.set(lb, at.lb);
        const rstdAt = Math.ceil(M / 64) * 64;
        const [out, , , aux, ln, stats] = await gpu('matmul_ln', [M * N, x, params, gelu ? M * N : null, M * K, rstdAt + M],
          [M, N, K, gelu, gelu, at.W, at.b, at.lw, at.lb, rstdAt], [1e-5]);
        const r = ref.layernorm_forward(x, lw, lb, M, K);
        expectClose(ln, r.out, 1e-5, 1e-4, 'LN(x)');
        expectClose(stats.subarray(0, M), r.mean, 1e-6, 1e-5, 'mean');
        expectClose(stats.subarray(rstdAt, rstdAt + M), r.rstd, 1e-6, 1e-4, 'rstd');
        const pre = ref.sgemm(false, false, M, N, K, r.out, W, new Float32Array(M * N), false).map((p, i) => f(p + b[i % N]));
        if (gelu) {
          expectClose(aux, pre, 5e-5, 1e-4, 'pre-activation');
          expectClose(out, ref.gelu_forward(pre), 5e-5, 1e-4, 'gelu');
        } else {
          expectClose(out, pre, 5e-5, 1e-4, 'LN(x) @ W + b');
        }
      });
});

describe('a block\'s rows in one workgroup (block_forward)', () => {
  // Each phase against the core's reference computed from the GPU's own inputs to that phase (the
  // differences do not compound): attention, c_proj + residual, LN2, c_fc + GELU, c_proj + residual,
  // the tail's LN + GEMM and the cross-entropy. Shapes: fewer rows than a workgroup takes; rows of
  // several sequences in one workgroup and a partial last one; key tiles past 16.
  const aligned = (n) => Math.ceil(Math.max(n, 1) / 64) * 64;
  function pack(sizes) { // offsets of regions laid end to end at aligned offsets (after 64 elements)
    const at = {};
    let used = 64;
    for (const [name, n] of Object.entries(sizes)) { at[name] = used; used += aligned(n); }
    return { at, used };
  }
  const attnLse = (qkv, B, T, C, NH) => { // lse (B, NH, T) in double
    const HS = C / NH, lse = new Float32Array(B * NH * T);
    for (let b = 0; b < B; b++) for (let h = 0; h < NH; h++) for (let i = 0; i < T; i++) {
      const s = [];
      for (let j = 0; j <= i; j++) {
        let d = 0;
        for (let k = 0; k < HS; k++) d += qkv[(b * T + i) * 3 * C + h * HS + k] * qkv[(b * T + j) * 3 * C + C + h * HS + k];
        s.push(d / Math.sqrt(HS));
      }
      const m = Math.max(...s);
      lse[(b * NH + h) * T + i] = m + Math.log(s.reduce((a, v) => a + Math.exp(v - m), 0));
    }
    return lse;
  };
  const linear = (x, w, b, R, I, O) => ref.sgemm(false, false, R, O, I, x, w, new Float32Array(R * O), false).map((p, i) => f(p + b[i % O]));
  for (const [B, T, C, NH, V, embed, tail] of [[2, 5, 24, 3, 37, 0, 3], [3, 13, 20, 2, 50, 0, 0], [2, 33, 16, 2, 40, 0, 2], [3, 7, 12, 1, 19, 1, 0]])
    it(`B=${B} T=${T} C=${C} NH=${NH} V=${V}${embed ? ', the embedding' : ''}, tail ${tail}`, async () => {
      const N = B * T, NC = N * C, nOut = tail ? V : 3 * C, HS = C / NH;
      const pz = { proj_w: embed ? 256 * C : C * C, proj_b: embed ? T * C : C, ln2_w: C, ln2_b: C, fc_w: 4 * C * C, fc_b: 4 * C,
        fcproj_w: 4 * C * C, fcproj_b: C, ln_w: C, ln_b: C, w: C * nOut, b: nOut };
      const P = pack(pz);
      const params = new Float32Array(P.used);
      const pv = {};
      Object.entries(pz).forEach(([k, n], i) => { pv[k] = randoms(n, 11 + i, k.endsWith('_w') || k === 'w' ? 0.3 : 0.5); params.set(pv[k], P.at[k]); });
      const az = { x_in: NC, qkv: 3 * NC, atty: NC, lse: N * NH, xmid: NC, ln2: NC, ln2_stats: aligned(N) + N, fc_pre: 4 * NC, fc: 4 * NC,
        x_out: NC, ln_n: NC, ln_n_stats: aligned(N) + N, out_n: 3 * NC };
      const A = pack(az);
      const acts = new Float32Array(A.used);
      const x_in = randoms(NC, 3, 2), qkv = randoms(3 * NC, 4, 1.5);
      acts.set(x_in, A.at.x_in); acts.set(qkv, A.at.qkv);
      const tokens = new Uint32Array(N).map((_, i) => (i * 41 + 7) % 256), targets = new Uint32Array(N).map((_, i) => (i * 13 + 2) % V);
      const dims = [N, T, C, NH, nOut, embed, tail, ...['x_in', 'qkv', 'atty', 'lse', 'xmid', 'ln2', 'ln2_stats', 'fc_pre', 'fc', 'x_out',
        'ln_n', 'ln_n_stats', 'out_n'].map((k) => A.at[k]), ...Object.keys(pz).map((k) => P.at[k])];
      assert.equal(dims.length, 32);
      const [got, , , logits, , losses] = await gpu('block_forward',
        [acts, params, tokens, tail ? N * V : null, tail >= 2 ? targets : null, tail >= 2 ? N : null], dims, [1e-5, 1 / N], HS);
      const g = (k, n = az[k]) => got.subarray(A.at[k], A.at[k] + n);
      const stats = (k) => [g(k, N), got.subarray(A.at[k] + aligned(N), A.at[k] + aligned(N) + N)];
      if (embed) {
        const r = ref.embedding(pv.proj_w, pv.proj_b, new Int32Array(tokens), new Float32Array(NC), B, T, C);
        assert.deepEqual(g('x_out'), r.out, 'x = wte[tokens] + wpe: exact');
      } else {
        expectClose(g('atty'), ref.attention(qkv, new Float32Array(NC), B, T, C, NH).out, 1e-5, 1e-4, 'attention');
        expectClose(g('lse'), attnLse(qkv, B, T, C, NH), 1e-5, 1e-5, 'lse');
        expectClose(g('xmid'), linear(g('atty'), pv.proj_w, pv.proj_b, N, C, C).map((v, i) => f(x_in[i] + v)), 5e-5, 1e-4, 'x + c_proj');
        const ln2 = ref.layernorm_forward(g('xmid'), pv.ln2_w, pv.ln2_b, N, C);
        expectClose(g('ln2'), ln2.out, 1e-5, 1e-4, 'LN2');
        const [m2, r2] = stats('ln2_stats');
        expectClose(m2, ln2.mean, 1e-6, 1e-5, 'LN2 mean');
        expectClose(r2, ln2.rstd, 1e-6, 1e-4, 'LN2 rstd');
        const pre = linear(g('ln2'), pv.fc_w, pv.fc_b, N, C, 4 * C);
        expectClose(g('fc_pre'), pre, 5e-5, 1e-4, 'c_fc');
        expectClose(g('fc'), ref.gelu_forward(g('fc_pre')), 1e-6, 1e-5, 'gelu');
        expectClose(g('x_out'), linear(g('fc'), pv.fcproj_w, pv.fcproj_b, N, 4 * C, C).map((v, i) => f(g('xmid')[i] + v)), 5e-5, 1e-4, 'xmid + c_proj');
      }
      const lnN = ref.layernorm_forward(g('x_out'), pv.ln_w, pv.ln_b, N, C);
      expectClose(g('ln_n'), lnN.out, 1e-5, 1e-4, 'the tail\'s LN');
      const [mn, rn] = stats('ln_n_stats');
      expectClose(mn, lnN.mean, 1e-6, 1e-5, 'the tail\'s mean');
      expectClose(rn, lnN.rstd, 1e-6, 1e-4, 'the tail\'s rstd');
      const out = linear(g('ln_n'), pv.w, pv.b, N, C, nOut);
      if (!tail) {
        expectClose(g('out_n', 3 * NC), out, 5e-5, 1e-4, 'the next qkv');
        return;
      }
      assert.ok(g('out_n', 3 * NC).every((v) => v === 0), 'with a tail, acts\' out_n is untouched');
      if (tail === 2) {
        expectClose(logits, out, 5e-5, 1e-4, 'logits');
        const r = ref.crossentropy(logits, new Int32Array(targets), N, V, 1 / N);
        expectClose(losses, r.losses, 1e-6, 1e-5, 'losses');
        return;
      }
      // tail 3: the logits became their gradient; its rows sum to 0 and the losses match the reference's
      const r = ref.crossentropy(out, new Int32Array(targets), N, V, 1 / N);
      expectClose(losses, r.losses, 2e-5, 1e-4, 'losses');
      expectClose(logits, r.dlogits, 1e-6, 1e-3, 'dlogits');
    });
});

describe('a linear layer\'s backward', () => {
  for (const [R, I, O] of [[1, 1, 1], [5, 7, 3], [70, 33, 65], [64, 130, 17]])
    it(`linear_backward R=${R} I=${I} O=${O}: both GEMMs in one dispatch, the same bits as two matmuls`, async () => {
      const dout = randoms(R * O, R + O), W = randoms(I * O, I), X = randoms(R * I, O + 3), pre = randoms(R * I, 5, 6);
      for (const epilogue of [0, 2]) {
        const aux = epilogue === 2 ? pre : null;
        const [dx, , , , dw, , db] = await gpu('linear_backward', [R * I, dout, W, aux, I * O, X, O], [R, I, O, epilogue, 1]);
        const [dx2] = await gpu('matmul', [R * I, dout, W, null, null, aux, null], [R, I, O, 0, 1, 0, epilogue, 0, 0, aux ? 1 : 0, 0]);
        const [dw2, , , , , , db2] = await gpu('matmul', [I * O, X, dout, null, null, null, O], [I, O, R, 1, 0, 0, 0, 0, 0, 0, 1]);
        assert.deepEqual(dx, dx2, `dinp, epilogue ${epilogue}`);
        assert.deepEqual(dw, dw2, 'dweight');
        assert.deepEqual(db, db2, 'dbias');
        // and the core's reference
        let want = ref.sgemm(false, true, R, I, O, dout, W, new Float32Array(R * I), false);
        if (aux) want = ref.gelu_backward(pre, want);
        // (sums of up to 70 unit-sized products in another order: cancellation needs an absolute tolerance)
        expectClose(dx, want, 5e-5, 1e-4, 'dinp vs reference');
        expectClose(dw, ref.sgemm(true, false, I, O, R, X, dout, new Float32Array(I * O), false), 5e-5, 1e-4, 'dweight vs reference');
        expectClose(db, ref.matmul_backward_dbias(dout, R, O), 1e-5, 1e-4, 'dbias vs reference');
      }
    });
});

describe('LayerNorm', () => {
  for (const [N, C] of [[1, 1], [3, 3], [7, 17], [5, 130], [2, 300], [300, 40]])
    it(`forward and backward, N=${N} C=${C}`, async () => {
      const x = randoms(N * C, N * 100 + C, 3), w = randoms(C, 7), b = randoms(C, 8);
      const r = ref.layernorm_forward(x, w, b, N, C);
      const [out, mean, rstd] = await gpu('layernorm_forward', [N * C, N, N, x, w, b], [N, C], [1e-5]);
      expectClose(out, r.out, 1e-5, 1e-4, 'out');
      expectClose(mean, r.mean, 1e-6, 1e-5, 'mean');
      expectClose(rstd, r.rstd, 1e-6, 1e-4, 'rstd');
      const dy = randoms(N * C, 9);
      const g = ref.layernorm_backward(dy, x, w, r.mean, r.rstd, N, C);
      // the rows' gradient and the parameters' in one dispatch
      const [dx, , , , , , dw, db] = await gpu('layernorm_backward_all', [N * C, dy, x, w, r.mean, r.rstd, C, C], [N, C, 0]);
      expectClose(dx, g.dinp, 1e-5, 1e-4, 'dinp');
      expectClose(dw, g.dweight, 1e-5, 1e-4, 'dweight');
      expectClose(db, g.dbias, 1e-5, 1e-4, 'dbias');
      const prev = randoms(N * C, 10);
      const [dxAcc] = await gpu('layernorm_backward_all', [prev, dy, x, w, r.mean, r.rstd, C, C], [N, C, 1]);
      expectClose(dxAcc, g.dinp.map((v, i) => f(prev[i] + v)), 1e-5, 1e-4, 'dinp accumulated');
    });
});

describe('GELU, softmax, cross-entropy', () => {
  it('softmax rows of 1, 5, 256 and 300 values', async () => {
    for (const [N, V] of [[1, 1], [3, 5], [4, 256], [2, 300]]) {
      const x = randoms(N * V, V, 8);
      const [out] = await gpu('softmax', [N * V, x], [N, V]);
      expectClose(out, ref.softmax_forward(x, N, V), 1e-7, 1e-5, `softmax ${N}x${V}`);
    }
  });

  it('cross-entropy losses and the gradient written over the logits', async () => {
    for (const [N, V] of [[1, 256], [5, 256], [3, 7]]) {
      const z = randoms(N * V, N + V, 6);
      const y = new Uint32Array(N).map((_, i) => (i * 37 + 3) % V);
      const r = ref.crossentropy(z, new Int32Array(y), N, V, 1 / N);
      const [dz, losses] = await gpu('crossentropy', [z, N, y], [N, V, 1], [1 / N]);
      expectClose(losses, r.losses, 1e-6, 1e-5, 'losses');
      expectClose(dz, r.dlogits, 1e-7, 1e-4, 'dlogits');
      const [same, losses2] = await gpu('crossentropy', [z, N, y], [N, V, 0], [1 / N]);
      assert.deepEqual(same, z, 'without write_grad the logits stay');
      expectClose(losses2, r.losses, 1e-6, 1e-5, 'losses (no grad)');
      // the mean, as the core's cross_entropy takes it (in double)
      const state = new Uint32Array(16);
      const [st] = await gpu('mean_loss', [state, r.losses], [N, 7]);
      const mean = r.losses.reduce((s, v) => s + v, 0) / N;
      assert.ok(Math.abs(new Float32Array(st.buffer)[7] - mean) <= 1e-6 * mean, 'mean loss');
    }
  });
});

describe('embeddings', () => {
  it('forward and backward with repeated tokens, without atomics', async () => {
    const B = 3, T = 5, C = 70, V = 256, maxT = 8;
    const wte = randoms(V * C, 1), wpe = randoms(maxT * C, 2), dout = randoms(B * T * C, 3);
    const tokens = new Uint32Array(B * T).map((_, i) => [65, 66, 65, 255, 0][i % 5]);
    const r = ref.embedding(wte, wpe, new Int32Array(tokens), dout, B, T, C);
    const [out] = await gpu('embedding_forward', [B * T * C, tokens, wte, wpe], [B * T, T, C]);
    assert.deepEqual(out, r.out, 'a gather and one add: exact');
    const [dwte, dwpe] = await gpu('embedding_backward', [V * C, maxT * C, dout, tokens], [B, T, C, V]);
    assert.deepEqual(dwte, r.dwte, 'dwte: same additions in the same order');
    assert.deepEqual(dwpe.subarray(0, T * C), r.dwpe.subarray(0, T * C), 'dwpe');
  });
});

describe('attention', () => {
  for (const [B, T, NH, HS] of [[1, 1, 1, 1], [2, 5, 2, 3], [1, 17, 3, 8], [2, 70, 2, 4], [1, 130, 1, 32], [1, 20, 1, 100]])
    it(`flash forward, backward and probabilities, B=${B} T=${T} NH=${NH} HS=${HS}`, async () => {
      const C = NH * HS;
      const qkv = randoms(B * T * 3 * C, T + HS, 1.5), dout = randoms(B * T * C, 77);
      const r = ref.attention(qkv, dout, B, T, C, NH);
      const dims = [B, T, C, NH];
      const [out, lse] = await gpu('attention_forward', [B * T * C, B * NH * T, qkv], dims, [], HS);
      expectClose(out, r.out, 1e-5, 1e-4, 'out');
      const [att] = await gpu('attention_probs', [B * NH * T * T, qkv, lse], dims, [], HS);
      expectClose(att, r.att, 1e-6, 1e-4, 'probabilities');
      // dq by query rows and dk, dv by key rows, in one dispatch
      const [dqkv] = await gpu('attention_backward', [B * T * 3 * C, dout, out, qkv, lse], dims, [], HS);
      expectClose(dqkv, r.dqkv, 1e-5, 1e-3, 'dqkv');
    });

  it('decoding one position against the KV cache', async () => {
    const T = 9, NH = 2, HS = 5, C = NH * HS, p = 6;
    const cache = randoms(T * 3 * C, 5, 2);
    const k = new Float32Array(T * C), v = new Float32Array(T * C);
    for (let j = 0; j < T; j++) {
      k.set(cache.subarray(j * 3 * C + C, j * 3 * C + 2 * C), j * C);
      v.set(cache.subarray(j * 3 * C + 2 * C, j * 3 * C + 3 * C), j * C);
    }
    const want = ref.attention_decode(cache.subarray(p * 3 * C, (p + 1) * 3 * C), k, v, p, C, NH);
    const state = new Uint32Array(16);
    state[10] = p + 1; // gen_len
    const [out] = await gpu('attention_decode', [C, cache, state, NH * T], [T, C, NH], [], HS);
    expectClose(out, want, 1e-6, 1e-4, 'decode attention');
  });

  it('a beam\'s rows at one position against a KV cache shared through slots (attention_beam)', async () => {
    const R = 3, T = 9, NH = 2, HS = 5, C = NH * HS, p = 6;
    const cache = randoms(T * R * 2 * C, 11, 2), qkv = randoms(R * 3 * C, 12, 2); // cache (T, R, 2C)
    const slots = new Uint32Array(R * T);
    for (let r = 0; r < R; r++) for (let j = 0; j < p; j++) slots[r * T + j] = (r * 7 + j * 5) % R; // ancestors anywhere
    const state = new Uint32Array(16);
    state[10] = p + 1; // gen_len
    const [out, after] = await gpu('attention_beam', [R * C, cache, R * NH * T, qkv, slots, state], [R, T, C, NH], [], HS);
    for (let r = 0; r < R; r++) {
      // row r's keys and values in order: its ancestors' from the cache, then its own
      const k = new Float32Array(T * C), v = new Float32Array(T * C);
      for (let j = 0; j < p; j++) {
        const at = (j * R + slots[r * T + j]) * 2 * C;
        k.set(cache.subarray(at, at + C), j * C);
        v.set(cache.subarray(at + C, at + 2 * C), j * C);
      }
      const row = qkv.subarray(r * 3 * C, (r + 1) * 3 * C);
      k.set(row.subarray(C, 2 * C), p * C);
      v.set(row.subarray(2 * C), p * C);
      expectClose(out.subarray(r * C, (r + 1) * C), ref.attention_decode(row, k, v, p, C, NH), 1e-6, 1e-4, `row ${r}`);
      // the row's k, v are appended at (p, r); the other rows' slots are left alone
      assert.deepEqual([...after.subarray((p * R + r) * 2 * C, (p * R + r + 1) * 2 * C)], [...row.subarray(C)], `cache[${p}, ${r}]`);
    }
    assert.deepEqual([...after.subarray(0, p * R * 2 * C)], [...cache.subarray(0, p * R * 2 * C)], 'the cache before p');
  });
});

describe('optimizer', () => {
  const n = 1000, nDecay = 640;
  it('global norm and clipping; the host\'s schedule and bias corrections pass through', async () => {
    const grads = randoms(n, 3, 0.5);
    const G = 3;
    const [partials] = await gpu('grad_norm_partials', [G, grads], [n, G]);
    for (const maxNorm of [1.0, 100, 0]) {
      const clip = ref.clip_grad_norm(grads, maxNorm);
      const state = new Uint32Array(16);
      state[0] = 4; state[1] = 3; // step, adam_t
      const losses = new Float32Array([2, 3.5, 1.5, 3]); // the step's mean loss: 2.5
      const lr = ref.lr_at(1e-3, 1e-4, 5, 20, 4);
      const scalars = new Float32Array([lr, 1 - 0.9 ** 4, 1 - 0.99 ** 4]);
      const [st] = await gpu('optimizer_scalars', [state, partials, scalars, losses], [G, losses.length], [maxNorm, 22.18]);
      const fs = new Float32Array(st.buffer);
      assert.equal(fs[7], 2.5);
      assert.ok(Math.abs(fs[8] - clip.norm) <= 1e-6 * clip.norm, `norm ${fs[8]} vs ${clip.norm}`);
      const scale = maxNorm > 0 && clip.norm > maxNorm ? f(maxNorm / f(clip.norm + 1e-6)) : 1;
      assert.ok(Math.abs(fs[4] - scale) <= 1e-6 * scale, `clip scale ${fs[4]} vs ${scale}`);
      // the clipped gradients are what the core's clip_grad_norm leaves
      expectClose(grads.map((g) => f(g * fs[4])), clip.grads, 1e-9, 1e-6, 'clipped gradients');
      assert.deepEqual([fs[3], fs[5], fs[6]], [...scalars]);
      assert.deepEqual([st[0], st[1], st[2]], [5, 4, 0]);
    }
    // a diverged step (Trainer::step's test) halts: no counter moves, and AdamW then leaves
    // everything alone
    let st;
    for (const loss of [NaN, Infinity, 30]) {
      const state = new Uint32Array(16);
      state[0] = 3;
      [st] = await gpu('optimizer_scalars', [state, partials, new Float32Array(3), new Float32Array([loss, loss])], [G, 2], [1.0, 22.18]);
      assert.equal(st[2], 1, `halted at a loss of ${loss}`);
      assert.equal(st[0], 3);
    }
    const p = randoms(n, 9);
    const [after] = await gpu('adamw', [p, new Float32Array(n), new Float32Array(n), grads, st], [n, nDecay], [0.9, 0.99, 1e-8, 0.1]);
    assert.deepEqual(after, p);
  });

  it('AdamW with the decay boundary and the clip scale', async () => {
    const p = randoms(n, 1), g = randoms(n, 2), m = randoms(n, 3, 0.01), v = randoms(n, 4, 0.01).map(Math.abs);
    const state = new Uint32Array(16);
    const sf = new Float32Array(state.buffer);
    sf[3] = 3e-3; sf[4] = 0.5; sf[5] = 1 - 0.9 ** 3; sf[6] = 1 - 0.99 ** 3; // lr, clip, bc1, bc2
    const [pp, mm, vv] = await gpu('adamw', [p, m, v, g, state], [n, nDecay], [0.9, 0.99, 1e-8, 0.1]);
    const gs = g.map((x) => f(x * 0.5));
    const dec = ref.adamw(p.subarray(0, nDecay), gs.subarray(0, nDecay), m.subarray(0, nDecay), v.subarray(0, nDecay), sf[3], 0.9, 0.99, 1e-8, 0.1, sf[5], sf[6]);
    const nod = ref.adamw(p.subarray(nDecay), gs.subarray(nDecay), m.subarray(nDecay), v.subarray(nDecay), sf[3], 0.9, 0.99, 1e-8, 0, sf[5], sf[6]);
    const cat = (a, b) => { const r = new Float32Array(n); r.set(a); r.set(b, nDecay); return r; };
    expectClose(pp, cat(dec.params, nod.params), 1e-7, 1e-5, 'params');
    expectClose(mm, cat(dec.m, nod.m), 1e-9, 1e-5, 'm');
    expectClose(vv, cat(dec.v, nod.v), 1e-12, 1e-5, 'v');
  });
});

describe('decoding', () => {
  it('matvec rows picked by the state, with bias, accumulation, GELU and a LayerNorm in front', async () => {
    const K = 70, N = 45, rows = 4, p = 3;
    const x = randoms(rows * K, 1), W = randoms(K * N, 2), bias = randoms(N, 3), prev = randoms(rows * N, 4);
    const state = new Uint32Array(16);
    state[10] = p; // gen_len: row p - 1
    const row = x.subarray((p - 1) * K, p * K);
    const prod = ref.sgemm(false, false, 1, N, K, row, W, new Float32Array(N), false);
    const [out] = await gpu('matvec', [prev, x, W, bias, state, null, null], [K, N, 1, 1, 1, 0, 1, 0]);
    const want = prev.slice();
    for (let j = 0; j < N; j++) want[(p - 1) * N + j] = f(prev[(p - 1) * N + j] + f(prod[j] + bias[j]));
    expectClose(out, want, 1e-5, 1e-4, 'out row');
    const [g] = await gpu('matvec', [N, row, W, null, state, null, null], [K, N, 0, 0, 0, 1, 0, 0]);
    expectClose(g, ref.gelu_forward(prod), 1e-5, 1e-4, 'gelu row');
    // LayerNorm folded in: the reference normalises first, then multiplies
    const lw = randoms(K, 5), lb = randoms(K, 6);
    const ln = ref.layernorm_forward(row, lw, lb, 1, K).out;
    const [y] = await gpu('matvec', [N, row, W, bias, state, lw, lb], [K, N, 0, 0, 0, 0, 1, 1], [1e-5]);
    expectClose(y, ref.sgemm(false, false, 1, N, K, ln, W, new Float32Array(N), false).map((v, j) => f(v + bias[j])),
      1e-5, 1e-4, 'LayerNorm + matvec');
  });

  it('the embedding of the newest byte', async () => {
    const C = 33, T = 6;
    const wte = randoms(256 * C, 1), wpe = randoms(T * C, 2);
    const window = new Uint32Array(T).fill(7);
    window[4] = 200;
    const state = new Uint32Array(16);
    state[10] = 5;
    const [out] = await gpu('embedding_decode', [C, window, state, wte, wpe], [C]);
    assert.deepEqual(out, wte.subarray(200 * C, 201 * C).map((w, c) => f(w + wpe[4 * C + c])));
  });

  it('sampling picks the byte sample_logits picks, and logs the five likeliest', async () => {
    const logits = randoms(256, 42, 4);
    logits[17] = logits[99] = 5; // a tie at the top: the lower byte ranks first
    const T = 8;
    let checked = 0;
    for (const [temperature, topK, topP] of [[0, 0, 1], [1, 0, 1], [0.7, 0, 1], [1, 5, 1], [1, 0, 0.5], [1.3, 40, 0.9], [1, 1, 1]])
      for (const seed of [0, 1, 2, 3, 11, 1234]) {
        const draw = ref.uniforms(seed, 1)[0];
        const want = ref.sample_logits(logits, temperature, topK, topP, seed);
        const window = new Uint32Array(T);
        const state = new Uint32Array(16);
        state[10] = 3; // gen_len
        const [log, win, st] = await gpu('sample', [new Uint32Array(12 * 4), window, state, logits, new Float32Array([draw]), new Float32Array([temperature, topK, topP, 4])], [T, 256]);
        assert.equal(log[0], want, `temperature ${temperature} top-k ${topK} top-p ${topP} seed ${seed}`);
        assert.equal(win[3], want, 'appended to the window');
        assert.equal(st[10], 4);
        assert.equal(st[11], 1, 'one byte sampled');
        checked++;
      }
    assert.equal(checked, 42);
    // the log: the byte's temperature-1 probability and the top five
    const [log] = await gpu('sample', [new Uint32Array(12), new Uint32Array(T), new Uint32Array(16), logits, new Float32Array(1), new Float32Array([0, 0, 1, 4])], [T, 256]);
    const probs = ref.softmax_forward(logits, 1, 256);
    const order = [...probs.keys()].sort((a, b) => probs[b] - probs[a] || a - b);
    assert.deepEqual([...log.subarray(2, 7)], order.slice(0, 5));
    assert.equal(log[2], 17);
    const lf = new Float32Array(log.buffer);
    expectClose(lf.subarray(7, 12), new Float32Array(order.slice(0, 5).map((i) => probs[i])), 1e-7, 1e-5, 'top-5 probabilities');
    expectClose(lf.subarray(1, 2), new Float32Array([probs[17]]), 1e-7, 1e-5, 'probability of the byte');
  });

  it('a full window keeps its last window_keep - 1 bytes and the new one', async () => {
    const T = 6, keep = 3;
    const window = new Uint32Array([1, 2, 3, 4, 5, 6]);
    const state = new Uint32Array(16);
    state[10] = T;
    const logits = new Float32Array(256);
    logits[42] = 10;
    const [, win, st] = await gpu('sample', [new Uint32Array(12), window, state, logits, new Float32Array(1), new Float32Array([0, 0, 1, keep])], [T, 256]);
    assert.deepEqual([...win.subarray(0, keep)], [5, 6, 42]);
    assert.equal(st[10], keep);
  });
});
