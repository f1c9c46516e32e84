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

#include "kernels.h"
#include "peak.h"
#include "simd.h"
#include "threadpool.h"
#include "tinygpt/rng.h"

using namespace tinygpt;

namespace {

using bench::Clock;
using bench::peak_for;
using bench::seconds_since;

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
