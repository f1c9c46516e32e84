// kernels_rows.h — small SIMD loops over one row (max, exp-and-sum, scale, dot, axpy) for the
// per-ISA kernel files.
//
// Everything here has internal linkage (an unnamed namespace inside kernels::<isa>): each
// translation unit compiled for an ISA gets its own copy, so the linker can never pick an
// AVX2-compiled copy for the SSE2 kernels (see kernels_isa.h). kernels.cpp, kernels_seq2seq.cpp and
// gemm.cpp (its small-product path) include it; nothing else defines these loops.
#pragma once

#include <cmath>

#include "simd.h"

namespace tinygpt::kernels::TINYGPT_ISA {
namespace {

// The softmax's row loops: whole vectors, then the rest. With 8 or 16 lanes the rest (up to 15
// elements) is one partial vector (simd::load_n, store_n) with neutral lanes: its scalar loop
// called libm's fmaxf and expf once per element, most of a short attention row's time natively.
// With 4 lanes the rest stays scalar (at most 3 elements): the partial vector measured slower in
// the SIMD128 build (the GPT's attention forward 2.56 -> 3.04 ms a step, bench/pool.mjs).
constexpr bool kVectorTail = simd::W >= 8;

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

}  // namespace
}  // namespace tinygpt::kernels::TINYGPT_ISA
