// optim.cpp — AdamW, gradient clipping and the learning-rate schedule.
#include "tinygpt/optim.h"

#include <algorithm>
#include <cmath>

#include "kernels.h"
#include "threadpool.h"
#include "tinygpt/error.h"

namespace tinygpt::optim {

AdamW::AdamW(int64_t num_params, const AdamWConfig& config, std::vector<DecaySegment> segments)
    : config_(config), segments_(std::move(segments)), m_(size_t(num_params), 0.0f), v_(size_t(num_params), 0.0f) {
  int64_t covered = 0;
  for (const DecaySegment& s : segments_) {
    if (s.offset != covered) throw tinygpt::Error("AdamW: decay segments must tile the parameters in order");
    covered += s.count;
  }
  if (covered != num_params) throw tinygpt::Error("AdamW: decay segments do not cover every parameter");
}

void AdamW::step(float* params, const float* grads, float lr, float grad_scale) {
  t_++;
  const float bc1 = 1.0f - std::pow(config_.beta1, float(t_));
  const float bc2 = 1.0f - std::pow(config_.beta2, float(t_));
  // One split job over every segment's kChunk-element chunks (the kernel's own chunks: a call
  // on chunks [c0, c1) of a segment covers elements [c0 * kChunk, min(count, c1 * kChunk)) of it,
  // so each element gets the same vector or tail arithmetic as a call on the whole segment):
  // a GPT's 30-odd segments were as many small split jobs a step, each with its fork and join.
  constexpr int64_t kChunk = 4096;
  const auto chunks = [](const DecaySegment& s) { return int((s.count + kChunk - 1) / kChunk); };
  int total = 0;
  for (const DecaySegment& s : segments_) total += chunks(s);
  tp::parallel_for(total, [&](int b, int e, int) {
    int first = 0;  // the first chunk of segment i, walking the segments in order
    for (const DecaySegment& s : segments_) {
      const int n = chunks(s), c0 = std::max(b, first) - first, c1 = std::min(e, first + n) - first;
      if (c0 < c1) {
        const int64_t lo = c0 * kChunk, hi = std::min(s.count, c1 * kChunk);
        const int64_t at = s.offset + lo;
        kernels::adamw_update(params + at, grads + at, m_.data() + at, v_.data() + at, hi - lo, lr, config_.beta1,
                              config_.beta2, config_.eps, s.decay ? config_.weight_decay : 0.0f, bc1, bc2, grad_scale);
      }
      first += n;
      if (first >= e) break;
    }
  }, 8 * int64_t(m_.size()));
}

float grad_norm(const float* grads, int64_t n) { return float(std::sqrt(kernels::sum_squares(grads, n))); }

float clip_factor(float norm, float max_norm) {
  return max_norm > 0.0f && norm > max_norm ? max_norm / (norm + 1e-6f) : 1.0f;
}

float clip_grad_norm(float* grads, int64_t n, float max_norm) {
  const float norm = grad_norm(grads, n);
  const float factor = clip_factor(norm, max_norm);
  if (factor != 1.0f) kernels::scale(grads, factor, n);
  return norm;
}

float Schedule::lr_at(int64_t step) const {
  if (step < warmup) return max_lr * float(step + 1) / float(warmup);
  if (step >= total) return min_lr;
  const int64_t start = std::max<int64_t>(warmup, from_step);
  const float start_lr = from_step > 0 ? from_lr : max_lr;
  if (step < start) return start_lr;  // unreachable for schedules made by extended()
  const double progress = double(step - start) / double(std::max<int64_t>(1, total - start));
  const double coeff = 0.5 * (1.0 + std::cos(3.14159265358979323846 * progress));  // 1 -> 0
  return float(min_lr + coeff * (start_lr - min_lr));
}

Schedule Schedule::extended(int64_t step, int new_total) const {
  Schedule s = *this;
  if (step > warmup) {
    s.from_step = step;
    s.from_lr = lr_at(step);
  }
  s.total = new_total;
  return s;
}

}  // namespace tinygpt::optim
