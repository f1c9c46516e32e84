// estimate.h — before a run starts: how fast this machine trains a config, how long its steps will
// take, how much memory it holds, and where the loss of simple models of the text lies (for scale).
//
// The page shows this after a text and a preset are chosen, before Start ("pre-flight"); the
// numbers are measured, not guessed: a throw-away trainer of the same config runs a few real steps
// on the same kernels, threads and memory the run will use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tinygpt/config.h"
#include "tinygpt/data.h"

namespace tinygpt::tok {
class Tokenizer;
}

namespace tinygpt {

// The loss (nats per byte) of the best model of each order on a text, measured on the text itself:
// the entropy of its byte frequencies and of the next byte given the one before.
struct TextEntropy {
  double unigram = 0.0;  // H(X) = -sum_b p(b) ln p(b): knows how often each byte occurs
  double bigram = 0.0;   // H(X_t | X_t-1) = -sum_a,b p(a, b) ln p(b | a): knows the byte before (a 256 x 256 table)
  size_t bytes = 0;      // how many bytes were counted
};
// Plug-in estimates from the counts (exact for the text given, a little optimistic for new text).
TextEntropy text_entropy(const uint8_t* bytes, size_t n);

struct Preflight {
  int steps_timed = 0;        // training steps timed after the first one (which sizes the memory)
  double first_step_ms = 0;   // the first step (allocates its activations)
  double ms_per_step = 0;     // mean of the timed steps (the first one if none fit the budget)
  double tokens_per_s = 0;    // tokens_per_step / ms_per_step
  double tokens_per_byte = 1; // of the text under the run's tokenizer (1 for bytes; a BPE run: its tokens over its bytes)
  double bytes_per_s = 0;     // tokens_per_s / tokens_per_byte: how fast the text itself goes by
  double ms_per_eval = 0;     // one validation loss (eval_iters batches)
  int64_t evaluations = 0;    // validation losses the run takes: at step 0, every eval_interval steps, at the end
  double total_s = 0;         // max_iters steps and the evaluations, at this pace
  int64_t memory_bytes = 0;   // held by the run: weights, gradients, AdamW moments, the good state, activations, the text
  int64_t estimated_bytes = 0;  // the config's own estimate (estimate_training_bytes), for comparison
  int64_t parameters = 0;
  double measured_ms = 0;     // how long the measurement took
  TextEntropy entropy;        // of the text (at most the first kEntropyBytes)
};

// The bytes text_entropy counts in a pre-flight (a larger text is sampled by its beginning).
constexpr size_t kEntropyBytes = size_t(64) << 20;

// Times real training steps of `config` on (the first few MiB of) `corpus` with a trainer that is
// thrown away afterwards: at least one step after the first, more until about budget_ms have
// passed. Throws tinygpt::Error for a config the run would refuse, or a corpus too short for it.
// A tokenizer bpe config reads the text through `tokenizer`; without one (the run will learn its
// own), a stand-in learned from the text's first kPreflightTokenizerBytes gives the tokens per byte.
constexpr size_t kPreflightTokenizerBytes = size_t(1) << 20;
Preflight preflight(const Config& config, const uint8_t* corpus, size_t n, double budget_ms = 1000.0,
                    int64_t memory_limit = kDefaultMemoryLimit, std::shared_ptr<const tok::Tokenizer> tokenizer = nullptr);
// The same on a corpus read where it lies (a file, shards): the trainer shares it, memory_bytes
// counts none of it, and the entropies are of its first kSourceEntropyBytes tokens (a few reads).
constexpr uint64_t kSourceEntropyBytes = uint64_t(4) << 20;
Preflight preflight(const Config& config, const data::Corpus& corpus, double budget_ms = 1000.0,
                    int64_t memory_limit = kDefaultMemoryLimit, std::shared_ptr<const tok::Tokenizer> tokenizer = nullptr);

}  // namespace tinygpt
