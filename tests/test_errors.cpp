// test_errors.cpp — impossible configurations and corpora get specific messages.
#include <catch2/catch.hpp>

#include "tinygpt/error.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {
std::string error_of(const Config& c, int64_t limit = kDefaultMemoryLimit) {
  try {
    train::Trainer trainer(c, limit);
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
  return "(no error)";
}
Config cfg(int L, int NH, int C, int T) {
  Config c;
  c.n_layer = L, c.n_head = NH, c.n_embd = C, c.block_size = T;
  return c;
}
}  // namespace

TEST_CASE("a width not divisible by the head count is explained", "[errors]") {
  CHECK_THAT(error_of(cfg(2, 3, 128, 64)), Catch::Contains("n_embd 128 is not divisible by n_head 3"));
}

TEST_CASE("zero or negative sizes are refused, naming the field and its range", "[errors]") {
  CHECK_THAT(error_of(cfg(0, 4, 128, 64)), Catch::Contains("n_layer must be in [1, 96] (got 0)"));
  CHECK_THAT(error_of(cfg(2, 0, 128, 64)), Catch::Contains("n_head must be in [1, 128]"));
  CHECK_THAT(error_of(cfg(2, 4, -8, 64)), Catch::Contains("n_embd must be in [1, 8192] (got -8)"));
  CHECK_THAT(error_of(cfg(2, 4, 128, 0)), Catch::Contains("block_size must be in [1, 8192]"));
  Config c = cfg(2, 4, 128, 64);
  c.batch_size = 0;
  CHECK_THAT(error_of(c), Catch::Contains("batch_size must be in [1, 4096]"));
  c = cfg(2, 4, 128, 64);
  c.learning_rate = -1;
  CHECK_THAT(error_of(c), Catch::Contains("learning_rate must be in (0, 1]"));
  c = cfg(2, 4, 128, 64);
  c.max_iters = 10;
  c.warmup_iters = 20;
  CHECK_THAT(error_of(c), Catch::Contains("warmup_iters 20 is longer than max_iters 10"));
  c = cfg(2, 4, 128, 64);
  c.beta2 = 1.0f;
  CHECK_THAT(error_of(c), Catch::Contains("beta2 must be in [0, 1)"));
  c = cfg(2, 4, 128, 64);
  c.min_lr = 0.5f;
  CHECK_THAT(error_of(c), Catch::Contains("min_lr 0.5 is above learning_rate 0.001"));
}

TEST_CASE("a configuration larger than the memory limit is refused before allocating", "[errors]") {
  // context 8192 with batch 64: the attention maps alone are tens of GiB
  Config c = cfg(12, 8, 512, 8192);
  c.batch_size = 64;
  const std::string e = error_of(c);
  CHECK_THAT(e, Catch::Contains("MiB, more than the 2048 MiB allowed"));
  CHECK_THAT(e, Catch::Contains("reduce batch_size, block_size, n_embd or n_layer"));
  CHECK_THAT(error_of(cfg(2, 2, 64, 64), 1 << 20), Catch::Contains("more than the 1 MiB allowed"));
  CHECK(estimate_training_bytes(cfg(4, 4, 128, 64)) < (int64_t(200) << 20));
}

TEST_CASE("an empty corpus or one shorter than the context is refused", "[errors]") {
  train::Trainer t(cfg(1, 1, 8, 16));
  CHECK_THROWS_WITH(t.set_corpus(std::vector<uint8_t>{}), Catch::Contains("corpus is empty"));
  CHECK_THROWS_WITH(t.set_corpus(std::vector<uint8_t>(16, 'a')), Catch::Contains("fewer than context + 1 = 17"));
  CHECK_FALSE(t.has_corpus());
  CHECK_THROWS_WITH(t.step(), Catch::Contains("no corpus"));
  t.set_corpus(std::vector<uint8_t>(17, 'a'));  // exactly enough
  CHECK(t.has_corpus());
  CHECK(std::isfinite(t.step()));
}

TEST_CASE("ops reject shapes and tokens they cannot handle", "[errors]") {
  model::TinyGPT m(cfg(1, 1, 8, 4));
  nn::Arena a;
  const int32_t too_long[5] = {1, 2, 3, 4, 5};
  CHECK_THROWS_WITH(m.forward_logits(a, too_long, 1, 5), Catch::Contains("exceeds the context of 4"));
  const int32_t bad[2] = {1, 300};
  CHECK_THROWS_WITH(m.forward_logits(a, bad, 1, 2), Catch::Contains("token 300 is outside the vocabulary"));
  nn::Tensor x = a.zeros({2, 3}), y = a.zeros({3, 2});
  CHECK_THROWS_WITH(nn::add(a, x, y), Catch::Contains("shapes differ"));
  CHECK_THROWS_WITH(nn::matmul(a, x, x), Catch::Contains("(M, K) @ (K, N)"));
}
