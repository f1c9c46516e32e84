// gemm_ab.cpp — this tree's GEMM against another commit's, in one process (bench/gemm-ab.mjs
// builds and runs it). Both core/src/gemm.cpp files, the base's and this tree's, are compiled with
// the same flags and their ISA namespace renamed (-Davx2=avx2_base, -Davx2=avx2_this) and linked
// beside this tree's core (scratch memory, the pool). They run in the same process, on the same
// buffers, alternating call by call: on a machine shared with other tenants, whose load moves by
// +-15% between processes, both see the same moments. Per shape: GFLOP/s of each (median and best
// over the rounds), their ratio, and whether the two wrote the same bits, as one line of JSON
// (bench/gemm-ab.mjs prints it as a table).
//   gemm_ab [--rounds N]      (one thread)
// Built with -DAB_ISA=<isa> (the namespace gemm.cpp's copies were renamed from).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "threadpool.h"

#define AB_CAT2(a, b) a##b
#define AB_CAT(a, b) AB_CAT2(a, b)
#define AB_STR2(x) #x
#define AB_STR(x) AB_STR2(x)

namespace tinygpt::kernels {
namespace AB_CAT(AB_ISA, _this) {  // this tree's gemm.cpp
void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
           int ldc, bool accumulate);
}
namespace AB_CAT(AB_ISA, _base) {  // the base commit's
void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
           int ldc, bool accumulate);
}
}  // namespace tinygpt::kernels

namespace {
using Sgemm = void (*)(bool, bool, int, int, int, const float*, int, const float*, int, float*, int, bool);

struct Shape {
  const char* name;
  bool transA, transB;
  int M, N, K;
};
// the GPT S and the translator's (S2S) products, forward and backward
const Shape kShapes[] = {
    {"S qkv     768x128 @ 128x384", false, false, 768, 384, 128},
    {"S fc      768x128 @ 128x512", false, false, 768, 512, 128},
    {"S fcproj  768x512 @ 512x128", false, false, 768, 128, 512},
    {"S dinp    768x128 @ (512x128)^T", false, true, 768, 512, 128},
    {"S dW      (768x128)^T @ 768x384", true, false, 128, 384, 768},
    {"S2S kv    512x128 @ 128x256", false, false, 512, 256, 128},
    {"S2S logits 512x128 @ 128x259", false, false, 512, 259, 128},
    {"S2S dinp  512x128 @ (128x128)^T", false, true, 512, 128, 128},
    {"S2S dW    (512x128)^T @ 512x128", true, false, 128, 128, 512},
    {"S2S dW    (512x128)^T @ 512x259", true, false, 128, 259, 512},
    {"S2S dW    (512x512)^T @ 512x128", true, false, 512, 128, 512},
};

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  int rounds = 15;
  for (int i = 1; i < argc; i++)
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
  tinygpt::tp::set_num_threads(1);
  namespace k = tinygpt::kernels;
  const Sgemm fns[2] = {k::AB_CAT(AB_ISA, _base)::sgemm, k::AB_CAT(AB_ISA, _this)::sgemm};  // base, this tree
  const int kCalls = 8;  // calls per timing
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::printf("{\"isa\": \"%s\", \"rounds\": %d, \"calls_per_timing\": %d, \"shapes\": [", AB_STR(AB_ISA), rounds, kCalls);
  bool first = true;
  for (const Shape& s : kShapes) {
    std::vector<float> A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);  // (M, K), (K, N), (M, N)
    for (float& x : A) x = u(rng);
    for (float& x : B) x = u(rng);
    const int lda = s.transA ? s.M : s.K, ldb = s.transB ? s.K : s.N;
    std::vector<float> out[2];  // each one's C: one buffer for both, so that both store to the same lines
    std::vector<double> t[2];
    for (int r = 0; r < rounds; r++)
      for (int w = 0; w < 2; w++) {
        const int which = (r & 1) ? 1 - w : w;  // who goes first alternates
        const auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < kCalls; c++)
          fns[which](s.transA, s.transB, s.M, s.N, s.K, A.data(), lda, B.data(), ldb, C.data(), s.N, false);
        t[which].push_back(seconds(t0) / kCalls);
        out[which] = C;
      }
    const double gflop = 2.0 * s.M * s.N * s.K / 1e9;
    double median[2], best[2];
    for (int v = 0; v < 2; v++) {
      std::sort(t[v].begin(), t[v].end());
      median[v] = t[v][t[v].size() / 2];
      best[v] = t[v][0];
    }
    const bool same = out[0] == out[1];
    std::printf("%s{\"shape\": \"%s\", \"base_gflops\": %.2f, \"gflops\": %.2f, \"base_best_gflops\": %.2f, "
                "\"best_gflops\": %.2f, \"ratio_median\": %.4f, \"ratio_best\": %.4f, \"same_bits\": %s}",
                first ? "" : ", ", s.name, gflop / median[0], gflop / median[1], gflop / best[0], gflop / best[1],
                median[0] / median[1], best[0] / best[1], same ? "true" : "false");
    first = false;
  }
  std::printf("]}\n");
  return 0;
}
