// test_kernels.cpp — every SIMD kernel against its scalar reference, on lengths that
// exercise the vector tails (1, 3, 15, 16, 17, 63, 64, 65), and thread-count independence.
// Compiled with Emscripten and run under Node, the same file checks the SIMD128 path.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernel_checks.h"
#include "kernels.h"
#include "simd.h"
#include "test_util.h"
#include "threadpool.h"

using namespace tinygpt;

using testutil::for_each_backend;
using testutil::kSizes;
using testutil::random_vector;
using testutil::require_close;

// the same computation with 1 thread and with 2, 3 and 4 (testutil::thread_counts): the same bits
template <class F>
void require_thread_independent(F compute) {
  testutil::require_thread_independent(compute, 4);
}

TEST_CASE("the SIMD backend is the best one the build and the CPU offer", "[simd]") {
  const std::string b = kernels::simd_backend();
  const std::string all = kernels::available_backends();
  CHECK(all.rfind(b, 0) == 0);  // the first (best) of the available ones
#if defined(__wasm_simd128__)
  CHECK(b == "simd128");
#elif defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__FMA__)
  CHECK(b == "avx512");
#elif defined(__AVX2__) && defined(__FMA__)
  CHECK(b == "avx2");
#elif defined(__x86_64__)
  // a portable build carries all three x86-64 copies and takes the widest the CPU runs
  CHECK(all.find("sse2") != std::string::npos);
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  if (avx512) CHECK(b == "avx512");
  else if (avx2) CHECK(b == "avx2");
  else CHECK(b == "sse2");
  CHECK(all == std::string(avx512 ? "avx512 " : "") + (avx2 ? "avx2 " : "") + "sse2");
#endif
  CHECK_FALSE(kernels::use_backend("no-such-backend"));
  CHECK(simd::W >= 1);
}

TEST_CASE("vector exp and tanh agree with the C library", "[simd]") {
  std::vector<float> xs;
  for (float x = -80.0f; x <= 80.0f; x += 0.37f) xs.push_back(x);
  for (size_t i = 0; i + simd::W <= xs.size(); i += simd::W) {
    simd::vf e = simd::vexp(simd::load(&xs[i]));
    simd::vf t = simd::vtanh(simd::load(&xs[i]) * simd::splat(0.1f));
    for (int l = 0; l < simd::W; l++) {
      const double x = xs[i + size_t(l)];
      CHECK(std::fabs(e[l] - std::exp(x)) <= 3e-7 * std::exp(x));
      CHECK(std::fabs(t[l] - std::tanh(0.1 * x)) <= 2e-7);
    }
  }
}

TEST_CASE("sgemm matches the scalar reference for every transpose and awkward sizes", "[simd]") {
  for_each_backend([&] {
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int M : {1, 3, 16, 17, 65, 97})      // 97 > the kernel's M block (96)
          for (int N : {1, 15, 16, 17, 64, 65})   // 65: more than one 64-wide AVX-512 tile
            for (int K : {1, 3, 63, 64, 300}) {  // 300 > the kernel's K block
              const bool transA = ta, transB = tb;
              const int lda = transA ? M : K, ldb = transB ? K : N;
              std::vector<float> A = random_vector(size_t(M) * K, 1), B = random_vector(size_t(K) * N, 2);
              std::vector<float> C0 = random_vector(size_t(M) * N, 3);
              for (bool acc : {false, true}) {
                std::vector<float> got = C0, want = C0;
                kernels::sgemm(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, got.data(), N, acc);
                kernels::ref::sgemm(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, want.data(), N, acc);
                INFO("transA " << transA << " transB " << transB << " M " << M << " N " << N << " K " << K << " acc " << acc);
                require_close(got, want, 1e-4 * std::sqrt(double(K)), 1e-5, "sgemm");
              }
            }
  });
}

// C0 (M, N) + op(A) @ op(B) with the stored matrices' row strides lda and ldb, from random values:
// the reference's values, and the same bits at any thread count
static void require_sgemm_matches_at_any_thread_count(bool transA, bool transB, int M, int N, int K, int lda, int ldb) {
  const int a_rows = transA ? K : M, b_rows = transB ? N : K;
  std::vector<float> A = random_vector(size_t(a_rows) * lda, 1), B = random_vector(size_t(b_rows) * ldb, 2);
  std::vector<float> C0 = random_vector(size_t(M) * N, 3);
  INFO("transA " << transA << " transB " << transB << " M " << M << " N " << N << " K " << K);
  std::vector<float> want = C0;
  kernels::ref::sgemm(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, want.data(), N, true);
  require_thread_independent([&] {
    std::vector<float> got = C0;
    kernels::sgemm(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, got.data(), N, true);
    require_close(got, want, 1e-4 * std::sqrt(double(K)), 1e-5, "sgemm");
    return got;
  });
}

// The weight gradients inp^T @ dout whose inp rows are 256 floats or more apart: the SIMD128 build
// packs their A (gemm.cpp, kPackTransALda) and cuts their tasks by rows only, AVX2 packs a
// transposed A at any stride, AVX-512 reads it in place. Either way: the reference's values, and
// the same bits at any thread count.
TEST_CASE("sgemm's weight gradients with far-apart rows match the reference at any thread count", "[simd]") {
  for_each_backend([&] {
    for (int M : {256, 301})       // M = lda: the stored rows' stride; 301: ragged row blocks and tiles
      for (int N : {17, 130})      // a partial panel; more than two
        for (int K : {40, 300})    // one and two K slices
          require_sgemm_matches_at_any_thread_count(true, false, M, N, K, M, N);
  });
}

// Wide products: where a task's tiles run row strip after row strip, B's panels are visited in
// groups of at most 128 KB (gemm.cpp, for_tiles): N = 300 (19 panels of 16) is three groups at
// kc = 256 and one at the last slice's kc = 44. Every transpose, A in place and packed, any thread
// count.
TEST_CASE("sgemm over several groups of B panels matches the reference at any thread count", "[simd]") {
  for_each_backend([&] {
    for (bool transA : {false, true})
      for (bool transB : {false, true})
        for (int M : {97, 260}) {  // 260 rows transposed: rows 260 floats apart
          const int N = 300, K = 300;
          require_sgemm_matches_at_any_thread_count(transA, transB, M, N, K, transA ? M : K, transB ? K : N);
        }
  });
}

// sgemm_serial reads small products in place (no packing) with its own register tile; the
// products must still be the same bits as sgemm's, so that attention's results do not depend on
// which path a size takes.
TEST_CASE("sgemm_serial gives sgemm's bits for every transpose and awkward sizes", "[simd]") {
  for_each_backend([&] {
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int M : {1, 5, 8, 17, 33, 97})
          for (int N : {1, 15, 16, 31, 32, 33, 65, 200})  // 200 x 256: too big for the direct path
            for (int K : {1, 3, 32, 63, 300}) {            // 300 > the kernel's K block
              const bool transA = ta, transB = tb;
              const int lda = (transA ? M : K) + 3, ldb = (transB ? K : N) + 5, ldc = N + 2;  // strided, as in attention
              std::vector<float> A = random_vector(size_t(transA ? K : M) * lda, 1);
              std::vector<float> B = random_vector(size_t(transB ? N : K) * ldb, 2);
              std::vector<float> C0 = random_vector(size_t(M) * ldc, 3);
              for (bool acc : {false, true}) {
                std::vector<float> serial = C0, parallel = C0, want = C0;
                kernels::sgemm_serial(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, serial.data(), ldc, acc);
                kernels::sgemm(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, parallel.data(), ldc, acc);
                kernels::ref::sgemm_serial(transA, transB, M, N, K, A.data(), lda, B.data(), ldb, want.data(), ldc, acc);
                INFO("transA " << transA << " transB " << transB << " M " << M << " N " << N << " K " << K << " acc " << acc);
                require_close(serial, want, 1e-4 * std::sqrt(double(K)), 1e-5, "sgemm_serial");
                REQUIRE(std::memcmp(serial.data(), parallel.data(), serial.size() * sizeof(float)) == 0);
              }
            }
  });
}

TEST_CASE("matmul forward and backward match the reference", "[simd]") {
  for_each_backend([&] {
    for (int n : {1, 3, 15, 16, 17, 63, 64, 65, 97}) {  // 97 rows: the bias gradient sums four blocks of rows
      const int N = n, IC = 17, OC = n + 2;
      std::vector<float> inp = random_vector(size_t(N) * IC, 1), w = random_vector(size_t(IC) * OC, 2),
                         b = random_vector(size_t(OC), 3), dout = random_vector(size_t(N) * OC, 4);
      std::vector<float> out(size_t(N) * OC), out_ref(out.size());
      kernels::matmul_forward(out.data(), inp.data(), w.data(), b.data(), N, IC, OC);
      kernels::ref::matmul_forward(out_ref.data(), inp.data(), w.data(), b.data(), N, IC, OC);
      require_close(out, out_ref, 1e-5, 1e-5, "matmul_forward");
      // with the residual: the reference's sum, and this backend's own matmul_forward + residual bit for bit
      const std::vector<float> res = random_vector(out.size(), 8);
      std::vector<float> out_res(out.size()), out_res_ref(out.size()), out_res_bare(out.size());
      kernels::matmul_forward_residual(out_res.data(), inp.data(), w.data(), b.data(), res.data(), N, IC, OC);
      kernels::ref::matmul_forward_residual(out_res_ref.data(), inp.data(), w.data(), b.data(), res.data(), N, IC, OC);
      require_close(out_res, out_res_ref, 1e-5, 1e-5, "matmul_forward_residual");
      for (size_t i = 0; i < out.size(); i++) REQUIRE(out_res[i] == out[i] + res[i]);
      kernels::matmul_forward_residual(out_res_bare.data(), inp.data(), w.data(), nullptr, res.data(), N, IC, OC);
      kernels::matmul_forward(out_res.data(), inp.data(), w.data(), nullptr, N, IC, OC);
      for (size_t i = 0; i < out.size(); i++) REQUIRE(out_res_bare[i] == out_res[i] + res[i]);
      std::vector<float> dinp = random_vector(inp.size(), 5), dw = random_vector(w.size(), 6), db = random_vector(b.size(), 7);
      std::vector<float> dinp_ref = dinp, dw_ref = dw, db_ref = db;
      kernels::matmul_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(), N, IC, OC);
      kernels::ref::matmul_backward(dinp_ref.data(), dw_ref.data(), db_ref.data(), dout.data(), inp.data(), w.data(), N, IC, OC);
      require_close(dinp, dinp_ref, 1e-5, 1e-5, "dinp");
      require_close(dw, dw_ref, 1e-5, 1e-5, "dweight");
      require_close(db, db_ref, 1e-5, 1e-5, "dbias");
    }
  });
}

TEST_CASE("the feed-forward's layer kernels with their activation match the reference and the separate kernels' bits",
          "[simd]") {
  // matmul_forward_act = matmul_forward, then relu_forward or gelu_forward_slope; matmul_backward_dinp_act
  // = dout @ w^T written, then relu_mask or mul_forward by the slope. Shapes for each path of the
  // GEMM: fewer than 4 rows, one K slice, two (IC = 300), a ragged last panel.
  for_each_backend([&] {
    for (int threads : testutil::one_and_thread_counts(2)) {
      tp::set_num_threads(threads);
      for (int N : {3, 16, 37, 97})
        for (int IC : {17, 300})
          for (int OC : {32, 67})
            for (int act : {int(kernels::kActRelu), int(kernels::kActGelu)}) {
              INFO("N " << N << " IC " << IC << " OC " << OC << " act " << act << " threads " << threads);
              const int64_t n = int64_t(N) * OC;
              std::vector<float> inp = random_vector(size_t(N) * IC, 1), w = random_vector(size_t(IC) * OC, 2, 0.3f),
                                 b = random_vector(size_t(OC), 3);
              std::vector<float> out(static_cast<size_t>(n)), slope(static_cast<size_t>(n)), out_ref(static_cast<size_t>(n)), slope_ref(static_cast<size_t>(n));
              kernels::matmul_forward_act(out.data(), slope.data(), inp.data(), w.data(), b.data(), N, IC, OC, act);
              kernels::ref::matmul_forward_act(out_ref.data(), slope_ref.data(), inp.data(), w.data(), b.data(), N, IC,
                                               OC, act);
              require_close(out, out_ref, 1e-5, 1e-4, "matmul_forward_act out");
              if (act == kernels::kActGelu) require_close(slope, slope_ref, 1e-5, 1e-4, "matmul_forward_act slope");
              std::vector<float> sep(static_cast<size_t>(n)), sep_slope(static_cast<size_t>(n));
              kernels::matmul_forward(sep.data(), inp.data(), w.data(), b.data(), N, IC, OC);
              if (act == kernels::kActRelu) kernels::relu_forward(sep.data(), sep.data(), n);
              else kernels::gelu_forward_slope(sep.data(), sep_slope.data(), sep.data(), n);
              REQUIRE(std::memcmp(out.data(), sep.data(), size_t(n) * sizeof(float)) == 0);
              if (act == kernels::kActGelu)
                REQUIRE(std::memcmp(slope.data(), sep_slope.data(), size_t(n) * sizeof(float)) == 0);
              // without the slope (inference): the same outputs
              std::vector<float> bare(static_cast<size_t>(n));
              kernels::matmul_forward_act(bare.data(), nullptr, inp.data(), w.data(), b.data(), N, IC, OC, act);
              REQUIRE(bare == out);

              // backward to the hidden activation: dz (N, IC) from dout (N, OC), through w (IC, OC)
              const std::vector<float> aux = act == kernels::kActRelu ? std::vector<float>(inp.size()) : random_vector(inp.size(), 6);
              std::vector<float> relu_out = aux;
              if (act == kernels::kActRelu) kernels::relu_forward(relu_out.data(), inp.data(), int64_t(inp.size()));
              const std::vector<float>& factor = act == kernels::kActRelu ? relu_out : aux;
              const std::vector<float> dout = random_vector(size_t(n), 4);
              std::vector<float> dz = random_vector(inp.size(), 5), dz_ref(inp.size()), dz_sep(inp.size());
              kernels::matmul_backward_dinp_act(dz.data(), factor.data(), dout.data(), w.data(), N, IC, OC, act);
              kernels::ref::matmul_backward_dinp_act(dz_ref.data(), factor.data(), dout.data(), w.data(), N, IC, OC, act);
              require_close(dz, dz_ref, 1e-4, 1e-4, "matmul_backward_dinp_act");
              kernels::sgemm(false, true, N, IC, OC, dout.data(), OC, w.data(), OC, dz_sep.data(), IC, false);
              if (act == kernels::kActRelu) kernels::relu_mask(dz_sep.data(), factor.data(), int64_t(dz_sep.size()));
              else kernels::mul_forward(dz_sep.data(), dz_sep.data(), factor.data(), int64_t(dz_sep.size()));
              REQUIRE(dz == dz_sep);  // ==: a zero of either sign is the same value
            }
    }
    tp::set_num_threads(1);
  });
}

TEST_CASE("layernorm forward and backward match the reference", "[simd]") {
  for_each_backend([&] {
    for (int C : kSizes)
      for (int N : {5, 70}) {  // 70 rows: the weight gradients sum three blocks of rows
        INFO("N " << N << " C " << C);
        std::vector<float> x = random_vector(size_t(N) * C, 1, 3.0f), w = random_vector(size_t(C), 2), b = random_vector(size_t(C), 3);
        std::vector<float> y(x.size()), y_ref(x.size()), mean(N), rstd(N), mean_ref(N), rstd_ref(N);
        kernels::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, 1e-5f);
        kernels::ref::layernorm_forward(y_ref.data(), mean_ref.data(), rstd_ref.data(), x.data(), w.data(), b.data(), N, C, 1e-5f);
        require_close(y, y_ref, 1e-5, 1e-4, "layernorm out");
        require_close(rstd, rstd_ref, 1e-5, 1e-4, "rstd");
        std::vector<float> dy = random_vector(x.size(), 4);
        std::vector<float> dx = random_vector(x.size(), 5), dw = random_vector(w.size(), 6), db = random_vector(b.size(), 7);
        std::vector<float> dx_ref = dx, dw_ref = dw, db_ref = db;
        kernels::layernorm_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), mean.data(), rstd.data(), N, C,
                                    true);
        kernels::ref::layernorm_backward(dx_ref.data(), dw_ref.data(), db_ref.data(), dy.data(), x.data(), w.data(), mean.data(),
                                         rstd.data(), N, C, true);
        require_close(dx, dx_ref, 1e-5, 1e-4, "dinp");
        require_close(dw, dw_ref, 1e-5, 1e-4, "dweight");
        require_close(db, db_ref, 1e-5, 1e-5, "dbias");
        // dinp written, not added to (its first contribution): every element set, the same bits as on zeros
        std::vector<float> dx_new(x.size(), std::nanf("")), dx_zero(x.size(), 0.0f);
        kernels::layernorm_backward(dx_new.data(), nullptr, nullptr, dy.data(), x.data(), w.data(), mean.data(), rstd.data(), N,
                                    C, false);
        kernels::layernorm_backward(dx_zero.data(), nullptr, nullptr, dy.data(), x.data(), w.data(), mean.data(), rstd.data(), N,
                                    C, true);
        for (size_t i = 0; i < dx_new.size(); i++) REQUIRE(dx_new[i] == dx_zero[i]);
        std::vector<float> dx_new_ref(x.size(), std::nanf(""));
        kernels::ref::layernorm_backward(dx_new_ref.data(), nullptr, nullptr, dy.data(), x.data(), w.data(), mean.data(),
                                         rstd.data(), N, C, false);
        require_close(dx_new, dx_new_ref, 1e-5, 1e-4, "dinp written");
      }
  });
}

TEST_CASE("gelu forward and backward match the reference", "[simd]") {
  for_each_backend([&] {
    for (int n : kSizes) {
      std::vector<float> x = random_vector(size_t(n), 1, 3.0f), dy = random_vector(size_t(n), 2);
      std::vector<float> y(x.size()), y_ref(x.size());
      kernels::gelu_forward(y.data(), x.data(), n);
      kernels::ref::gelu_forward(y_ref.data(), x.data(), n);
      require_close(y, y_ref, 1e-6, 1e-5, "gelu");
      std::vector<float> dx = random_vector(x.size(), 3), dx_ref = dx;
      kernels::gelu_backward(dx.data(), x.data(), dy.data(), n);
      kernels::ref::gelu_backward(dx_ref.data(), x.data(), dy.data(), n);
      require_close(dx, dx_ref, 1e-6, 1e-5, "dgelu");
    }
  });
}

TEST_CASE("gelu's output and slope from one tanh: gelu_forward's and gelu_backward's bits", "[simd]") {
  for_each_backend([&] {
    for (int n : kSizes) {
      std::vector<float> x = random_vector(size_t(n), 1, 3.0f), dy = random_vector(size_t(n), 2);
      std::vector<float> y(x.size()), slope(x.size()), y_ref(x.size()), slope_ref(x.size());
      kernels::gelu_forward_slope(y.data(), slope.data(), x.data(), n);
      kernels::ref::gelu_forward_slope(y_ref.data(), slope_ref.data(), x.data(), n);
      require_close(y, y_ref, 1e-6, 1e-5, "gelu");
      require_close(slope, slope_ref, 1e-5, 1e-5, "gelu'");  // the vector tanh saturates to -1 where tanh is -1 + 1e-6
      // the same bits as the two kernels it replaces: gelu_forward, and gelu_backward into zeros
      std::vector<float> y1(x.size()), dx(x.size(), 0.0f), g(x.size());
      kernels::gelu_forward(y1.data(), x.data(), n);
      kernels::gelu_backward(dx.data(), x.data(), dy.data(), n);
      kernels::mul_forward(g.data(), slope.data(), dy.data(), n);
      CHECK(y == y1);
      CHECK(g == dx);
      // in place (the slope over its input, as nn::linear_gelu does)
      std::vector<float> inplace = x;
      kernels::gelu_forward_slope(y1.data(), inplace.data(), inplace.data(), n);
      CHECK(inplace == slope);
    }
  });
}

TEST_CASE("softmax and cross-entropy match the reference", "[simd]") {
  for_each_backend([&] {
    for (int V : kSizes) {
      const int N = 4;
      std::vector<float> z = random_vector(size_t(N) * V, 1, 4.0f), dy = random_vector(z.size(), 2);
      std::vector<float> p(z.size()), p_ref(z.size());
      kernels::softmax_forward(p.data(), z.data(), N, V);
      kernels::ref::softmax_forward(p_ref.data(), z.data(), N, V);
      require_close(p, p_ref, 1e-7, 1e-5, "softmax");
      std::vector<float> dz = random_vector(z.size(), 3), dz_ref = dz;
      kernels::softmax_backward(dz.data(), p.data(), dy.data(), N, V);
      kernels::ref::softmax_backward(dz_ref.data(), p.data(), dy.data(), N, V);
      require_close(dz, dz_ref, 1e-6, 1e-5, "dsoftmax");

      std::vector<int32_t> targets(N);
      for (int n = 0; n < N; n++) targets[size_t(n)] = (n * 7) % V;
      std::vector<float> losses(N), losses_ref(N);
      kernels::crossentropy_forward(losses.data(), p.data(), z.data(), targets.data(), N, V);
      kernels::ref::crossentropy_forward(losses_ref.data(), p_ref.data(), z.data(), targets.data(), N, V);
      require_close(losses, losses_ref, 1e-6, 1e-5, "cross-entropy");
      std::vector<float> dl = random_vector(z.size(), 4), dl_ref = dl;
      kernels::crossentropy_backward(dl.data(), p.data(), targets.data(), 0.25f, N, V);
      kernels::ref::crossentropy_backward(dl_ref.data(), p_ref.data(), targets.data(), 0.25f, N, V);
      require_close(dl, dl_ref, 1e-6, 1e-5, "dlogits");
    }
  });
}

TEST_CASE("attention forward and backward match the reference for awkward T and head sizes", "[simd]") {
  for_each_backend([&] {
    for (int T : kSizes)
      for (int HS : {1, 3, 16, 17}) {
        const int B = 2, NH = 2, C = NH * HS;
        std::vector<float> qkv = random_vector(size_t(B) * T * 3 * C, uint64_t(T * 100 + HS)), dout = random_vector(size_t(B) * T * C, 9);
        std::vector<float> out(size_t(B) * T * C), out_ref(out.size()), att(size_t(B) * NH * T * T), att_ref(att.size());
        kernels::attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH);
        kernels::ref::attention_forward(out_ref.data(), att_ref.data(), qkv.data(), B, T, C, NH);
        INFO("T " << T << " HS " << HS);
        require_close(att, att_ref, 1e-6, 1e-5, "att");
        require_close(out, out_ref, 1e-5, 1e-5, "attention out");
        std::vector<float> dqkv = random_vector(qkv.size(), 10), dqkv_ref = dqkv;
        kernels::attention_backward(dqkv.data(), dout.data(), qkv.data(), att.data(), B, T, C, NH, true);
        kernels::ref::attention_backward(dqkv_ref.data(), dout.data(), qkv.data(), att_ref.data(), B, T, C, NH, true);
        require_close(dqkv, dqkv_ref, 1e-5, 1e-4, "dqkv");
        // written, not added: every element set (the buffer starts as NaN)
        std::vector<float> w(qkv.size(), NAN), w_ref(qkv.size(), NAN);
        kernels::attention_backward(w.data(), dout.data(), qkv.data(), att.data(), B, T, C, NH, false);
        kernels::ref::attention_backward(w_ref.data(), dout.data(), qkv.data(), att_ref.data(), B, T, C, NH, false);
        require_close(w, w_ref, 1e-5, 1e-4, "dqkv written");
      }
  });
}

TEST_CASE("KV-cache attention decoding matches the reference", "[simd]") {
  for_each_backend([&] {
    for (int p0 : {0, 1, 16, 63})
      for (int n : {1, 3})
        for (int HS : {1, 3, 16, 17}) {
          const int NH = 2, C = NH * HS, T = p0 + n;
          std::vector<float> qkv = random_vector(size_t(n) * 3 * C, uint64_t(p0 * 10 + HS), 2.0f);
          std::vector<float> k = random_vector(size_t(T) * C, 2), v = random_vector(size_t(T) * C, 3);
          std::vector<float> out(size_t(n) * C), out_ref(out.size());
          kernels::attention_decode(out.data(), qkv.data(), k.data(), v.data(), p0, n, C, NH);
          kernels::ref::attention_decode(out_ref.data(), qkv.data(), k.data(), v.data(), p0, n, C, NH);
          INFO("p0 " << p0 << " n " << n << " HS " << HS);
          require_close(out, out_ref, 1e-5, 1e-4, "attention_decode");
        }
  });
}

TEST_CASE("the small vector ops match the reference", "[simd]") {
  for_each_backend([&] {
    for (int n : {1, 3, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 20000}) {  // and across 4096-element chunks
      INFO("n " << n);
      std::vector<float> a = random_vector(size_t(n), 1), b = random_vector(size_t(n), 2);
      std::vector<float> out(a.size()), out_ref(a.size());
      kernels::add_forward(out.data(), a.data(), b.data(), n);
      kernels::ref::add_forward(out_ref.data(), a.data(), b.data(), n);
      CHECK(out == out_ref);  // one rounding either way: bit-identical
      kernels::mul_forward(out.data(), a.data(), b.data(), n);
      kernels::ref::mul_forward(out_ref.data(), a.data(), b.data(), n);
      CHECK(out == out_ref);
      kernels::mul_forward(out.data(), out.data(), b.data(), n);  // in place
      kernels::ref::mul_forward(out_ref.data(), out_ref.data(), b.data(), n);
      CHECK(out == out_ref);
      std::vector<float> acc = a, acc_ref = a;
      kernels::accumulate(acc.data(), b.data(), n);
      kernels::ref::accumulate(acc_ref.data(), b.data(), n);
      CHECK(acc == acc_ref);
      std::vector<float> sc = a, sc_ref = a;
      kernels::scale(sc.data(), 0.37f, n);
      kernels::ref::scale(sc_ref.data(), 0.37f, n);
      CHECK(sc == sc_ref);
      const double ss = kernels::sum_squares(a.data(), n), ss_ref = kernels::ref::sum_squares(a.data(), n);
      CHECK(std::fabs(ss - ss_ref) <= 1e-6 * ss_ref);
    }
  });
}

TEST_CASE("adamw update matches the reference", "[simd]") {
  for_each_backend([&] {
    for (int n : kSizes) {
      std::vector<float> p = random_vector(size_t(n), 1), g = random_vector(size_t(n), 2);
      std::vector<float> m = random_vector(size_t(n), 3, 0.1f), v = random_vector(size_t(n), 4, 0.1f);
      for (float& x : v) x = x * x;
      std::vector<float> p_ref = p, m_ref = m, v_ref = v;
      kernels::adamw_update(p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f, 0.271f, 0.0297f,
                            0.37f);
      kernels::ref::adamw_update(p_ref.data(), g.data(), m_ref.data(), v_ref.data(), n, 1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f,
                                 0.271f, 0.0297f, 0.37f);
      require_close(p, p_ref, 1e-7, 1e-6, "params");
      require_close(m, m_ref, 1e-8, 1e-6, "m");
      require_close(v, v_ref, 1e-8, 1e-6, "v");
    }
  });
}

TEST_CASE("adamw's grad_scale gives the same bits as scaling the gradients in place first", "[simd]") {
  // the trainer hands the clip's factor to AdamW instead of running kernels::scale over the gradients
  for_each_backend([&] {
    for (int n : kSizes) {
      std::vector<float> p = random_vector(size_t(n), 1), g = random_vector(size_t(n), 2);
      std::vector<float> m = random_vector(size_t(n), 3, 0.1f), v = random_vector(size_t(n), 4, 0.1f);
      for (float& x : v) x = x * x;
      std::vector<float> p2 = p, m2 = m, v2 = v, g2 = g;
      const float s = 0.4137f;
      kernels::adamw_update(p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f, 0.271f, 0.0297f, s);
      kernels::scale(g2.data(), s, n);
      kernels::adamw_update(p2.data(), g2.data(), m2.data(), v2.data(), n, 1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f, 0.271f,
                            0.0297f, 1.0f);
      CHECK(std::memcmp(p.data(), p2.data(), size_t(n) * sizeof(float)) == 0);
      CHECK(std::memcmp(m.data(), m2.data(), size_t(n) * sizeof(float)) == 0);
      CHECK(std::memcmp(v.data(), v2.data(), size_t(n) * sizeof(float)) == 0);
    }
  });
}

TEST_CASE("a linear layer's products over several K slices, with a bias, are bit-identical with one to four threads", "[simd][threads]") {
  // K = 600 > 2 KC (three slices in one split job, packing included), a bias folded into the
  // first slice's stores: the same bits as copying the bias into C and accumulating the product,
  // for every thread count
  for_each_backend([&] {
    const int N = 600, IC = 300, OC = 72;
    std::vector<float> x = random_vector(size_t(N) * IC, 11), w = random_vector(size_t(IC) * OC, 12);
    std::vector<float> bias = random_vector(size_t(OC), 13), dout = random_vector(size_t(N) * OC, 14);
    require_thread_independent([&] {
      std::vector<float> out(size_t(N) * OC), copied(size_t(N) * OC);
      kernels::matmul_forward(out.data(), x.data(), w.data(), bias.data(), N, IC, OC);
      for (int n = 0; n < N; n++) std::memcpy(copied.data() + size_t(n) * OC, bias.data(), size_t(OC) * sizeof(float));
      kernels::sgemm(false, false, N, OC, IC, x.data(), IC, w.data(), OC, copied.data(), OC, true);
      CHECK(std::memcmp(out.data(), copied.data(), out.size() * sizeof(float)) == 0);
      return out;
    });
    require_thread_independent([&] {
      std::vector<float> dx(x.size(), 0.5f), dw(w.size(), 0.25f), db(bias.size(), 0.0f);
      kernels::matmul_backward(dx.data(), dw.data(), db.data(), dout.data(), x.data(), w.data(), N, IC, OC);
      dx.insert(dx.end(), dw.begin(), dw.end());
      dx.insert(dx.end(), db.begin(), db.end());
      return dx;
    });
  });
}

TEST_CASE("kernels give bit-identical results with one to four threads", "[simd][threads]") {
  for_each_backend([&] {
    const int B = 3, T = 33, C = 24, NH = 3, N = B * T;
    std::vector<float> x = random_vector(size_t(N) * C, 1), w = random_vector(size_t(C) * 3 * C, 2);
    std::vector<float> qkv(size_t(N) * 3 * C);
    kernels::ref::matmul_forward(qkv.data(), x.data(), w.data(), nullptr, N, C, 3 * C);
    require_thread_independent([&] {
      std::vector<float> out(size_t(N) * 3 * C);
      kernels::matmul_forward(out.data(), x.data(), w.data(), nullptr, N, C, 3 * C);
      return out;
    });
    require_thread_independent([&] {
      std::vector<float> dx(x.size(), 0.0f), dw(w.size(), 0.0f);
      kernels::matmul_backward(dx.data(), dw.data(), nullptr, qkv.data(), x.data(), w.data(), N, C, 3 * C);
      dx.insert(dx.end(), dw.begin(), dw.end());
      return dx;
    });
    require_thread_independent([&] {
      std::vector<float> out(size_t(N) * C), att(size_t(B) * NH * T * T), dqkv(qkv.size(), 0.0f);
      kernels::attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH);
      kernels::attention_backward(dqkv.data(), out.data(), qkv.data(), att.data(), B, T, C, NH, true);
      out.insert(out.end(), dqkv.begin(), dqkv.end());
      return out;
    });
    require_thread_independent([&] {
      std::vector<float> y(x.size()), mean(N), rstd(N), dx(x.size(), 0.0f), dg(C, 0.0f), db(C, 0.0f);
      std::vector<float> g = random_vector(size_t(C), 3), b = random_vector(size_t(C), 4);
      kernels::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), g.data(), b.data(), N, C, 1e-5f);
      kernels::layernorm_backward(dx.data(), dg.data(), db.data(), y.data(), x.data(), g.data(), mean.data(), rstd.data(), N, C,
                                  false);
      y.insert(y.end(), dx.begin(), dx.end());
      y.insert(y.end(), dg.begin(), dg.end());
      return y;
    });
  });
}
