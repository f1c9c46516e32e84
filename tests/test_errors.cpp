// test_errors.cpp — impossible configurations and corpora get specific messages.
#include <catch2/catch.hpp>

#include "tinygpt/error.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {
std::string error_of(const model::Config& m, const train::TrainConfig& t = {},
                     int64_t limit = train::kDefaultMemoryLimit) {
  try {
    train::Trainer trainer(m, t, limit);
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
  return "(no error)";
}
model::Config cfg(int L, int NH, int C, int T) {
  model::Config c;
  c.n_layer = L, c.n_head = NH, c.n_embd = C, c.block_size = T;
  return c;
}
}  // namespace

TEST_CASE("a width not divisible by the head count is explained", "[errors]") {
  CHECK_THAT(error_of(cfg(2, 3, 128, 64)), Catch::Contains("width 128 is not divisible by 3 heads"));
}

TEST_CASE("zero or negative sizes are refused, naming the field", "[errors]") {
  CHECK_THAT(error_of(cfg(0, 4, 128, 64)), Catch::Contains("layers must be between 1"));
  CHECK_THAT(error_of(cfg(2, 0, 128, 64)), Catch::Contains("heads must be between 1"));
  CHECK_THAT(error_of(cfg(2, 4, -8, 64)), Catch::Contains("width (n_embd) must be between 1"));
  CHECK_THAT(error_of(cfg(2, 4, 128, 0)), Catch::Contains("context (block_size) must be between 1"));
  train::TrainConfig t;
  t.batch_size = 0;
  CHECK_THAT(error_of(cfg(2, 4, 128, 64), t), Catch::Contains("batch size must be between 1"));
  t = {};
  t.lr = -1;
  CHECK_THAT(error_of(cfg(2, 4, 128, 64), t), Catch::Contains("learning rate must be in (0, 1]"));
  t = {};
  t.steps = 10;
  t.warmup = 20;
  CHECK_THAT(error_of(cfg(2, 4, 128, 64), t), Catch::Contains("warmup must be between 0 and steps"));
  t = {};
  t.beta2 = 1.0f;
  CHECK_THAT(error_of(cfg(2, 4, 128, 64), t), Catch::Contains("beta2"));
}

TEST_CASE("a configuration larger than the memory limit is refused before allocating", "[errors]") {
  // context 8192 with batch 64: the attention maps alone are tens of GiB
  train::TrainConfig t;
  t.batch_size = 64;
  const std::string e = error_of(cfg(12, 8, 512, 8192), t);
  CHECK_THAT(e, Catch::Contains("MiB, more than the 2048 MiB allowed"));
  CHECK_THAT(e, Catch::Contains("reduce the batch, context, width or layers"));
  CHECK_THAT(error_of(cfg(2, 2, 64, 64), {}, 1 << 20), Catch::Contains("more than the 1 MiB allowed"));
  CHECK(train::estimate_training_bytes(cfg(4, 4, 128, 64), 12) < (int64_t(200) << 20));
}

TEST_CASE("an empty corpus or one shorter than the context is refused", "[errors]") {
  train::Trainer t(cfg(1, 1, 8, 16), {});
  CHECK_THROWS_WITH(t.set_corpus({}), Catch::Contains("corpus is empty"));
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
