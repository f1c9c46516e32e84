// kernels_rows.h — small SIMD loops over one row (max, exp-and-sum, scale, dot, axpy) for the
// per-ISA kernel files.
//
// Everything here has internal linkage (an unnamed namespace inside kernels::<isa>): each
// translation unit compiled for an ISA gets its own copy, so the linker can never pick an
// AVX2-compiled copy for the SSE2 kernels (see kernels_isa.h). kernels.cpp, kernels_seq2seq.cpp and
// gemm.cpp (its small-product path) include it; nothing else defines these loops.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "simd.h"

namespace tinygpt::kernels::TINYGPT_ISA {
namespace {

// The softmax's row loops: whole vectors, then the rest. With 8 or 16 lanes the rest (up to 15
// elements) is one partial vector (simd::load_n, store_n) with neutral lanes: its scalar loop
// called libm's fmaxf and expf once per element, most of a short attention row's time natively.
// With 4 lanes the rest stays scalar (at most 3 elements): the partial vector measured slower in
// the SIMD128 build (the GPT's attention forward 2.56 -> 3.04 ms a step, bench/pool.mjs).
constexpr bool kVectorTail = simd::W >= 8;

// Asks for rows [0, rows) x [0, width) of a matrix of row stride ld to be brought into the cache.
// Attention's heads read slices of 32 rows of 128 bytes, 1.5 KB apart in a training step's
// (B, T, 3C) activations: a stride the hardware's prefetchers do not follow across pages, and a
// step's activations (tens of MB) are out of the caches when its backward reads them. Asked for
// while the previous head computes (natively, S2S's attention backward 1.90 -> 1.62 ms a step with
// one thread, docs/simd_and_kernels.md). A no-op where there is no prefetch (wasm).
inline void prefetch_rows(const float* x, int64_t ld, int rows, int width) {
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < width; c += 16) __builtin_prefetch(x + r * ld + c, 0);
}

// max over x[0 .. n), n >= 1
inline float row_max(const float* x, int n) {
  using simd::W;
  int i = 0;
  float m = -INFINITY;
  if (kVectorTail || n >= W) {
    simd::vf vm = simd::splat(-INFINITY);
    for (; i + W <= n; i += W) vm = simd::vmax(vm, simd::load(x + i));
    if (kVectorTail && i < n) vm = simd::vmax(vm, simd::load_n(x + i, n - i, -INFINITY)), i = n;
    m = simd::hmax(vm);
  }
  for (; i < n; i++) m = std::fmax(m, x[i]);
  return m;
}

// out[i] = exp(x[i] - shift); returns the sum
inline float exp_shift_sum(float* out, const float* x, float shift, int n) {
  using simd::W;
  int i = 0;
  simd::vf vs = simd::zero();
  const simd::vf vshift = simd::splat(shift);
  for (; i + W <= n; i += W) {
    simd::vf e = simd::vexp(simd::load(x + i) - vshift);
    simd::store(out + i, e);
    vs = vs + e;
  }
  if (kVectorTail && i < n) {
    // padded with the shift: exp(0) = 1 in the lanes past n, left out of the sum
    const simd::vf e = simd::vexp(simd::load_n(x + i, n - i, shift) - vshift);
    simd::store_n(out + i, e, n - i);
    vs = vs + simd::first_n(e, n - i);
    i = n;
  }
  float s = simd::hsum(vs);
  for (; i < n; i++) {
    out[i] = std::exp(x[i] - shift);
    s += out[i];
  }
  return s;
}

// x[0 .. n) *= s
inline void scale_row(float* x, float s, int n) {
  using simd::W;
  int i = 0;
  const simd::vf vsc = simd::splat(s);
  for (; i + W <= n; i += W) simd::store(x + i, simd::load(x + i) * vsc);
  if (kVectorTail && i < n) simd::store_n(x + i, simd::load_n(x + i, n - i, 0.0f) * vsc, n - i), i = n;
  for (; i < n; i++) x[i] *= s;
}

// p[0 .. V) = softmax(z) and the cross-entropy of target y: -log p_y = log(sum) - (z_y - max),
// exact even where p_y underflows
inline float softmax_crossentropy_row(float* p, const float* z, int y, int V) {
  const float maxv = row_max(z, V);
  const float sum = exp_shift_sum(p, z, maxv, V);
  scale_row(p, 1.0f / sum, V);
  return std::log(sum) - (z[y] - maxv);
}

inline float dot(const float* a, const float* b, int n) {
  using simd::W;
  int i = 0;
  simd::vf acc = simd::zero();
  for (; i + W <= n; i += W) acc = simd::fma(simd::load(a + i), simd::load(b + i), acc);
  float s = simd::hsum(acc);
  for (; i < n; i++) s += a[i] * b[i];
  return s;
}

// y += a * x
inline void axpy(float* y, float a, const float* x, int n) {
  using simd::W;
  int i = 0;
  const simd::vf va = simd::splat(a);
  for (; i + W <= n; i += W) simd::store(y + i, simd::fma(va, simd::load(x + i), simd::load(y + i)));
  for (; i < n; i++) y[i] += a * x[i];
}

// dst (kc rows, stride ldp) [k][j] = b[j * ldb + k] for j < n: the rows of B^T out of B (attention's
// K^T and V^T, for gemm.cpp's small products and the attention kernels), by 4 x 4 blocks in
// 128-bit vectors (SSE / SIMD128 / NEON alike) instead of one float at a time.
using v4 = float __attribute__((vector_size(16)));
inline v4 load4(const float* p) { v4 v; std::memcpy(&v, p, sizeof v); return v; }
inline void store4(float* p, v4 v) { std::memcpy(p, &v, sizeof v); }
#if defined(__clang__)
#define TINYGPT_SHUFFLE4(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define TINYGPT_SHUFFLE4(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (__attribute__((vector_size(16))) int){i0, i1, i2, i3})
#endif
inline void copy_transposed(float* dst, int ldp, const float* b, int ldb, int kc, int n) {
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    const float* r0 = b + int64_t(j) * ldb;
    const float* r1 = r0 + ldb;
    const float* r2 = r1 + ldb;
    const float* r3 = r2 + ldb;
    int k = 0;
    for (; k + 4 <= kc; k += 4) {
      const v4 a0 = load4(r0 + k), a1 = load4(r1 + k), a2 = load4(r2 + k), a3 = load4(r3 + k);
      const v4 t0 = TINYGPT_SHUFFLE4(a0, a1, 0, 4, 1, 5), t1 = TINYGPT_SHUFFLE4(a2, a3, 0, 4, 1, 5);  // k, k+1
      const v4 t2 = TINYGPT_SHUFFLE4(a0, a1, 2, 6, 3, 7), t3 = TINYGPT_SHUFFLE4(a2, a3, 2, 6, 3, 7);  // k+2, k+3
      store4(dst + int64_t(k) * ldp + j, TINYGPT_SHUFFLE4(t0, t1, 0, 1, 4, 5));
      store4(dst + int64_t(k + 1) * ldp + j, TINYGPT_SHUFFLE4(t0, t1, 2, 3, 6, 7));
      store4(dst + int64_t(k + 2) * ldp + j, TINYGPT_SHUFFLE4(t2, t3, 0, 1, 4, 5));
      store4(dst + int64_t(k + 3) * ldp + j, TINYGPT_SHUFFLE4(t2, t3, 2, 3, 6, 7));
    }
    for (; k < kc; k++)
      for (int jj = 0; jj < 4; jj++) dst[int64_t(k) * ldp + j + jj] = b[int64_t(j + jj) * ldb + k];
  }
  for (; j < n; j++)
    for (int k = 0; k < kc; k++) dst[int64_t(k) * ldp + j] = b[int64_t(j) * ldb + k];
}
#undef TINYGPT_SHUFFLE4

}  // namespace
}  // namespace tinygpt::kernels::TINYGPT_ISA
