// peak.h — the machine's multiply-add peak, for the benchmarks' "% of peak" figures.
//
// Peak: many independent multiply-add chains on registers (no memory traffic), the vector
// width of this build. With FMA (AVX2) a chain step is one fused instruction; SIMD128 has no
// FMA, so a step is a mul and an add (two flops either way).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#if defined(__x86_64__) && !defined(__AVX2__)
#include <immintrin.h>
#define BENCH_AVX2_PEAK 1
#endif

#include "simd.h"

namespace bench {
namespace {  // one copy per benchmark program

using namespace tinygpt;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// 12 independent chains acc = acc * a + b (fused where the ISA has it), `iters` times.
// a and b come from volatile memory so the compiler cannot fold the loop.
__attribute__((noinline)) float fma_chains(long iters) {
  using simd::vf;
  volatile float va = 0.999999f, vb = 1e-7f;
  const vf a = simd::splat(va), b = simd::splat(vb);
  vf c0 = simd::splat(1.00f), c1 = simd::splat(1.01f), c2 = simd::splat(1.02f), c3 = simd::splat(1.03f);
  vf c4 = simd::splat(1.04f), c5 = simd::splat(1.05f), c6 = simd::splat(1.06f), c7 = simd::splat(1.07f);
  vf c8 = simd::splat(1.08f), c9 = simd::splat(1.09f), c10 = simd::splat(1.10f), c11 = simd::splat(1.11f);
  for (long it = 0; it < iters; it++) {
    c0 = simd::fma(c0, a, b), c1 = simd::fma(c1, a, b), c2 = simd::fma(c2, a, b), c3 = simd::fma(c3, a, b);
    c4 = simd::fma(c4, a, b), c5 = simd::fma(c5, a, b), c6 = simd::fma(c6, a, b), c7 = simd::fma(c7, a, b);
    c8 = simd::fma(c8, a, b), c9 = simd::fma(c9, a, b), c10 = simd::fma(c10, a, b), c11 = simd::fma(c11, a, b);
  }
  return simd::hsum(c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11);
}

#if defined(BENCH_AVX2_PEAK)
// The same chains with 8-lane fused multiply-adds, for the AVX2 kernels of a portable build.
__attribute__((noinline, target("avx2,fma"))) float fma_chains_avx2(long iters) {
  volatile float va = 0.999999f, vb = 1e-7f;
  const __m256 a = _mm256_set1_ps(va), b = _mm256_set1_ps(vb);
  __m256 c[12];
  for (int i = 0; i < 12; i++) c[i] = _mm256_set1_ps(1.0f + 0.01f * i);
  for (long it = 0; it < iters; it++)
    for (int i = 0; i < 12; i++) c[i] = _mm256_fmadd_ps(c[i], a, b);
  __m256 s = c[0];
  for (int i = 1; i < 12; i++) s = _mm256_add_ps(s, c[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
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
#if defined(BENCH_AVX2_PEAK)
  if (backend == "avx2") return peak_gflops_one_thread(fma_chains_avx2, 8);
#endif
  return peak_gflops_one_thread(fma_chains, simd::W);
}

}  // namespace
}  // namespace bench
