// test_seq2seq_train.cpp — the encoder-decoder learns: a tiny model trained on the built-in
// "reverse" task (1 to 8 lowercase letters, backwards) translates held-out strings exactly.
// The loop is the plain one a trainer runs: batch, loss, backward, clip, AdamW with warmup and
// cosine decay. It takes a few seconds natively (3000 steps of a 46k-parameter model; 100% on five seeds).
#include <catch2/catch.hpp>

#include <cstdio>

#include "tinygpt/optim.h"
#include "tinygpt/pairs.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/translate.h"

using namespace tinygpt;

TEST_CASE("a tiny seq2seq model learns to reverse strings: at least 99% exact match on held-out pairs",
          "[seq2seq][train]") {
  model::Seq2SeqDims d;
  d.n_enc_layer = 1, d.n_dec_layer = 1, d.n_head = 2, d.n_embd = 32, d.d_ff = 64, d.block_size = 9, d.seed = 1;
  data::PairDataset pairs(data::builtin_task("reverse", 1), d.block_size, 1);
  REQUIRE(pairs.val_size() == 300u);
  model::Seq2Seq m(d);
  optim::AdamW opt(m.num_parameters(), {0.9f, 0.99f, 1e-8f, 0.1f}, m.decay_segments());
  const int steps = 3000, B = 32;
  const optim::Schedule schedule{5e-3f, 5e-4f, 100, steps};
  nn::Arena arena;
  arena.reserve(size_t(model::seq2seq_activation_bytes(d, B)));
  data::PairBatch batch;
  float first = 0, last = 0;
  for (int step = 0; step < steps; step++) {
    pairs.sample_batch(B, batch);
    arena.reset();
    m.zero_grad();
    nn::Tensor loss = m.loss(arena, batch);
    loss.backward();
    optim::clip_grad_norm(m.grads(), m.num_parameters(), 1.0f);
    opt.step(m.params(), m.grads(), schedule.lr_at(step));
    (step == 0 ? first : last) = loss.item();
  }
  const data::TranslationScore score = sample::evaluate_translation(m, pairs);
  std::printf("[seq2seq] reverse: loss %.3f -> %.5f; held-out exact match %.1f%%, CER %.2f%% (%lld pairs)\n", first,
              last, 100 * score.exact_match(), 100 * score.cer(), (long long)score.pairs);
  CHECK(first > 4.0f);  // starts near ln(259) = 5.56
  CHECK(score.pairs == 300);
  CHECK(score.exact_match() >= 0.99);
  CHECK(score.cer() < 0.01);
  // the seed's sentence is not in the task, but any string is reversed
  CHECK(sample::translate(m, "stressed", {}).text == "desserts");
}
