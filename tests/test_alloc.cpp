// test_alloc.cpp — a steady-state training step makes no heap allocation: every buffer is
// planned or pooled in the first steps and reused afterwards.
#include <catch2/catch.hpp>

#include "kernels_isa.h"
#include "test_util.h"
#include "threadpool.h"
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

// The LSTM translator's test (test_rnn_alloc.cpp) failed about once in 20 runs of [alloc] on a
// loaded host: its one-thread part raised a scratch mark while the pool's worker was parked, and
// in its two-thread part the worker took no attention task in the warm-up steps, so nothing grew
// there and share_scratch_sizes, which shared only when a count above every earlier one appeared,
// left the worker at the old mark: it grew in a measured step. The same order, without the luck:
TEST_CASE("a worker parked while a scratch mark rose is brought up to it when it is active again",
          "[alloc][threads]") {
  const int threads = std::min(2, tinygpt::max_threads());
  tinygpt::set_num_threads(threads);
  kernels::share_scratch_sizes();  // every thread at the marks so far
  tinygpt::set_num_threads(1);     // the worker parks
  static constexpr size_t kNeed = size_t(1) << 20;  // above any kernel's need in these tests
  kernels::scratch(kernels::kAttentionRow, kNeed);  // the calling thread raises the mark
  kernels::share_scratch_sizes();                   // on one thread: the worker misses it
  tinygpt::set_num_threads(threads);
  kernels::share_scratch_sizes();  // between steps, as train::Trainer::step calls it
  const long before = testutil::allocations();
  tp::run_on_each_thread([](void*, int, int, int) { kernels::scratch(kernels::kAttentionRow, kNeed); }, nullptr);
  const long after = testutil::allocations();
  tinygpt::set_num_threads(1);
  INFO("threads " << threads);
  CHECK(after - before == 0);
}
