// translate.h — turning a source into a target with a model::Seq2Seq: greedy, sampled and
// beam-search decoding on the KV cache (Seq2Seq::start_decoding / decode_step), and the
// held-out evaluation (exact match, character error rate).
//
// Decoding starts from BOS and appends one token per step; the model may produce any byte or
// EOS (never BOS or PAD). It stops at EOS or after max_len bytes: at that point only EOS can
// still end the output, and if the model prefers another byte the output is returned unfinished.
//
// Beam search keeps the `beam` most likely partial outputs (total log-probability). At each step
// every output in the beam may also end (with the probability of EOS there); an ended output is
// ranked by its length-normalised score
//   score = log p(output, EOS) / (bytes + 1)^length_penalty
// (length_penalty 0: the plain log-probability, which favours short outputs; 1: the mean
// log-probability per token). The search stops when no output still in the beam can beat the
// best ended one (its log-probability can only fall, so its score is at most
// log p / (max_len + 1)^length_penalty), or at max_len, and returns the best-ranked output.
// beam = 1 is greedy decoding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/pairs.h"
#include "tinygpt/rng.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/seq2seq.h"

namespace tinygpt::tok {
class Tokenizer;
}

namespace tinygpt::sample {

struct TranslateOptions {
  int max_len = 0;              // most output tokens; 0 = block_size - 1, the most the model can hold
  int beam = 1;                 // beam width (1 = greedy or sampled)
  float temperature = 0.0f;     // 0 = the most likely token; > 0 samples from softmax(logits / temperature) (beam 1)
  int top_k = 0;                // sampling keeps the k most likely tokens (0 = all)
  float length_penalty = 1.0f;  // beam ranking exponent (above)
  uint64_t seed = 0;            // sampling generator
  // throws tinygpt::Error; `tokens`: what an output may hold (text tokens and EOS: 257 for bytes)
  void validate(int block_size, int tokens = 257) const;
};

struct Translation {
  std::string text;             // the output bytes (no EOS): its tokens' bytes
  std::vector<int32_t> tokens;  // the output tokens (no EOS): bytes, or the tokenizer's ids
  std::vector<float> probs;     // p(token | source, output so far) of each output token, then of EOS if finished
  double log_prob = 0.0;     // sum of log p over those tokens
  double score = 0.0;        // beam ranking score (above); the log-probability for greedy and sampled outputs
  bool finished = false;     // the output ended with EOS (false: stopped after max_len bytes)
};

// Each function exists for both translators (seq2seq and lstm_seq2seq): the same decoding over
// their start_decoding / decode_step / reorder_rows. A BPE translator (vocab_size > 256) is given its
// tokenizer: the source is encoded by it, the output tokens decoded by it; bytes need none.
// Throws tinygpt::Error for an empty source or one longer than block_size tokens.
Translation translate(const model::Seq2Seq& model, const std::string& source, const TranslateOptions& options = {},
                      const tok::Tokenizer* tokenizer = nullptr);
Translation translate(const model::LstmSeq2Seq& model, const std::string& source, const TranslateOptions& options = {},
                      const tok::Tokenizer* tokenizer = nullptr);

// The source's tokens as translate() reads them (throws for an empty source or one longer than
// block_size tokens).
std::vector<int32_t> translation_source(const std::string& source, int block_size, const tok::Tokenizer* tokenizer);
// A greedy translation whose steps were computed elsewhere (the GPU: gpu_plan.h's greedy_pick):
// picks[i] is the most likely allowed token at step i and probs[i] its probability, for steps
// 0 .. max_len (max_len 0: block_size - 1); stops as translate() does, at EOS or after max_len tokens.
Translation greedy_translation(const model::Seq2Seq& model, const std::vector<int32_t>& picks,
                               const std::vector<float>& probs, int max_len, const tok::Tokenizer* tokenizer = nullptr);

// Beam search with the logits computed elsewhere (the GPU: WebGpuSession.beamTranslate): the search
// of translate() with options.beam > 1, step by step. Each step, the caller computes every live row's
// logits after that row's tokens so far (history: BOS first) and hands them to advance(); the rows'
// histories already include each new token, so a caller without a KV cache runs the decoder over
// them again. With the CPU's logits it is exactly translate()'s search (translate() runs it).
// With options.temperature > 0 (beam 1) it is translate()'s sampled decoding instead, step by step
// (WebGpuSession.sampledTranslate): one row, each token drawn from the row's logits by the same
// generator, seeded by options.seed. translate() runs that one-row stepper for greedy and sampled
// decoding alike (temperature 0: the most likely token).
class BeamSearch {
 public:
  BeamSearch(const model::Seq2Seq& model, const std::string& source, const TranslateOptions& options,
             const tok::Tokenizer* tokenizer = nullptr);
  // The same for a source already read and checked (translate()'s own use, for either translator).
  BeamSearch(int vocab_size, data::PairTokens ids, const tok::Tokenizer* tokenizer, std::vector<int32_t> src, int max_len,
             int beam, float length_penalty);
  // One row, greedy (temperature 0) or sampled, for a source already read and checked.
  BeamSearch(int vocab_size, data::PairTokens ids, const tok::Tokenizer* tokenizer, std::vector<int32_t> src, int max_len,
             float temperature, int top_k, uint64_t seed);
  const std::vector<int32_t>& source() const { return src_; }  // the source's tokens (translation_source)
  int rows() const { return int(alive_.size()); }                // the beam width N
  int vocab_size() const { return V_; }                           // logits per row
  int step() const { return step_; }                              // 0 before the first advance()
  bool done() const { return done_; }
  // Row r's tokens so far, BOS first (step() + 1 of them); empty for a row that is not live.
  std::vector<int32_t> history(int r) const;
  // The logits (rows(), vocab_size()) after each live row's history (other rows are not read).
  // Throws once done().
  void advance(const float* logits);
  // Row r continues the hypothesis that was row parent()[r] before the last advance() (a KV cache
  // reorders its rows so).
  const std::vector<int>& parent() const { return parent_; }
  // The tokens to feed a KV cache next (the last token of each row's history).
  const std::vector<int32_t>& next_tokens() const { return tokens_; }
  // The best-ranked output (once done()).
  Translation result() const;

 private:
  void start(int rows);
  void advance_one_row(const float* logits);

  int V_ = 0, max_len_ = 0, step_ = 0;
  float length_penalty_ = 1.0f;
  bool one_row_ = false;      // greedy or sampled decoding (one row), not a beam
  float temperature_ = 0.0f;  // > 0: sampled
  int top_k_ = 0;
  data::Rng rng_;
  data::PairTokens ids_;
  const tok::Tokenizer* tokenizer_ = nullptr;
  std::vector<int32_t> src_;
  std::vector<Translation> alive_, ended_;
  std::vector<double> score_;
  std::vector<int32_t> tokens_;
  std::vector<int> parent_;
  bool done_ = false;
};

// Greedy translations of many sources, decoded side by side (one row per source).
std::vector<Translation> translate_greedy(const model::Seq2Seq& model, const std::vector<std::string>& sources,
                                          int max_len = 0, const tok::Tokenizer* tokenizer = nullptr);
std::vector<Translation> translate_greedy(const model::LstmSeq2Seq& model, const std::vector<std::string>& sources,
                                          int max_len = 0, const tok::Tokenizer* tokenizer = nullptr);

// Greedy translations of the held-out pairs (the first max_pairs of them; 0 = all) scored
// against their targets: exact match and character error rate.
data::TranslationScore evaluate_translation(const model::Seq2Seq& model, const data::PairDataset& pairs,
                                            int max_pairs = 0, const tok::Tokenizer* tokenizer = nullptr);
data::TranslationScore evaluate_translation(const model::LstmSeq2Seq& model, const data::PairDataset& pairs,
                                            int max_pairs = 0, const tok::Tokenizer* tokenizer = nullptr);

}  // namespace tinygpt::sample
