// run.h — the one training loop: what happens between steps, for the CLI and the page alike.
//
// A Run drives a Trainer in slices. advance() trains until a step budget or a time budget is
// used up and returns what happened; the CLI prints it, the page's worker forwards it. The
// policy lives here and nowhere else:
//   - a validation loss at step 0 (the starting point of the chart, about ln 256 = 5.55), if the
//     run has none yet;
//   - a validation loss every eval_interval steps and at stop_at (the config's `run` fields can
//     change between slices: Trainer::update_field);
//   - stop at stop_at (by default the end of the schedule, max_iters; none when the run is already
//     past it: "train more" continues at the final learning rate);
//   - throughput from training time only (evaluations are timed apart), and an ETA to stop_at
//     that includes the evaluations still to come;
//   - a snapshot for the run's history after each of those evaluations, when the trainer keeps
//     one (Trainer::start_history; the views of watch.h);
//   - the NaN guard: a diverged step never reaches the weights; the run rolls back to its last
//     good state at half the learning rate, and pauses after three rollbacks in a row.
//
// The steps can also be computed elsewhere (the WebGPU backend, docs/webgpu.md): plan() says how
// many steps may be computed before the next event of this policy, record() and
// record_evaluation() take the results back, and the same code decides evaluations, the stop,
// the good states, rollbacks and the pause. advance() and plan()/record() drive one Run and
// can alternate (a GPU run that falls back to the CPU continues with advance()).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tinygpt/runtime.h"
#include "tinygpt/trainer.h"

namespace tinygpt {

struct Evaluation {
  int64_t step = 0;  // evaluated after this many steps
  float loss = 0.0f; // mean validation loss
  float exact_match = NAN, cer = NAN;  // seq2seq: held-out translations (train::ValPoint); NaN for gpt
  double ms = 0.0;   // how long it took
  double snapshot_ms = 0.0;  // of which the history's snapshot (Trainer::record_snapshot; 0 without a history)
};

struct Slice {
  int64_t first_step = 0;       // steps done before the slice (after a rollback: the step it went back to)
  int64_t step = 0;             // steps done after it
  std::vector<float> losses;    // (step - first_step) training losses, one per step
  std::vector<Evaluation> evals;// evaluations made during the slice, in order
  double train_ms = 0.0;        // time spent in training steps
  double tokens_per_s = 0.0;    // this slice's training throughput (0 if no step ran)
  float lr = 0.0f;              // learning rate of the next step
  float grad_norm = 0.0f;       // global gradient norm of the last step, before clipping
  bool finished = false;        // the run reached stop_at
  double eta_s = -1.0;          // seconds to stop_at at the current pace (-1: no stop or unknown)
  std::vector<train::Rollback> rollbacks;  // diverged steps the NaN guard undid, in order
  std::string error;            // why the run paused ("" = it did not); the steps before it count
  std::string error_code;       // error's code and args for the page (error.h)
  MessageArgs error_args;
  int threads = 0;              // kernel threads the next step runs with
  std::string threads_reason;   // the thread tuner's last decision ("" when not tuning)
  std::string threads_reason_code;  // its code and args for the page (error.h)
  MessageArgs threads_reason_args;
};

// After this many rollbacks in a row (no new good state in between) the run pauses.
constexpr int kMaxRollbacks = 3;

// What a run whose steps are computed elsewhere does next (Run::plan), in this order:
//   1. evaluate: an evaluation is due at the current step, before any step: compute the losses of
//      the eval_iters validation batches (gpu::val_batches) and hand them to record_evaluation();
//   2. steps: compute at most this many steps (gpu::next_batches, gpu::step_scalars) and hand
//      their losses and gradient norms to record(), in one call or several; a record() that
//      reports a rollback ends the plan (upload the trainer's state again: gpu::export_state);
//   3. keep_good_state: once all of them are recorded, with none in flight, bring the state back
//      (gpu::import_state with good_state): the good state a later rollback returns to.
// Then plan again. steps == 0 and !evaluate: nothing left to do (finished, or max_steps was 0).
struct StepPlan {
  bool evaluate = false;
  int64_t steps = 0;
  bool keep_good_state = false;
  bool finished = false;  // the run is at its stop
};

class Run {
 public:
  explicit Run(train::Trainer& trainer);

  // The step at which the run stops: the end of the schedule unless the run is already past it
  // (then -1: no stop). set_stop_at(-1) trains until paused; a value below the current step is
  // refused (tinygpt::Error).
  int64_t stop_at() const { return stop_at_; }
  void set_stop_at(int64_t step);
  bool finished() const { return stop_at_ >= 0 && trainer_.steps_done() >= stop_at_; }

  // Trains at most max_steps steps, and stops early once budget_ms of wall time have passed
  // (at least one step runs unless the run is finished). Evaluations happen where the policy
  // above puts them. The NaN guard: a step that diverges (train::Diverged: nothing reached the
  // weights) rolls the run back to its last good state at half the learning rate
  // (Trainer::roll_back; reported in Slice::rollbacks, and the slice's losses and evaluations
  // after that state are dropped); after kMaxRollbacks in a row the slice ends with Slice::error.
  // A step or evaluation that cannot run (a data file that changed or went away) also ends the
  // slice with Slice::error, the run as it was before that step; the steps before it count.
  Slice advance(int64_t max_steps, double budget_ms = 1e300);

  // ---- steps computed elsewhere (StepPlan above) ----
  // At most max_steps steps up to the next event: an evaluation point (every eval_interval steps
  // and stop_at), a good-state point (every train::kGoodStateInterval steps, as Trainer::step
  // keeps them) or the stop.
  StepPlan plan(int64_t max_steps) const;
  // Records n steps computed elsewhere (losses and gradient norms before clipping, in order;
  // train_ms: the time they took) and returns what happened as advance() would (no evaluations:
  // plan() asks for them). A diverged step (Trainer::step's test) is the NaN guard's case: the steps
  // before it are kept, the run rolls back to its last good state at half the learning rate
  // (Slice::rollbacks; the values after the diverged one are ignored: they were not applied), and
  // after kMaxRollbacks in a row Slice::error pauses it. More steps than the current plan allows,
  // or steps while an evaluation is due, are refused (tinygpt::Error): that would skip the policy.
  Slice record(const float* losses, const float* grad_norms, int n, double train_ms);
  // Records an evaluation computed elsewhere from the eval_iters validation batches' losses, as
  // Trainer::evaluate takes their mean (gpu::record_eval).
  Evaluation record_evaluation(const float* batch_losses, int n, double ms);

  // Moving averages behind the ETA (0 until measured).
  double ms_per_step() const { return ms_per_step_; }
  double ms_per_eval() const { return ms_per_eval_; }
  double eta_seconds() const;

  // Thread tuning: the run picks its thread count (1 .. max_threads) from its own step times
  // (ThreadTuner), so a pool whose cores another process took falls back to fewer threads, and
  // comes back when they are free. 0 turns tuning off (the pool keeps the count it has).
  void tune_threads(int max_threads);
  bool tuning_threads() const { return tuner_.has_value(); }

 private:
  Evaluation evaluate();
  bool due_for_evaluation(int64_t step) const;
  bool evaluation_at_start() const;       // the starting point of the loss curve is missing
  bool evaluation_pending() const;        // either that, or record() reached an evaluation point
  int64_t steps_to_next_event() const;    // from the current step: evaluation, good state or stop
  // The NaN guard after a diverged step: rolls back, trims the slice, counts; false after
  // kMaxRollbacks in a row (Slice::error says so).
  bool roll_back(Slice& s, const train::Diverged& e);
  void pause(Slice& s, const Error& e);
  void finish(Slice& s, int64_t steps_trained) const;

  train::Trainer& trainer_;
  int64_t stop_at_ = -1;
  double ms_per_step_ = 0.0;
  double ms_per_eval_ = 0.0;
  int rollbacks_in_a_row_ = 0;
  std::optional<ThreadTuner> tuner_;
  // steps computed elsewhere: the evaluation point record() reached and nobody evaluated yet (-1:
  // none; advance() makes it up first, after a fallback); the newest good state seen by record()
  // (a newer one ends a series of rollbacks)
  int64_t evaluation_due_at_ = -1;
  int64_t good_state_seen_ = -1;
};

}  // namespace tinygpt
