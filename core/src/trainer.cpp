// trainer.cpp — the training loop's state and one step of it.
#include "tinygpt/trainer.h"

#include <cmath>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"

namespace tinygpt::train {

using tinygpt::Error;

void TrainConfig::validate() const {
  auto check = [](bool ok, const std::string& msg) {
    if (!ok) throw Error("invalid training config: " + msg);
  };
  check(batch_size >= 1 && batch_size <= 4096, "batch size must be between 1 and 4096 (got " + std::to_string(batch_size) + ")");
  check(std::isfinite(lr) && lr > 0.0f && lr <= 1.0f, "learning rate must be in (0, 1]");
  check(std::isfinite(min_lr) && min_lr >= 0.0f && min_lr <= lr, "minimum learning rate must be in [0, learning rate]");
  check(steps >= 1, "steps must be at least 1 (got " + std::to_string(steps) + ")");
  check(warmup >= 0 && warmup <= steps, "warmup must be between 0 and steps (got " + std::to_string(warmup) + ")");
  check(std::isfinite(weight_decay) && weight_decay >= 0.0f && weight_decay <= 10.0f, "weight decay must be in [0, 10]");
  check(beta1 >= 0.0f && beta1 < 1.0f, "beta1 must be in [0, 1)");
  check(beta2 >= 0.0f && beta2 < 1.0f, "beta2 must be in [0, 1)");
  check(std::isfinite(eps) && eps > 0.0f, "eps must be positive");
  check(std::isfinite(grad_clip) && grad_clip >= 0.0f, "gradient clip must be >= 0 (0 = off)");
  check(eval_batches >= 1 && eval_batches <= 10000, "eval batches must be between 1 and 10000");
}

int64_t estimate_training_bytes(const model::Config& m, int batch_size) {
  const int64_t B = batch_size, T = m.block_size, C = m.n_embd, NH = m.n_head, L = m.n_layer;
  const int64_t V = model::Config::vocab_size;
  const int64_t params = m.num_parameters() * 4;  // parameters, gradients, AdamW m and v
  // activations of one step (floats): per block LN1, qkv, attention out, probabilities,
  // projection, residual, LN2, fc, gelu, fc_proj, residual, LN statistics; then embeddings,
  // final LN, logits and softmax probabilities.
  const int64_t per_block = B * T * C * 18 + B * NH * T * T + 4 * B * T;
  const int64_t acts = L * per_block + 3 * B * T * C + 2 * B * T * V + B * T;
  return (params + 2 * acts) * int64_t(sizeof(float));  // activations and their gradients
}

static optim::AdamW make_optimizer(const model::TinyGPT& m, const TrainConfig& c) {
  std::vector<optim::DecaySegment> segments;
  for (const model::ParamInfo& p : m.param_table()) {
    if (!segments.empty() && segments.back().decay == p.decay)
      segments.back().count += p.shape.numel();  // merge runs: fewer, longer loops
    else
      segments.push_back({p.offset, p.shape.numel(), p.decay});
  }
  return optim::AdamW(m.num_parameters(), {c.beta1, c.beta2, c.eps, c.weight_decay}, std::move(segments));
}

static const model::Config& checked(const model::Config& m, const TrainConfig& t, int64_t memory_limit) {
  m.validate();
  t.validate();
  const int64_t need = estimate_training_bytes(m, t.batch_size);
  if (need > memory_limit)
    throw Error("this configuration needs about " + std::to_string(need >> 20) + " MiB, more than the " +
                std::to_string(memory_limit >> 20) + " MiB allowed: reduce the batch, context, width or layers");
  return m;
}

Trainer::Trainer(const model::Config& model_config, const TrainConfig& train_config, int64_t memory_limit)
    : model_(checked(model_config, train_config, memory_limit)),
      config_(train_config),
      optimizer_(make_optimizer(model_, train_config)),
      schedule_{train_config.lr, train_config.min_lr, train_config.warmup, train_config.steps},
      data_rng_state_(data::Rng(model_config.seed ^ 0xDA7A5EEDull).state()),
      arena_(size_t(1) << 20) {
  train_losses_.reserve(size_t(train_config.steps));
  val_losses_.reserve(64);
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
  dataset->check_context(model_.config().block_size);
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
  arena_.reserve(size_t(estimate_training_bytes(model_.config(), config_.batch_size) - model_.num_parameters() * 16));
}

float Trainer::step() {
  if (!dataset_) throw Error("no corpus: load a text before training");
  const int B = config_.batch_size, T = model_.config().block_size;
  dataset_->sample_batch(B, T, batch_);
  reserve_arena();
  arena_.reset();
  model_.zero_grad();
  nn::Tensor loss = model_.loss(arena_, batch_.x.data(), batch_.y.data(), B, T);
  loss.backward();
  const float value = loss.item();
  const int64_t P = model_.num_parameters();
  const float norm = optim::clip_grad_norm(model_.grads(), P, config_.grad_clip);
  if (!std::isfinite(value) || !std::isfinite(norm))
    throw Error("training diverged at step " + std::to_string(step_) + " (loss or gradient is not finite): lower the learning rate");
  last_grad_norm_ = norm;
  optimizer_.step(model_.params(), model_.grads(), schedule_.lr_at(step_));
  kernels::share_scratch_sizes();  // so that no thread first meets a scratch need in a later step
  step_++;
  train_losses_.push_back(value);
  return value;
}

float Trainer::evaluate() {
  if (!dataset_) throw Error("no corpus: load a text before evaluating");
  reserve_arena();
  nn::GradMode no_grad(false);
  const int B = config_.batch_size, T = model_.config().block_size;
  double sum = 0.0;
  for (int k = 0; k < config_.eval_batches; k++) {
    dataset_->val_batch(k, B, T, batch_);
    arena_.reset();
    sum += model_.loss(arena_, batch_.x.data(), batch_.y.data(), B, T).item();
  }
  arena_.reset();
  const float loss = float(sum / config_.eval_batches);
  if (!val_losses_.empty() && val_losses_.back().step == step_)
    val_losses_.back().loss = loss;
  else
    val_losses_.push_back({step_, loss});
  return loss;
}

Inspection Trainer::inspect(const uint8_t* bytes, size_t n) {
  if (n == 0) throw Error("inspect: give at least one byte of text");
  const model::Config& mc = model_.config();
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
  const int V = model::Config::vocab_size;
  nn::Tensor probs = nn::softmax_lastdim(arena_, logits);  // (1, T, V)
  r.probs.assign(probs.data(), probs.data() + size_t(T) * V);
  arena_.reset();
  return r;
}

}  // namespace tinygpt::train
