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

// max over x[0 .. n), n >= 1
inline float row_max(const float* x, int n) {
  using simd::W;
  int i = 0;
  float m = -INFINITY;
  if (n >= W) {
    simd::vf vm = simd::load(x);
    for (i = W; i + W <= n; i += W) vm = simd::vmax(vm, simd::load(x + i));
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
