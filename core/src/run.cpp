// run.cpp — the training loop's policy (run.h).
#include "tinygpt/run.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "tinygpt/error.h"

namespace tinygpt {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
// Moving average that starts at the first sample.
void blend(double& avg, double sample, double weight) { avg = avg > 0.0 ? (1.0 - weight) * avg + weight * sample : sample; }
}  // namespace

Run::Run(train::Trainer& trainer) : trainer_(trainer) {
  const int64_t end = trainer_.config().max_iters;
  stop_at_ = trainer_.steps_done() < end ? end : -1;
}

void Run::set_stop_at(int64_t step) {
  if (step >= 0 && step < trainer_.steps_done())
    throw Error("cannot stop at step " + std::to_string(step) + ": the run is already at step " +
                std::to_string(trainer_.steps_done()));
  stop_at_ = step;
}

bool Run::due_for_evaluation(int64_t step) const {
  const int every = trainer_.config().eval_interval;
  if (every <= 0) return false;
  return step % every == 0 || step == stop_at_;
}

Evaluation Run::evaluate() {
  const auto t0 = Clock::now();
  Evaluation e;
  const train::ValPoint v = trainer_.evaluate();
  e.loss = v.loss;
  e.exact_match = v.exact_match;
  e.cer = v.cer;
  e.step = trainer_.steps_done();
  e.ms = ms_since(t0);
  blend(ms_per_eval_, e.ms, 0.5);
  return e;
}

double Run::eta_seconds() const {
  if (stop_at_ < 0 || ms_per_step_ <= 0.0) return -1.0;
  const int64_t now = trainer_.steps_done();
  const int64_t left = std::max<int64_t>(0, stop_at_ - now);
  const int every = trainer_.config().eval_interval;
  // evaluations still to come: every multiple of eval_interval in (now, stop_at], plus stop_at itself
  int64_t evals = 0;
  if (every > 0 && left > 0) evals = stop_at_ / every - now / every + (stop_at_ % every != 0 ? 1 : 0);
  return (double(left) * ms_per_step_ + double(evals) * ms_per_eval_) / 1000.0;
}

void Run::tune_threads(int max_threads) {
  if (max_threads <= 0) {
    tuner_.reset();
    return;
  }
  tuner_.emplace(std::min(max_threads, tinygpt::max_threads()));
  set_num_threads(tuner_->threads());
}

Slice Run::advance(int64_t max_steps, double budget_ms) {
  Slice s;
  s.first_step = trainer_.steps_done();
  const auto t_start = Clock::now();
  // the starting point of the loss curve
  if (trainer_.steps_done() == 0 && trainer_.val_losses().empty() && trainer_.config().eval_interval > 0)
    s.evals.push_back(evaluate());
  int64_t done = 0;
  while (done < max_steps && !finished()) {
    const auto t0 = Clock::now();
    try {
      s.losses.push_back(trainer_.step());
    } catch (const train::Diverged& e) {
      // the NaN guard: nothing reached the weights; go back to the last good state at half the
      // learning rate, and stop asking after kMaxRollbacks in a row
      const train::Rollback r = trainer_.roll_back(e.what());
      s.rollbacks.push_back(r);
      done++;  // an attempted step: a slice of one step ends here
      const int64_t keep = std::max<int64_t>(0, r.restored_step - s.first_step);
      if (s.losses.size() > size_t(keep)) s.losses.resize(size_t(keep));
      while (!s.evals.empty() && s.evals.back().step > r.restored_step) s.evals.pop_back();
      if (++rollbacks_in_a_row_ >= kMaxRollbacks) {
        s.error = std::string(e.what()) + "; training paused after " + std::to_string(kMaxRollbacks) +
                  " rollbacks in a row (the learning rate is now " + std::to_string(r.lr_scale).substr(0, 5) +
                  " x the schedule's): lower learning_rate or raise grad_clip, then continue";
        rollbacks_in_a_row_ = 0;
        break;
      }
      continue;
    }
    if (trainer_.good_state_step() == trainer_.steps_done()) rollbacks_in_a_row_ = 0;  // past a new good state
    const double ms = ms_since(t0);
    s.train_ms += ms;
    blend(ms_per_step_, ms, 0.1);
    if (tuner_) {
      const int next = tuner_->record(ms / 1000.0);
      if (next != num_threads()) set_num_threads(next);
    }
    done++;
    if (due_for_evaluation(trainer_.steps_done())) s.evals.push_back(evaluate());
    if (ms_since(t_start) >= budget_ms) break;
  }
  s.step = trainer_.steps_done();
  if (s.train_ms > 0.0) s.tokens_per_s = double(done * trainer_.tokens_per_step()) / (s.train_ms / 1000.0);
  if (!s.rollbacks.empty()) s.first_step = std::min(s.first_step, s.rollbacks.back().restored_step);
  s.lr = trainer_.learning_rate();
  s.grad_norm = trainer_.last_grad_norm();
  s.finished = finished();
  s.eta_s = eta_seconds();
  s.threads = num_threads();
  if (tuner_) s.threads_reason = tuner_->reason();
  return s;
}

}  // namespace tinygpt
