// train.cpp — the train feature: the Session's run loop (tinygpt::Run: advance, the stop, the
// thread tuner, a run field changed, an evaluation) and the slices it returns.
#include <algorithm>

#include "common.h"
#include "session.h"

namespace tinygpt::js {

namespace {

val evaluation_to_js(const Evaluation& e) {
  val o = val::object();
  o.set("step", double(e.step));
  o.set("loss", e.loss);
  o.set("exactMatch", e.exact_match);  // seq2seq: held-out exact match and CER; NaN for gpt
  o.set("cer", e.cer);
  o.set("ms", e.ms);
  o.set("snapshotMs", e.snapshot_ms);  // of which the history's snapshot (0 without one)
  return o;
}

// A coded sentence, or null when there is none ("" = the run did not pause / the tuner is off).
val coded_or_null(const std::string& message, const std::string& code, const MessageArgs& args) {
  return message.empty() ? val::null() : coded_to_js(message, code, args);
}

}  // namespace

val rollback_to_js(const train::Rollback& b) {
  val o = val::object();
  o.set("failedStep", double(b.failed_step));
  o.set("restoredStep", double(b.restored_step));
  o.set("lrScale", b.lr_scale);
  o.set("message", b.reason);
  set_code(o, b.code, b.args);
  return o;
}

// {firstStep, step, losses: Float32Array, evals: [{step, loss, exactMatch, cer, ms, snapshotMs}],
//  rollbacks: [{failedStep, restoredStep, lrScale, message, code?, args?}], trainMs, tokensPerSec,
//  lr, gradNorm, finished, etaSeconds, paused: {message, code?, args?} | null, threads,
//  threadsReason: {message, code?, args?} | null}
val slice_to_js(const Slice& s) {
  val evals = val::array();
  for (const Evaluation& e : s.evals) evals.call<void>("push", evaluation_to_js(e));
  val rollbacks = val::array();
  for (const train::Rollback& b : s.rollbacks) rollbacks.call<void>("push", rollback_to_js(b));
  val r = val::object();
  r.set("firstStep", double(s.first_step));
  r.set("step", double(s.step));
  r.set("losses", copy_to_js("Float32Array", s.losses.data(), s.losses.size()));
  r.set("evals", evals);
  r.set("rollbacks", rollbacks);
  r.set("trainMs", s.train_ms);
  r.set("tokensPerSec", s.tokens_per_s);
  r.set("lr", s.lr);
  r.set("gradNorm", s.grad_norm);
  r.set("finished", s.finished);
  r.set("etaSeconds", s.eta_s);
  r.set("paused", coded_or_null(s.error, s.error_code, s.error_args));
  r.set("threads", s.threads);
  r.set("threadsReason", coded_or_null(s.threads_reason, s.threads_reason_code, s.threads_reason_args));
  return r;
}

// The run loop (tinygpt::Run): at most maxSteps steps, returning after about budgetMs of wall time.
val Session::advance(double max_steps, double budget_ms) {
  return guarded([&] {
    if (!(max_steps >= 1)) throw Error("advance(maxSteps, budgetMs) needs maxSteps >= 1");
    return slice_to_js(run_->advance(int64_t(std::min(max_steps, 1e15)), budget_ms > 0 ? budget_ms : 1e300));
  });
}

// Thread tuning (Run::tune_threads): the run picks 1..maxThreads threads from its own step
// times, and keeps doing so across model changes; 0 turns it off.
void Session::tuneThreads(int max_threads) {
  tune_threads_ = max_threads;
  run_->tune_threads(max_threads);
}

void Session::setStopAt(double step) {
  guarded([&] { run_->set_stop_at(int64_t(step)); });
}

// eval_interval and eval_iters change at once; max_iters moves the end of the schedule.
void Session::updateField(const std::string& name, double value) {
  guarded([&] {
    trainer_->update_field(name, value);
    new_run();  // the stop follows the schedule's new end
  });
}

double Session::evaluate() {
  return guarded([&] { return double(trainer_->evaluate().loss); });
}

void bind_train(const SessionClass& c) {
  c.function("advance", &Session::advance)
      .function("stopAt", &Session::stopAt)
      .function("injectNanGradient", &Session::injectNanGradient)
      .function("setStopAt", &Session::setStopAt)
      .function("tuneThreads", &Session::tuneThreads)
      .function("updateField", &Session::updateField)
      .function("evaluate", &Session::evaluate)
      .function("learningRate", &Session::learningRate);
}

}  // namespace tinygpt::js
