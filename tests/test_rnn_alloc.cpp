// test_rnn_alloc.cpp — a steady-state training step of a recurrent language model, stateless or
// stateful, makes no heap allocation: the arena, the fused kernels' scratch (packed weights, the
// carries) and the carried state reach their size in the first steps and are reused afterwards.
// The LSTM translator's step too, through the same trainer.
#include <catch2/catch.hpp>

#include "test_util.h"
#include "tinygpt/config.h"
#include "tinygpt/pairs.h"
#include "tinygpt/runtime.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {
void check_no_allocations(ModelKind kind, int stateful, int threads) {
  tinygpt::set_num_threads(threads);
  Config c;
  c.model = kind;
  c.n_layer = 2, c.n_embd = 16, c.n_hidden = 48, c.block_size = 24;
  c.batch_size = 5;
  c.stateful = stateful;
  c.max_iters = 20;
  c.warmup_iters = 2;
  c.eval_iters = 2;
  train::Trainer t(c);
  std::vector<uint8_t> corpus(10000);
  for (size_t i = 0; i < corpus.size(); i++) corpus[i] = uint8_t("abcdefgh ij\n"[i % 12]);
  t.set_corpus(corpus);
  for (int i = 0; i < 3; i++) t.step();  // warm-up
  t.evaluate();
  const long before = testutil::allocations();
  for (int i = 0; i < 5; i++) t.step();
  t.evaluate();
  const long after = testutil::allocations();
  tinygpt::set_num_threads(1);
  INFO(model_kind_name(kind) << (stateful ? " stateful" : " stateless") << ", threads " << threads);
  CHECK(after - before == 0);
}
}  // namespace

TEST_CASE("a steady-state recurrent training step makes no heap allocation, stateless or stateful",
          "[rnn][alloc]") {
  for (ModelKind kind : {ModelKind::rnn, ModelKind::gru, ModelKind::lstm})
    for (int stateful : {0, 1}) check_no_allocations(kind, stateful, 1);
}

TEST_CASE("a steady-state recurrent training step makes no heap allocation with two threads either",
          "[rnn][alloc][threads]") {
  for (ModelKind kind : {ModelKind::gru, ModelKind::lstm})
    for (int stateful : {0, 1}) check_no_allocations(kind, stateful, std::min(2, tinygpt::max_threads()));
}

TEST_CASE("a steady-state step of the LSTM translator makes no heap allocation, with one thread or two",
          "[rnn][seq2seq][alloc]") {
  for (int threads : {1, std::min(2, tinygpt::max_threads())}) {
    tinygpt::set_num_threads(threads);
    Config c = preset_config("s2s-lstm");
    c.n_hidden = 48, c.block_size = 12, c.batch_size = 8, c.eval_iters = 2, c.max_iters = 20, c.warmup_iters = 2;
    train::Trainer t(c);
    t.set_corpus(data::builtin_task("reverse", 1, 400));
    for (int i = 0; i < 3; i++) t.step();
    t.evaluate();
    const long before = testutil::allocations();
    for (int i = 0; i < 5; i++) t.step();
    const long after = testutil::allocations();
    tinygpt::set_num_threads(1);
    INFO("threads " << threads);
    CHECK(after - before == 0);
  }
}
