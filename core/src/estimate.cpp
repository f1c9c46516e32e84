// estimate.cpp — text entropies and the pre-flight measurement (estimate.h).
#include "tinygpt/estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/trainer.h"
#include "tinygpt/watch.h"

namespace tinygpt {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
}  // namespace

TextEntropy text_entropy(const uint8_t* bytes, size_t n) {
  // the same counts as the loss chart's reference lines (watch::entropy_baselines)
  const watch::Baselines b = watch::entropy_baselines(bytes, n);
  TextEntropy e;
  e.bytes = n;
  e.unigram = b.unigram;
  e.bigram = b.bigram;
  return e;
}

namespace {

// Times steps of the trainer t (its corpus set): everything but the text's share of the memory and its entropies.
Preflight measure(const Config& config, train::Trainer& t, double budget_ms, Clock::time_point t_start) {
  Preflight p;
  p.parameters = t.num_parameters();
  // a step that diverges (an absurd learning rate) still did its forward and backward pass: time it too
  auto timed_step = [&] {
    const auto t0 = Clock::now();
    try {
      t.step();
    } catch (const train::Diverged&) {
    }
    return ms_since(t0);
  };
  p.first_step_ms = timed_step();
  double timed_ms = 0.0;
  while (p.steps_timed < 1 || (ms_since(t_start) < budget_ms && p.steps_timed < 200)) {
    timed_ms += timed_step();
    p.steps_timed++;
  }
  p.ms_per_step = timed_ms / p.steps_timed;
  p.tokens_per_s = double(t.tokens_per_step()) / (p.ms_per_step / 1000.0);
  p.tokens_per_byte = t.tokens_per_byte() > 0 ? t.tokens_per_byte() : 1.0;
  p.bytes_per_s = p.tokens_per_s / p.tokens_per_byte;
  // one validation batch, timed, stands for eval_iters of them
  if (config.eval_interval > 0) {
    t.update_field("eval_iters", 1);
    const auto t0 = Clock::now();
    t.evaluate();
    p.ms_per_eval = ms_since(t0) * config.eval_iters;
    // as tinygpt::Run: at step 0, every multiple of eval_interval, and at the end
    const int64_t steps = config.max_iters, every = config.eval_interval;
    p.evaluations = 1 + steps / every + (steps % every != 0 ? 1 : 0);
  }
  p.total_s = (double(config.max_iters) * p.ms_per_step + double(p.evaluations) * p.ms_per_eval) / 1000.0;
  // what the run holds: parameters, gradients, AdamW's m and v, the good state's three copies
  // (train::Trainer::keep_good_state) and the activations its arena reserved
  p.memory_bytes = p.parameters * int64_t(sizeof(float)) * 7 + int64_t(t.arena_bytes());
  p.estimated_bytes = estimate_training_bytes(config);
  return p;
}

}  // namespace

namespace {
// A bpe config's tokenizer: the one given, else a stand-in learned from the text's beginning.
void give_tokenizer(train::Trainer& t, std::shared_ptr<const tok::Tokenizer> tokenizer, const data::ByteSource* text) {
  if (t.config().tokenizer != TokenizerKind::bpe) return;
  if (!tokenizer) {
    if (!text) t.require_tokenizer();  // shards: they were packed with a tokenizer, which must be given
    const uint64_t n = std::min<uint64_t>(text->size(), kPreflightTokenizerBytes);
    const data::CallbackSource head(n, [text](uint64_t at, size_t k, uint8_t* out) { text->read_bytes(at, k, out); }, "");
    tokenizer = std::make_shared<const tok::Tokenizer>(*tok::train_bpe(head, t.config().vocab_size));
  }
  t.set_tokenizer(std::move(tokenizer));
}
}  // namespace

Preflight preflight(const Config& config, const uint8_t* corpus, size_t n, double budget_ms, int64_t memory_limit,
                    std::shared_ptr<const tok::Tokenizer> tokenizer) {
  const auto t_start = Clock::now();
  train::Trainer t(config, memory_limit);
  // the speed of a step does not depend on the text: a few MiB of it make the throw-away dataset
  const size_t keep = std::min(n, size_t(4) << 20);
  {
    const data::MemorySource head(std::vector<uint8_t>(corpus, corpus + std::min(n, kPreflightTokenizerBytes)));
    give_tokenizer(t, std::move(tokenizer), &head);
  }
  t.set_corpus(std::vector<uint8_t>(corpus, corpus + keep));  // throws if too short for the context
  Preflight p = measure(config, t, budget_ms, t_start);
  p.memory_bytes += int64_t(n);  // and the whole text
  if (t.tokenizer()) p.memory_bytes += int64_t(double(n) * p.tokens_per_byte) * 2;  // and its tokens (uint16 ids)
  p.entropy = text_entropy(corpus, std::min(n, kEntropyBytes));
  p.measured_ms = ms_since(t_start);
  return p;
}

Preflight preflight(const Config& config, const data::Corpus& corpus, double budget_ms, int64_t memory_limit,
                    std::shared_ptr<const tok::Tokenizer> tokenizer) {
  const auto t_start = Clock::now();
  train::Trainer t(config, memory_limit);
  give_tokenizer(t, std::move(tokenizer), dynamic_cast<const data::ByteSource*>(corpus.train.get()));
  t.set_corpus(corpus);  // shared, not copied; throws if too short, or another tokenizer's shards
  Preflight p = measure(config, t, budget_ms, t_start);
  // of the bytes, whatever the tokenizer (a BPE run's text: its first bytes, read from it)
  const auto* text = dynamic_cast<const data::ByteSource*>(corpus.train.get());
  if (t.tokenizer() && text) {
    std::vector<uint8_t> head(size_t(std::min<uint64_t>(text->size(), kSourceEntropyBytes)));
    text->read_bytes(0, head.size(), head.data());
    p.entropy = text_entropy(head.data(), head.size());
  } else {
    const watch::Baselines b = watch::entropy_baselines(t.dataset(), kSourceEntropyBytes);
    p.entropy.unigram = b.unigram;
    p.entropy.bigram = b.bigram;
    p.entropy.bytes = size_t(b.tokens);
  }
  p.measured_ms = ms_since(t_start);
  return p;
}

}  // namespace tinygpt
