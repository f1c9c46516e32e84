// kernels_bench — the machine's multiply-add peak and the GEMM kernels' GFLOP/s at the
// model's shapes, natively (SSE2 / AVX2+FMA) and, built with Emscripten, in SIMD128.
//
//   kernels_bench [--threads N] [--json]
//
// Peak: many independent multiply-add chains on registers (no memory traffic), the vector
// width of this build. With FMA (AVX2) a chain step is one fused instruction; SIMD128 has no
// FMA, so a step is a mul and an add (two flops either way).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__) && !defined(__AVX2__)
#include <immintrin.h>
#define BENCH_AVX2_PEAK 1
#endif

#include "kernels.h"
#include "simd.h"
#include "threadpool.h"
#include "tinygpt/rng.h"

using namespace tinygpt;

namespace {

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

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + " ")
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  return out;
}

struct Shape {
  const char* what;
  bool transA, transB;
  int M, N, K;
};

double gemm_gflops(const Shape& s, bool reference, int reps) {
  const int lda = s.transA ? s.M : s.K, ldb = s.transB ? s.K : s.N;
  data::Rng rng(1);
  std::vector<float> A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N, 0.0f);
  for (float& x : A) x = float(rng.normal());
  for (float& x : B) x = float(rng.normal());
  auto run = [&] {
    if (reference)
      kernels::ref::sgemm(s.transA, s.transB, s.M, s.N, s.K, A.data(), lda, B.data(), ldb, C.data(), s.N, false);
    else
      kernels::sgemm(s.transA, s.transB, s.M, s.N, s.K, A.data(), lda, B.data(), ldb, C.data(), s.N, false);
  };
  for (int i = 0; i < 5; i++) run();  // warm-up: packing buffers, caches, JIT tier-up
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    const auto t0 = Clock::now();
    for (int i = 0; i < reps; i++) run();
    best = std::min(best, seconds_since(t0) / reps);
  }
  return 2.0 * s.M * s.N * s.K / best / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--json")) json = true;
  }
  tp::set_num_threads(threads);
  // Config S: B*T = 768 rows, C = 128. Forward products and the two backward ones per weight.
  const Shape shapes[] = {
      {"qkv     768x128 @ 128x384", false, false, 768, 384, 128},
      {"fc      768x128 @ 128x512", false, false, 768, 512, 128},
      {"fcproj  768x512 @ 512x128", false, false, 768, 128, 512},
      {"lmhead  768x128 @ 128x256", false, false, 768, 256, 128},
      {"dinp    768x384 @ (128x384)^T", false, true, 768, 128, 384},
      {"dW      (768x128)^T @ 768x384", true, false, 128, 384, 768},
      {"dinp    768x128 @ (512x128)^T", false, true, 768, 512, 128},
      {"dW      (768x512)^T @ 768x128", true, false, 512, 128, 768},
  };
  const std::vector<std::string> backends = split(kernels::available_backends());
  std::vector<double> peaks;
  for (const std::string& b : backends) peaks.push_back(peak_for(b));
  std::vector<std::vector<double>> gf(std::size(shapes));
  std::vector<double> ref(std::size(shapes));
  for (size_t i = 0; i < std::size(shapes); i++) {
    ref[i] = gemm_gflops(shapes[i], true, 1);
    for (const std::string& b : backends) {
      kernels::use_backend(b);
      gf[i].push_back(gemm_gflops(shapes[i], false, 10));
    }
  }
  kernels::use_backend(backends.front());
  if (json) {
    std::printf("{\"threads\":%d,\"backends\":[", threads);
    for (size_t k = 0; k < backends.size(); k++)
      std::printf("%s{\"name\":\"%s\",\"peak_gflops\":%.2f}", k ? "," : "", backends[k].c_str(), peaks[k]);
    std::printf("],\"gemm\":[");
    for (size_t i = 0; i < std::size(shapes); i++) {
      std::printf("%s{\"shape\":\"%s\",\"scalar\":%.2f", i ? "," : "", shapes[i].what, ref[i]);
      for (size_t k = 0; k < backends.size(); k++) std::printf(",\"%s\":%.2f", backends[k].c_str(), gf[i][k]);
      std::printf("}");
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("kernels_bench: %d thread(s)\n", threads);
  for (size_t k = 0; k < backends.size(); k++)
    std::printf("peak %-8s (1 thread, independent %s chains): %.1f GFLOP/s\n", backends[k].c_str(),
                backends[k] == "avx2" ? "FMA" : "mul+add", peaks[k]);
  std::printf("%-32s %10s", "GEMM shape (GFLOP/s, % of peak)", "scalar");
  for (const std::string& b : backends) std::printf(" %16s", b.c_str());
  std::printf("\n");
  for (size_t i = 0; i < std::size(shapes); i++) {
    std::printf("%-32s %10.1f", shapes[i].what, ref[i]);
    for (size_t k = 0; k < backends.size(); k++)
      std::printf(" %8.1f (%3.0f%%)", gf[i][k], 100.0 * gf[i][k] / (peaks[k] * threads));
    std::printf("\n");
  }
  return 0;
}
