// kernels.cpp — the production kernels: SIMD through simd.h, split across the thread pool
// in ranges that never overlap, so results are identical for any thread count.
// Each has a plain twin in kernels_ref.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels_attention.h"  // the short rows of attention, fused
#include "kernels_isa.h"
#include "kernels_rows.h"  // row_max, exp_shift_sum, scale_row, softmax_crossentropy_row, dot, axpy
#include "threadpool.h"

namespace tinygpt::kernels::TINYGPT_ISA {

using simd::vf;
using simd::W;

namespace {
constexpr int64_t kChunk = 4096;  // elements per task for elementwise kernels

template <class F>
void for_chunks(int64_t n, F&& f) {  // f(begin, end) over [0, n) in kChunk pieces
  const int tasks = int((n + kChunk - 1) / kChunk);
  tp::parallel_for(tasks, [&](int b, int e, int) { f(b * kChunk, std::min(n, e * kChunk)); }, 8 * n);
}

// Sums over rows (a bias gradient, LayerNorm's weight gradients) are split by blocks of
// kSumRows rows, a count fixed in advance: each block's task writes its partial sums to its own
// row of a scratch table, and a second pass adds the partials of each column in block order.
// No two threads add into one number, and the order of the additions is the same for any
// thread count; every thread streams its own rows once (a split by columns would make each of
// a few threads read every row).
constexpr int kSumRows = 32;

// dst (C) += partials (blocks, C) summed over the blocks, in block order
void add_partials(float* dst, const float* partials, int blocks, int C) {
  const int pieces = (C + 63) / 64;
  tp::parallel_for(pieces, [&](int b, int e, int) {
    const int c0 = b * 64, c1 = std::min(C, e * 64);
    for (int blk = 0; blk < blocks; blk++) accumulate(dst + c0, partials + int64_t(blk) * C + c0, c1 - c0);
  }, int64_t(blocks) * C);
}
}  // namespace

// ---- linear --------------------------------------------------------------------------------

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC) {
  // out (N, OC) = [bias +] inp (N, IC) @ weight (IC, OC)
  if (bias) sgemm_bias(N, OC, IC, inp, IC, weight, OC, bias, out, OC);
  else sgemm(false, false, N, OC, IC, inp, IC, weight, OC, out, OC, false);
}

void matmul_forward_act(float* out, float* slope, const float* inp, const float* weight, const float* bias, int N,
                        int IC, int OC, int act) {
  matmul_forward(out, inp, weight, bias, N, IC, OC);
  const int64_t n = int64_t(N) * OC;
  if (act == kActRelu) relu_forward(out, out, n);
  else if (slope) gelu_forward_slope(out, slope, out, n);
  else gelu_forward(out, out, n);
}

// (The activation was applied by the product's tile stores for a while, gemm.cpp's epilogue:
// natively no faster, and the SIMD128 build's products, all of them, ran ~16% slower in V8.)
void matmul_backward_dinp_act(float* dinp, const float* aux, const float* dout, const float* weight, int N, int IC,
                              int OC, int act) {
  sgemm(false, true, N, IC, OC, dout, OC, weight, OC, dinp, IC, false);
  const int64_t n = int64_t(N) * IC;
  if (act == kActRelu) relu_mask(dinp, aux, n);
  else mul_forward(dinp, dinp, aux, n);
}

void matmul_forward_residual(float* out, const float* inp, const float* weight, const float* bias,
                             const float* residual, int N, int IC, int OC) {
  // out (N, OC) = [bias +] inp (N, IC) @ weight (IC, OC) + residual (N, OC)
  sgemm_bias(N, OC, IC, inp, IC, weight, OC, bias, out, OC, residual, OC);
}

void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int IC, int OC) {
  // forward: out = inp @ weight + bias
  if (dinp) sgemm(false, true, N, IC, OC, dout, OC, weight, OC, dinp, IC, true);       // dout @ weight^T
  if (dweight) sgemm(true, false, IC, OC, N, inp, IC, dout, OC, dweight, OC, true);    // inp^T @ dout
  if (dbias) {
    // dbias += sum_n dout[n, :]: partial sums per block of rows, then added in block order
    const int blocks = (N + kSumRows - 1) / kSumRows;
    float* partials = shared_scratch(kColumnSums, size_t(blocks) * OC);  // (blocks, OC)
    tp::parallel_for(blocks, [&](int b, int e, int) {
      for (int blk = b; blk < e; blk++) {
        float* p = partials + int64_t(blk) * OC;
        const int n0 = blk * kSumRows, n1 = std::min(N, n0 + kSumRows);
        std::memcpy(p, dout + int64_t(n0) * OC, size_t(OC) * sizeof(float));
        for (int n = n0 + 1; n < n1; n++) accumulate(p, dout + int64_t(n) * OC, OC);
      }
    }, int64_t(N) * OC);
    add_partials(dbias, partials, blocks, OC);
  }
}

// ---- LayerNorm -----------------------------------------------------------------------------

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* x = inp + int64_t(n) * C;
      float* y = out + int64_t(n) * C;
      float m = 0.0f;
      {
        int c = 0;
        vf acc = simd::zero();
        for (; c + W <= C; c += W) acc = acc + simd::load(x + c);
        m = simd::hsum(acc);
        for (; c < C; c++) m += x[c];
        m /= C;
      }
      float var = 0.0f;
      {
        int c = 0;
        vf acc = simd::zero();
        const vf vm = simd::splat(m);
        for (; c + W <= C; c += W) {
          vf d = simd::load(x + c) - vm;
          acc = simd::fma(d, d, acc);
        }
        var = simd::hsum(acc);
        for (; c < C; c++) var += (x[c] - m) * (x[c] - m);
        var /= C;
      }
      const float s = 1.0f / std::sqrt(var + eps);
      int c = 0;
      const vf vm = simd::splat(m), vs = simd::splat(s);
      for (; c + W <= C; c += W)
        simd::store(y + c, simd::fma((simd::load(x + c) - vm) * vs, simd::load(weight + c), simd::load(bias + c)));
      for (; c < C; c++) y[c] = (x[c] - m) * s * weight[c] + bias[c];
      mean[n] = m;
      rstd[n] = s;
    }
  }, int64_t(N) * C);
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C, bool add_to_dinp) {
  // forward: y = xhat * w + b, xhat = (x - mean) * rstd
  // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),  dxhat = dy * w
  // dw = sum_n dy * xhat,  db = sum_n dy: partial sums per block of kSumRows rows, computed in
  // the same pass over the rows as dx, then added in block order
  const bool sums = dweight || dbias;
  const int blocks = (N + kSumRows - 1) / kSumRows;
  float* partials = sums ? shared_scratch(kColumnSums, size_t(blocks) * 2 * C) : nullptr;  // (blocks, 2, C)
  tp::parallel_for(blocks, [&](int block_begin, int block_end, int) {
    for (int blk = block_begin; blk < block_end; blk++) {
      float* pw = sums ? partials + int64_t(blk) * 2 * C : nullptr;  // (C) sum of dy * xhat
      float* pb = sums ? pw + C : nullptr;                           // (C) sum of dy
      if (sums) std::memset(pw, 0, size_t(2) * C * sizeof(float));
      const int n0 = blk * kSumRows, n1 = std::min(N, n0 + kSumRows);
      for (int n = n0; n < n1; n++) {
        const float* x = inp + int64_t(n) * C;
        const float* dy = dout + int64_t(n) * C;
        const float m = mean[n], s = rstd[n];
        const vf vm = simd::splat(m), vs = simd::splat(s);
        if (sums) {
          int c = 0;
          for (; c + W <= C; c += W) {
            const vf g = simd::load(dy + c);
            simd::store(pw + c, simd::fma(g, (simd::load(x + c) - vm) * vs, simd::load(pw + c)));
            simd::store(pb + c, simd::load(pb + c) + g);
          }
          for (; c < C; c++) {
            pw[c] += dy[c] * ((x[c] - m) * s);
            pb[c] += dy[c];
          }
        }
        if (!dinp) continue;
        float* dx = dinp + int64_t(n) * C;
        vf a1 = simd::zero(), a2 = simd::zero();
        int c = 0;
        for (; c + W <= C; c += W) {
          vf xhat = (simd::load(x + c) - vm) * vs;
          vf dxhat = simd::load(dy + c) * simd::load(weight + c);
          a1 = a1 + dxhat;
          a2 = simd::fma(dxhat, xhat, a2);
        }
        float dxhat_mean = simd::hsum(a1), dxhat_xhat_mean = simd::hsum(a2);
        for (; c < C; c++) {
          float xhat = (x[c] - m) * s, dxhat = dy[c] * weight[c];
          dxhat_mean += dxhat;
          dxhat_xhat_mean += dxhat * xhat;
        }
        dxhat_mean /= C;
        dxhat_xhat_mean /= C;
        const vf v1 = simd::splat(dxhat_mean), v2 = simd::splat(dxhat_xhat_mean);
        c = 0;
        for (; c + W <= C; c += W) {
          vf xhat = (simd::load(x + c) - vm) * vs;
          vf dxhat = simd::load(dy + c) * simd::load(weight + c);
          // written: vs * t, the bits of fma(vs, t, 0) on a zeroed buffer
          const vf t = dxhat - v1 - xhat * v2;
          simd::store(dx + c, add_to_dinp ? simd::fma(vs, t, simd::load(dx + c)) : vs * t);
        }
        for (; c < C; c++) {
          float xhat = (x[c] - m) * s, dxhat = dy[c] * weight[c];
          const float g = s * (dxhat - dxhat_mean - xhat * dxhat_xhat_mean);
          dx[c] = add_to_dinp ? dx[c] + g : g;
        }
      }
    }
  }, int64_t(N) * C * 2);
  if (!sums) return;
  // partials (blocks, 2, C) seen as (2 blocks, C) rows: even rows for dw, odd rows for db
  const int pieces = (C + 63) / 64;
  tp::parallel_for(pieces, [&](int b, int e, int) {
    const int c0 = b * 64, c1 = std::min(C, e * 64);
    for (int blk = 0; blk < blocks; blk++) {
      const float* pw = partials + int64_t(blk) * 2 * C;
      if (dweight) accumulate(dweight + c0, pw + c0, c1 - c0);
      if (dbias) accumulate(dbias + c0, pw + C + c0, c1 - c0);
    }
  }, int64_t(blocks) * C);
}

// ---- GELU ------------------------------------------------------------------------------------

static const float kGeluScale = 0.7978845608028654f;  // sqrt(2 / pi)

namespace {
// t = tanh u, u = k (x + c x^3): GELU's costly part (vector lanes; the library tanh for the tails)
inline vf gelu_tanh(vf x) {
  return simd::vtanh(simd::splat(kGeluScale) * simd::fma(simd::splat(0.044715f) * x, x * x, x));
}
inline float gelu_tanh(float x) { return std::tanh(kGeluScale * (x + 0.044715f * x * x * x)); }

// gelu'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) du/dx, du/dx = k (1 + 3 c x^2), from x and t = gelu_tanh(x):
// what gelu_backward multiplies dout by
inline vf gelu_slope(vf x, vf t) {
  const vf half = simd::splat(0.5f), one = simd::splat(1.0f);
  const vf du = simd::splat(kGeluScale) * simd::fma(simd::splat(3.0f * 0.044715f), x * x, one);
  return half * (one + t) + half * x * (one - t * t) * du;
}
inline float gelu_slope(float x, float t) {
  const float du = kGeluScale * (1.0f + 3.0f * 0.044715f * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}
}  // namespace

void gelu_forward(float* out, const float* inp, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf half = simd::splat(0.5f), one = simd::splat(1.0f);
    for (; i + W <= e; i += W) {
      const vf x = simd::load(inp + i);
      simd::store(out + i, half * x * (one + gelu_tanh(x)));
    }
    for (; i < e; i++) out[i] = 0.5f * inp[i] * (1.0f + gelu_tanh(inp[i]));
  });
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  // forward: out = 0.5 x (1 + tanh u)  ->  dinp += gelu'(x) dout
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    for (; i + W <= e; i += W) {
      const vf x = simd::load(inp + i);
      simd::store(dinp + i, simd::fma(gelu_slope(x, gelu_tanh(x)), simd::load(dout + i), simd::load(dinp + i)));
    }
    for (; i < e; i++) dinp[i] += gelu_slope(inp[i], gelu_tanh(inp[i])) * dout[i];
  });
}

// gelu_forward's out and gelu_backward's factor from one tanh, with the same operations as each
// (the same bits: a backward that multiplies dout by the slope equals gelu_backward into zeros)
void gelu_forward_slope(float* out, float* slope, const float* inp, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf half = simd::splat(0.5f), one = simd::splat(1.0f);
    for (; i + W <= e; i += W) {
      const vf x = simd::load(inp + i), t = gelu_tanh(x);
      simd::store(out + i, half * x * (one + t));
      simd::store(slope + i, gelu_slope(x, t));
    }
    for (; i < e; i++) {
      const float x = inp[i], t = gelu_tanh(x);
      out[i] = 0.5f * x * (1.0f + t);
      slope[i] = gelu_slope(x, t);
    }
  });
}

// ---- softmax ---------------------------------------------------------------------------------

void softmax_forward(float* out, const float* inp, int N, int C) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* x = inp + int64_t(n) * C;
      float* y = out + int64_t(n) * C;
      float sum = exp_shift_sum(y, x, row_max(x, C), C);
      scale_row(y, 1.0f / sum, C);
    }
  }, int64_t(N) * C);
}

void softmax_backward(float* dinp, const float* out, const float* dout, int N, int C) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* y = out + int64_t(n) * C;
      const float* dy = dout + int64_t(n) * C;
      float* dx = dinp + int64_t(n) * C;
      const float d = dot(dy, y, C);
      int c = 0;
      const vf vd = simd::splat(d);
      for (; c + W <= C; c += W)
        simd::store(dx + c, simd::fma(simd::load(y + c), simd::load(dy + c) - vd, simd::load(dx + c)));
      for (; c < C; c++) dx[c] += y[c] * (dy[c] - d);
    }
  }, int64_t(N) * C);
}

// ---- cross-entropy ---------------------------------------------------------------------------

void crossentropy_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      losses[n] = softmax_crossentropy_row(probs + int64_t(n) * V, logits + int64_t(n) * V, targets[n], V);
    }
  }, int64_t(N) * V);
}

void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      float* dz = dlogits + int64_t(n) * V;
      axpy(dz, dloss, probs + int64_t(n) * V, V);
      dz[targets[n]] -= dloss;
    }
  }, int64_t(N) * V);
}

// ---- attention -------------------------------------------------------------------------------
// Inside a task the products are small GEMMs on the calling thread (sgemm_serial) over the
// head's strided slices of qkv. Causality is used by blocks of kRowBlock query rows: rows
// [i0, i1) only meet keys [0, i1), so the blocks above the diagonal are never computed (for
// T = 64: a quarter of the full product, half the masked part).
//
// Tasks: one per (batch, head) while there are plenty of those for the threads (4 per thread:
// a head's (T, T) gradient then stays in this thread's cache); otherwise, for many threads, one
// per (batch, head, block of rows): B * NH * T / 32 of them (M: 192), and the backward pass runs
// in two passes (keys collect from queries of every later block). Every output element gets the
// same operations in the same order either way.

namespace {
constexpr int kRowBlock = 32;

struct Attention {
  const float* qkv;  // (B, T, 3C)
  int B, T, C, NH, HS, C3;
  float scale;       // 1 / sqrt(HS)
  bool accumulate = true;  // backward: add to dqkv, or write it (each element gets one product)
  Attention(const float* qkv_, int B_, int T_, int C_, int NH_)
      : qkv(qkv_), B(B_), T(T_), C(C_), NH(NH_), HS(C_ / NH_), C3(3 * C_), scale(1.0f / std::sqrt(float(C_ / NH_))) {}
  int blocks() const { return (T + kRowBlock - 1) / kRowBlock; }
  bool per_head() const { return tp::num_threads() == 1 || B * NH >= 4 * tp::num_threads(); }
  const float* q(int b, int h) const { return qkv + int64_t(b) * T * C3 + h * HS; }  // (T, HS), row stride 3C
};

// Forward, query rows [i0, i0 + kRowBlock) of head (b, h): their att rows and out rows.
void attention_forward_rows(const Attention& a, float* out, float* att, int b, int h, int i0) {
  const int T = a.T, C = a.C, C3 = a.C3, HS = a.HS;
  const int i1 = std::min(T, i0 + kRowBlock), rows = i1 - i0;
  const float* q = a.q(b, h);
  const float* k = q + C;
  const float* v = q + 2 * C;
  float* att_bh = att + (int64_t(b) * a.NH + h) * T * T;  // (T, T)
  float* out_bh = out + int64_t(b) * T * C + h * HS;      // (T, HS), row stride C
  if (fused_attention_fits(i1)) {
    // rows of a few key vectors: the scores and the softmax fused (kernels_attention.h)
    float* kt = scratch(kAttentionKeys, size_t(HS) * kFusedKeyVectors * W);  // (HS, keys [0, i1)): K^T
    transpose_keys(kt, k, C3, HS, i1);
    fused_scores_softmax(att_bh + int64_t(i0) * T, T, q + int64_t(i0) * C3, C3, kt, key_stride(i1), HS, rows,
                         [&](int r) { return i0 + r + 1; }, nullptr, a.scale);
    sgemm_serial(false, false, rows, HS, i1, att_bh + int64_t(i0) * T, T, v, C3, out_bh + int64_t(i0) * C, C, false);
    return;
  }
  // s_ij = q_i . k_j  for the block's rows and keys [0, i1)
  sgemm_serial(false, true, rows, i1, HS, q + int64_t(i0) * C3, C3, k, C3, att_bh + int64_t(i0) * T, T, false);
  for (int i = i0; i < i1; i++) {
    float* row = att_bh + int64_t(i) * T;
    const int n = i + 1;  // keys 0..i are visible
    scale_row(row, a.scale, n);
    const float sum = exp_shift_sum(row, row, row_max(row, n), n);
    scale_row(row, 1.0f / sum, n);
    std::memset(row + n, 0, size_t(T - n) * sizeof(float));  // the mask: j > i
  }
  // out_i = sum_j att_ij v_j
  sgemm_serial(false, false, rows, HS, i1, att_bh + int64_t(i0) * T, T, v, C3, out_bh + int64_t(i0) * C, C, false);
}

// Backward, query rows [i0, i0 + kRowBlock) of head (b, h): rows of ds (T, T) and dq.
void attention_backward_rows(const Attention& a, float* dqkv, const float* dout, const float* att, float* ds, int b,
                             int h, int i0) {
  const int T = a.T, C = a.C, C3 = a.C3, HS = a.HS;
  const int i1 = std::min(T, i0 + kRowBlock), rows = i1 - i0;
  const float* k = a.q(b, h) + C;
  const float* v = k + C;
  float* dq = dqkv + int64_t(b) * T * C3 + h * HS;
  const float* att_bh = att + (int64_t(b) * a.NH + h) * T * T;  // (T, T)
  const float* dout_bh = dout + int64_t(b) * T * C + h * HS;    // (T, HS), row stride C
  if (fused_attention_fits(i1)) {
    // rows of a few key vectors: datt and the softmax's backward fused (kernels_attention.h)
    float* vt = scratch(kAttentionKeys, size_t(HS) * kFusedKeyVectors * W);  // (HS, keys [0, i1)): V^T
    transpose_keys(vt, v, C3, HS, i1);
    fused_softmax_backward(ds + int64_t(i0) * T, T, i1, att_bh + int64_t(i0) * T, T, dout_bh + int64_t(i0) * C, C, vt,
                           key_stride(i1), HS, rows, [&](int r) { return i0 + r + 1; }, a.scale);
    sgemm_serial(false, false, rows, HS, i1, ds + int64_t(i0) * T, T, k, C3, dq + int64_t(i0) * C3, C3, a.accumulate);
    return;
  }
  // forward: out_i = sum_j att_ij v_j  ->  datt_ij = dout_i . v_j   (datt goes to ds, then ds in place)
  sgemm_serial(false, true, rows, i1, HS, dout_bh + int64_t(i0) * C, C, v, C3, ds + int64_t(i0) * T, T, false);
  // forward: att_i = softmax(scale s_i)  ->  ds_ij = scale att_ij (datt_ij - sum_k att_ik datt_ik)
  for (int i = i0; i < i1; i++) {
    const float* p = att_bh + int64_t(i) * T;
    float* d = ds + int64_t(i) * T;
    const int n = i + 1;
    const float dotp = dot(p, d, n);
    int j = 0;
    const vf vd = simd::splat(dotp), vs = simd::splat(a.scale);
    for (; j + W <= n; j += W) simd::store(d + j, simd::load(p + j) * (simd::load(d + j) - vd) * vs);
    for (; j < n; j++) d[j] = p[j] * (d[j] - dotp) * a.scale;
    std::memset(d + n, 0, size_t(i1 - n) * sizeof(float));  // masked: no gradient
  }
  // forward: s_ij = q_i . k_j  ->  dq_i += sum_j ds_ij k_j
  sgemm_serial(false, false, rows, HS, i1, ds + int64_t(i0) * T, T, k, C3, dq + int64_t(i0) * C3, C3, a.accumulate);
}

// Backward, keys [j0, j0 + kRowBlock) of head (b, h): dk and dv, from the ds rows of every query
// i >= j0 (rows above are masked):  dk_j += sum_i ds_ij q_i,   dv_j += sum_i att_ij dout_i
void attention_backward_keys(const Attention& a, float* dqkv, const float* dout, const float* att, const float* ds,
                             int b, int h, int j0) {
  const int T = a.T, C = a.C, C3 = a.C3, HS = a.HS;
  const int j1 = std::min(T, j0 + kRowBlock), cols = j1 - j0, nq = T - j0;
  const float* q = a.q(b, h);
  float* dk = dqkv + int64_t(b) * T * C3 + C + h * HS;
  float* dv = dk + C;
  const float* att_bh = att + (int64_t(b) * a.NH + h) * T * T;
  const float* dout_bh = dout + int64_t(b) * T * C + h * HS;
  sgemm_serial(true, false, cols, HS, nq, ds + int64_t(j0) * T + j0, T, q + int64_t(j0) * C3, C3,
               dk + int64_t(j0) * C3, C3, a.accumulate);
  sgemm_serial(true, false, cols, HS, nq, att_bh + int64_t(j0) * T + j0, T, dout_bh + int64_t(j0) * C, C,
               dv + int64_t(j0) * C3, C3, a.accumulate);
}
}  // namespace

void attention_forward(float* out, float* att, const float* qkv, int B, int T, int C, int NH) {
  const Attention a(qkv, B, T, C, NH);
  const int blocks = a.blocks();
  const int64_t work = int64_t(B) * NH * T * T * a.HS;
  if (a.per_head()) {
    tp::parallel_for(B * NH, [&](int bh_begin, int bh_end, int) {
      for (int bh = bh_begin; bh < bh_end; bh++) {
        if (bh + 1 < bh_end)  // the next head's q, k and v, while this one computes
          for (int part = 0; part < 3; part++) prefetch_rows(a.q((bh + 1) / NH, (bh + 1) % NH) + part * C, a.C3, T, a.HS);
        for (int blk = 0; blk < blocks; blk++) attention_forward_rows(a, out, att, bh / NH, bh % NH, blk * kRowBlock);
      }
    }, work);
    return;
  }
  tp::parallel_for(B * NH * blocks, [&](int task_begin, int task_end, int) {
    for (int task = task_begin; task < task_end; task++) {
      const int bh = task / blocks;
      attention_forward_rows(a, out, att, bh / NH, bh % NH, (task % blocks) * kRowBlock);
    }
  }, work);
}

void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C,
                        int NH, bool accumulate) {
  Attention a(qkv, B, T, C, NH);
  a.accumulate = accumulate;
  const int blocks = a.blocks();
  const int64_t work = int64_t(B) * NH * T * T * a.HS;
  if (a.per_head()) {
    tp::parallel_for(B * NH, [&](int bh_begin, int bh_end, int) {
      float* ds = scratch(kAttentionRow, size_t(T) * T);  // (T, T): this head's datt, then ds
      for (int bh = bh_begin; bh < bh_end; bh++) {
        const int b = bh / NH, h = bh % NH;
        if (bh + 1 < bh_end) {  // the next head's q, k, v, dout and att, while this one computes
          const int nb = (bh + 1) / NH, nh = (bh + 1) % NH;
          for (int part = 0; part < 3; part++) prefetch_rows(a.q(nb, nh) + part * C, a.C3, T, a.HS);
          prefetch_rows(dout + int64_t(nb) * T * C + nh * a.HS, C, T, a.HS);
          prefetch_rows(att + int64_t(bh + 1) * T * T, T, T, T);
        }
        for (int blk = 0; blk < blocks; blk++) attention_backward_rows(a, dqkv, dout, att, ds, b, h, blk * kRowBlock);
        for (int blk = 0; blk < blocks; blk++) attention_backward_keys(a, dqkv, dout, att, ds, b, h, blk * kRowBlock);
      }
    }, work);
    return;
  }
  // two passes; ds of every head is kept in shared scratch between them
  float* ds_all = shared_scratch(kAttentionDs, size_t(B) * NH * T * T);  // (B, NH, T, T)
  tp::parallel_for(B * NH * blocks, [&](int task_begin, int task_end, int) {
    for (int task = task_begin; task < task_end; task++) {
      const int bh = task / blocks;
      attention_backward_rows(a, dqkv, dout, att, ds_all + int64_t(bh) * T * T, bh / NH, bh % NH,
                              (task % blocks) * kRowBlock);
    }
  }, work);
  tp::parallel_for(B * NH * blocks, [&](int task_begin, int task_end, int) {
    for (int task = task_begin; task < task_end; task++) {
      const int bh = task / blocks;
      attention_backward_keys(a, dqkv, dout, att, ds_all + int64_t(bh) * T * T, bh / NH, bh % NH,
                              (task % blocks) * kRowBlock);
    }
  }, work);
}

// Generation reads every cached key and value once per new token, after the weights of the
// layers before have pushed them out of the caches: the loops walk the cache in memory order,
// one whole row (all heads) at a time, so the reads stream. Tasks are the new queries (a
// prefill has many; a generated token has one).
void attention_decode(float* out, const float* qkv, const float* k_cache, const float* v_cache, int p0, int n, int C,
                      int NH) {
  const int HS = C / NH, T = p0 + n;
  const float scale = 1.0f / std::sqrt(float(HS));
  tp::parallel_for(n, [&](int i_begin, int i_end, int) {
    float* s = scratch(kAttentionRow, size_t(NH) * T);  // (NH, T): scores, then probabilities
    for (int i = i_begin; i < i_end; i++) {
      const float* q_i = qkv + int64_t(i) * 3 * C;
      const int visible = p0 + i + 1;  // the cache and the new position itself
      for (int j = 0; j < visible; j++) {
        const float* k_j = k_cache + int64_t(j) * C;
        for (int h = 0; h < NH; h++) s[int64_t(h) * T + j] = dot(q_i + h * HS, k_j + h * HS, HS) * scale;
      }
      for (int h = 0; h < NH; h++) {
        float* s_h = s + int64_t(h) * T;
        const float sum = exp_shift_sum(s_h, s_h, row_max(s_h, visible), visible);
        scale_row(s_h, 1.0f / sum, visible);
      }
      // out_i = sum_j p_j v_j, head by head
      float* out_i = out + int64_t(i) * C;
      std::memset(out_i, 0, size_t(C) * sizeof(float));
      for (int j = 0; j < visible; j++) {
        const float* v_j = v_cache + int64_t(j) * C;
        for (int h = 0; h < NH; h++) axpy(out_i + h * HS, s[int64_t(h) * T + j], v_j + h * HS, HS);
      }
    }
  }, int64_t(n) * T * C);
}

// ---- small vector ops ------------------------------------------------------------------------

void add_forward(float* out, const float* a, const float* b, int64_t n) {
  for_chunks(n, [&](int64_t lo, int64_t hi) {
    int64_t i = lo;
    for (; i + W <= hi; i += W) simd::store(out + i, simd::load(a + i) + simd::load(b + i));
    for (; i < hi; i++) out[i] = a[i] + b[i];
  });
}

void mul_forward(float* out, const float* a, const float* b, int64_t n) {
  for_chunks(n, [&](int64_t lo, int64_t hi) {
    int64_t i = lo;
    for (; i + W <= hi; i += W) simd::store(out + i, simd::load(a + i) * simd::load(b + i));
    for (; i < hi; i++) out[i] = a[i] * b[i];
  });
}

void accumulate(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) simd::store(dst + i, simd::load(dst + i) + simd::load(src + i));
  for (; i < n; i++) dst[i] += src[i];
}

double sum_squares(const float* x, int64_t n) {
  // a double partial sum per 4096-element block, the blocks in parallel, then their sum in block
  // order: the same answer for any thread count
  const int blocks = int((n + kChunk - 1) / kChunk);
  if (blocks <= 0) return 0.0;
  double* partial = reinterpret_cast<double*>(shared_scratch(kColumnSums, 2 * size_t(blocks)));  // (blocks)
  tp::parallel_for(blocks, [&](int b0, int b1, int) {
    for (int blk = b0; blk < b1; blk++) {
      const int64_t b = int64_t(blk) * kChunk, e = std::min(n, b + kChunk);
      vf acc = simd::zero();
      int64_t i = b;
      for (; i + W <= e; i += W) acc = simd::fma(simd::load(x + i), simd::load(x + i), acc);
      double s = simd::hsum(acc);
      for (; i < e; i++) s += double(x[i]) * x[i];
      partial[blk] = s;
    }
  }, 2 * n);
  double total = 0.0;
  for (int blk = 0; blk < blocks; blk++) total += partial[blk];
  return total;
}

void scale(float* x, float s, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) { scale_row(x + b, s, int(e - b)); });
}

// ---- AdamW ---------------------------------------------------------------------------------

void adamw_update(float* params, const float* grads, float* m, float* v, int64_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, float bias_correction1, float bias_correction2,
                  float grad_scale) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    const vf b1 = simd::splat(beta1), b2 = simd::splat(beta2);
    const vf omb1 = simd::splat(1.0f - beta1), omb2 = simd::splat(1.0f - beta2);
    const vf decay = simd::splat(1.0f - lr * weight_decay), vlr = simd::splat(lr), veps = simd::splat(eps);
    const vf rbc1 = simd::splat(1.0f / bias_correction1), rbc2 = simd::splat(1.0f / bias_correction2);
    const vf gs = simd::splat(grad_scale);
    int64_t i = b;
    for (; i + W <= e; i += W) {
      vf g = simd::load(grads + i) * gs;
      vf mi = b1 * simd::load(m + i) + omb1 * g;
      vf vi = b2 * simd::load(v + i) + omb2 * g * g;
      simd::store(m + i, mi);
      simd::store(v + i, vi);
      vf update = (mi * rbc1) / (simd::vsqrt(vi * rbc2) + veps);
      simd::store(params + i, simd::load(params + i) * decay - vlr * update);
    }
    for (; i < e; i++) {
      float g = grads[i] * grad_scale;
      m[i] = beta1 * m[i] + (1.0f - beta1) * g;
      v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
      float update = (m[i] * (1.0f / bias_correction1)) / (std::sqrt(v[i] * (1.0f / bias_correction2)) + eps);
      params[i] = params[i] * (1.0f - lr * weight_decay) - lr * update;
    }
  });
}

// ---- the table dispatch.cpp picks from --------------------------------------------------

const KernelTable& table() {
  static const KernelTable t = {
      .backend = simd::kBackend,
#define TINYGPT_KERNEL(ret, name, params, args) .name = &name,
#include "kernel_list.h"
  };
  return t;
}

}  // namespace tinygpt::kernels::TINYGPT_ISA
