// runtime.cpp — the public runtime API (runtime.h): which kernels run, on how many threads, and
// the ThreadTuner that picks that count from step times.
#include "tinygpt/runtime.h"

#include <algorithm>
#include <cstdio>

#include "kernels.h"
#include "threadpool.h"

namespace tinygpt {

const char* simd_backend() { return kernels::simd_backend(); }
int max_threads() { return tp::max_threads(); }
int num_threads() { return tp::num_threads(); }
void set_num_threads(int n) { tp::set_num_threads(n); }

void set_kernel_profiling(bool on) { kernels::set_profiling(on); }
std::vector<KernelTiming> kernel_timings() {
  std::vector<KernelTiming> out;
  for (const kernels::KernelTime& k : kernels::kernel_times())
    if (k.calls > 0) out.push_back({k.name, k.calls, k.seconds * 1e3});
  return out;
}

// ---- ThreadTuner -----------------------------------------------------------------------------
//
// A comparison times two candidates, the reference R and the challenger C, in 2 * windows windows
// of `samples` steps, in the order R C C R R C C R (each count's windows sit symmetrically in
// time, so a load that grows steadily weighs on both alike), with `warmup_steps` untimed steps
// after each change of count. The challenger wins when the median of its steps is at least
// min_gain below the reference's. A round starts from a known count and walks one way while the
// challenger wins (the first round and a slowdown: fewer threads; a periodic re-check: more
// threads first, then fewer if more did not pay), and settles on the last winner.

namespace {
// a re-check's challenger this much slower after R C C loses at once (the first round goes on)
constexpr double kClearlySlower = 1.25;
std::string threads_text(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }
std::string ms_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", 1000.0 * seconds);
  return buf;
}
std::string ms_number(double seconds) {  // "25.0", as ms_text without the unit
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", 1000.0 * seconds);
  return buf;
}
}  // namespace

ThreadTuner::ThreadTuner(int max_threads) : ThreadTuner(max_threads, Options{}) {}

ThreadTuner::ThreadTuner(int max_threads, const Options& options) : opt_(options) {
  opt_.warmup_steps = std::max(0, opt_.warmup_steps);
  opt_.samples = std::max(1, opt_.samples);
  opt_.windows = std::max(1, opt_.windows);
  opt_.watch_steps = std::max(1, opt_.watch_steps);
  for (int n = std::max(1, max_threads);; n /= 2) {
    candidates_.push_back(n);
    if (n == 1) break;
  }
  seconds_.assign(candidates_.size(), 0.0);
  // reserved once: record() allocates nothing while it times or watches
  const size_t per_count = size_t(opt_.windows) * size_t(opt_.samples);
  reference_times_.reserve(per_count);
  challenger_times_.reserve(per_count);
  recent_.reserve(size_t(opt_.watch_steps) + 1);
  sorted_.reserve(std::max(per_count, size_t(opt_.watch_steps) + 1));
  recheck_after_ = opt_.recheck_seconds;
  if (candidates_.size() == 1) {
    settle(0, "the only count this build and machine offer");
    explain(why_, "threads.only", {{"threads", std::to_string(count(0))}}, false);
    return;
  }
  round_start_ = 0;
  direction_ = +1;
  may_turn_ = false;
  compare(0, 1);
  skip_ = opt_.warmup_steps;  // the pool's first steps
  explain("timing " + threads_text(count(0)) + " first", "threads.timing_first", {{"threads", std::to_string(count(0))}}, false);
}

// why_ and its code; with_trigger adds the round's trigger (why it started) to the args
void ThreadTuner::explain(std::string text, std::string_view code, MessageArgs args, bool with_trigger) {
  why_ = std::move(text);
  if (with_trigger) args.insert(args.end(), trigger_args_.begin(), trigger_args_.end());
  Message m = coded(code, std::move(args), why_);
  why_code_ = std::move(m.code);
  why_args_ = std::move(m.args);
}

Message ThreadTuner::reason_message() const { return {why_code_, why_args_, why_}; }

int ThreadTuner::threads() const { return count(current_); }

bool ThreadTuner::measuring() const { return phase_ == Phase::kCompare; }

double ThreadTuner::median_of(const std::vector<double>& xs) {
  sorted_.assign(xs.begin(), xs.end());  // reserved: no allocation per step
  std::sort(sorted_.begin(), sorted_.end());
  const size_t n = sorted_.size();
  return n % 2 ? sorted_[n / 2] : 0.5 * (sorted_[n / 2 - 1] + sorted_[n / 2]);
}

int ThreadTuner::window_candidate(int window) const {
  const int k = window % 4;
  return k == 0 || k == 3 ? reference_ : challenger_;
}

void ThreadTuner::compare(int reference, int challenger) {
  phase_ = Phase::kCompare;
  reference_ = reference;
  challenger_ = challenger;
  reference_times_.clear();
  challenger_times_.clear();
  window_ = 0;
  in_window_ = 0;
  const int first = window_candidate(0);
  if (first != current_) skip_ = opt_.warmup_steps;
  current_ = first;
}

void ThreadTuner::next_window() {
  window_++;
  in_window_ = 0;
  if (window_ >= 2 * opt_.windows) return finish_comparison();
  // a re-check whose challenger is clearly slower after its first windows (R C C) stops there:
  // most re-checks find nothing better, and their challenger steps are the tuner's cost
  if (window_ == 3 && ever_settled_ && median_of(challenger_times_) > kClearlySlower * median_of(reference_times_))
    return finish_comparison();
  const int next = window_candidate(window_);
  if (next != current_) skip_ = opt_.warmup_steps;
  current_ = next;
}

void ThreadTuner::explain_timing() {
  explain("timing " + threads_text(count(challenger_)) + " against " + threads_text(count(reference_)) +
              (trigger_.empty() ? "" : " (" + trigger_ + ")"),
          "threads.timing", {{"threads", std::to_string(count(challenger_))}}, true);
}

int ThreadTuner::record(double step_seconds) {
  steps_++;
  if (phase_ == Phase::kCompare) {
    if (skip_ > 0) {
      skip_--;
      return threads();
    }
    (current_ == reference_ ? reference_times_ : challenger_times_).push_back(step_seconds);
    if (++in_window_ >= opt_.samples) next_window();
    return threads();
  }
  // settled: watch the recent steps
  since_check_ += step_seconds;
  if (skip_ > 0) {
    skip_--;
    return threads();
  }
  recent_.push_back(step_seconds);
  if (int(recent_.size()) > opt_.watch_steps) recent_.erase(recent_.begin());  // the last watch_steps steps
  if (int(recent_.size()) < opt_.watch_steps || candidates_.size() == 1) return threads();
  const double recent = median_of(recent_);
  std::string trigger;
  MessageArgs trigger_args;
  // a slowdown counts once it lasts: the median of the recent steps above the line for
  // watch_steps steps in a row (a burst of disturbed steps passes; another program that stays does not)
  slow_streak_ = recent > opt_.slowdown * settled_seconds_ ? slow_streak_ + 1 : 0;
  if (slow_streak_ >= opt_.watch_steps) {
    trigger = "steps slowed from " + ms_text(settled_seconds_) + " to " + ms_text(recent);
    trigger_args = {{"trigger", "slowed"}, {"from_ms", ms_number(settled_seconds_)}, {"to_ms", ms_number(recent)}};
  } else if (since_check_ >= recheck_after_) {
    trigger = "periodic re-check";
    trigger_args = {{"trigger", "periodic"}};
  }
  if (trigger.empty()) return threads();
  // A new round from the settled count. Steps that slowed (another program took cores) try fewer
  // threads only, and at one thread there is nothing to try: the new pace is the reference then.
  // A periodic re-check tries more threads first (the other program may have gone), then fewer.
  const bool slowed = slow_streak_ >= opt_.watch_steps;
  const bool fewer = settled_ + 1 < int(candidates_.size()), more = settled_ > 0;
  if (slowed && !fewer) {
    settled_seconds_ = recent;
    slow_streak_ = 0;
    return threads();
  }
  trigger_ = trigger;
  trigger_args_ = std::move(trigger_args);
  slowdown_round_ = slowed;
  round_start_ = settled_;
  direction_ = slowed || !more ? +1 : -1;
  may_turn_ = !slowed && fewer && more;
  compare(settled_, settled_ + direction_);
  explain_timing();
  return threads();
}

void ThreadTuner::finish_comparison() {
  const double reference = median_of(reference_times_);
  const double challenger = median_of(challenger_times_);
  seconds_[size_t(reference_)] = reference;
  seconds_[size_t(challenger_)] = challenger;
  if (challenger < reference * (1.0 - opt_.min_gain)) {
    // the challenger wins: it is the reference now; go on the same way if there is further to go
    const int next = challenger_ + direction_;
    if (next >= 0 && next < int(candidates_.size())) {
      compare(challenger_, next);
      explain_timing();
    } else {
      settle(challenger_, trigger_);
    }
  } else if (may_turn_ && reference_ == round_start_) {
    direction_ = -direction_;  // the first way did not pay: try the other neighbour of the start
    may_turn_ = false;
    compare(reference_, reference_ + direction_);
    explain_timing();
  } else {
    settle(reference_, trigger_);
  }
}

void ThreadTuner::settle(int candidate, std::string trigger) {  // by value: trigger_ is cleared below
  const bool changed = candidate != settled_ || !ever_settled_;
  // the periodic re-check's clock: back to recheck_seconds after a change; doubled when a
  // periodic re-check found nothing better; a slowdown that changed nothing leaves it running
  // (it tried fewer threads only, and the other program may still go away)
  if (changed) {
    recheck_after_ = opt_.recheck_seconds;
    since_check_ = 0;
  } else if (!slowdown_round_) {
    recheck_after_ = std::min(recheck_after_ * 2, 8 * opt_.recheck_seconds);
    since_check_ = 0;
  }
  ever_settled_ = true;
  const bool switching = candidate != current_;
  phase_ = Phase::kSettled;
  settled_ = candidate;
  current_ = candidate;
  settled_seconds_ = seconds_[size_t(candidate)];
  slow_streak_ = 0;
  recent_.clear();
  skip_ = switching ? opt_.warmup_steps : 0;
  trigger_.clear();
  if (candidates_.size() == 1) {
    why_ = threads_text(count(candidate)) + ": " + trigger;
    return;
  }
  // the page words the times from these: the chosen count's, then the others' (other_<i>_threads/_ms)
  MessageArgs args = {{"threads", std::to_string(count(candidate))}, {"ms", ms_number(seconds_[size_t(candidate)])},
                      {"step", std::to_string(steps_)}};
  int others = 0;
  for (size_t i = 0; i < candidates_.size(); i++) {
    if (int(i) == candidate || seconds_[i] <= 0) continue;
    args.push_back({"other_" + std::to_string(others) + "_threads", std::to_string(candidates_[i])});
    args.push_back({"other_" + std::to_string(others) + "_ms", ms_number(seconds_[i])});
    others++;
  }
  args.push_back({"others", std::to_string(others)});
  explain(times_line(candidate) + ", chosen at step " + std::to_string(steps_) + (trigger.empty() ? "" : " (" + trigger + ")"),
          "threads.chosen", std::move(args), true);
  trigger_args_.clear();
}

std::string ThreadTuner::times_line(int chosen) const {
  std::string s = threads_text(count(chosen)) + ": " + ms_text(seconds_[size_t(chosen)]) + "/step";
  std::string others;
  for (size_t i = 0; i < candidates_.size(); i++) {
    if (int(i) == chosen || seconds_[i] <= 0) continue;
    if (!others.empty()) others += ", ";
    others += threads_text(candidates_[i]);
    others += ": " + ms_text(seconds_[i]) + "/step";
  }
  return others.empty() ? s : s + " (" + others + ")";
}

std::string ThreadTuner::reason() const { return why_; }

}  // namespace tinygpt
