// trainer.cpp — the training loop's state and one step of it.
#include "tinygpt/trainer.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"
#include "tinygpt/translate.h"

namespace tinygpt::train {

using tinygpt::Error;

// ---- what depends on the model kind ------------------------------------------------------------

class Learner {
 public:
  virtual ~Learner() = default;
  virtual int64_t num_parameters() const = 0;
  virtual float* params() = 0;
  virtual float* grads() = 0;
  virtual const std::vector<model::ParamInfo>& param_table() const = 0;
  virtual void zero_grad() = 0;
  // Makes the corpus the kind's dataset (throws with the reason); the generator starts at rng.
  virtual void set_data(data::Corpus corpus, const data::Rng::State& rng) = 0;
  virtual bool has_data() const = 0;
  virtual uint64_t data_size() const = 0;
  virtual uint64_t data_fingerprint() const = 0;
  virtual data::Rng::State data_rng() const = 0;
  virtual void set_data_rng(const data::Rng::State& rng) = 0;
  virtual data::Corpus take_data() = 0;
  virtual std::string data_report() const { return ""; }
  // The loss of the training batch of step `step` (builds the graph), and of the k-th validation batch.
  virtual nn::Tensor train_loss(nn::Arena& arena, int B, int64_t step) = 0;
  virtual float val_loss(nn::Arena& arena, int k, int B) = 0;
  virtual void metrics(ValPoint&, int max_pairs) const {}
  virtual int64_t tokens_per_step(int B) const = 0;
  virtual int64_t activation_bytes(int B) const = 0;
  // A stateful recurrent run's hidden state after its last window (empty for every other run),
  // kept in checkpoints; set_carried_state(empty) starts every stream from zeros again.
  virtual std::vector<float> carried_state() const { return {}; }
  virtual void set_carried_state(const std::vector<float>&) {}
  // The run's tokenizer (nullptr: bytes), for the kinds that read text themselves (the translators' pairs).
  virtual void set_tokenizer(const tok::Tokenizer*) {}
  // Tokens per byte of the validation text (0: not known).
  virtual double val_tokens_per_byte(const tok::Tokenizer* tokenizer) const = 0;
};

namespace {

const char* kNoCorpus = "no corpus: load a text first";
const char* kNoPairs = "no pairs: load a TSV of source<TAB>target lines or a built-in task first";
}  // namespace

Message diverged_message(int64_t step, float loss, float grad_norm) {
  char what[96];
  MessageArgs args = {{"step", std::to_string(step)}};
  std::string code;
  if (!std::isfinite(loss)) {
    std::snprintf(what, sizeof what, "the loss is %g", double(loss));
    code = "train.diverged_loss";
    args.push_back({"loss", std::isnan(loss) ? "nan" : loss > 0 ? "inf" : "-inf"});
  } else if (!std::isfinite(grad_norm)) {
    std::snprintf(what, sizeof what, "the gradient norm is %g", double(grad_norm));
    code = "train.diverged_norm";
    args.push_back({"norm", std::isnan(grad_norm) ? "nan" : "inf"});
  } else {
    std::snprintf(what, sizeof what, "the loss is %.1f, worse than %.1f (4 x a uniform guess)", double(loss), double(kDivergedLoss));
    code = "train.diverged_high";
    char l[32], limit[32];
    std::snprintf(l, sizeof l, "%.1f", double(loss));
    std::snprintf(limit, sizeof limit, "%.1f", double(kDivergedLoss));
    args.push_back({"loss", l});
    args.push_back({"limit", limit});
  }
  return coded(code, std::move(args), "training diverged at step " + std::to_string(step) + ": " + what);
}

namespace {

// Tokens per byte of a dataset's validation split: its tokens over their bytes (a token's bytes
// from the tokenizer; 1 for bytes), read in pieces.
double dataset_tokens_per_byte(const data::Dataset& d, const tok::Tokenizer* tokenizer) {
  if (!tokenizer) return 1.0;
  const uint64_t n = d.val_size();
  uint64_t bytes = 0;
  std::vector<int32_t> ids;
  for (uint64_t at = 0; at < n; at += uint64_t(1) << 20) {
    ids.resize(size_t(std::min<uint64_t>(uint64_t(1) << 20, n - at)));
    d.read(d.val_begin() + at, ids.size(), ids.data());
    for (const int32_t id : ids) bytes += tokenizer->token_bytes(id).size();
  }
  return bytes ? double(n) / double(bytes) : 0.0;
}

Error no_data(ModelKind kind) {
  const bool text = is_language_model(kind);
  return Error(coded(text ? "data.no_corpus" : "data.no_pairs", {}, text ? kNoCorpus : kNoPairs));
}

// What the language models (gpt, rnn, gru, lstm) share: the model's parameters, a text read
// through data::Dataset, validation batches of B windows of block_size tokens.
template <class M>
class TextLearner : public Learner {
 public:
  explicit TextLearner(const Config& c) : model_(c), c_(c) {}
  int64_t num_parameters() const override { return model_.num_parameters(); }
  float* params() override { return model_.params(); }
  float* grads() override { return model_.grads(); }
  const std::vector<model::ParamInfo>& param_table() const override { return model_.param_table(); }
  void zero_grad() override { model_.zero_grad(); }
  void set_data(data::Corpus corpus, const data::Rng::State& rng) override {
    auto d = std::make_unique<data::Dataset>(std::move(corpus));
    d->check_context(c_.block_size);
    d->set_vocab(c_.vocab_size);
    taking(*d);
    d->set_rng_state(rng);
    data_ = std::move(d);
  }
  double val_tokens_per_byte(const tok::Tokenizer* tokenizer) const override {
    return data_ ? dataset_tokens_per_byte(*data_, tokenizer) : 0.0;
  }
  bool has_data() const override { return data_ != nullptr; }
  uint64_t data_size() const override { return data_ ? data_->size() : 0; }
  uint64_t data_fingerprint() const override { return data_ ? data_->fingerprint() : 0; }
  data::Rng::State data_rng() const override { return data_->rng_state(); }
  void set_data_rng(const data::Rng::State& rng) override { data_->set_rng_state(rng); }
  data::Corpus take_data() override {
    data::Corpus c = data_ ? data_->corpus() : data::Corpus{};
    data_.reset();
    return c;
  }
  float val_loss(nn::Arena& arena, int k, int B) override {
    data_->val_batch(k, B, c_.block_size, batch_);
    return model_.loss(arena, batch_.x.data(), batch_.y.data(), B, c_.block_size).item();
  }
  int64_t tokens_per_step(int B) const override { return int64_t(B) * c_.block_size; }
  M model_;
  std::unique_ptr<data::Dataset> data_;

 protected:
  // A checked dataset about to replace the current one (data_, maybe null); may still refuse it.
  virtual void taking(const data::Dataset&) {}
  Config c_;
  data::Batch batch_;
};

class GptLearner final : public TextLearner<model::TinyGPT> {
 public:
  using TextLearner::TextLearner;
  nn::Tensor train_loss(nn::Arena& arena, int B, int64_t) override {
    data_->sample_batch(B, c_.block_size, batch_);
    return model_.loss(arena, batch_.x.data(), batch_.y.data(), B, c_.block_size);
  }
  int64_t activation_bytes(int B) const override {
    Config c = c_;
    c.batch_size = B;
    return estimate_training_bytes(c) - tinygpt::num_parameters(c) * 28;
  }
};

int64_t activation_bytes_of(const model::Seq2Seq& m, int B) { return model::seq2seq_activation_bytes(m.dims(), B); }
int64_t activation_bytes_of(const model::LstmSeq2Seq& m, int B) { return model::lstm_seq2seq_activation_bytes(m.dims(), B); }
model::Seq2SeqDims dims_of(const Config& c, const model::Seq2Seq*) { return seq2seq_dims(c); }
model::LstmSeq2SeqDims dims_of(const Config& c, const model::LstmSeq2Seq*) { return lstm_seq2seq_dims(c); }

// The translators (seq2seq, lstm_seq2seq): the same pairs, batches, loss and metrics.
template <class M>
class TranslatorLearner final : public Learner {
 public:
  explicit TranslatorLearner(const Config& c) : model_(dims_of(c, static_cast<const M*>(nullptr))), c_(c) {}
  int64_t num_parameters() const override { return model_.num_parameters(); }
  float* params() override { return model_.params(); }
  float* grads() override { return model_.grads(); }
  const std::vector<model::ParamInfo>& param_table() const override { return model_.param_table(); }
  void zero_grad() override { model_.zero_grad(); }
  void set_data(data::Corpus corpus, const data::Rng::State& rng) override {
    // pairs are parsed whole: they come as bytes in memory (a TSV file, a built-in task)
    const std::vector<uint8_t>* bytes = corpus.memory_bytes();
    if (!bytes)
      throw Error(coded("pairs.not_in_memory", {}, "a translator's pairs are read whole: give them as a TSV file, not as shards"));
    auto d = std::make_unique<data::PairDataset>(*bytes, c_.block_size, 0, 0.1, tokenizer_);
    d->set_rng_state(rng);
    data_ = std::move(d);
    corpus_ = std::move(corpus);
  }
  bool has_data() const override { return data_ != nullptr; }
  uint64_t data_size() const override { return corpus_.size(); }
  uint64_t data_fingerprint() const override { return data_ ? data_->fingerprint() : 0; }
  data::Rng::State data_rng() const override { return data_->rng_state(); }
  void set_data_rng(const data::Rng::State& rng) override { data_->set_rng_state(rng); }
  data::Corpus take_data() override {
    data_.reset();
    return std::move(corpus_);
  }
  std::string data_report() const override { return data_ ? data_->report().summary() : ""; }
  nn::Tensor train_loss(nn::Arena& arena, int B, int64_t) override {
    data_->sample_batch(B, batch_);
    return model_.loss(arena, batch_);
  }
  float val_loss(nn::Arena& arena, int k, int B) override {
    data_->val_batch(k, B, batch_);
    return model_.loss(arena, batch_).item();
  }
  void set_tokenizer(const tok::Tokenizer* tokenizer) override { tokenizer_ = tokenizer; }
  // the held-out targets' tokens, each with its EOS, over their bytes
  double val_tokens_per_byte(const tok::Tokenizer*) const override {
    if (!data_) return 0.0;
    uint64_t tokens = 0, bytes = 0;
    for (size_t k = 0; k < data_->val_size(); k++) {
      tokens += data_->target_tokens(data_->val_index(k)).size() + 1;
      bytes += data_->target(data_->val_index(k)).size();
    }
    return bytes ? double(tokens) / double(bytes) : 0.0;
  }
  void metrics(ValPoint& v, int max_pairs) const override {
    const data::TranslationScore score = sample::evaluate_translation(model_, *data_, max_pairs, tokenizer_);
    v.exact_match = float(score.exact_match());
    v.cer = float(score.cer());
  }
  int64_t tokens_per_step(int B) const override {
    // the tokens a batch holds: every source and target position (padding included)
    const int S = data_ ? data_->max_source_len() : c_.block_size, T = data_ ? data_->max_target_len() + 1 : c_.block_size;
    return int64_t(B) * (S + T);
  }
  int64_t activation_bytes(int B) const override { return activation_bytes_of(model_, B); }
  M model_;
  std::unique_ptr<data::PairDataset> data_;

 private:
  Config c_;
  data::Corpus corpus_;  // the TSV as given (the dataset keeps parsed pairs)
  data::PairBatch batch_;
  const tok::Tokenizer* tokenizer_ = nullptr;  // the trainer's (bpe), or none (bytes)
};


// The recurrent language models (rnn, gru, lstm): the text and batches of gpt; a stateful run
// reads the training split as B streams of consecutive windows and carries the hidden state.
class RecurrentLearner final : public TextLearner<model::Recurrent> {
 public:
  using TextLearner::TextLearner;
  nn::Tensor train_loss(nn::Arena& arena, int B, int64_t step) override {
    const int T = c_.block_size;
    if (!c_.stateful) {
      data_->sample_batch(B, T, batch_);
      return model_.loss(arena, batch_.x.data(), batch_.y.data(), B, T);
    }
    // stream b reads [b * len, (b + 1) * len) of the training split, window after window; at the
    // start of a pass the state starts from zeros
    const int64_t len = int64_t(data_->train_size()) / B, windows = (len - 1) / T, w = step % windows;
    if (w == 0 || carry_.B != B) carry_ = zero_state(B);
    batch_.B = B, batch_.T = T;
    batch_.x.resize(size_t(B) * T), batch_.y.resize(size_t(B) * T);
    window_.resize(size_t(T) + 1);  // (T + 1) tokens of stream b
    for (int b = 0; b < B; b++) {
      data_->read(uint64_t(int64_t(b) * len + w * T), window_.size(), window_.data());
      std::copy(window_.begin(), window_.end() - 1, batch_.x.begin() + std::ptrdiff_t(size_t(b) * T));
      std::copy(window_.begin() + 1, window_.end(), batch_.y.begin() + std::ptrdiff_t(size_t(b) * T));
    }
    return model_.loss(arena, batch_.x.data(), batch_.y.data(), B, T, &carry_, &carry_);
  }
  int64_t activation_bytes(int B) const override { return model::recurrent_activation_bytes(c_, B); }
  std::vector<float> carried_state() const override {
    std::vector<float> s = carry_.h;
    s.insert(s.end(), carry_.c.begin(), carry_.c.end());
    return s;
  }
  void set_carried_state(const std::vector<float>& s) override {
    carry_ = {};
    if (s.empty()) return;
    model::RecurrentState z = zero_state(c_.batch_size);
    if (s.size() != z.h.size() + z.c.size()) throw Error("internal: a carried state of the wrong size");
    std::copy(s.begin(), s.begin() + std::ptrdiff_t(z.h.size()), z.h.begin());
    std::copy(s.begin() + std::ptrdiff_t(z.h.size()), s.end(), z.c.begin());
    carry_ = std::move(z);
  }

 private:
  void taking(const data::Dataset& d) override {
    if (c_.stateful) check_streams(d, c_.batch_size, c_.block_size);
    if (data_ && data_->fingerprint() != d.fingerprint()) carry_ = {};  // another text: the streams start again
  }
  model::RecurrentState zero_state(int B) const {
    model::RecurrentState z;
    z.B = B;
    z.h.assign(size_t(c_.n_layer) * B * c_.n_hidden, 0.0f);
    if (model_.cell() == 2) z.c.assign(z.h.size(), 0.0f);
    return z;
  }
  static void check_streams(const data::Dataset& d, int B, int T) {
    const int64_t need = int64_t(B) * (T + 1);
    if (int64_t(d.train_size()) < need)
      throw Error(coded("data.stateful_short", {{"bytes", std::to_string(d.train_size())}, {"need", std::to_string(need)}},
                        "a stateful run reads the text as batch_size streams of at least block_size + 1 bytes: its training split has " +
                            std::to_string(d.train_size()) + " bytes, it needs " + std::to_string(need)));
  }
  std::vector<int32_t> window_;  // stateful: one stream's T + 1 tokens
  model::RecurrentState carry_;  // stateful: the state after the last training window (B = batch_size)
};

std::unique_ptr<Learner> make_learner(const Config& c) {
  switch (c.model) {
    case ModelKind::gpt: return std::make_unique<GptLearner>(c);
    case ModelKind::seq2seq: return std::make_unique<TranslatorLearner<model::Seq2Seq>>(c);
    case ModelKind::rnn:
    case ModelKind::gru:
    case ModelKind::lstm: return std::make_unique<RecurrentLearner>(c);
    case ModelKind::lstm_seq2seq: return std::make_unique<TranslatorLearner<model::LstmSeq2Seq>>(c);
  }
  throw Error("internal: unknown model kind");
}

optim::AdamW make_optimizer(Learner& l, const Config& c) {
  std::vector<optim::DecaySegment> segments;
  for (const model::ParamInfo& p : l.param_table()) {
    if (!segments.empty() && segments.back().decay == p.decay)
      segments.back().count += p.shape.numel();  // merge runs: fewer, longer loops
    else
      segments.push_back({p.offset, p.shape.numel(), p.decay});
  }
  return optim::AdamW(l.num_parameters(), {c.beta1, c.beta2, c.eps, c.weight_decay}, std::move(segments));
}

}  // namespace

static const Config& checked(const Config& c, int64_t memory_limit) {
  validate_config(c);
  Message memory = memory_message(c, memory_limit);
  if (!memory.text.empty()) throw Error(std::move(memory));
  return c;
}

Trainer::Trainer(const Config& config, int64_t memory_limit)
    : config_(checked(config, memory_limit)),
      learner_(make_learner(config_)),
      optimizer_(make_optimizer(*learner_, config_)),
      schedule_{config_.learning_rate, config_.min_lr, config_.warmup_iters, config_.max_iters},
      data_rng_state_(data::Rng(config_.seed ^ 0xDA7A5EEDull).state()),
      arena_(size_t(1) << 20) {
  train_losses_.reserve(size_t(config_.max_iters));
  val_losses_.reserve(64);
  keep_good_state();  // a fresh run can always go back to its start
}

Trainer::~Trainer() = default;

int64_t Trainer::num_parameters() const { return learner_->num_parameters(); }
float* Trainer::params() { return learner_->params(); }
const float* Trainer::params() const { return learner_->params(); }
float* Trainer::grads() { return learner_->grads(); }
const std::vector<model::ParamInfo>& Trainer::param_table() const { return learner_->param_table(); }
int64_t Trainer::tokens_per_step() const { return learner_->tokens_per_step(config_.batch_size); }

namespace {
// The model is of another architecture of the right family, or of the other family.
Error other_kind(ModelKind kind, const char* wanted) {
  return Error(coded("model.other_kind", {{"kind", model_kind_name(kind)}, {"wanted", wanted}},
                     std::string("this run's model is ") + model_kind_name(kind) + ", not " + wanted));
}
}  // namespace

model::TinyGPT& Trainer::model() {
  if (is_translator(kind()))
    throw Error(coded("model.not_gpt", {{"kind", model_kind_name(kind())}},
                      std::string("this run's model is a ") + model_kind_name(kind()) + " translation model, not a language model"));
  if (kind() != ModelKind::gpt) throw other_kind(kind(), "gpt");
  return static_cast<GptLearner&>(*learner_).model_;
}
const model::TinyGPT& Trainer::model() const { return const_cast<Trainer*>(this)->model(); }
model::Seq2Seq& Trainer::seq2seq() {
  if (is_language_model(kind()))
    throw Error(coded("model.not_seq2seq", {{"kind", model_kind_name(kind())}},
                      std::string("this run's model is a language model (") + model_kind_name(kind()) + "), not a seq2seq translation model"));
  if (kind() != ModelKind::seq2seq) throw other_kind(kind(), "seq2seq");
  return static_cast<TranslatorLearner<model::Seq2Seq>&>(*learner_).model_;
}
const model::Seq2Seq& Trainer::seq2seq() const { return const_cast<Trainer*>(this)->seq2seq(); }
model::Recurrent& Trainer::recurrent() {
  if (!is_recurrent(kind())) throw other_kind(kind(), "rnn, gru or lstm");
  return static_cast<RecurrentLearner&>(*learner_).model_;
}
const model::Recurrent& Trainer::recurrent() const { return const_cast<Trainer*>(this)->recurrent(); }
model::LstmSeq2Seq& Trainer::lstm_seq2seq() {
  if (kind() != ModelKind::lstm_seq2seq) throw other_kind(kind(), "lstm_seq2seq");
  return static_cast<TranslatorLearner<model::LstmSeq2Seq>&>(*learner_).model_;
}
const model::LstmSeq2Seq& Trainer::lstm_seq2seq() const { return const_cast<Trainer*>(this)->lstm_seq2seq(); }
std::vector<float> Trainer::carried_state() const { return learner_->carried_state(); }
void Trainer::set_carried_state(const std::vector<float>& state) { learner_->set_carried_state(state); }

void Trainer::update_field(std::string_view name, double value) {
  const FieldSpec& f = field(name);
  if (f.name == std::string_view("max_iters")) {
    Config next = config_;
    set_field(next, f, value);
    if (next.max_iters <= step_)
      throw Error(coded("config.max_iters_done", {{"step", std::to_string(step_)}},
                        "max_iters must be above the steps already done (" + std::to_string(step_) + ")"));
    if (next.max_iters < next.warmup_iters)
      throw Error(coded("config.max_iters_warmup", {{"warmup_iters", std::to_string(next.warmup_iters)}},
                        "max_iters must be at least warmup_iters (" + std::to_string(next.warmup_iters) + ")"));
    schedule_ = schedule_.extended(step_, next.max_iters);
    config_ = next;
    return;
  }
  if (f.group != FieldGroup::run)
    throw Error(coded("config.fixed", {{"field", f.name}},
                      std::string(f.name) + " is fixed once the model exists (start a new run to change it)"));
  set_field(config_, f, value);
}

const data::Dataset& Trainer::dataset() const {
  const data::Dataset* d = kind() == ModelKind::gpt ? static_cast<const GptLearner&>(*learner_).data_.get()
                           : is_recurrent(kind())   ? static_cast<const RecurrentLearner&>(*learner_).data_.get()
                                                    : nullptr;
  if (!d) throw no_data(ModelKind::gpt);
  return *d;
}

const data::PairDataset& Trainer::pairs() const {
  const data::PairDataset* d =
      kind() == ModelKind::seq2seq        ? static_cast<const TranslatorLearner<model::Seq2Seq>&>(*learner_).data_.get()
      : kind() == ModelKind::lstm_seq2seq ? static_cast<const TranslatorLearner<model::LstmSeq2Seq>&>(*learner_).data_.get()
                                          : nullptr;
  if (!d) throw no_data(ModelKind::seq2seq);
  return *d;
}

void Trainer::set_corpus(std::vector<uint8_t> bytes) { set_corpus(data::memory_corpus(std::move(bytes))); }

namespace {
// A language model's corpus as its tokenizer reads it: a text (a byte source) becomes its tokens
// (tok::TokenSource, encoded once); token shards are tokens already.
std::shared_ptr<const data::Source> through(const std::shared_ptr<const data::Source>& source,
                                            const std::shared_ptr<const tok::Tokenizer>& tokenizer) {
  auto text = std::dynamic_pointer_cast<const data::ByteSource>(source);
  if (!source || !tokenizer || !text) return source;
  return tok::TokenSource::in_memory(tokenizer, text);
}
}  // namespace

void Trainer::set_corpus(data::Corpus corpus) {
  if (corpus.size() == 0)
    throw Error(is_language_model(kind()) ? coded("corpus.empty", {}, "the corpus is empty")
                                         : coded("pairs.empty", {}, "the pairs file is empty"));
  require_tokenizer();
  data::Corpus given = corpus;
  if (tokenizer_ && is_language_model(kind())) corpus = {through(corpus.train, tokenizer_), through(corpus.val, tokenizer_)};
  // sampling continues where this run's generator is (from the seed or a checkpoint)
  if (learner_->has_data()) data_rng_state_ = learner_->data_rng();
  learner_->set_data(std::move(corpus), data_rng_state_);
  text_corpus_ = tokenizer_ ? std::move(given) : data::Corpus{};
  measure_tokens_per_byte();
  if (history_.enabled()) history_.set_baselines(baselines());
}

// ---- the tokenizer ---------------------------------------------------------------------------

double bits_per_byte(double nats_per_token, double tokens_per_byte) {
  return nats_per_token * tokens_per_byte / watch::kLn2;
}

void Trainer::set_tokenizer(std::shared_ptr<const tok::Tokenizer> tokenizer) {
  if (!tokenizer) throw Error("set_tokenizer: no tokenizer");
  const int V = tokenizer->vocab_size();
  if (config_.tokenizer != TokenizerKind::bpe || V != config_.vocab_size)
    throw Error(coded("tokenizer.config_mismatch", {{"tokens", std::to_string(V)}, {"vocab", std::to_string(config_.vocab_size)},
                                                    {"tokenizer", tokenizer_kind_name(config_.tokenizer)}},
                      "this tokenizer has " + std::to_string(V) + " tokens; the run's config says tokenizer " +
                          tokenizer_kind_name(config_.tokenizer) + ", vocab_size " + std::to_string(config_.vocab_size)));
  if (is_translator(kind()) && tokenizer->special_id(tok::Special::bos) != V)
    throw Error(coded("tokenizer.translator_specials", {},
                      "a translator reads BOS, EOS and PAD right after the text tokens: this tokenizer numbers its special tokens otherwise"));
  if (step_ > 0 && tokenizer_ && tokenizer_->fingerprint() != tokenizer->fingerprint())
    throw Error(coded("tokenizer.fixed", {}, "the tokenizer is fixed once the run has trained (start a new run to change it)"));
  data::Corpus corpus;
  const bool had = learner_->has_data();
  if (had) corpus = take_corpus();
  tokenizer_ = std::move(tokenizer);
  learner_->set_tokenizer(tokenizer_.get());
  if (had) set_corpus(std::move(corpus));
}

void Trainer::require_tokenizer() const {
  if (config_.tokenizer == TokenizerKind::bpe && !tokenizer_)
    throw Error(coded("tokenizer.missing", {{"vocab", std::to_string(config_.vocab_size)}},
                      "this run reads BPE tokens (vocab_size " + std::to_string(config_.vocab_size) +
                          ") but has no tokenizer: train one on the text or load its tokenizer.json first"));
}

std::vector<int32_t> Trainer::encode(std::string_view text) const {
  require_tokenizer();
  if (tokenizer_) return tokenizer_->encode(text);
  std::vector<int32_t> ids(text.size());
  for (size_t i = 0; i < text.size(); i++) ids[i] = uint8_t(text[i]);
  return ids;
}

std::string Trainer::token_bytes(int32_t id) const {
  if (tokenizer_) return tokenizer_->token_bytes(id);
  const data::PairTokens t{256};
  if (id >= 0 && id < 256) return std::string(1, char(uint8_t(id)));
  if (is_translator(kind()) && id >= t.bos() && id <= t.pad()) return "";
  throw Error(coded("tokenizer.unknown_id", {{"id", std::to_string(id)}}, "there is no token " + std::to_string(id)));
}

std::string Trainer::token_text(int32_t id) const {
  if (tokenizer_) return tokenizer_->token_text(id);
  static const tok::Tokenizer bytes;  // the byte vocabulary's labels, and BOS, EOS, PAD at 256, 257, 258
  return bytes.token_text(id);
}

double Trainer::bits_per_byte(double nats_per_token) const {
  return tokens_per_byte_ > 0.0 ? train::bits_per_byte(nats_per_token, tokens_per_byte_) : NAN;
}

void Trainer::measure_tokens_per_byte() {
  if (!learner_->has_data()) return;
  if (is_language_model(kind()) && !tokenizer_) {
    tokens_per_byte_ = 1.0;
    return;
  }
  tokens_per_byte_ = learner_->val_tokens_per_byte(tokenizer_.get());
}

bool Trainer::has_corpus() const { return learner_->has_data(); }
uint64_t Trainer::corpus_size() const { return learner_->data_size(); }
uint64_t Trainer::corpus_fingerprint() const { return learner_->has_data() ? learner_->data_fingerprint() : checkpoint_fingerprint_; }
std::string Trainer::data_report() const { return learner_->data_report(); }

data::Corpus Trainer::take_corpus() {
  if (learner_->has_data()) data_rng_state_ = learner_->data_rng();
  data::Corpus taken = learner_->take_data();
  if (text_corpus_.train) taken = std::move(text_corpus_);  // the text as given, not its tokens
  text_corpus_ = {};
  return taken;
}

data::Rng::State Trainer::rng_state() const { return learner_->has_data() ? learner_->data_rng() : data_rng_state_; }

bool Trainer::corpus_matches_checkpoint() const {
  return checkpoint_fingerprint_ == 0 || !learner_->has_data() || learner_->data_fingerprint() == checkpoint_fingerprint_;
}

Message Trainer::corpus_mismatch() const {
  if (corpus_matches_checkpoint()) return {};
  const uint64_t size = learner_->data_size();
  char was[17], is[17];
  std::snprintf(was, sizeof was, "%016llx", (unsigned long long)checkpoint_fingerprint_);
  std::snprintf(is, sizeof is, "%016llx", (unsigned long long)learner_->data_fingerprint());
  const std::string unit = is_language_model(kind()) ? " tokens" : " bytes";
  if (size != checkpoint_corpus_size_)
    return coded("corpus.other_size", {{"was", std::to_string(checkpoint_corpus_size_)}, {"is", std::to_string(size)}},
                 "this run was trained on a corpus of " + std::to_string(checkpoint_corpus_size_) + unit + ", this one has " +
                     std::to_string(size));
  return coded("corpus.other_content", {{"size", std::to_string(size)}, {"was", was}, {"is", is}},
               "this run was trained on another corpus of the same size (" + std::to_string(size) + unit +
                   "): its fingerprint was " + was + ", this one's is " + is);
}

// The arena gets one chunk sized by the (slightly pessimistic) estimate of a training step's
// activations before anything uses it, so no later pass spills and memory never grows after
// the first step (evaluation and inspection need less than training).
void Trainer::reserve_arena() { arena_.reserve(size_t(learner_->activation_bytes(config_.batch_size))); }

float Trainer::step() {
  if (!learner_->has_data()) throw no_data(kind());
  reserve_arena();
  arena_.reset();
  learner_->zero_grad();
  nn::Tensor loss = learner_->train_loss(arena_, config_.batch_size, step_);
  loss.backward(nn::Tensor::GradBuffers::recycle);
  const float value = loss.item();
  const int64_t P = learner_->num_parameters();
  if (inject_nan_ > 0) {
    learner_->grads()[0] = NAN;
    inject_nan_--;
  }
  for (size_t i = 0; i < inject_nan_at_.size(); i++)
    if (inject_nan_at_[i] == step_ + 1) {
      learner_->grads()[0] = NAN;
      inject_nan_at_.erase(inject_nan_at_.begin() + std::ptrdiff_t(i));
      break;
    }
  // the clip's factor goes to AdamW, which scales each gradient as it reads it (one pass less)
  const float norm = optim::grad_norm(learner_->grads(), P);
  if (!std::isfinite(value) || !std::isfinite(norm) || value > kDivergedLoss) {
    throw Diverged(diverged_message(step_ + 1, value, norm));
  }
  last_grad_norm_ = norm;
  optimizer_.step(learner_->params(), learner_->grads(), learning_rate(), optim::clip_factor(norm, config_.grad_clip));
  kernels::share_scratch_sizes();  // so that no thread first meets a scratch need in a later step
  step_++;
  train_losses_.push_back(value);
  if (step_ % kGoodStateInterval == 0) keep_good_state();
  return value;
}

void Trainer::keep_good_state() {
  const size_t P = size_t(learner_->num_parameters());
  if (good_.params.size() != P) {  // once, at the first snapshot
    good_.params.resize(P);
    good_.m.resize(P);
    good_.v.resize(P);
  }
  std::memcpy(good_.params.data(), learner_->params(), P * sizeof(float));
  std::memcpy(good_.m.data(), optimizer_.m().data(), P * sizeof(float));
  std::memcpy(good_.v.data(), optimizer_.v().data(), P * sizeof(float));
  good_.step = step_;
  good_.adam_t = optimizer_.t();
  good_.rng = rng_state();
}

Rollback Trainer::roll_back(const Message& reason) {
  Rollback r = roll_back(reason.text);
  r.code = reason.code;
  r.args = reason.args;
  return r;
}

Rollback Trainer::roll_back(const std::string& reason) {
  if (good_.step < 0) throw Error("internal: no good state to roll back to");
  Rollback r;
  r.failed_step = step_;
  const size_t P = good_.params.size();
  std::memcpy(learner_->params(), good_.params.data(), P * sizeof(float));
  std::memcpy(optimizer_.m().data(), good_.m.data(), P * sizeof(float));
  std::memcpy(optimizer_.v().data(), good_.v.data(), P * sizeof(float));
  optimizer_.set_t(good_.adam_t);
  step_ = good_.step;
  if (learner_->has_data()) learner_->set_data_rng(good_.rng);
  else data_rng_state_ = good_.rng;
  learner_->set_carried_state({});  // a stateful run's streams restart from zeros
  train_losses_.resize(size_t(step_));
  while (!val_losses_.empty() && val_losses_.back().step > step_) val_losses_.pop_back();
  history_.drop_after(step_);
  lr_scale_ *= kRollbackLrScale;
  r.restored_step = step_;
  r.lr_scale = lr_scale_;
  r.reason = reason;
  return r;
}

ValPoint Trainer::evaluate() {
  if (!learner_->has_data()) throw no_data(kind());
  reserve_arena();
  nn::GradMode no_grad(false);
  double sum = 0.0;
  for (int k = 0; k < config_.eval_iters; k++) {
    arena_.reset();
    sum += learner_->val_loss(arena_, k, config_.batch_size);
  }
  arena_.reset();
  ValPoint v{step_, float(sum / config_.eval_iters)};
  v.bits_per_byte = float(bits_per_byte(v.loss));
  learner_->metrics(v, config_.eval_iters * config_.batch_size);
  if (!val_losses_.empty() && val_losses_.back().step == step_)
    val_losses_.back() = v;
  else
    val_losses_.push_back(v);
  return v;
}

Inspection Trainer::inspect(const uint8_t* bytes, size_t n) {
  if (!is_language_model(kind())) model();  // throws: a translator
  if (n == 0) throw Error(coded("inspect.empty", {}, "inspect: give at least one byte of text"));
  const Config& mc = config_;
  std::vector<int32_t> tokens = encode(std::string_view(reinterpret_cast<const char*>(bytes), n));
  const int T = int(std::min<size_t>(tokens.size(), size_t(mc.block_size)));
  tokens.erase(tokens.begin(), tokens.end() - T);  // the last T tokens
  reserve_arena();
  nn::GradMode no_grad(false);
  arena_.reset();
  Inspection r;
  r.T = T;
  nn::Tensor logits;  // (1, T, V)
  if (kind() == ModelKind::gpt) {
    model::TinyGPT& m = model();
    logits = m.forward_logits(arena_, tokens.data(), 1, T);
    r.L = mc.n_layer;
    r.NH = mc.n_head;
    const size_t per_layer = size_t(mc.n_head) * T * T;
    r.attention.resize(size_t(mc.n_layer) * per_layer);
    for (int l = 0; l < mc.n_layer; l++)
      std::memcpy(r.attention.data() + l * per_layer, m.last_attention(l).data(), per_layer * sizeof(float));
  } else {
    logits = recurrent().forward_logits(arena_, tokens.data(), 1, T);  // no attention: L = NH = 0
  }
  const int V = mc.vocab_size;
  nn::Tensor probs = nn::softmax_lastdim(arena_, logits);  // (1, T, V)
  r.probs.assign(probs.data(), probs.data() + size_t(T) * V);
  r.tokens = std::move(tokens);
  arena_.reset();
  return r;
}

std::vector<sample::Token> Trainer::generate(const std::string& prompt, int n, const sample::Options& options) const {
  const std::vector<int32_t> ids = encode(prompt);
  if (is_recurrent(kind())) return sample::generate(recurrent(), ids, n, options);
  return sample::generate(model(), ids, n, options);
}

hidden::Trace Trainer::trace_hidden(const uint8_t* bytes, size_t n) {
  model::Recurrent& m = recurrent();
  reserve_arena();
  if (!tokenizer_) return hidden::trace(m, arena_, bytes, n);
  // a BPE model reads the text's tokens; each position's bytes are its token's
  const std::vector<int32_t> ids = encode(std::string_view(reinterpret_cast<const char*>(bytes), n));
  std::vector<int32_t> lengths(ids.size());
  for (size_t t = 0; t < ids.size(); t++) lengths[t] = int32_t(tokenizer_->token_bytes(ids[t]).size());
  return hidden::trace(m, arena_, ids.data(), lengths.data(), ids.size());
}

sample::Translation Trainer::translate(const std::string& source, const sample::TranslateOptions& options) const {
  require_tokenizer();
  if (kind() == ModelKind::lstm_seq2seq) return sample::translate(lstm_seq2seq(), source, options, tokenizer_.get());
  return sample::translate(seq2seq(), source, options, tokenizer_.get());
}

std::pair<std::vector<int32_t>, std::vector<int32_t>> Trainer::translation_pair(const std::string& source,
                                                                                  const std::string& target) const {
  if (kind() != ModelKind::lstm_seq2seq) seq2seq();  // throws: a language model
  const int limit = config_.block_size;
  if (source.empty()) throw Error(coded("inspect.no_source", {}, "give a source text to look inside"));
  // lengths in tokens (a byte model's: bytes)
  const std::vector<int32_t> src = encode(source), tgt = encode(target);
  if (int(src.size()) > limit)
    throw Error(coded("inspect.source_long", {{"bytes", std::to_string(src.size())}, {"limit", std::to_string(limit)}},
                      "the source is " + std::to_string(src.size()) + " tokens, longer than block_size (" +
                          std::to_string(limit) + ")"));
  if (int(tgt.size()) + 1 > limit)
    throw Error(coded("inspect.target_long", {{"bytes", std::to_string(tgt.size())}, {"limit", std::to_string(limit - 1)}},
                      "the target is " + std::to_string(tgt.size()) + " tokens; at most block_size - 1 = " +
                          std::to_string(limit - 1) + " fit"));
  std::vector<int32_t> tgt_in{data::PairTokens{config_.vocab_size}.bos()};
  tgt_in.insert(tgt_in.end(), tgt.begin(), tgt.end());
  return {src, tgt_in};
}

TranslationInspection Trainer::inspect_translation(const std::string& source, const std::string& target) {
  auto [src, tgt_in] = translation_pair(source, target);
  TranslationInspection r;
  r.S = int(src.size());
  r.T = int(tgt_in.size());
  const bool lstm = kind() == ModelKind::lstm_seq2seq;
  r.Le = lstm ? 0 : config_.n_enc_layer;  // the LSTM translator: one map, the decoder's attention on the source
  r.Ld = lstm ? 1 : config_.n_dec_layer;
  r.NH = lstm ? 1 : config_.n_head;
  r.src = std::move(src);
  r.tgt_in = std::move(tgt_in);
  reserve_arena();
  nn::GradMode no_grad(false);
  arena_.reset();
  nn::Tensor logits;  // (1, T, V)
  if (lstm) {
    model::LstmSeq2Seq& m = lstm_seq2seq();
    logits = m.forward_logits(arena_, r.src.data(), r.tgt_in.data(), 1, r.S, r.T);
    r.cross.assign(m.last_attention().data(), m.last_attention().data() + size_t(r.T) * r.S);
  } else {
    model::Seq2Seq& m = seq2seq();
    logits = m.forward_logits(arena_, r.src.data(), r.tgt_in.data(), 1, r.S, r.T);
    auto copy = [&](std::vector<float>& out, model::AttentionKind kind, int layers, int Tq, int Tk) {
      const size_t per = size_t(r.NH) * Tq * Tk;
      out.resize(size_t(layers) * per);
      for (int l = 0; l < layers; l++) std::memcpy(out.data() + l * per, m.last_attention(kind, l).data(), per * sizeof(float));
    };
    copy(r.enc_self, model::AttentionKind::encoder_self, r.Le, r.S, r.S);
    copy(r.dec_self, model::AttentionKind::decoder_self, r.Ld, r.T, r.T);
    copy(r.cross, model::AttentionKind::cross, r.Ld, r.T, r.S);
  }
  nn::Tensor probs = nn::softmax_lastdim(arena_, logits);  // (1, T, V)
  r.probs.assign(probs.data(), probs.data() + size_t(r.T) * data::PairTokens{config_.vocab_size}.vocab());
  arena_.reset();
  return r;
}

// ---- the run's history (watch.h) -----------------------------------------------------------

watch::Baselines Trainer::baselines() const {
  watch::Baselines b = is_translator(kind()) ? watch::target_baselines(pairs())
                                             : watch::entropy_baselines(dataset(), watch::baseline_tokens(dataset()));
  b.tokens_per_byte = tokens_per_byte_;
  return b;
}

void Trainer::start_history(const std::vector<uint8_t>& probe, const std::vector<uint8_t>& probe_target) {
  if (!learner_->has_data()) throw no_data(kind());
  watch::Layout l = watch::layout_of(config_);
  std::vector<uint8_t> text, source, bytes;
  const bool lm = is_language_model(kind());
  if (tokenizer_ && !lm)
    throw Error(coded("watch.bytes_only", {},
                      "the run's history (the page's watch views) of a translator reads bytes: a BPE translator trains without it for now"));
  if (tokenizer_) {
    // a BPE language model's history is in tokens: the probe (given as text, or chosen from the
    // validation tokens) and the most frequent tokens on the embedding map
    const data::Dataset& d = dataset();
    const size_t most = size_t(std::min(watch::kMaxProbe, config_.block_size));
    std::vector<int32_t> ids = probe.empty() ? watch::choose_probe_tokens(d, config_.block_size, *tokenizer_)
                                             : encode(std::string_view(reinterpret_cast<const char*>(probe.data()), probe.size()));
    if (ids.size() > most) ids.resize(most);
    if (ids.empty()) throw Error(coded("watch.probe_empty", {}, "the probe text is empty"));
    l.T = int(ids.size());
    l.P = config_.block_size;
    const std::vector<int32_t> map = watch::frequent_tokens(d, config_.vocab_size);
    l.N = int(map.size());
    while (l.T > 2 && l.snapshot_bytes() * 16 > watch::History::kBudgetBytes) ids.pop_back(), l.T--;
    if (l.snapshot_bytes() * 2 > watch::History::kBudgetBytes)
      throw Error("this model's attention maps are too large to keep a history of (" + std::to_string(l.attention_bytes()) +
                  " bytes per snapshot): use a shorter probe");
    const std::string shown = tokenizer_->decode(ids.data(), ids.size());
    std::vector<int32_t> tokens = ids;
    tokens.insert(tokens.end(), map.begin(), map.end());
    history_.start(l, std::vector<uint8_t>(shown.begin(), shown.end()), {}, {}, std::move(tokens));
    history_.set_baselines(baselines());
    return;
  }
  if (lm) {
    const data::Dataset& d = dataset();
    const size_t most = size_t(std::min(watch::kMaxProbe, config_.block_size));
    text = probe.empty() ? watch::choose_probe(d, config_.block_size)
                         : std::vector<uint8_t>(probe.begin(), probe.begin() + int64_t(std::min(most, probe.size())));
    l.P = config_.block_size;
    bytes = watch::distinct_bytes(d, watch::baseline_tokens(d));
  } else {
    const data::PairDataset& d = pairs();
    if (probe.empty()) {
      watch::choose_probe(d, source, text);
    } else {
      const int most_src = std::min(watch::kMaxProbe, config_.block_size), most_tgt = most_src - 1;
      if (int(probe.size()) > most_src || int(probe_target.size()) > most_tgt)
        throw Error(coded("watch.probe_long", {{"source", std::to_string(most_src)}, {"target", std::to_string(most_tgt)}},
                          "the probe's source may have at most " + std::to_string(most_src) + " bytes and its target " +
                              std::to_string(most_tgt)));
      source = probe;
      text = probe_target;
    }
    l.S = int(source.size());
    l.P = d.max_target_len() + 1;
    std::string all;
    for (size_t i = 0; i < d.size(); i++) all += d.source(i);
    bytes = watch::distinct_bytes(reinterpret_cast<const uint8_t*>(all.data()), all.size());
  }
  if (text.empty() && lm) throw Error(coded("watch.probe_empty", {}, "the probe text is empty"));
  l.T = int(text.size()) + (lm ? 0 : 1);
  l.N = int(bytes.size());
  // a snapshot stays within a sixteenth of the history's budget: big models look at a shorter probe
  while (lm && l.T > 2 && l.snapshot_bytes() * 16 > watch::History::kBudgetBytes) text.pop_back(), l.T--;
  if (l.snapshot_bytes() * 2 > watch::History::kBudgetBytes)
    throw Error("this model's attention maps are too large to keep a history of (" + std::to_string(l.attention_bytes()) +
                " bytes per snapshot): use a shorter probe");
  history_.start(l, std::move(text), std::move(source), std::move(bytes));
  history_.set_baselines(baselines());
}

void Trainer::record_snapshot() {
  if (!history_.enabled()) throw Error("no history: start_history() first");
  if (!learner_->has_data()) throw no_data(kind());
  reserve_arena();
  watch::Snapshot s = kind() == ModelKind::gpt            ? watch::take_snapshot(model(), dataset(), arena_, history_)
                     : is_recurrent(kind())              ? watch::take_snapshot(recurrent(), dataset(), arena_, history_)
                     : kind() == ModelKind::lstm_seq2seq ? watch::take_snapshot(lstm_seq2seq(), pairs(), arena_, history_)
                                                         : watch::take_snapshot(seq2seq(), pairs(), arena_, history_);
  s.step = step_;
  history_.add(std::move(s));
}

}  // namespace tinygpt::train
