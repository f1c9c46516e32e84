// test_tensor.cpp — shapes, the arena, grad mode and the backward pass itself.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels.h"
#include "test_util.h"
#include "tinygpt/model.h"
#include "tinygpt/ops.h"
#include "tinygpt/pairs.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/tensor.h"

using namespace tinygpt;


TEST_CASE("row-major shapes count elements and print themselves", "[autograd]") {
  nn::Shape s{2, 3, 4};
  CHECK(s.numel() == 24);
  CHECK(s[-1] == 4);
  CHECK(s.str() == "(2, 3, 4)");
  CHECK(nn::Shape{}.numel() == 1);
  CHECK_THROWS_WITH((nn::Shape{1, 2, 3, 4, 5}), Catch::Contains("at most 4"));
}

TEST_CASE("a tensor used twice receives the sum of both gradients", "[autograd]") {
  nn::Arena a;
  nn::Tensor x = a.from({3}, {1, 2, 3}, true);
  nn::Tensor w = a.from({3}, {0.5f, -1, 2});
  nn::Tensor y = nn::add(a, x, x);  // y = 2x
  testutil::weighted_sum(a, y, w).backward();
  for (int i = 0; i < 3; i++) CHECK(x.grad()[i] == Approx(2 * w.data()[i]));
}

TEST_CASE("gradients flow through both branches of a diamond-shaped graph", "[autograd]") {
  // z = x + gelu(x): both paths reach x, the topological order must run gelu's node before x is final
  nn::Arena a;
  nn::Tensor x = a.from({4}, {-1, 0, 0.5f, 2}, true);
  nn::Tensor z = nn::add(a, x, nn::gelu(a, x));
  nn::Tensor ones = a.from({4}, {1, 1, 1, 1});
  testutil::weighted_sum(a, z, ones).backward();
  for (int i = 0; i < 4; i++) {
    const double v = x.data()[i], k = std::sqrt(2 / M_PI);
    const double t = std::tanh(k * (v + 0.044715 * v * v * v));
    const double dgelu = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v);
    CHECK(x.grad()[i] == Approx(1 + dgelu).epsilon(1e-5));
  }
}

// A gradient buffer is not zeroed when backward allocates it: the first op that writes all of it
// (a linear's dx, an add) overwrites it, any other reader zeroes it first. On an arena whose
// memory holds NaN from an earlier pass, every gradient must still be exactly what zeroing and
// adding gives.
TEST_CASE("gradient buffers written whole by their first contribution match zeroed ones", "[autograd]") {
  const int N = 6, K = 5, M = 7;
  std::vector<float> xv = testutil::random_vector(N * K, 1), w1v = testutil::random_vector(K * M, 2);
  std::vector<float> w2v = testutil::random_vector(K * K, 3), cv = testutil::random_vector(N * M, 4);
  nn::Arena a;
  for (int pass = 0; pass < 2; pass++) {
    a.reset();
    if (pass == 1) {  // poison: the second pass reuses memory full of NaN
      nn::Tensor junk = a.tensor({int64_t(1) << 16});
      std::fill(junk.data(), junk.data() + junk.numel(), std::numeric_limits<float>::quiet_NaN());
      a.reset();
    }
    nn::Tensor x = a.from({N, K}, xv, true);
    nn::Tensor w1 = a.from({K, M}, w1v, true), w2 = a.from({K, K}, w2v, true), c = a.from({N, M}, cv);
    // x feeds two linears and an add: its first contribution overwrites, the others add
    nn::Tensor h = nn::add(a, nn::linear_lastdim(a, x, w2, {}), x);       // (N, K)
    nn::Tensor y = nn::relu(a, nn::linear_lastdim(a, h, w1, {}));         // (N, M): relu's input only adds
    nn::Tensor z = nn::add(a, y, nn::linear_lastdim(a, x, w1, {}));       // (N, M)
    testutil::weighted_sum(a, z, c).backward();
    // the same gradients by hand, with the reference kernels into zeroed buffers
    std::vector<float> dz(cv), dy(N * M, 0.0f), dpre(N * M, 0.0f), dh(N * K, 0.0f), dx(N * K, 0.0f);
    std::vector<float> pre(N * M);
    kernels::ref::matmul_forward(pre.data(), h.data(), w1v.data(), nullptr, N, K, M);
    for (int i = 0; i < N * M; i++) dpre[i] = pre[i] > 0 ? dz[i] : 0.0f;
    kernels::ref::matmul_backward(dx.data(), nullptr, nullptr, dz.data(), xv.data(), w1v.data(), N, K, M);
    kernels::ref::matmul_backward(dh.data(), nullptr, nullptr, dpre.data(), h.data(), w1v.data(), N, K, M);
    for (int i = 0; i < N * K; i++) dx[i] += dh[i];
    kernels::ref::matmul_backward(dx.data(), nullptr, nullptr, dh.data(), xv.data(), w2v.data(), N, K, K);
    INFO("pass " << pass);
    for (int i = 0; i < N * K; i++) {
      REQUIRE(std::isfinite(x.grad()[i]));
      CHECK(x.grad()[i] == Approx(dx[i]).margin(1e-5));
    }
    for (int i = 0; i < K * M; i++) REQUIRE(std::isfinite(w1.grad()[i]));
  }
}

// A gradient no op writes (every target of the loss ignored) reads as zeros, not old memory.
TEST_CASE("a gradient buffer nothing writes reads as zeros", "[autograd]") {
  nn::Arena a;
  nn::Tensor junk = a.tensor({4096});
  std::fill(junk.data(), junk.data() + junk.numel(), std::numeric_limits<float>::quiet_NaN());
  a.reset();
  nn::Tensor logits = a.from({2, 3}, {1, 2, 3, 4, 5, 6}, true);
  const int32_t targets[2] = {-1, -1};
  nn::cross_entropy_ignore(a, logits, targets).backward();
  for (int i = 0; i < 6; i++) CHECK(logits.grad()[i] == 0.0f);
}

TEST_CASE("backward accumulates into leaf gradients across calls", "[autograd]") {
  nn::Arena a;
  nn::Tensor x = a.from({2}, {1, 2}, true);
  nn::Tensor w = a.from({2}, {3, 4});
  testutil::weighted_sum(a, x, w).backward();
  testutil::weighted_sum(a, x, w).backward();
  CHECK(x.grad()[0] == Approx(6));
  CHECK(x.grad()[1] == Approx(8));
}

TEST_CASE("backward needs a scalar that requires grad", "[autograd]") {
  nn::Arena a;
  nn::Tensor x = a.from({2}, {1, 2}, true);
  nn::Tensor y = nn::gelu(a, x);
  CHECK_THROWS_WITH(y.backward(), Catch::Contains("scalar"));
  nn::Tensor c = a.from({1}, {1}, false);
  CHECK_THROWS_WITH(c.backward(), Catch::Contains("does not require grad"));
}

TEST_CASE("the no-grad guard builds no graph and restores the previous mode", "[autograd]") {
  nn::Arena a;
  nn::Tensor x = a.from({3}, {1, 2, 3}, true);
  REQUIRE(nn::is_grad_enabled());
  {
    nn::GradMode no_grad(false);
    CHECK_FALSE(nn::is_grad_enabled());
    nn::Tensor y = nn::gelu(a, nn::add(a, x, x));
    CHECK(y.node() == nullptr);
    CHECK_FALSE(y.requires_grad());
    {
      nn::GradMode inner(true);
      CHECK(nn::is_grad_enabled());
    }
    CHECK_FALSE(nn::is_grad_enabled());
  }
  CHECK(nn::is_grad_enabled());
  nn::Tensor z = nn::gelu(a, x);
  REQUIRE(z.node() != nullptr);
  CHECK(std::string(z.node()->op) == "gelu");
  CHECK(z.node()->n_parents == 1);
}

TEST_CASE("an arena reused for identical passes stops allocating after the first", "[autograd]") {
  nn::Arena a(4096);  // small first chunk: the first pass spills over several chunks
  auto pass = [&] {
    a.reset();
    nn::Tensor x = a.zeros({64, 64}, true);
    nn::Tensor y = nn::gelu(a, nn::add(a, x, x));
    testutil::weighted_sum(a, y, a.zeros({64, 64})).backward();
  };
  pass();
  pass();  // the reset before this pass merges the chunks into one
  const uint64_t after_two = a.chunk_allocations();
  for (int i = 0; i < 5; i++) pass();
  CHECK(a.chunk_allocations() == after_two);
  a.reset();
  CHECK(a.bytes_used() == 0);
}

TEST_CASE("a recycling backward frees each op's output gradient once its backward has run", "[autograd][recycle]") {
  nn::Arena a;
  nn::Tensor x = a.from({4}, {1, -2, 3, 0.5f}, true);
  nn::Tensor w = a.from({4}, {0.5f, -1, 2, 3});
  nn::Tensor y = nn::add(a, x, x);   // (4): 2x
  nn::Tensor z = nn::add(a, y, x);   // (4): 3x
  nn::Tensor loss = testutil::weighted_sum(a, z, w);
  loss.backward(nn::Tensor::GradBuffers::recycle);
  for (int i = 0; i < 4; i++) CHECK(x.grad()[i] == 3 * w.data()[i]);  // the leaf keeps its gradient
  CHECK(y.impl()->grad == nullptr);                                    // the intermediates' are gone
  CHECK(z.impl()->grad == nullptr);
  CHECK(!a.free_grads.empty());  // y's and z's buffers, for the next backward's gradients
  a.reset();
  CHECK(a.free_grads.empty());   // they belonged to the pass that reset() forgot
}

namespace {
// Every parameter's gradient after one backward, kept and recycled, on the same model and batch:
// the same ops in the same order read and write the same values, only in other buffers, so the
// gradients must agree bit for bit, while the arena holds less.
// max_fraction: the arena's bytes recycled over kept, at most (the forward's activations stay)
template <class Model, class Loss>
void check_recycled_gradients(Model& m, Loss loss, double max_fraction) {
  nn::Arena keep_arena, recycle_arena;
  m.zero_grad();
  loss(keep_arena).backward(nn::Tensor::GradBuffers::keep);
  const std::vector<float> kept(m.grads(), m.grads() + m.num_parameters());
  m.zero_grad();
  loss(recycle_arena).backward(nn::Tensor::GradBuffers::recycle);
  int64_t differ = 0, nonzero = 0;
  for (int64_t i = 0; i < m.num_parameters(); i++) {
    differ += std::memcmp(&kept[size_t(i)], m.grads() + i, sizeof(float)) != 0;
    nonzero += kept[size_t(i)] != 0.0f;
  }
  CHECK(differ == 0);
  CHECK(nonzero > m.num_parameters() / 2);  // the comparison covers real gradients
  INFO("arena bytes: kept " << keep_arena.bytes_used() << ", recycled " << recycle_arena.bytes_used());
  CHECK(double(recycle_arena.bytes_used()) <= max_fraction * double(keep_arena.bytes_used()));
}
// A translator of dims d on a batch of the built-in dates task
template <class Model, class Dims>
void check_recycled_translator(const Dims& d, double max_fraction) {
  data::PairDataset pairs(data::builtin_task("dates", 3, 100), d.block_size, 3);
  Model m(d);
  data::PairBatch batch;
  pairs.sample_batch(4, batch);
  check_recycled_gradients(m, [&](nn::Arena& a) { return m.loss(a, batch); }, max_fraction);
}
}  // namespace

TEST_CASE("recycled gradient buffers give every model the same gradients in less memory", "[autograd][recycle]") {
  SECTION("the GPT") {
    Config c;
    c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.block_size = 8;
    model::TinyGPT m(c);
    std::vector<int32_t> x(2 * 8), y(2 * 8);
    for (size_t i = 0; i < x.size(); i++) x[i] = int32_t(i * 37 % 256), y[i] = int32_t(i * 11 % 256);
    check_recycled_gradients(m, [&](nn::Arena& a) { return m.loss(a, x.data(), y.data(), 2, 8); }, 0.9);
  }
  SECTION("the encoder-decoder") {
    model::Seq2SeqDims d;
    d.n_enc_layer = 2, d.n_dec_layer = 2, d.n_head = 2, d.n_embd = 16, d.d_ff = 32, d.block_size = 16;
    check_recycled_translator<model::Seq2Seq>(d, 0.8);
  }
  SECTION("the LSTM translator (attention over the encoder's states, the encoder's last state to the decoder)") {
    model::LstmSeq2SeqDims d;
    d.n_enc_layer = 2, d.n_dec_layer = 2, d.n_embd = 8, d.n_hidden = 12, d.block_size = 16;
    check_recycled_translator<model::LstmSeq2Seq>(d, 1.0);
  }
  SECTION("the LSTM (its node has two outputs, h and c)") {
    Config c;
    c.model = ModelKind::lstm;
    c.n_layer = 2, c.n_embd = 8, c.n_hidden = 12, c.block_size = 8;
    model::Recurrent m(c);
    std::vector<int32_t> x(3 * 8), y(3 * 8);
    for (size_t i = 0; i < x.size(); i++) x[i] = int32_t(i * 29 % 256), y[i] = int32_t(i * 13 % 256);
    // every gradient here has another size than the buffers freed before it: nothing to reuse,
    // and nothing may break
    check_recycled_gradients(m, [&](nn::Arena& a) { return m.loss(a, x.data(), y.data(), 3, 8); }, 1.0);
  }
}
