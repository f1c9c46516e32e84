// optim.h — AdamW with decoupled weight decay, global-norm clipping, warmup + cosine schedule.
//
//   m_t = b1 m_{t-1} + (1 - b1) g_t            v_t = b2 v_{t-1} + (1 - b2) g_t^2
//   m^ = m_t / (1 - b1^t)                       v^ = v_t / (1 - b2^t)
//   theta <- theta - lr (m^ / (sqrt(v^) + eps) + wd theta)     (wd only on decayed tensors)
//
// The moments m and v are each one contiguous block, laid out like the parameters, and the
// update is one flat loop per run of tensors sharing a weight-decay setting.
#pragma once

#include <cstdint>
#include <vector>

namespace tinygpt::optim {

struct AdamWConfig {
  float beta1 = 0.9f;
  float beta2 = 0.99f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;
};

// A run of parameters [offset, offset + count) and whether weight decay applies to it.
struct DecaySegment {
  int64_t offset, count;
  bool decay;
};

class AdamW {
 public:
  AdamW(int64_t num_params, const AdamWConfig& config, std::vector<DecaySegment> segments);

  // One update with learning rate lr: advances t, then updates params from grads * grad_scale
  // (clip_factor's: the clipped gradients without a pass that scales them in place first).
  void step(float* params, const float* grads, float lr, float grad_scale = 1.0f);

  const AdamWConfig& config() const { return config_; }
  int64_t t() const { return t_; }  // updates done so far
  std::vector<float>& m() { return m_; }
  std::vector<float>& v() { return v_; }
  const std::vector<float>& m() const { return m_; }
  const std::vector<float>& v() const { return v_; }
  void set_t(int64_t t) { t_ = t; }

 private:
  AdamWConfig config_;
  std::vector<DecaySegment> segments_;
  std::vector<float> m_, v_;  // first and second moments, (num_params) each
  int64_t t_ = 0;
};

// Scales grads so that their global L2 norm is at most max_norm (no-op if max_norm <= 0).
// Returns the norm before clipping.
float clip_grad_norm(float* grads, int64_t n, float max_norm);
// The same in two parts, for a caller that hands the factor to AdamW::step instead of scaling the
// gradients in place: their global L2 norm, and the factor clip_grad_norm scales them by (1 when
// it leaves them alone). Together the same bits as clip_grad_norm then step.
float grad_norm(const float* grads, int64_t n);
float clip_factor(float norm, float max_norm);

// Learning rate at step s (0-based): linear warmup over `warmup` steps to max_lr, then cosine
// decay to min_lr at step `total`, min_lr afterwards.
// A schedule that was extended (or shortened) mid-run continues from where it was: from step
// from_step on, the cosine decays from from_lr (the rate the old schedule had reached there) to
// min_lr at the new total, so the learning rate never jumps.
struct Schedule {
  float max_lr = 1e-3f;
  float min_lr = 1e-4f;
  int warmup = 100;
  int total = 2000;
  int64_t from_step = 0;  // 0 = the plain warmup + cosine schedule
  float from_lr = 0.0f;
  float lr_at(int64_t step) const;
  // This schedule continued at `step` towards a new total (during warmup only the total changes).
  Schedule extended(int64_t step, int new_total) const;
};

}  // namespace tinygpt::optim
