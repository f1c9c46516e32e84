// peak.h — the machine's multiply-add peak, for the benchmarks' "% of peak" figures.
//
// Peak: many independent multiply-add chains on registers (no memory traffic), at the vector
// width of each backend. With FMA (AVX2, AVX-512) a chain step is one fused instruction; SSE2
// and SIMD128 have no FMA, so a step is a mul and an add (two flops either way).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#if defined(__x86_64__) && !defined(__AVX2__)
#include <immintrin.h>
#define BENCH_X86_PEAKS 1
#endif

#include "simd.h"

namespace bench {
namespace {  // one copy per benchmark program

using namespace tinygpt;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// 12 independent chains c = c * a + b, `iters` times, written out so that they stay in registers.
#define BENCH_CHAINS(FMA)                                                                           \
  for (long it = 0; it < iters; it++) {                                                            \
    c0 = FMA(c0, a, b), c1 = FMA(c1, a, b), c2 = FMA(c2, a, b), c3 = FMA(c3, a, b);                \
    c4 = FMA(c4, a, b), c5 = FMA(c5, a, b), c6 = FMA(c6, a, b), c7 = FMA(c7, a, b);                \
    c8 = FMA(c8, a, b), c9 = FMA(c9, a, b), c10 = FMA(c10, a, b), c11 = FMA(c11, a, b);            \
  }

// This build's own width (SSE2 mul+add natively, SIMD128 in wasm).
// a and b come from volatile memory so the compiler cannot fold the loop.
__attribute__((noinline)) float fma_chains(long iters) {
  using simd::vf;
  volatile float va = 0.999999f, vb = 1e-7f;
  const vf a = simd::splat(va), b = simd::splat(vb);
  vf c0 = simd::splat(1.00f), c1 = simd::splat(1.01f), c2 = simd::splat(1.02f), c3 = simd::splat(1.03f);
  vf c4 = simd::splat(1.04f), c5 = simd::splat(1.05f), c6 = simd::splat(1.06f), c7 = simd::splat(1.07f);
  vf c8 = simd::splat(1.08f), c9 = simd::splat(1.09f), c10 = simd::splat(1.10f), c11 = simd::splat(1.11f);
  BENCH_CHAINS(simd::fma)
  return simd::hsum(c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11);
}

#if defined(BENCH_X86_PEAKS)
// The same chains with 8-lane and 16-lane fused multiply-adds, for the AVX2 and AVX-512 kernels
// of a portable build (compiled for those ISAs only here, called only when the CPU has them).
__attribute__((noinline, target("avx2,fma"))) float fma_chains_avx2(long iters) {
  volatile float va = 0.999999f, vb = 1e-7f;
  const __m256 a = _mm256_set1_ps(va), b = _mm256_set1_ps(vb);
  __m256 c0 = _mm256_set1_ps(1.00f), c1 = _mm256_set1_ps(1.01f), c2 = _mm256_set1_ps(1.02f), c3 = _mm256_set1_ps(1.03f);
  __m256 c4 = _mm256_set1_ps(1.04f), c5 = _mm256_set1_ps(1.05f), c6 = _mm256_set1_ps(1.06f), c7 = _mm256_set1_ps(1.07f);
  __m256 c8 = _mm256_set1_ps(1.08f), c9 = _mm256_set1_ps(1.09f), c10 = _mm256_set1_ps(1.10f), c11 = _mm256_set1_ps(1.11f);
  BENCH_CHAINS(_mm256_fmadd_ps)
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                           _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}

__attribute__((noinline, target("avx512f"))) float fma_chains_avx512(long iters) {
  volatile float va = 0.999999f, vb = 1e-7f;
  const __m512 a = _mm512_set1_ps(va), b = _mm512_set1_ps(vb);
  __m512 c0 = _mm512_set1_ps(1.00f), c1 = _mm512_set1_ps(1.01f), c2 = _mm512_set1_ps(1.02f), c3 = _mm512_set1_ps(1.03f);
  __m512 c4 = _mm512_set1_ps(1.04f), c5 = _mm512_set1_ps(1.05f), c6 = _mm512_set1_ps(1.06f), c7 = _mm512_set1_ps(1.07f);
  __m512 c8 = _mm512_set1_ps(1.08f), c9 = _mm512_set1_ps(1.09f), c10 = _mm512_set1_ps(1.10f), c11 = _mm512_set1_ps(1.11f);
  BENCH_CHAINS(_mm512_fmadd_ps)
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                           _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0];
}
#endif

// GFLOP/s of a chains function. Called in pieces: a JIT (V8 for wasm) tiers a function up between
// calls, never in the middle of one, so the warm-up calls get the optimised code in place.
double peak_gflops_one_thread(float (*chains)(long), int lanes) {
  float sink = 0;
  for (int i = 0; i < 50; i++) sink += chains(100'000);
  const long iters = 1'000'000;
  double best = 1e30;
  for (int r = 0; r < 20; r++) {
    const auto t0 = Clock::now();
    sink += chains(iters);
    best = std::min(best, seconds_since(t0));
  }
  if (sink == 12345.0f) std::printf("!");
  return double(iters) * 12 * lanes * 2 / best / 1e9;
}

// Peak for a kernel backend's name.
double peak_for(const std::string& backend) {
#if defined(BENCH_X86_PEAKS)
  if (backend == "avx2") return peak_gflops_one_thread(fma_chains_avx2, 8);
  if (backend == "avx512") return peak_gflops_one_thread(fma_chains_avx512, 16);
#endif
  return peak_gflops_one_thread(fma_chains, simd::W);
}

[[maybe_unused]] const char* peak_kind(const std::string& backend) {
  return backend == "avx2" || backend == "avx512" ? "FMA" : "mul+add";
}

}  // namespace
}  // namespace bench
