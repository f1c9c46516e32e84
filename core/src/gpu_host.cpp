// gpu_host.cpp — the Trainer's side of a GPU run (gpu_host.h).
#include "tinygpt/gpu_host.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "tinygpt/error.h"
#include "tinygpt/rng.h"
#include "tinygpt/translate.h"

namespace tinygpt::gpu {

using tinygpt::Error;

// Friend of train::Trainer: the few private fields a step computed elsewhere must update.
struct TrainerAccess {
  // The corpus, to draw batches from: the trainer keeps it in its (gpt) learner and hands out a
  // const view; drawing advances its generator, which is the trainer's state to advance here.
  static data::Dataset& dataset(train::Trainer& t) {
    if (!t.has_corpus()) throw Error("no corpus: load a text before training");
    return const_cast<data::Dataset&>(t.dataset());
  }
  static void record_step(train::Trainer& t, float loss, float grad_norm) {
    t.last_grad_norm_ = grad_norm;
    t.step_++;
    t.train_losses_.push_back(loss);
  }
  static void keep_good_state(train::Trainer& t) { t.keep_good_state(); }
  static void set_lr_scale(train::Trainer& t, float scale) { t.lr_scale_ = scale; }
  static void record_val(train::Trainer& t, float loss) {
    train::ValPoint v{t.step_, loss};
    v.bits_per_byte = float(t.bits_per_byte(loss));
    // a translator's evaluation also scores greedy translations of held-out pairs, as
    // Trainer::evaluate does: on the host's parameters, which the caller brought back from the GPU
    if (t.kind() == ModelKind::seq2seq) {  // TranslatorLearner::metrics
      const data::TranslationScore score =
          sample::evaluate_translation(t.seq2seq(), t.pairs(), t.config().eval_iters * t.config().batch_size, t.tokenizer());
      v.exact_match = float(score.exact_match());
      v.cer = float(score.cer());
    }
    if (!t.val_losses_.empty() && t.val_losses_.back().step == t.step_)
      t.val_losses_.back() = v;
    else
      t.val_losses_.push_back(v);
  }
};

namespace {
// A translator's batch (B, S) + (B, T) + (B, T) padded to the plan's S and T (at least the
// batch's): PAD tokens, -1 targets, which change no loss or gradient (make_seq2seq_plan).
int32_t* put_pairs(const data::PairBatch& b, std::pair<int, int> L, int32_t pad, int32_t* out) {
  if (b.S > L.first || b.T > L.second)
    throw Error("gpu batches: pairs of " + std::to_string(b.S) + " and " + std::to_string(b.T) +
                " tokens do not fit the plan's " + std::to_string(L.first) + " and " + std::to_string(L.second));
  auto put = [&](const std::vector<int32_t>& v, int len, int to, int32_t fill) {
    for (int r = 0; r < b.B; r++) {
      out = std::copy(v.begin() + std::ptrdiff_t(size_t(r) * len), v.begin() + std::ptrdiff_t(size_t(r + 1) * len), out);
      out = std::fill_n(out, to - len, fill);
    }
  };
  put(b.src, b.S, L.first, pad);
  put(b.tgt_in, b.T, L.second, pad);
  put(b.tgt_out, b.T, L.second, -1);
  return out;
}
int32_t pad_token(const train::Trainer& t) { return seq2seq_dims(t.config()).tokens().pad(); }
}  // namespace

std::pair<int, int> batch_lengths(const train::Trainer& t) {
  if (t.kind() != ModelKind::seq2seq) return {0, 0};
  const data::PairDataset& d = t.pairs();
  return pair_lengths(d.max_source_len(), d.max_target_len(), t.config().block_size);
}

Plan plan_for(const train::Trainer& t, bool fuse_forward, bool fuse_decode) {
  if (t.kind() == ModelKind::seq2seq) {
    const auto [S, T] = batch_lengths(t);
    return make_seq2seq_plan(t.config(), t.param_table(), S, T);
  }
  if (t.kind() != ModelKind::gpt)
    throw Error(std::string("the WebGPU backend trains the gpt and seq2seq model kinds, not ") + model_kind_name(t.kind()));
  return make_plan(t.config(), t.param_table(), fuse_forward, fuse_decode);
}

int64_t batch_tokens(const train::Trainer& t) {
  const int64_t B = t.config().batch_size;
  if (t.kind() == ModelKind::seq2seq) {
    const auto [S, T] = batch_lengths(t);
    return B * (S + 2 * int64_t(T));
  }
  return 2 * B * t.config().block_size;
}

void next_batches(train::Trainer& t, int k, int32_t* out) {
  if (k < 1) throw Error("next_batches: k must be >= 1");
  if (t.kind() == ModelKind::seq2seq) {
    // drawing advances the pairs' generator: the trainer's state, as step() would advance it
    auto& d = const_cast<data::PairDataset&>(t.pairs());
    data::PairBatch batch;
    const std::pair<int, int> L = batch_lengths(t);
    for (int i = 0; i < k; i++) {
      d.sample_batch(t.config().batch_size, batch);
      out = put_pairs(batch, L, pad_token(t), out);
    }
    return;
  }
  data::Dataset& ds = TrainerAccess::dataset(t);
  const int B = t.config().batch_size, T = t.config().block_size;
  const size_t n = size_t(B) * T;
  data::Batch batch;
  for (int i = 0; i < k; i++) {
    ds.sample_batch(B, T, batch);
    std::memcpy(out + 2 * n * size_t(i), batch.x.data(), n * sizeof(int32_t));
    std::memcpy(out + 2 * n * size_t(i) + n, batch.y.data(), n * sizeof(int32_t));
  }
}

void step_scalars(const train::Trainer& t, int64_t step, int64_t adam_t, int k, float* out) {
  const Config& c = t.config();
  for (int i = 0; i < k; i++) {
    const float tt = float(adam_t + 1 + i);
    out[3 * i] = t.schedule().lr_at(step + i) * t.lr_scale();  // Trainer::learning_rate at that step
    out[3 * i + 1] = 1.0f - std::pow(c.beta1, tt);
    out[3 * i + 2] = 1.0f - std::pow(c.beta2, tt);
  }
}

void val_batches(const train::Trainer& t, int32_t* out) {
  if (t.kind() == ModelKind::seq2seq) {
    data::PairBatch batch;
    const std::pair<int, int> L = batch_lengths(t);
    for (int k = 0; k < t.config().eval_iters; k++) {
      t.pairs().val_batch(k, t.config().batch_size, batch);
      out = put_pairs(batch, L, pad_token(t), out);
    }
    return;
  }
  const int B = t.config().batch_size, T = t.config().block_size;
  const size_t n = size_t(B) * T;
  data::Batch batch;
  for (int k = 0; k < t.config().eval_iters; k++) {
    t.dataset().val_batch(k, B, T, batch);
    std::memcpy(out + 2 * n * size_t(k), batch.x.data(), n * sizeof(int32_t));
    std::memcpy(out + 2 * n * size_t(k) + n, batch.y.data(), n * sizeof(int32_t));
  }
}

void record_steps(train::Trainer& t, const float* losses, const float* grad_norms, int k) {
  for (int i = 0; i < k; i++) {
    const float loss = losses[i], norm = grad_norms[i];
    // Trainer::step's test and message
    if (!std::isfinite(loss) || !std::isfinite(norm) || loss > train::kDivergedLoss) {
      throw train::Diverged(train::diverged_message(t.steps_done() + 1, loss, norm));
    }
    TrainerAccess::record_step(t, loss, norm);
  }
}

float record_eval(train::Trainer& t, const float* batch_losses, int n) {
  if (n != t.config().eval_iters)
    throw Error("record_eval: expected " + std::to_string(t.config().eval_iters) + " batch losses, got " +
                std::to_string(n));
  double sum = 0.0;  // as Trainer::evaluate sums
  for (int k = 0; k < n; k++) sum += batch_losses[k];
  const float loss = float(sum / n);
  TrainerAccess::record_val(t, loss);
  return loss;
}

State export_state(const train::Trainer& t, const Plan& plan) {
  if (plan.num_params != t.num_parameters()) throw Error("export_state: the plan is for another model");
  State s;
  s.params = plan.to_gpu_layout(t.params());
  s.m = plan.to_gpu_layout(t.optimizer().m().data());
  s.v = plan.to_gpu_layout(t.optimizer().v().data());
  s.step = t.steps_done();
  s.adam_t = t.optimizer().t();
  return s;
}

void import_state(train::Trainer& t, const Plan& plan, const float* params, const float* m, const float* v,
                  int64_t adam_t, bool good_state) {
  if (plan.num_params != t.num_parameters()) throw Error("import_state: the plan is for another model");
  if (adam_t < 0 || adam_t > t.steps_done())
    throw Error("import_state: " + std::to_string(adam_t) + " AdamW updates do not fit " +
                std::to_string(t.steps_done()) + " recorded steps");
  for (int64_t i = 0; i < plan.gpu_params; i++)
    if (!std::isfinite(params[i]) || !std::isfinite(m[i]) || !std::isfinite(v[i]))
      throw Error("import_state: the GPU state holds a non-finite number");
  plan.to_cpu_layout(params, t.params());
  plan.to_cpu_layout(m, t.optimizer().m().data());
  plan.to_cpu_layout(v, t.optimizer().v().data());
  t.optimizer().set_t(adam_t);
  if (good_state) TrainerAccess::keep_good_state(t);
}

train::Rollback return_to_good_state(train::Trainer& t, const std::string& reason) {
  const float scale = t.lr_scale();
  train::Rollback r = t.roll_back(reason);  // halves the scale: this is no divergence, so undo that
  TrainerAccess::set_lr_scale(t, scale);
  r.lr_scale = scale;
  return r;
}

void sample_draws(uint64_t seed, int64_t start, int k, float* out) {
  data::Rng rng(seed);
  for (int64_t i = 0; i < start; i++) rng.next_u64();  // uniform() takes one 64-bit number
  for (int i = 0; i < k; i++) out[i] = float(rng.uniform());
}

}  // namespace tinygpt::gpu
