// kernels_attention.h — attention's short rows, fused, for the per-ISA kernel files: the GPT's
// attention (kernels.cpp) and the encoder-decoder's (kernels_seq2seq.cpp).
//
// Rows of a few dozen keys (S's 64, a translator's 32) spent more time in the softmax's row loops
// than in the products: each row's max and sum are a chain of dependent reductions, and a
// causal block's rows of different lengths send the loops' tails down different branches. Here
// a group of G query rows keeps its scores in registers from the product to the weights:
//   forward:  s = q K^T (the product, by broadcasts of q against rows of K^T), then scale, mask,
//             max, exp, sum and 1/sum phase by phase across the group's rows (G independent
//             chains side by side), masks as lane comparisons, each weight row stored once;
//   backward: datt = dout V^T the same way, then ds = scale p (datt - p . datt).
// The forward does the unfused path's operations (the product's multiply-adds in the same order,
// then scale, max, exp, the same sum, 1/sum): the same bits, except in a block of fewer than 4
// query rows (T = 33's last), whose scores the unfused GEMM summed as dot products. The backward's p . datt is one vector
// dot over the row's whole key vectors (0 past its keys), where the unfused path's dot takes the
// vectors, then a scalar tail: results agree to rounding. Neither depends on the thread count.
//
// Internal linkage, as kernels_rows.h: every ISA's translation unit gets its own copy. The group
// kernels stay out of line: inlined into their callers' loops (four of each), the forward ran
// ~1.4x slower (its registers spilled).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels_rows.h"
#include "simd.h"

namespace tinygpt::kernels::TINYGPT_ISA {
namespace {

// Rows of up to 4 vectors of keys: 64 keys with AVX-512, 32 with AVX2, 16 with 4 lanes.
constexpr int kFusedKeyVectors = 4;
inline bool fused_attention_fits(int keys) { return keys <= kFusedKeyVectors * simd::W; }
#if defined(TINYGPT_SIMD_AVX512)
constexpr int kAccVectors = 16;  // score vectors a group keeps in registers (of 32)
#else
constexpr int kAccVectors = 8;   // (of 16)
#endif

// kt (HS rows of stride key_stride(n)) = keys [0, n) of k (row stride k_row) transposed, zero past n.
inline int key_stride(int n) { return std::max(1, (n + simd::W - 1) / simd::W) * simd::W; }
inline void transpose_keys(float* kt, const float* k, int k_row, int HS, int n) {
  const int ld = key_stride(n);
  copy_transposed(kt, ld, k, k_row, HS, n);
  for (int d = 0; d < HS; d++) std::memset(kt + int64_t(d) * ld + n, 0, size_t(ld - n) * sizeof(float));
}

template <int KV>
constexpr int group_rows() { return std::max(1, kAccVectors / KV); }
template <int N>
struct KeyVectors {  // a compile-time count of key vectors (no std:: templates here: kernels_isa.h)
  static constexpr int value = N;
};

// acc[r] (KV vectors of keys) = sum_d x_r[d] * kt[d][0, KV * W): rows r < G of x (row stride ldx;
// rows past `rows` repeat the last one), against a transposed K or V (HS rows of stride ldk), by
// broadcasts of x: the multiply-adds of the GEMM's direct kernel, in its order.
template <int G, int KV>
inline void rows_times_keys(simd::vf (&acc)[G][KV], const float* x, int ldx, int rows, const float* kt, int ldk, int HS) {
  using simd::vf;
  const float* xr[G];
  for (int r = 0; r < G; r++) xr[r] = x + int64_t(std::min(r, rows - 1)) * ldx;
  for (int r = 0; r < G; r++)
    for (int v = 0; v < KV; v++) acc[r][v] = simd::zero();
  for (int d = 0; d < HS; d++) {
    vf kd[KV];
    for (int v = 0; v < KV; v++) kd[v] = simd::load(kt + int64_t(d) * ldk + v * simd::W);
    for (int r = 0; r < G; r++) {
      const vf a = simd::splat(xr[r][d]);
      for (int v = 0; v < KV; v++) acc[r][v] = simd::fma(a, kd[v], acc[r][v]);
    }
  }
}

// Rows [0, rows) (rows <= group_rows<KV>()) of att (row stride Tk, written over [0, Tk)): the
// masked softmax of scale * q_i . k_j over keys [0, visible[r]) that are not padding (pad_mask:
// KV vectors, all-ones lanes on padding, or null), exactly 0 elsewhere. kt: K^T, row stride ldk,
// at least KV * W keys wide. visible[] has group_rows<KV>() entries (rows past `rows` repeat the
// last one: computed, never stored).
template <int KV>
__attribute__((noinline)) void scores_softmax(float* att, int Tk, const float* q, int q_row, const float* kt, int ldk, int HS, int rows,
                    const int* visible, const simd::vi* pad_mask, float scale) {
  using simd::vf;
  using simd::W;
  constexpr int G = group_rows<KV>();
  vf acc[G][KV];  // (G, KV * W): the scores
  rows_times_keys<G, KV>(acc, q, q_row, rows, kt, ldk, HS);
  simd::vi lane;
  for (int l = 0; l < W; l++) lane[l] = l;
  const vf vscale = simd::splat(scale), neg_inf = simd::splat(-INFINITY);
  float m[G], inv[G];
#pragma GCC unroll 16
  for (int r = 0; r < G; r++) {  // scale, mask, max
    vf vm = neg_inf;
    for (int v = 0; v < KV; v++) {
      const simd::vi seen = lane < visible[r] - v * W;
      acc[r][v] = simd::select(pad_mask ? seen & ~pad_mask[v] : seen, acc[r][v] * vscale, neg_inf);
      vm = simd::vmax(vm, acc[r][v]);
    }
    m[r] = simd::hmax(vm);
  }
#pragma GCC unroll 16
  for (int r = 0; r < G; r++) {  // exp, and the sum over keys [0, n) (padding's exp(-inf - m), ~1e-38, included)
    const int n = visible[r];
    const vf vshift = simd::splat(m[r] == -INFINITY ? 0.0f : m[r]);
    vf vs = simd::zero();
    for (int v = 0; v < KV; v++) {
      acc[r][v] = simd::vexp(acc[r][v] - vshift);
      if (v * W < n) vs = vs + simd::select(lane < n - v * W, acc[r][v], simd::zero());
    }
    inv[r] = 1.0f / simd::hsum(vs);
  }
  for (int r = 0; r < rows; r++) {
    float* row = att + int64_t(r) * Tk;
    // no visible key, or every one is padding: no weights (and no NaN)
    const vf vinv = simd::splat(m[r] == -INFINITY ? 0.0f : inv[r]);
    for (int v = 0; v < KV; v++) {
      const simd::vi seen = lane < visible[r] - v * W;
      const vf p = simd::select(pad_mask ? seen & ~pad_mask[v] : seen, acc[r][v] * vinv, simd::zero());
      if ((v + 1) * W <= Tk) simd::store(row + v * W, p);
      else if (v * W < Tk) simd::store_n(row + v * W, p, Tk - v * W);
    }
    if (KV * W < Tk) std::memset(row + KV * W, 0, size_t(Tk - KV * W) * sizeof(float));
  }
}

// Rows [0, rows) of ds (row stride ld_ds, written over [0, width)): ds_ij = scale p_ij (datt_ij -
// sum_k p_ik datt_ik) with datt_ij = dout_i . v_j, over keys [0, visible[r]), 0 past them (p is 0
// there: masked and invisible keys get no gradient). p: att rows (stride Tk); vt: V^T (row stride
// ldv, at least KV * W keys wide, zero past the real keys).
template <int KV>
__attribute__((noinline)) void softmax_backward_rows(float* ds, int ld_ds, int width, const float* att, int Tk, const float* dout, int ld_dout,
                           const float* vt, int ldv, int HS, int rows, const int* visible, float scale) {
  using simd::vf;
  using simd::W;
  constexpr int G = group_rows<KV>();
  vf acc[G][KV];  // (G, KV * W): datt
  rows_times_keys<G, KV>(acc, dout, ld_dout, rows, vt, ldv, HS);
  simd::vi lane;
  for (int l = 0; l < W; l++) lane[l] = l;
  vf p[G][KV];
  float dotp[G];
#pragma GCC unroll 16
  for (int r = 0; r < G; r++) {
    const float* pr = att + int64_t(std::min(r, rows - 1)) * Tk;
    vf vs = simd::zero();
    for (int v = 0; v < KV; v++) {
      // keys [0, n) only (the forward stores 0 past them; a caller's att might not)
      const vf pv = (v + 1) * W <= Tk ? simd::load(pr + v * W) : simd::load_n(pr + v * W, std::max(0, Tk - v * W), 0.0f);
      p[r][v] = simd::select(lane < visible[r] - v * W, pv, simd::zero());
      vs = simd::fma(p[r][v], acc[r][v], vs);
    }
    dotp[r] = simd::hsum(vs);
  }
  const vf vscale = simd::splat(scale);
  for (int r = 0; r < rows; r++) {
    const vf vdot = simd::splat(dotp[r]);
    float* out = ds + int64_t(r) * ld_ds;
    for (int v = 0; v < KV; v++) {
      const vf g = simd::select(lane < visible[r] - v * W, p[r][v] * (acc[r][v] - vdot) * vscale, simd::zero());
      if ((v + 1) * W <= width) simd::store(out + v * W, g);
      else if (v * W < width) simd::store_n(out + v * W, g, width - v * W);
    }
    if (KV * W < width) std::memset(out + KV * W, 0, size_t(width - KV * W) * sizeof(float));
  }
}

// Groups of rows, each as many as its key vectors leave registers for: f(KeyVectors<KV>, g0, g1,
// visible) for rows [g0, g1). visible(r), the keys
// row r sees, must not decrease with r (causal rows, or every row alike); at most
// kFusedKeyVectors * W.
template <class Visible, class F>
void for_row_groups(int rows, Visible visible, F&& f) {
  using simd::W;
  for (int g0 = 0; g0 < rows;) {
    const int kv = std::max(1, (visible(std::min(rows, g0 + kAccVectors) - 1) + W - 1) / W);
    const int g1 = std::min(rows, g0 + std::max(1, kAccVectors / kv));
    int n[kAccVectors];
    for (int r = 0; r < kAccVectors; r++) n[r] = visible(std::min(g0 + r, g1 - 1));
    switch (kv) {
      case 1: f(KeyVectors<1>{}, g0, g1, n); break;
      case 2: f(KeyVectors<2>{}, g0, g1, n); break;
      case 3: f(KeyVectors<3>{}, g0, g1, n); break;
      default: f(KeyVectors<4>{}, g0, g1, n); break;
    }
    g0 = g1;
  }
}

// Forward, rows [0, rows) of a head: att rows (stride Tk) from q rows (stride q_row) and kt (K^T,
// row stride ldk), as scores_softmax.
template <class Visible>
void fused_scores_softmax(float* att, int Tk, const float* q, int q_row, const float* kt, int ldk, int HS, int rows,
                          Visible visible, const simd::vi* pad_mask, float scale) {
  for_row_groups(rows, visible, [&](auto KV, int g0, int g1, const int* n) {
    scores_softmax<decltype(KV)::value>(att + int64_t(g0) * Tk, Tk, q + int64_t(g0) * q_row, q_row, kt, ldk, HS, g1 - g0, n, pad_mask, scale);
  });
}

// Backward, rows [0, rows) of a head: ds rows (stride ld_ds, over [0, width)) from dout rows
// (stride ld_dout), att rows (stride Tk) and vt (V^T, row stride ldv), as softmax_backward_rows.
template <class Visible>
void fused_softmax_backward(float* ds, int ld_ds, int width, const float* att, int Tk, const float* dout, int ld_dout,
                            const float* vt, int ldv, int HS, int rows, Visible visible, float scale) {
  for_row_groups(rows, visible, [&](auto KV, int g0, int g1, const int* n) {
    softmax_backward_rows<decltype(KV)::value>(ds + int64_t(g0) * ld_ds, ld_ds, width, att + int64_t(g0) * Tk, Tk,
                              dout + int64_t(g0) * ld_dout, ld_dout, vt, ldv, HS, g1 - g0, n, scale);
  });
}

}  // namespace
}  // namespace tinygpt::kernels::TINYGPT_ISA
