// trainer.h — one training run: model + AdamW + data + schedule + loss history.
//
// This is the object the run loop (run.h), the CLI and the WebAssembly binding drive: step(),
// evaluate(), inspection, generation, and checkpoints (checkpoint.h) that resume bit for bit.
// The model is of the kind the config names (Config::model): a decoder-only TinyGPT trained on a
// text, or the encoder-decoder Seq2Seq trained on a TSV of pairs. Everything that depends on the
// kind (the model, its data and batches, its loss and its metrics) sits behind one internal
// interface (Learner, trainer.cpp); the optimizer, schedule, history, NaN guard and checkpoints
// are the same code for both.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/hidden.h"
#include "tinygpt/watch.h"
#include "tinygpt/model.h"
#include "tinygpt/optim.h"
#include "tinygpt/pairs.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/sample.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/translate.h"
#include "tinygpt/tensor.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::gpu {
struct TrainerAccess;  // gpu_host.cpp: steps computed on a GPU
}

namespace tinygpt::train {

// Thrown by Trainer::step when the step diverged (see Trainer::step); the model is left as it was.
// Other errors are the caller's (no corpus, ...).
class Diverged : public Error {
 public:
  using Error::Error;
};

// A step above this loss has diverged: 4 ln 256 ~ 22.2 nats is four times a uniform guess over the
// bytes, which a model that is learning never comes near (a fresh one starts at ln 256 = 5.55).
constexpr float kDivergedLoss = 22.18f;
// "training diverged at step N: the loss is nan" (coded train.diverged_*), for Diverged.
Message diverged_message(int64_t step, float loss, float grad_norm);

// How the run recovered from a diverged step (Trainer::roll_back).
struct Rollback {
  int64_t failed_step = 0;    // the step that diverged (0-based)
  int64_t restored_step = 0;  // the run is back at this step: later losses were dropped
  float lr_scale = 1.0f;      // the learning rate is now the schedule's times this
  std::string reason;         // what went wrong, for the user
  std::string code;           // reason's code and args for the page (error.h); "" when uncoded
  MessageArgs args;
};

// Every this many steps the trainer keeps a copy of the parameters and optimizer state in memory,
// the "last good state" a diverged run rolls back to.
constexpr int kGoodStateInterval = 100;
// A rollback multiplies the learning-rate scale by this (Trainer::roll_back).
constexpr float kRollbackLrScale = 0.5f;

struct ValPoint {
  int64_t step;  // evaluated after this many steps
  float loss;    // mean validation loss, nats per token
  // seq2seq: on held-out pairs translated greedily; NaN for gpt
  float exact_match = NAN;  // fraction of outputs equal to the reference
  float cer = NAN;          // character error rate: edit distance / reference length
  // the loss in bits per byte of text: loss x tokens per byte / ln 2 (bits_per_byte below); NaN
  // while the run's tokens per byte is not known
  float bits_per_byte = NAN;
};

// What the model computes for one context, for the UI: attention maps and predictions.
struct Inspection {
  int T = 0, L = 0, NH = 0;
  std::vector<float> attention;  // (L, NH, T, T), rows sum to 1, zero above the diagonal
  std::vector<float> probs;      // (T, V): p(next token | tokens 0..t)
  std::vector<int32_t> tokens;   // (T) the context's tokens (a byte model's: its bytes)
};

// Bits per byte of a loss in nats per token: nats/token x tokens/byte / ln 2. Runs of different
// vocabularies compare in it (a BPE token holds several bytes: its loss per token is larger).
double bits_per_byte(double nats_per_token, double tokens_per_byte);

// What the seq2seq model computes for one source and one target, for the UI.
struct TranslationInspection {
  int S = 0, T = 0, Le = 0, Ld = 0, NH = 0;
  std::vector<int32_t> src, tgt_in;  // (S) the source tokens; (T) BOS + target
  std::vector<float> enc_self;       // (Le, NH, S, S)
  std::vector<float> dec_self;       // (Ld, NH, T, T): causal
  std::vector<float> cross;          // (Ld, NH, T, S): which source tokens each target position reads
  std::vector<float> probs;          // (T, V): p(next token | source, target so far), V = vocab_size + 3
};

class Learner;  // one model kind's model, data and batches (trainer.cpp)

class Trainer {
 public:
  // Validates the config (and its memory estimate against memory_limit), then builds the model
  // and the optimizer. Throws tinygpt::Error with the first problem.
  explicit Trainer(const Config& config, int64_t memory_limit = kDefaultMemoryLimit);

  ~Trainer();

  ModelKind kind() const { return config_.model; }

  // ---- the tokenizer (tokenizer.h) ----
  // A tokenizer bpe run reads its texts through its tokenizer: give it before the corpus (a checkpoint
  // brings its own). Throws tinygpt::Error (tokenizer.config_mismatch) unless the config's tokenizer
  // is bpe and its vocab_size is the tokenizer's; after the first step (tokenizer.fixed). A corpus
  // already given is read again through it.
  void set_tokenizer(std::shared_ptr<const tok::Tokenizer> tokenizer);
  // nullptr for tokenizer bytes.
  const tok::Tokenizer* tokenizer() const { return tokenizer_.get(); }
  std::shared_ptr<const tok::Tokenizer> shared_tokenizer() const { return tokenizer_; }
  // A bpe run without its tokenizer yet cannot read text (tokenizer.missing).
  void require_tokenizer() const;
  // A text's tokens (its bytes for tokenizer bytes), and a token's bytes and label (token_text).
  std::vector<int32_t> encode(std::string_view text) const;
  std::string token_bytes(int32_t id) const;
  std::string token_text(int32_t id) const;
  // Tokens per byte of the validation text (1 for bytes; for the translators, of the held-out targets
  // with their EOS): what turns nats per token into bits per byte. Measured when the corpus is given,
  // kept in checkpoints; 0 when not known yet (no corpus, a checkpoint written before it was kept).
  double tokens_per_byte() const { return tokens_per_byte_; }
  // bits_per_byte(loss, tokens_per_byte()); NaN while tokens_per_byte() is not known.
  double bits_per_byte(double nats_per_token) const;

  // The data to train on: a text for gpt, as bytes or as any source (a file read where it lies,
  // shards; data.h) (throws if it is empty or shorter than block_size + 1, or holds tokens outside
  // the model's vocabulary); a TSV of source<TAB>target pairs in memory for seq2seq (throws if no
  // line is a usable pair; data_report() says which lines were skipped and why).
  void set_corpus(std::vector<uint8_t> bytes);
  void set_corpus(data::Corpus corpus);
  bool has_corpus() const;
  uint64_t corpus_size() const;        // tokens (a text's bytes)
  uint64_t corpus_fingerprint() const; // data::Corpus::fingerprint
  std::string data_report() const;     // seq2seq: the TSV report; gpt: ""
  // Gives the corpus back (e.g. to set it on a trainer made from a checkpoint): no copy.
  data::Corpus take_corpus();
  // The datasets, for the kind that has one (throws otherwise).
  const data::Dataset& dataset() const;
  const data::PairDataset& pairs() const;
  // False when a checkpoint was loaded and the corpus given afterwards is not the one it was trained on.
  bool corpus_matches_checkpoint() const;
  // What differs between that corpus and this one (coded corpus.other_size / other_content); empty when it matches.
  Message corpus_mismatch() const;

  // One optimizer step on a random batch; returns its loss (before the update).
  // Throws Diverged (and leaves the parameters and optimizer state untouched) if the loss or the
  // gradient norm is not finite or the loss is above kDivergedLoss; the batch is consumed.
  float step();
  // After a Diverged step: back to the last good state (parameters, AdamW moments, step, data
  // order, history) and half the learning rate from there on. The NaN guard of tinygpt::Run.
  Rollback roll_back(const std::string& reason);
  Rollback roll_back(const Message& reason);
  int64_t good_state_step() const { return good_.step; }
  float lr_scale() const { return lr_scale_; }
  // Test hook: the next `steps` steps get a NaN in their gradient, as corrupted batches would give.
  void inject_nan_gradient(int steps = 1) { inject_nan_ = steps; }
  // Test hook: step number `step` (1-based, as in the messages) gets a NaN gradient, once.
  void inject_nan_at(int64_t step) { inject_nan_at_.push_back(step); }
  // Mean validation loss over eval_iters fixed batches (seq2seq: and exact match and CER of greedy
  // translations of up to eval_iters x batch_size held-out pairs); recorded in val_losses().
  ValPoint evaluate();

  int64_t steps_done() const { return step_; }
  float learning_rate() const { return schedule_.lr_at(step_) * lr_scale_; }  // for the next step
  float last_grad_norm() const { return last_grad_norm_; }
  const std::vector<float>& train_losses() const { return train_losses_; }  // one per step
  const std::vector<ValPoint>& val_losses() const { return val_losses_; }

  // A language model's next-token distributions of the last block_size tokens of a text (encoded by
  // the run's tokenizer), and gpt's attention maps (the recurrent models have none: L = NH = 0).
  Inspection inspect(const uint8_t* bytes, size_t n);
  // n tokens after the prompt (encoded by the run's tokenizer); a token's bytes: token_bytes(id).
  std::vector<sample::Token> generate(const std::string& prompt, int n, const sample::Options& options) const;
  // rnn, gru, lstm: every unit's activation (and the LSTM's cell states and gates) over a text
  // (its first hidden::kMaxTraceBytes bytes), window after window with the state carried.
  hidden::Trace trace_hidden(const uint8_t* bytes, size_t n);
  // seq2seq: a translation, and the attention maps of the model reading a source and a target.
  sample::Translation translate(const std::string& source, const sample::TranslateOptions& options) const;
  TranslationInspection inspect_translation(const std::string& source, const std::string& target);
  // The tokens inspect_translation reads: the source (S) and BOS + the target (T); its errors.
  std::pair<std::vector<int32_t>, std::vector<int32_t>> translation_pair(const std::string& source,
                                                                         const std::string& target) const;

  // ---- the run's history, for the page's "watch it learn" views (watch.h) ----
  // Starts recording a snapshot at every evaluation of the run loop (Run). The probe: gpt, a text
  // (its first min(watch::kMaxProbe, block_size) bytes); seq2seq, a source and a target. Empty:
  // chosen from the validation data (watch::choose_probe). Needs a corpus. Starting again
  // forgets the snapshots taken so far. Checkpoints keep the history (history.* sections).
  void start_history(const std::vector<uint8_t>& probe = {}, const std::vector<uint8_t>& probe_target = {});
  void stop_history() { history_.clear(); }
  const watch::History& history() const { return history_; }
  // Takes a snapshot at the current weights and adds it to the history (started, with a corpus).
  void record_snapshot();
  // Entropy baselines of the data: gpt, the training split; seq2seq, the training targets. Per token,
  // with tokens_per_byte for the same per byte.
  watch::Baselines baselines() const;

  const Config& config() const { return config_; }
  const optim::Schedule& schedule() const { return schedule_; }
  int64_t tokens_per_step() const;  // gpt: batch x block_size; seq2seq: batch x (source + target length)
  // Changes a field while the run exists: fields of the group `run` (eval_interval, eval_iters)
  // take the value; max_iters moves the end of the schedule (optim::Schedule::extended: the
  // learning rate continues from where it is); any other field is fixed and throws.
  void update_field(std::string_view name, double value);
  // The parameters and their gradients, one block each, whatever the kind (param_table() names them).
  int64_t num_parameters() const;
  float* params();
  const float* params() const;
  float* grads();
  const std::vector<model::ParamInfo>& param_table() const;
  // The model itself, for the kind that it is (throws tinygpt::Error otherwise).
  model::TinyGPT& model();
  const model::TinyGPT& model() const;
  model::Seq2Seq& seq2seq();
  const model::Seq2Seq& seq2seq() const;
  model::Recurrent& recurrent();  // rnn, gru, lstm
  const model::Recurrent& recurrent() const;
  model::LstmSeq2Seq& lstm_seq2seq();
  const model::LstmSeq2Seq& lstm_seq2seq() const;
  // A stateful recurrent run's hidden state after its last training window, (L, B, H) h then
  // (L, B, H) c for the LSTM (empty: none yet, or not a stateful run). Checkpoints keep it.
  std::vector<float> carried_state() const;
  void set_carried_state(const std::vector<float>& state);
  optim::AdamW& optimizer() { return optimizer_; }
  const optim::AdamW& optimizer() const { return optimizer_; }
  size_t arena_bytes() const { return arena_.bytes_reserved(); }

  // ---- checkpoints (format in checkpoint.h) ----
  std::vector<uint8_t> save() const;
  // A new trainer restored from a checkpoint; throws tinygpt::Error with a specific message if the
  // bytes are not a valid checkpoint (the caller's current trainer is untouched).
  static std::unique_ptr<Trainer> load(const uint8_t* bytes, size_t n, int64_t memory_limit = kDefaultMemoryLimit);

 private:
  friend struct CheckpointAccess;
  friend struct gpu::TrainerAccess;
  void reserve_arena();
  void measure_tokens_per_byte();
  Config config_;
  std::shared_ptr<const tok::Tokenizer> tokenizer_;  // tokenizer bpe: the run's vocabulary
  data::Corpus text_corpus_;                         // the corpus as given (before the tokenizer read it)
  double tokens_per_byte_ = 0.0;
  std::unique_ptr<Learner> learner_;
  optim::AdamW optimizer_;
  optim::Schedule schedule_;
  data::Rng::State data_rng_state_;  // used when a corpus is (re)attached
  uint64_t checkpoint_fingerprint_ = 0;  // corpus of a loaded checkpoint (0 = none)
  uint64_t checkpoint_corpus_size_ = 0;
  nn::Arena arena_;
  void keep_good_state();
  data::Rng::State rng_state() const;
  int64_t step_ = 0;
  float last_grad_norm_ = 0.0f;
  float lr_scale_ = 1.0f;     // halved by every rollback
  int inject_nan_ = 0;
  std::vector<int64_t> inject_nan_at_;
  struct GoodState {          // the last good state, kept every kGoodStateInterval steps
    std::vector<float> params, m, v;  // (P) each, allocated once
    int64_t step = -1, adam_t = 0;
    data::Rng::State rng{};
  } good_;
  std::vector<float> train_losses_;
  std::vector<ValPoint> val_losses_;
  watch::History history_;
};

}  // namespace tinygpt::train
