// run.cpp — the training loop's policy (run.h).
#include "tinygpt/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "tinygpt/error.h"
#include "tinygpt/gpu_host.h"

namespace tinygpt {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
// Moving average that starts at the first sample.
void blend(double& avg, double sample, double weight) { avg = avg > 0.0 ? (1.0 - weight) * avg + weight * sample : sample; }
}  // namespace

Run::Run(train::Trainer& trainer) : trainer_(trainer), good_state_seen_(trainer.good_state_step()) {
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

bool Run::evaluation_at_start() const {
  return trainer_.steps_done() == 0 && trainer_.val_losses().empty() && trainer_.config().eval_interval > 0;
}

bool Run::evaluation_pending() const {
  return evaluation_at_start() || evaluation_due_at_ == trainer_.steps_done();
}

int64_t Run::steps_to_next_event() const {
  const int64_t now = trainer_.steps_done();
  int64_t next = (now / train::kGoodStateInterval + 1) * train::kGoodStateInterval;  // Trainer::step keeps one there
  const int every = trainer_.config().eval_interval;
  if (every > 0) next = std::min(next, (now / every + 1) * every);
  if (stop_at_ > now) next = std::min(next, stop_at_);
  return next - now;
}

Evaluation Run::evaluate() {
  const auto t0 = Clock::now();
  Evaluation e;
  const train::ValPoint v = trainer_.evaluate();
  e.loss = v.loss;
  e.exact_match = v.exact_match;
  e.cer = v.cer;
  e.step = trainer_.steps_done();
  if (trainer_.history().enabled()) {
    const auto t1 = Clock::now();
    trainer_.record_snapshot();
    e.snapshot_ms = ms_since(t1);
  }
  e.ms = ms_since(t0);
  blend(ms_per_eval_, e.ms, 0.5);
  evaluation_due_at_ = -1;
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
  int64_t done = 0;
  if (evaluation_pending()) {
    try {
      s.evals.push_back(evaluate());
    } catch (const Error& e) {
      pause(s, e);
      finish(s, 0);
      return s;
    }
  }
  while (done < max_steps && !finished()) {
    const auto t0 = Clock::now();
    try {
      s.losses.push_back(trainer_.step());
    } catch (const train::Diverged& e) {
      done++;  // an attempted step: a slice of one step ends here
      if (!roll_back(s, e)) break;
      continue;
    } catch (const Error& e) {
      // the step could not run (its data could not be read: the file changed): nothing moved, the
      // run pauses with the reason, and the steps before it count
      pause(s, e);
      break;
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
    if (due_for_evaluation(trainer_.steps_done())) {
      try {
        s.evals.push_back(evaluate());
      } catch (const Error& e) {
        pause(s, e);
        break;
      }
    }
    if (ms_since(t_start) >= budget_ms) break;
  }
  finish(s, done);
  return s;
}

void Run::pause(Slice& s, const Error& e) {
  if (!trainer_.has_corpus()) throw e;  // no data at all: the caller's mistake, not a pause
  s.error = e.what();
  s.error_code = e.code();
  s.error_args = e.args();
}

// the NaN guard: nothing reached the weights; go back to the last good state at half the learning
// rate, and stop asking after kMaxRollbacks in a row
bool Run::roll_back(Slice& s, const train::Diverged& e) {
  const train::Rollback r = trainer_.roll_back(e.message());
  s.rollbacks.push_back(r);
  // the slice's losses are those of steps first_step + 1 .. now: drop the undone ones (a good
  // state before the slice's start moves its start back)
  if (r.restored_step < s.first_step) {
    s.first_step = r.restored_step;
    s.losses.clear();
  } else {
    s.losses.resize(size_t(r.restored_step - s.first_step));
  }
  while (!s.evals.empty() && s.evals.back().step > r.restored_step) s.evals.pop_back();
  if (++rollbacks_in_a_row_ >= kMaxRollbacks) {
    const std::string scale = std::to_string(r.lr_scale).substr(0, 5);
    s.error = std::string(e.what()) + "; training paused after " + std::to_string(kMaxRollbacks) +
              " rollbacks in a row (the learning rate is now " + scale +
              " x the schedule's): lower learning_rate or raise grad_clip, then continue";
    // the page words the pause from the divergence's args and these
    s.error_code = "train.paused";
    s.error_args = e.args();
    s.error_args.push_back({"rollbacks", std::to_string(kMaxRollbacks)});
    s.error_args.push_back({"lr_scale", scale});
    rollbacks_in_a_row_ = 0;
    return false;
  }
  return true;
}

void Run::finish(Slice& s, int64_t steps_trained) const {
  s.step = trainer_.steps_done();
  if (s.train_ms > 0.0) s.tokens_per_s = double(steps_trained * trainer_.tokens_per_step()) / (s.train_ms / 1000.0);
  s.lr = trainer_.learning_rate();
  s.grad_norm = trainer_.last_grad_norm();
  s.finished = finished();
  s.eta_s = eta_seconds();
  s.threads = num_threads();
  if (tuner_) {
    const Message why = tuner_->reason_message();
    s.threads_reason = why.text;
    s.threads_reason_code = why.code;
    s.threads_reason_args = why.args;
  }
}

// ---- steps computed elsewhere ----

StepPlan Run::plan(int64_t max_steps) const {
  StepPlan p;
  p.evaluate = evaluation_pending();
  p.finished = finished();
  if (p.finished || max_steps <= 0) return p;
  p.steps = std::min(max_steps, steps_to_next_event());
  p.keep_good_state = (trainer_.steps_done() + p.steps) % train::kGoodStateInterval == 0;
  return p;
}

Slice Run::record(const float* losses, const float* grad_norms, int n, double train_ms) {
  const int64_t now = trainer_.steps_done();
  if (n < 1) throw Error("record: give at least one step");
  if (evaluation_pending())
    throw Error("record: an evaluation is due at step " + std::to_string(now) + " first (record_evaluation)");
  if (finished()) throw Error("record: the run is at its stop, step " + std::to_string(stop_at_));
  if (n > steps_to_next_event())
    throw Error("record: " + std::to_string(n) + " steps from step " + std::to_string(now) + " pass the run's next event at step " +
                std::to_string(now + steps_to_next_event()) + " (plan() allows " + std::to_string(steps_to_next_event()) + ")");
  if (trainer_.good_state_step() > good_state_seen_) {  // a new good state since: a series of rollbacks ends
    good_state_seen_ = trainer_.good_state_step();
    rollbacks_in_a_row_ = 0;
  }
  Slice s;
  s.first_step = now;
  s.train_ms = train_ms;
  int64_t attempted = n;
  try {
    gpu::record_steps(trainer_, losses, grad_norms, n);
    s.losses.assign(losses, losses + n);
    if (due_for_evaluation(trainer_.steps_done())) evaluation_due_at_ = trainer_.steps_done();
  } catch (const train::Diverged& e) {
    // the steps before the diverged one are recorded; the ones after it were not applied
    const int64_t kept = trainer_.steps_done() - now;
    attempted = kept + 1;
    s.losses.assign(losses, losses + kept);
    roll_back(s, e);
  }
  if (train_ms > 0.0) blend(ms_per_step_, train_ms / double(attempted), 1.0 - std::pow(0.9, double(attempted)));  // = `attempted` steps of advance()
  finish(s, attempted);
  return s;
}

Evaluation Run::record_evaluation(const float* batch_losses, int n, double ms) {
  Evaluation e;
  e.loss = gpu::record_eval(trainer_, batch_losses, n);
  e.exact_match = trainer_.val_losses().back().exact_match;
  e.cer = trainer_.val_losses().back().cer;
  e.step = trainer_.steps_done();
  e.ms = ms;
  blend(ms_per_eval_, ms, 0.5);
  evaluation_due_at_ = -1;
  return e;
}

}  // namespace tinygpt
