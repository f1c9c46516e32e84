// trainer.cpp — the training loop's state and one step of it.
#include "tinygpt/trainer.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"

namespace tinygpt::train {

using tinygpt::Error;

static optim::AdamW make_optimizer(const model::TinyGPT& m, const Config& c) {
  std::vector<optim::DecaySegment> segments;
  for (const model::ParamInfo& p : m.param_table()) {
    if (!segments.empty() && segments.back().decay == p.decay)
      segments.back().count += p.shape.numel();  // merge runs: fewer, longer loops
    else
      segments.push_back({p.offset, p.shape.numel(), p.decay});
  }
  return optim::AdamW(m.num_parameters(), {c.beta1, c.beta2, c.eps, c.weight_decay}, std::move(segments));
}

static const Config& checked(const Config& c, int64_t memory_limit) {
  validate_config(c);
  const std::string memory = check_memory(c, memory_limit);
  if (!memory.empty()) throw Error(memory);
  return c;
}

Trainer::Trainer(const Config& config, int64_t memory_limit)
    : config_(checked(config, memory_limit)),
      model_(config_),
      optimizer_(make_optimizer(model_, config_)),
      schedule_{config_.learning_rate, config_.min_lr, config_.warmup_iters, config_.max_iters},
      data_rng_state_(data::Rng(config_.seed ^ 0xDA7A5EEDull).state()),
      arena_(size_t(1) << 20) {
  train_losses_.reserve(size_t(config_.max_iters));
  val_losses_.reserve(64);
  keep_good_state();  // a fresh run can always go back to its start
}

void Trainer::update_field(std::string_view name, double value) {
  const FieldSpec& f = field(name);
  if (f.name == std::string_view("max_iters")) {
    Config next = config_;
    set_field(next, f, value);
    if (next.max_iters <= step_)
      throw Error("max_iters must be above the steps already done (" + std::to_string(step_) + ")");
    if (next.max_iters < next.warmup_iters)
      throw Error("max_iters must be at least warmup_iters (" + std::to_string(next.warmup_iters) + ")");
    schedule_ = schedule_.extended(step_, next.max_iters);
    config_ = next;
    return;
  }
  if (f.group != FieldGroup::run)
    throw Error(std::string(f.name) + " is fixed once the model exists (start a new run to change it)");
  set_field(config_, f, value);
}

const data::ByteDataset& Trainer::dataset() const {
  if (!dataset_) throw Error("no corpus: load a text first");
  return *dataset_;
}

void Trainer::set_corpus(std::vector<uint8_t> bytes) {
  auto d = std::make_unique<data::ByteDataset>(std::move(bytes));
  adopt_dataset(std::move(d));
}

void Trainer::adopt_dataset(std::unique_ptr<data::ByteDataset> dataset) {
  if (!dataset) throw Error("no corpus given");
  dataset->check_context(config_.block_size);
  // sampling continues where this run's generator is (from the seed or a checkpoint)
  if (dataset_) data_rng_state_ = dataset_->rng_state();
  dataset->set_rng_state(data_rng_state_);
  dataset_ = std::move(dataset);
}

bool Trainer::corpus_matches_checkpoint() const {
  return checkpoint_fingerprint_ == 0 || !dataset_ || dataset_->fingerprint() == checkpoint_fingerprint_;
}

// The arena gets one chunk sized by the (slightly pessimistic) estimate of a training step's
// activations before anything uses it, so no later pass spills and memory never grows after
// the first step (evaluation and inspection need less than training).
void Trainer::reserve_arena() {
  arena_.reserve(size_t(estimate_training_bytes(config_) - model_.num_parameters() * 28));
}

float Trainer::step() {
  if (!dataset_) throw Error("no corpus: load a text before training");
  const int B = config_.batch_size, T = config_.block_size;
  dataset_->sample_batch(B, T, batch_);
  reserve_arena();
  arena_.reset();
  model_.zero_grad();
  nn::Tensor loss = model_.loss(arena_, batch_.x.data(), batch_.y.data(), B, T);
  loss.backward();
  const float value = loss.item();
  const int64_t P = model_.num_parameters();
  if (inject_nan_ > 0) {
    model_.grads()[0] = NAN;
    inject_nan_--;
  }
  const float norm = optim::clip_grad_norm(model_.grads(), P, config_.grad_clip);
  if (!std::isfinite(value) || !std::isfinite(norm) || value > kDivergedLoss) {
    char what[96];
    if (!std::isfinite(value)) std::snprintf(what, sizeof what, "the loss is %g", double(value));
    else if (!std::isfinite(norm)) std::snprintf(what, sizeof what, "the gradient norm is %g", double(norm));
    else std::snprintf(what, sizeof what, "the loss is %.1f, worse than %.1f (4 x a uniform guess)", double(value), double(kDivergedLoss));
    throw Diverged("training diverged at step " + std::to_string(step_ + 1) + ": " + what);
  }
  last_grad_norm_ = norm;
  optimizer_.step(model_.params(), model_.grads(), learning_rate());
  kernels::share_scratch_sizes();  // so that no thread first meets a scratch need in a later step
  step_++;
  train_losses_.push_back(value);
  if (step_ % kGoodStateInterval == 0) keep_good_state();
  return value;
}

void Trainer::keep_good_state() {
  const size_t P = size_t(model_.num_parameters());
  if (good_.params.size() != P) {  // once, at the first snapshot
    good_.params.resize(P);
    good_.m.resize(P);
    good_.v.resize(P);
  }
  std::memcpy(good_.params.data(), model_.params(), P * sizeof(float));
  std::memcpy(good_.m.data(), optimizer_.m().data(), P * sizeof(float));
  std::memcpy(good_.v.data(), optimizer_.v().data(), P * sizeof(float));
  good_.step = step_;
  good_.adam_t = optimizer_.t();
  good_.rng = dataset_ ? dataset_->rng_state() : data_rng_state_;
}

Rollback Trainer::roll_back(const std::string& reason) {
  if (good_.step < 0) throw Error("internal: no good state to roll back to");
  Rollback r;
  r.failed_step = step_;
  const size_t P = good_.params.size();
  std::memcpy(model_.params(), good_.params.data(), P * sizeof(float));
  std::memcpy(optimizer_.m().data(), good_.m.data(), P * sizeof(float));
  std::memcpy(optimizer_.v().data(), good_.v.data(), P * sizeof(float));
  optimizer_.set_t(good_.adam_t);
  step_ = good_.step;
  if (dataset_) dataset_->set_rng_state(good_.rng);
  else data_rng_state_ = good_.rng;
  train_losses_.resize(size_t(step_));
  while (!val_losses_.empty() && val_losses_.back().step > step_) val_losses_.pop_back();
  lr_scale_ *= 0.5f;
  r.restored_step = step_;
  r.lr_scale = lr_scale_;
  r.reason = reason;
  return r;
}

float Trainer::evaluate() {
  if (!dataset_) throw Error("no corpus: load a text before evaluating");
  reserve_arena();
  nn::GradMode no_grad(false);
  const int B = config_.batch_size, T = config_.block_size;
  double sum = 0.0;
  for (int k = 0; k < config_.eval_iters; k++) {
    dataset_->val_batch(k, B, T, batch_);
    arena_.reset();
    sum += model_.loss(arena_, batch_.x.data(), batch_.y.data(), B, T).item();
  }
  arena_.reset();
  const float loss = float(sum / config_.eval_iters);
  if (!val_losses_.empty() && val_losses_.back().step == step_)
    val_losses_.back().loss = loss;
  else
    val_losses_.push_back({step_, loss});
  return loss;
}

Inspection Trainer::inspect(const uint8_t* bytes, size_t n) {
  if (n == 0) throw Error("inspect: give at least one byte of text");
  const Config& mc = config_;
  const int T = int(std::min<size_t>(n, size_t(mc.block_size)));
  std::vector<int32_t> tokens(bytes + (n - size_t(T)), bytes + n);
  reserve_arena();
  nn::GradMode no_grad(false);
  arena_.reset();
  nn::Tensor logits = model_.forward_logits(arena_, tokens.data(), 1, T);  // (1, T, V)
  Inspection r;
  r.T = T;
  r.L = mc.n_layer;
  r.NH = mc.n_head;
  const size_t per_layer = size_t(mc.n_head) * T * T;
  r.attention.resize(size_t(mc.n_layer) * per_layer);
  for (int l = 0; l < mc.n_layer; l++)
    std::memcpy(r.attention.data() + l * per_layer, model_.last_attention(l).data(), per_layer * sizeof(float));
  const int V = model::kVocab;
  nn::Tensor probs = nn::softmax_lastdim(arena_, logits);  // (1, T, V)
  r.probs.assign(probs.data(), probs.data() + size_t(T) * V);
  arena_.reset();
  return r;
}

}  // namespace tinygpt::train
