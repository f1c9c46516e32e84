// sample.h — text generation: temperature, top-k and top-p sampling with a KV cache.
//
// Each new token (a byte, or a BPE token: the model's vocabulary) is drawn from
// softmax(logits / temperature) restricted to the top_k most likely tokens and then to the
// smallest set whose probability reaches top_p. The model sees at most the last block_size tokens.
// Below, "bytes" are tokens of a byte model. Within the window the KV cache makes a step cost one
// position. When the window is full it is rebuilt from the last `window_keep` bytes: with
// learned absolute positions every cached key and value changes when the window moves, so
//   window_keep = block_size   is the exact sliding window (always the last block_size bytes;
//                              every later step re-reads the whole window: ~T times slower)
//   window_keep = block_size/2 (the default) rebuilds once every block_size/2 bytes, so the
//                              model sees between block_size/2 and block_size bytes of context
//                              (for config S: ~16x faster generation than the exact window).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/model.h"
#include "tinygpt/rng.h"
#include "tinygpt/rnn.h"

namespace tinygpt::sample {

struct Options {
  float temperature = 1.0f;  // 0 = always the most likely byte
  int top_k = 0;             // 0 = no limit
  float top_p = 1.0f;        // 1 = no limit
  uint64_t seed = 0;
  int window_keep = 0;       // 0 = block_size / 2; block_size = exact sliding window
  void validate(int block_size, int vocab = 256) const;  // throws tinygpt::Error (top_k at most vocab)
};

// One generated token, with what the model thought of it (temperature-1 probabilities, i.e.
// the model's own distribution before sampling adjustments). A byte model's tokens are bytes.
struct Token {
  int32_t id = 0;
  float prob = 0.0f;         // p(token | context)
  int32_t top_ids[5] = {};   // the five most likely tokens, most likely first
  float top_probs[5] = {};
};

// Draws an index from logits (V) under the options' temperature / top-k / top-p.
// scratch must hold 2 * V floats.
int sample_logits(const float* logits, int V, const Options& options, data::Rng& rng, float* scratch);

// The recurrent models (rnn.h) generate the same way from their hidden state, which carries the
// whole text so far: they have no window to rebuild (window_keep does not apply).
class Generator {
 public:
  Generator(const model::TinyGPT& model, const Options& options);
  Generator(const model::Recurrent& model, const Options& options);
  // Starts from a prompt of tokens (its last block_size are the context; an empty prompt is "\n",
  // token 10 in every vocabulary here).
  void set_prompt_tokens(const int32_t* tokens, size_t n);
  // A byte model's prompt: its bytes are its tokens.
  void set_prompt(const uint8_t* bytes, size_t n);
  void set_prompt(const std::string& prompt) { set_prompt(reinterpret_cast<const uint8_t*>(prompt.data()), prompt.size()); }
  Token next();  // generates one token and appends it to the context

 private:
  void append(int32_t token);
  const model::TinyGPT* model_ = nullptr;    // one of the two
  const model::Recurrent* rnn_ = nullptr;
  int block_size_ = 0;
  int vocab_ = 256;  // V
  Options options_;
  data::Rng rng_;
  model::KVCache cache_;
  model::RecurrentState state_;
  std::vector<int32_t> context_;  // the tokens in the window, oldest first (at most block_size)
  std::vector<float> probs_;      // (V) model probabilities for the next token
  std::vector<float> scratch_;    // (2V)
  const float* logits_ = nullptr;
};

// Convenience: n tokens after the prompt (a byte model's: its bytes).
std::vector<Token> generate(const model::TinyGPT& model, const std::string& prompt, int n, const Options& options);
std::vector<Token> generate(const model::Recurrent& model, const std::string& prompt, int n, const Options& options);
// The same after a prompt of tokens (a BPE model's: the prompt encoded by its tokenizer).
std::vector<Token> generate(const model::TinyGPT& model, const std::vector<int32_t>& prompt, int n, const Options& options);
std::vector<Token> generate(const model::Recurrent& model, const std::vector<int32_t>& prompt, int n, const Options& options);

}  // namespace tinygpt::sample
