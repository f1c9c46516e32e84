// test_alloc.cpp — a steady-state training step makes no heap allocation: every buffer is
// planned or pooled in the first steps and reused afterwards.
#include <catch2/catch.hpp>

#include "test_util.h"
#include "tinygpt/runtime.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {
void check_no_allocations(int threads) {
  tinygpt::set_num_threads(threads);
  Config c;
  c.n_layer = 2, c.n_head = 4, c.n_embd = 64, c.block_size = 32;
  c.batch_size = 6;
  c.max_iters = 20;
  c.warmup_iters = 2;
  train::Trainer t(c);
  std::vector<uint8_t> corpus(10000);
  for (size_t i = 0; i < corpus.size(); i++) corpus[i] = uint8_t("abcdefgh ij\n"[i % 12]);
  t.set_corpus(corpus);
  for (int i = 0; i < 3; i++) t.step();  // warm-up: the arena and kernel scratch reach their size
  t.evaluate();
  const long before = testutil::allocations();
  for (int i = 0; i < 5; i++) t.step();
  t.evaluate();
  const long after = testutil::allocations();
  tinygpt::set_num_threads(1);
  INFO("threads " << threads);
  CHECK(after - before == 0);
}
}  // namespace

TEST_CASE("a steady-state training step makes no heap allocation", "[alloc]") { check_no_allocations(1); }

TEST_CASE("a steady-state step makes no heap allocation with two threads either", "[alloc][threads]") {
  check_no_allocations(std::min(2, tinygpt::max_threads()));
}

TEST_CASE("switching the thread count back and forth allocates nothing after the first time", "[alloc][threads]") {
  if (tinygpt::max_threads() < 2) return;  // a build without threads has one count only
  tinygpt::set_num_threads(2);
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 32, c.block_size = 16;
  c.batch_size = 4;
  c.max_iters = 50;
  c.warmup_iters = 2;
  train::Trainer t(c);
  std::vector<uint8_t> corpus(5000);
  for (size_t i = 0; i < corpus.size(); i++) corpus[i] = uint8_t("abcdefgh ij\n"[i % 12]);
  t.set_corpus(corpus);
  // what the ThreadTuner does to the pool: 2 -> 1 -> 2; the first round may start threads
  for (int round = 0; round < 2; round++) {
    t.step();
    tinygpt::set_num_threads(1);
    t.step();
    tinygpt::set_num_threads(2);
  }
  t.step();
  const long before = testutil::allocations();
  for (int round = 0; round < 3; round++) {
    tinygpt::set_num_threads(1);
    t.step();
    tinygpt::set_num_threads(2);
    t.step();
  }
  const long after = testutil::allocations();
  tinygpt::set_num_threads(1);
  CHECK(after - before == 0);
}

TEST_CASE("a settled thread tuner records steps without allocating", "[alloc]") {
  tinygpt::ThreadTuner tuner(2);
  for (int i = 0; i < 40; i++) tuner.record(tuner.threads() == 2 ? 0.025 : 0.040);
  REQUIRE_FALSE(tuner.measuring());
  const long before = testutil::allocations();
  for (int i = 0; i < 100; i++) tuner.record(0.025);
  CHECK(testutil::allocations() - before == 0);
}
