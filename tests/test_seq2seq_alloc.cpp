// test_seq2seq_alloc.cpp — a steady-state encoder-decoder training step (batch sampling, loss,
// backward, clipping, AdamW) and a validation pass make no heap allocation, with one thread and
// with two: the arena is reserved from seq2seq_activation_bytes before the first step, and the
// batch buffers and kernel scratch reach their size in the first steps.
#include <catch2/catch.hpp>

#include "kernels.h"
#include "test_util.h"
#include "tinygpt/optim.h"
#include "tinygpt/pairs.h"
#include "tinygpt/runtime.h"
#include "tinygpt/seq2seq.h"

using namespace tinygpt;

namespace {
void check_no_allocations(int threads) {
  tinygpt::set_num_threads(threads);
  model::Seq2SeqDims d;
  d.n_enc_layer = 2, d.n_dec_layer = 2, d.n_head = 4, d.n_embd = 64, d.d_ff = 128, d.block_size = 24;
  data::PairDataset pairs(data::builtin_task("dates", 3, 500), d.block_size, 3);
  model::Seq2Seq m(d);
  optim::AdamW opt(m.num_parameters(), {}, m.decay_segments());
  const int B = 8;
  nn::Arena arena;
  arena.reserve(size_t(model::seq2seq_activation_bytes(d, B)));
  data::PairBatch batch;
  auto step = [&] {
    pairs.sample_batch(B, batch);
    arena.reset();
    m.zero_grad();
    nn::Tensor loss = m.loss(arena, batch);
    loss.backward(nn::Tensor::GradBuffers::recycle);  // as the trainer does
    optim::clip_grad_norm(m.grads(), m.num_parameters(), 1.0f);
    opt.step(m.params(), m.grads(), 1e-3f);
    kernels::share_scratch_sizes();
  };
  auto validate = [&] {
    nn::GradMode no_grad(false);
    for (int k = 0; k < 3; k++) {
      pairs.val_batch(k, B, batch);
      arena.reset();
      m.loss(arena, batch);
    }
  };
  for (int i = 0; i < 3; i++) step();  // warm-up
  validate();
  const uint64_t chunks = arena.chunk_allocations();
  const long before = testutil::allocations();
  for (int i = 0; i < 5; i++) step();
  validate();
  const long after = testutil::allocations();
  tinygpt::set_num_threads(1);
  INFO("threads " << threads);
  CHECK(after - before == 0);
  CHECK(arena.chunk_allocations() == chunks);
  CHECK(chunks == 1);  // the reservation was enough from the start
}
}  // namespace

TEST_CASE("a steady-state seq2seq training step makes no heap allocation", "[seq2seq][alloc]") { check_no_allocations(1); }

TEST_CASE("a steady-state seq2seq training step makes no heap allocation with two threads either",
          "[seq2seq][alloc][threads]") {
  check_no_allocations(std::min(2, tinygpt::max_threads()));
}
