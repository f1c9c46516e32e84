// test_ops.cpp — the walkthrough's hand-computed numbers, and a finite-difference check of
// every op's backward.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_util.h"
#include "tinygpt/ops.h"
#include "tinygpt/runtime.h"

using namespace tinygpt;

using testutil::check_gradients;
using testutil::random_tensor;

// ---- hand-computed examples (docs/walkthrough.md) --------------------------------------------

TEST_CASE("embedding plus positions gives the walkthrough's X0, X1, X2", "[ops][walkthrough]") {
  nn::Arena a;
  // token rows 0..3: [0,0] [1,0] [0,1] [1,1]; positions 0..2: [0.1,0] [0,0.1] [0.1,0.1]
  nn::Tensor wte = a.from({4, 2}, {0, 0, 1, 0, 0, 1, 1, 1});
  nn::Tensor wpe = a.from({3, 2}, {0.1f, 0, 0, 0.1f, 0.1f, 0.1f});
  const int32_t tokens[3] = {2, 1, 3};
  nn::Tensor x = nn::add_positional(a, nn::embedding(a, wte, tokens, 1, 3), wpe);  // (1, 3, 2)
  REQUIRE(x.shape() == nn::Shape{1, 3, 2});
  const float expected[6] = {0.1f, 1.0f, 1.0f, 0.1f, 1.1f, 1.1f};
  for (int i = 0; i < 6; i++) CHECK(x.data()[i] == Approx(expected[i]).margin(1e-6));
}

TEST_CASE("layernorm of [0.1, 1.0] is about [-1, +1]", "[ops][walkthrough]") {
  nn::Arena a;
  nn::Tensor x = a.from({1, 2}, {0.1f, 1.0f});
  nn::Tensor g = a.from({2}, {1, 1}), b = a.from({2}, {0, 0});
  nn::Tensor y = nn::layernorm_lastdim(a, x, g, b);
  // mean 0.55, deviations +-0.45, variance 0.2025, std 0.45
  CHECK(y.data()[0] == Approx(-1.0).margin(1e-3));
  CHECK(y.data()[1] == Approx(1.0).margin(1e-3));
  CHECK(y.data()[0] == Approx(-0.45 / std::sqrt(0.2025 + 1e-5)).epsilon(1e-6));
}

TEST_CASE("single-head attention with Q=K=V=H reproduces P1 = [0.056, 0.944] and Y1 = [0.888, -0.888]",
          "[ops][walkthrough]") {
  nn::Arena a;
  // qkv (1, 2, 6) = [H | H | H] with H0 = [-1, 1], H1 = [1, -1]
  nn::Tensor qkv = a.from({1, 2, 6}, {-1, 1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1});
  nn::Tensor att;
  nn::Tensor y = nn::causal_attention(a, qkv, 1, &att);  // (1, 2, 2); att (1, 1, 2, 2)
  // S10 = -2/sqrt(2) = -1.414, S11 = +1.414 -> softmax [0.056, 0.944]
  CHECK(att.data()[2] == Approx(0.0559).margin(5e-4));
  CHECK(att.data()[3] == Approx(0.9441).margin(5e-4));
  CHECK(y.data()[2] == Approx(0.888).margin(1e-3));
  CHECK(y.data()[3] == Approx(-0.888).margin(1e-3));

  SECTION("the causal mask leaves only j = 0 visible at i = 0") {
    CHECK(att.data()[0] == 1.0f);
    CHECK(att.data()[1] == 0.0f);
    CHECK(y.data()[0] == Approx(-1.0f));  // Y0 = V0
    CHECK(y.data()[1] == Approx(1.0f));
  }

  SECTION("self_attention_1h with identity projections computes the same thing") {
    nn::Tensor h = a.from({1, 2, 2}, {-1, 1, 1, -1});
    nn::Tensor w_qkv = a.from({2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1});  // [I I I]
    nn::Tensor b_qkv = a.zeros({6});
    nn::Tensor w_proj = a.from({2, 2}, {1, 0, 0, 1});
    nn::Tensor b_proj = a.zeros({2});
    nn::Tensor out = nn::self_attention_1h(a, h, w_qkv, b_qkv, w_proj, b_proj);
    for (int i = 0; i < 4; i++) CHECK(out.data()[i] == Approx(y.data()[i]).margin(1e-6));
  }
}

TEST_CASE("cross-entropy of logits [2, 1, 0, -1] with target 1 is about 1.44", "[ops][walkthrough]") {
  nn::Arena a;
  nn::Tensor z = a.from({1, 4}, {2, 1, 0, -1});
  const int32_t target = 1;
  nn::Tensor loss = nn::cross_entropy(a, z, &target);
  CHECK(loss.item() == Approx(1.44).margin(5e-3));
  CHECK(loss.item() == Approx(std::log(std::exp(2.0) + std::exp(1.0) + 1.0 + std::exp(-1.0)) - 1.0).epsilon(1e-6));
}

TEST_CASE("matmul and linear compute x W + b with W stored (in, out)", "[ops]") {
  nn::Arena a;
  nn::Tensor x = a.from({2, 3}, {1, 2, 3, 4, 5, 6});
  nn::Tensor w = a.from({3, 2}, {1, 0, 0, 1, 1, 1});
  nn::Tensor b = a.from({2}, {10, 20});
  nn::Tensor m = nn::matmul(a, x, w);
  const float mm[4] = {4, 5, 10, 11};
  for (int i = 0; i < 4; i++) CHECK(m.data()[i] == mm[i]);
  nn::Tensor l = nn::linear_lastdim(a, x, w, b);
  const float ll[4] = {14, 25, 20, 31};
  for (int i = 0; i < 4; i++) CHECK(l.data()[i] == ll[i]);
}

TEST_CASE("gelu matches the tanh formula at a few points", "[ops]") {
  nn::Arena a;
  nn::Tensor x = a.from({5}, {-3, -0.5f, 0, 0.5f, 3});
  nn::Tensor y = nn::gelu(a, x);
  for (int i = 0; i < 5; i++) {
    const double v = x.data()[i];
    const double ref = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    CHECK(y.data()[i] == Approx(ref).margin(1e-6));
  }
}

TEST_CASE("softmax rows are positive and sum to one, even for large logits", "[ops]") {
  nn::Arena a;
  nn::Tensor x = a.from({2, 3}, {1000, 1001, 1002, -5, 0, 5});
  nn::Tensor y = nn::softmax_lastdim(a, x);
  for (int r = 0; r < 2; r++) {
    double s = 0;
    for (int c = 0; c < 3; c++) {
      CHECK(y.data()[r * 3 + c] > 0);
      s += y.data()[r * 3 + c];
    }
    CHECK(s == Approx(1.0).margin(1e-6));
  }
  CHECK(y.data()[2] == Approx(1.0 / (1 + std::exp(-1.0) + std::exp(-2.0))).epsilon(1e-5));
}

// ---- finite differences for every op ---------------------------------------------------------

TEST_CASE("embedding backward matches finite differences (repeated tokens accumulate)", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor table = random_tensor(a, {7, 5}, 1);
  const int32_t tokens[6] = {3, 1, 3, 6, 0, 3};
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::embedding(ar, table, tokens, 2, 3); }, {table}, 1e-2f,
                              1e-3, 1e-3));
}

TEST_CASE("add_positional backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {2, 3, 4}, 1), pos = random_tensor(a, {5, 4}, 2);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::add_positional(ar, x, pos); }, {x, pos}, 1e-2f, 1e-3, 1e-3));
}

TEST_CASE("add backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {3, 5}, 1), y = random_tensor(a, {3, 5}, 2);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::add(ar, x, y); }, {x, y}, 1e-2f, 1e-3, 1e-3));
}

TEST_CASE("matmul backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {5, 7}, 1), w = random_tensor(a, {7, 3}, 2);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::matmul(ar, x, w); }, {x, w}, 1e-2f, 2e-3, 2e-3));
}

TEST_CASE("linear backward matches finite differences, with and without bias", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {2, 3, 17}, 1), w = random_tensor(a, {17, 9}, 2), b = random_tensor(a, {9}, 3);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_lastdim(ar, x, w, b); }, {x, w, b}, 1e-2f, 2e-3,
                              2e-3));
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_lastdim(ar, x, w, nn::Tensor()); }, {x, w}, 1e-2f,
                              2e-3, 2e-3));
}

TEST_CASE("layernorm backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {3, 4, 19}, 1), g = random_tensor(a, {19}, 2), b = random_tensor(a, {19}, 3);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::layernorm_lastdim(ar, x, g, b); }, {x, g, b}, 3e-3f,
                              3e-3, 1e-2));
}

TEST_CASE("gelu backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {4, 33}, 1, true, 2.0f);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::gelu(ar, x); }, {x}, 3e-3f, 2e-3, 5e-3));
}

TEST_CASE("linear_gelu backward matches finite differences, with and without bias", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {2, 3, 17}, 1), w = random_tensor(a, {17, 9}, 2), b = random_tensor(a, {9}, 3);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_gelu(ar, x, w, b); }, {x, w, b}, 3e-3f, 2e-3,
                              5e-3));
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_gelu(ar, x, w, nn::Tensor()); }, {x, w}, 3e-3f,
                              2e-3, 5e-3));
}

TEST_CASE("linear_gelu gives gelu(linear)'s bits, forward and backward, and with gradients off", "[ops]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {3, 5, 24}, 1), w = random_tensor(a, {24, 40}, 2), b = random_tensor(a, {40}, 3);
  nn::Tensor dy = random_tensor(a, {3, 5, 40}, 4, false);
  CHECK(testutil::values_and_grads([&](nn::Arena& ar) { return nn::linear_gelu(ar, x, w, b); }, {x, w, b}, dy) ==
        testutil::values_and_grads([&](nn::Arena& ar) { return nn::gelu(ar, nn::linear_lastdim(ar, x, w, b)); }, {x, w, b}, dy));
  nn::GradMode no_grad(false);
  nn::Arena ar;
  nn::Tensor y1 = nn::linear_gelu(ar, x, w, b), y2 = nn::gelu(ar, nn::linear_lastdim(ar, x, w, b));
  CHECK(std::vector<float>(y1.data(), y1.data() + y1.numel()) == std::vector<float>(y2.data(), y2.data() + y2.numel()));
  CHECK(!y1.requires_grad());
}

TEST_CASE("linear_residual backward matches finite differences, with and without bias", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {2, 3, 17}, 1), w = random_tensor(a, {17, 9}, 2), b = random_tensor(a, {9}, 3);
  nn::Tensor r = random_tensor(a, {2, 3, 9}, 4);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_residual(ar, x, w, b, r); }, {x, w, b, r}, 3e-3f,
                              2e-3, 5e-3));
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_residual(ar, x, w, nn::Tensor(), r); }, {x, w, r},
                              3e-3f, 2e-3, 5e-3));
  // the residual stream's own input as the residual: x + x @ w (square w)
  nn::Tensor ws = random_tensor(a, {17, 17}, 5);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::linear_residual(ar, x, ws, nn::Tensor(), x); }, {x, ws},
                              3e-3f, 2e-3, 5e-3));
}

TEST_CASE("linear_residual gives add(linear, res)'s bits, forward and backward, kept and recycled", "[ops][threads]") {
  // shapes for each path of the GEMM: one K slice; two (K > 256: the residual goes with the last);
  // a ragged last panel (N = 67); fewer than 4 rows (added after the product)
  struct Case { int64_t rows, K, N; };
  for (const Case c : {Case{40, 24, 40}, Case{37, 300, 70}, Case{50, 64, 67}, Case{3, 32, 48}})
    for (int threads : testutil::one_and_thread_counts(2)) {
      tinygpt::set_num_threads(threads);
      INFO("rows " << c.rows << ", K " << c.K << ", N " << c.N << ", threads " << threads);
      nn::Arena a;
      nn::Tensor x = random_tensor(a, {c.rows, c.K}, 1), w = random_tensor(a, {c.K, c.N}, 2);
      nn::Tensor b = random_tensor(a, {c.N}, 3), r = random_tensor(a, {c.rows, c.N}, 4);
      nn::Tensor dy = random_tensor(a, {c.rows, c.N}, 5, false);
      auto unfused = [&](nn::Arena& ar) { return nn::add(ar, nn::linear_lastdim(ar, x, w, b), r); };
      const std::vector<float> want = testutil::values_and_grads(unfused, {x, w, b, r}, dy);
      for (auto buffers : {nn::Tensor::GradBuffers::keep, nn::Tensor::GradBuffers::recycle}) {
        CHECK(testutil::values_and_grads([&](nn::Arena& ar) { return nn::linear_residual(ar, x, w, b, r); },
                                         {x, w, b, r}, dy, buffers) == want);
        CHECK(testutil::values_and_grads(unfused, {x, w, b, r}, dy, buffers) == want);
      }
      // the residual's gradient added to one it already holds (r used twice)
      auto twice = [&](nn::Arena& ar) { return nn::add(ar, nn::linear_residual(ar, x, w, b, r), r); };
      auto twice_unfused = [&](nn::Arena& ar) { return nn::add(ar, unfused(ar), r); };
      CHECK(testutil::values_and_grads(twice, {x, w, b, r}, dy, nn::Tensor::GradBuffers::recycle) ==
            testutil::values_and_grads(twice_unfused, {x, w, b, r}, dy));
    }
  tinygpt::set_num_threads(1);
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {4, 8}, 1), w = random_tensor(a, {8, 6}, 2), r = random_tensor(a, {4, 5}, 3);
  CHECK_THROWS_WITH(nn::linear_residual(a, x, w, nn::Tensor(), r), Catch::Contains("res must be (4, 6), got (4, 5)"));
}

TEST_CASE("feed_forward_residual backward matches finite differences: ReLU and GELU, with and without biases",
          "[ops][gradcheck]") {
  nn::Arena a;
  const int C = 7, F = 11;
  nn::Tensor x = random_tensor(a, {2, 3, C}, 1), r = random_tensor(a, {2, 3, C}, 2);
  nn::Tensor w1 = random_tensor(a, {C, F}, 3, true, 0.5f), b1 = random_tensor(a, {F}, 4, true, 0.3f);
  nn::Tensor w2 = random_tensor(a, {F, C}, 5, true, 0.5f), b2 = random_tensor(a, {C}, 6, true, 0.3f);
  for (nn::Activation act : {nn::Activation::relu, nn::Activation::gelu}) {
    INFO("act " << int(act));
    CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::feed_forward_residual(ar, x, w1, b1, w2, b2, r, act); },
                                {x, w1, b1, w2, b2, r}, 1e-3f, 2e-3, 1e-2));
    // the sublayer's own input as the residual (the encoder-decoder), and no biases
    CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::feed_forward_residual(ar, x, w1, {}, w2, {}, x, act); },
                                {x, w1, w2}, 1e-3f, 2e-3, 1e-2));
  }
}

TEST_CASE("feed_forward_residual gives linear_residual(linear_relu or linear_gelu)'s bits, kept and recycled", "[ops][threads]") {
  // shapes for each path of the GEMMs: one K slice; the second product over two (F = 304 > 256); a
  // ragged last panel (F = 67); fewer than 4 rows
  struct Case { int64_t rows, C, F; };
  for (const Case c : {Case{40, 24, 96}, Case{37, 20, 304}, Case{50, 16, 67}, Case{3, 32, 48}})
    for (int threads : testutil::one_and_thread_counts(2))
      for (bool own_residual : {false, true}) {
        tinygpt::set_num_threads(threads);
        INFO("rows " << c.rows << ", C " << c.C << ", F " << c.F << ", threads " << threads << ", res = x " << own_residual);
        nn::Arena a;
        nn::Tensor x = random_tensor(a, {c.rows, c.C}, 1), r = own_residual ? x : random_tensor(a, {c.rows, c.C}, 2);
        nn::Tensor w1 = random_tensor(a, {c.C, c.F}, 3), b1 = random_tensor(a, {c.F}, 4);
        nn::Tensor w2 = random_tensor(a, {c.F, c.C}, 5), b2 = random_tensor(a, {c.C}, 6);
        nn::Tensor dy = random_tensor(a, {c.rows, c.C}, 7, false);
        const std::vector<nn::Tensor> inputs = own_residual ? std::vector<nn::Tensor>{x, w1, b1, w2, b2}
                                                            : std::vector<nn::Tensor>{x, w1, b1, w2, b2, r};
        for (nn::Activation act : {nn::Activation::relu, nn::Activation::gelu}) {
          auto unfused = [&](nn::Arena& ar) {
            nn::Tensor h = act == nn::Activation::relu ? nn::linear_relu(ar, x, w1, b1) : nn::linear_gelu(ar, x, w1, b1);
            return nn::linear_residual(ar, h, w2, b2, r);
          };
          const std::vector<float> want = testutil::values_and_grads(unfused, inputs, dy);
          for (auto buffers : {nn::Tensor::GradBuffers::keep, nn::Tensor::GradBuffers::recycle})
            CHECK(testutil::values_and_grads([&](nn::Arena& ar) { return nn::feed_forward_residual(ar, x, w1, b1, w2, b2, r, act); },
                                             inputs, dy, buffers) == want);
          nn::GradMode no_grad(false);
          nn::Arena ar;
          nn::Tensor y1 = nn::feed_forward_residual(ar, x, w1, b1, w2, b2, r, act), y2 = unfused(ar);
          CHECK(std::vector<float>(y1.data(), y1.data() + y1.numel()) == std::vector<float>(y2.data(), y2.data() + y2.numel()));
          CHECK(!y1.requires_grad());
        }
      }
  tinygpt::set_num_threads(1);
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {4, 8}, 1), w1 = random_tensor(a, {8, 6}, 2), w2 = random_tensor(a, {5, 8}, 3);
  CHECK_THROWS_WITH(nn::feed_forward_residual(a, x, w1, {}, w2, {}, x, nn::Activation::relu),
                    Catch::Contains("w2 must be (6, C), got (5, 8)"));
}

TEST_CASE("softmax backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {4, 21}, 1, true, 2.0f);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::softmax_lastdim(ar, x); }, {x}, 3e-3f, 1e-3, 5e-3));
}

TEST_CASE("cross-entropy backward matches finite differences", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor z = random_tensor(a, {2, 5, 13}, 1, true, 2.0f);
  const int32_t targets[10] = {0, 12, 5, 5, 7, 1, 3, 9, 11, 2};
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::cross_entropy(ar, z, targets); }, {z}, 3e-3f, 1e-4,
                              5e-3));
}

TEST_CASE("causal attention backward matches finite differences for 1, 2 and 4 heads", "[ops][gradcheck]") {
  for (int nh : {1, 2, 4}) {
    for (int T : {1, 5, 9}) {
      DYNAMIC_SECTION("heads " << nh << ", T " << T) {
        nn::Arena a;
        const int C = 12;  // head sizes 12, 6, 3: exercises the SIMD tails
        nn::Tensor qkv = random_tensor(a, {2, T, 3 * C}, uint64_t(10 * nh + T));
        CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::causal_attention(ar, qkv, nh); }, {qkv}, 3e-3f,
                                    2e-3, 1e-2, 60));
      }
    }
  }
}

TEST_CASE("the attention sublayer (qkv projection, attention, output projection) matches finite differences",
          "[ops][gradcheck]") {
  nn::Arena a;
  const int C = 8;
  nn::Tensor x = random_tensor(a, {2, 6, C}, 1);
  nn::Tensor wq = random_tensor(a, {C, 3 * C}, 2, true, 0.3f), bq = random_tensor(a, {3 * C}, 3, true, 0.1f);
  nn::Tensor wp = random_tensor(a, {C, C}, 4, true, 0.3f), bp = random_tensor(a, {C}, 5, true, 0.1f);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::self_attention(ar, x, wq, bq, wp, bp, 2); },
                              {x, wq, bq, wp, bp}, 3e-3f, 2e-3, 1e-2));
}

TEST_CASE("reshape passes gradients through one to one", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {3, 4}, 1);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::gelu(ar, nn::reshape(ar, x, {2, 6})); }, {x}, 3e-3f,
                              2e-3, 5e-3));
}

// ---- the GPT-2 layout's tied head --------------------------------------------------------------

TEST_CASE("tied_head computes x table^T: logits from the embedding rows", "[ops]") {
  nn::Arena a;
  nn::Tensor x = a.from({2, 2}, {1, 2, 3, 4});              // (N, C)
  nn::Tensor table = a.from({3, 2}, {1, 0, 0, 1, 1, -1});   // (V, C): rows e0, e1, e0 - e1
  nn::Tensor y = nn::tied_head(a, x, table);                // (N, V): x . each row
  const float want[6] = {1, 2, -1, 3, 4, -1};
  REQUIRE(y.shape() == nn::Shape{2, 3});
  for (int i = 0; i < 6; i++) CHECK(y.data()[i] == want[i]);
  CHECK_THROWS_WITH(nn::tied_head(a, x, a.from({2, 3}, {0, 0, 0, 0, 0, 0})),
                    Catch::Contains("expects x (..., C) and table (V, C), got (2, 2) and (2, 3)"));
}

TEST_CASE("tied_head backward matches finite differences, to x and to the table", "[ops][gradcheck]") {
  nn::Arena a;
  nn::Tensor x = random_tensor(a, {2, 3, 17}, 1), table = random_tensor(a, {11, 17}, 2);
  CHECK_GRADS(check_gradients([&](nn::Arena& ar) { return nn::tied_head(ar, x, table); }, {x, table}, 1e-2f, 2e-3, 2e-3));
  // the table as embedding and head at once (the tied model): both gradients accumulate into it
  const int32_t tokens[4] = {3, 10, 3, 0};
  CHECK_GRADS(check_gradients(
      [&](nn::Arena& ar) { return nn::tied_head(ar, nn::embedding(ar, table, tokens, 2, 2), table); }, {table}, 1e-2f, 2e-3,
      2e-3));
}
