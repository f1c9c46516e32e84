// pairs.h — source/target pairs for the encoder-decoder (model::Seq2Seq): a TSV file of
// `source<TAB>target` lines, its held-out split, padded batches, built-in tasks and the
// translation metrics (exact match, character error rate).
//
// Tokens are bytes plus three special tokens (V = 259):
//   0 .. 255   the byte values (UTF-8 text is its bytes; any byte is allowed)
//   256 BOS    begins every decoder input
//   257 EOS    ends every target: the model predicts it to stop
//   258 PAD    fills a batch row after its sequence (masked in attention, ignored by the loss)
// A batch of B pairs (S = longest source, T = longest target + 1, over the whole dataset, so
// every batch has the same shape):
//   src     (B, S)  source bytes, then PAD
//   tgt_in  (B, T)  BOS, target bytes, then PAD          (the decoder's input: teacher forcing)
//   tgt_out (B, T)  target bytes, EOS, then -1           (what each position must predict; -1 = ignored)
// A pair is usable when its source has at most block_size bytes and its target at most
// block_size - 1 (BOS + target, or target + EOS, must fit in block_size positions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/error.h"

#include "tinygpt/rng.h"

namespace tinygpt::tok {
class Tokenizer;
}

namespace tinygpt::data {

constexpr int32_t kBos = 256;
constexpr int32_t kEos = 257;
constexpr int32_t kPad = 258;
constexpr int kPairVocab = 259;     // bytes + BOS + EOS + PAD
constexpr int32_t kIgnore = -1;     // a tgt_out position the loss skips

// The translator's tokens over a text vocabulary of V tokens (the config's vocab_size: 256 bytes, or
// a BPE vocabulary): text tokens 0 .. V-1, then BOS = V, EOS = V + 1, PAD = V + 2, the model's
// vocabulary V + 3. These are a trained tokenizer's own special ids (tokenizer.h); at V = 256 they
// are kBos, kEos, kPad above.
struct PairTokens {
  int32_t text = 256;  // V: text tokens
  int32_t bos() const { return text; }
  int32_t eos() const { return text + 1; }
  int32_t pad() const { return text + 2; }
  int vocab() const { return text + 3; }  // the model's vocabulary
  static PairTokens of_model_vocab(int model_vocab) { return {model_vocab - 3}; }
};

struct PairBatch {
  int B = 0, S = 0, T = 0;
  std::vector<int32_t> src;      // (B, S)
  std::vector<int32_t> tgt_in;   // (B, T)
  std::vector<int32_t> tgt_out;  // (B, T)
};

// What reading a TSV buffer found: every line is either a pair or counted under one reason.
struct TsvReport {
  int64_t lines = 0;        // lines read (a final line without a newline counts)
  int64_t pairs = 0;        // usable pairs
  int64_t blank = 0;        // empty lines (skipped)
  int64_t no_tab = 0;       // non-empty lines without a tab (skipped)
  int64_t empty_side = 0;   // an empty source or target (skipped)
  int64_t too_long = 0;     // source > block_size or target > block_size - 1 bytes (skipped)
  int64_t extra_columns = 0;  // lines with more than two columns (used; the extra columns ignored)
  // line numbers (1-based) of the first few lines of each kind
  std::vector<int64_t> no_tab_lines, empty_side_lines, too_long_lines, extra_column_lines;
  int block_size = 0;
  std::string summary() const;  // one paragraph for the user, e.g. "1200 pairs from 1203 lines; skipped: ..."
  MessageArgs args() const;     // its numbers, by name, for the page (code pairs.report)
};

class PairDataset {
 public:
  static constexpr int kReportedLines = 5;  // line numbers kept per kind of problem

  // Parses a TSV buffer (UTF-8; CRLF and a leading byte-order mark accepted). Throws
  // tinygpt::Error when no line is a usable pair, saying why the lines were rejected.
  // The held-out split is val_fraction of the pairs (at least one when there are two or more),
  // chosen by a hash of each pair's bytes: the same file gives the same split whatever its line
  // order, and a pair repeated in the file lands on one side.
  // With a tokenizer (a BPE run), sources and targets are its tokens, block_size limits them in
  // tokens, and BOS, EOS, PAD follow its text tokens (PairTokens); without, they are bytes.
  PairDataset(const std::vector<uint8_t>& tsv, int block_size, uint64_t seed = 0, double val_fraction = 0.1,
              const tok::Tokenizer* tokenizer = nullptr);
  static PairDataset from_file(const std::string& path, int block_size, uint64_t seed = 0);

  const TsvReport& report() const { return report_; }
  int block_size() const { return report_.block_size; }
  size_t size() const { return src_.size(); }
  size_t train_size() const { return train_.size(); }
  size_t val_size() const { return val_.size(); }
  // With a single pair there is nothing to hold out: validation uses the training pair.
  bool val_overlaps_train() const { return val_is_train_; }

  // Pair i in file order: its text, and its tokens.
  const std::string& source(size_t i) const { return src_[i]; }
  const std::string& target(size_t i) const { return tgt_[i]; }
  const std::vector<int32_t>& source_tokens(size_t i) const { return src_ids_[i]; }
  const std::vector<int32_t>& target_tokens(size_t i) const { return tgt_ids_[i]; }
  PairTokens tokens() const { return tokens_; }
  size_t train_index(size_t k) const { return train_[k]; }  // k-th training pair
  size_t val_index(size_t k) const { return val_[k]; }      // k-th held-out pair

  int max_source_len() const { return max_src_; }  // S of every batch
  int max_target_len() const { return max_tgt_; }  // T of every batch is this + 1

  // B random training pairs (with replacement), from the sampling generator.
  void sample_batch(int B, PairBatch& batch);
  // The k-th fixed validation batch: held-out pairs k*B .. k*B+B-1 (wrapping around).
  void val_batch(int k, int B, PairBatch& batch) const;
  int val_batches(int B) const;  // batches that cover every held-out pair once

  data::Rng::State rng_state() const { return rng_.state(); }
  void set_rng_state(const data::Rng::State& s) { rng_.set_state(s); }

  // 64-bit FNV-1a of the TSV bytes as given (like Dataset::fingerprint).
  uint64_t fingerprint() const { return fingerprint_; }

 private:
  TsvReport report_;
  std::vector<std::string> src_, tgt_;
  std::vector<std::vector<int32_t>> src_ids_, tgt_ids_;  // their tokens (bytes without a tokenizer)
  PairTokens tokens_;
  std::vector<size_t> train_, val_;
  bool val_is_train_ = false;
  int max_src_ = 0, max_tgt_ = 0;
  data::Rng rng_;
  uint64_t fingerprint_ = 0;
};

// Fills batch (shapes B x S and B x T) from the given pairs of bytes; for callers that build their own batches.
void make_pair_batch(PairBatch& batch, const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                     int S, int T);
// The same from token sequences, with the specials of `tokens`.
void make_pair_batch(PairBatch& batch, const std::vector<std::vector<int32_t>>& sources,
                     const std::vector<std::vector<int32_t>>& targets, int S, int T, PairTokens tokens);
// A text's tokens: its bytes, or its encoding by the tokenizer (when given).
std::vector<int32_t> text_tokens(const std::string& text, const tok::Tokenizer* tokenizer);

// ---- metrics -------------------------------------------------------------------------------
// Characters are UTF-8 code points; a byte that does not start or continue a valid sequence is
// one character on its own, so any bytes can be compared.
std::vector<uint32_t> utf8_characters(const std::string& bytes);
// Levenshtein distance (insertions, deletions and substitutions cost 1) between a and b.
int64_t edit_distance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

// Accumulates exact match and character error rate over (hypothesis, reference) pairs.
// CER = total edit distance / total reference characters (corpus level, as in speech recognition).
struct TranslationScore {
  int64_t pairs = 0, exact = 0, edits = 0, ref_chars = 0;
  void add(const std::string& hypothesis, const std::string& reference);
  double exact_match() const { return pairs ? double(exact) / double(pairs) : 0.0; }
  double cer() const { return ref_chars ? double(edits) / double(ref_chars) : 0.0; }
};

// ---- built-in tasks (core/src/tasks.cpp) ----------------------------------------------------
// Generated in code, deterministic given the seed, returned as TSV bytes for PairDataset.
struct TaskInfo {
  const char* name;         // "zh-en", "reverse", "numbers", "dates"
  const char* description;  // one line for the user
  int default_count;        // pairs generated when count = 0
  int longest;              // the longest source or target in bytes: block_size = longest + 1 fits all
};
const std::vector<TaskInfo>& builtin_tasks();
// count = 0: the task's default. Throws tinygpt::Error for an unknown name (listing the known ones).
std::vector<uint8_t> builtin_task(const std::string& name, uint64_t seed = 1, int count = 0);

}  // namespace tinygpt::data
