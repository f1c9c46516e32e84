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

// ---- ThreadTuner -----------------------------------------------------------------------------
//
// A measurement times `samples` steps at one count (after `warmup_steps` untimed ones) and keeps
// their median, so a single step disturbed by something else does not decide. A round starts
// from a known count and walks one way (fewer threads first, then more) while each new count is
// at least min_gain faster than the best so far; the round settles on the best.

namespace {
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
  for (int n = std::max(1, max_threads);; n /= 2) {
    candidates_.push_back(n);
    if (n == 1) break;
  }
  seconds_.assign(candidates_.size(), 0.0);
  window_.reserve(size_t(opt_.samples) + 1);
  sorted_.reserve(size_t(opt_.samples) + 1);
  recheck_after_ = opt_.recheck_seconds;
  if (candidates_.size() == 1) {
    settle(0, "the only count this build and machine offer");
    explain(why_, "threads.only", {{"threads", std::to_string(count(0))}}, false);
    return;
  }
  round_start_ = 0;
  round_best_ = -1;
  direction_ = +1;
  measure(0);
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

bool ThreadTuner::measuring() const { return phase_ == Phase::kMeasure; }

double ThreadTuner::window_median() {
  sorted_.assign(window_.begin(), window_.end());  // both reserved: no allocation per step
  std::sort(sorted_.begin(), sorted_.end());
  const size_t n = sorted_.size();
  return n % 2 ? sorted_[n / 2] : 0.5 * (sorted_[n / 2 - 1] + sorted_[n / 2]);
}

void ThreadTuner::measure(int candidate) {
  phase_ = Phase::kMeasure;
  current_ = candidate;
  skip_ = opt_.warmup_steps;
  window_.clear();
}

int ThreadTuner::record(double step_seconds) {
  steps_++;
  if (phase_ == Phase::kMeasure) {
    if (skip_ > 0) {
      skip_--;
      return threads();
    }
    window_.push_back(step_seconds);
    if (int(window_.size()) >= opt_.samples) finish_measurement(window_median());
    return threads();
  }
  // settled: watch the recent steps
  since_check_ += step_seconds;
  if (skip_ > 0) {
    skip_--;
    return threads();
  }
  window_.push_back(step_seconds);
  if (int(window_.size()) > opt_.samples) window_.erase(window_.begin());  // the last `samples` steps
  if (int(window_.size()) < opt_.samples || candidates_.size() == 1) return threads();
  const double recent = window_median();
  std::string trigger;
  MessageArgs trigger_args;
  if (recent > opt_.slowdown * settled_seconds_) {
    trigger = "steps slowed from " + ms_text(settled_seconds_) + " to " + ms_text(recent);
    char from[32], to[32];
    std::snprintf(from, sizeof from, "%.1f", 1000.0 * settled_seconds_);
    std::snprintf(to, sizeof to, "%.1f", 1000.0 * recent);
    trigger_args = {{"trigger", "slowed"}, {"from_ms", from}, {"to_ms", to}};
  } else if (since_check_ >= recheck_after_) {
    trigger = "periodic re-check";
    trigger_args = {{"trigger", "periodic"}};
  }
  if (trigger.empty()) return threads();
  // a new round from the settled count, whose recent steps are a fresh measurement
  seconds_[size_t(settled_)] = recent;
  trigger_ = trigger;
  trigger_args_ = std::move(trigger_args);
  round_start_ = settled_;
  round_best_ = settled_;
  direction_ = +1;
  const int first = settled_ + 1 < int(candidates_.size()) ? settled_ + 1 : settled_ - 1;
  if (first == settled_ - 1) direction_ = -1;
  measure(first);
  explain("timing " + threads_text(count(first)) + " (" + trigger + ")", "threads.timing", {{"threads", std::to_string(count(first))}}, true);
  return threads();
}

void ThreadTuner::finish_measurement(double median_seconds) {
  seconds_[size_t(current_)] = median_seconds;
  if (round_best_ < 0 || median_seconds < seconds_[size_t(round_best_)] * (1.0 - opt_.min_gain))
    round_best_ = current_;
  const bool improved = round_best_ == current_;
  const int next = current_ + direction_;
  const bool next_exists = next >= 0 && next < int(candidates_.size());
  if (improved && next_exists) {  // keep walking this way
    measure(next);
  } else if (direction_ == +1 && round_best_ == round_start_ && round_start_ > 0) {
    direction_ = -1;  // fewer threads did not pay: try more than the start
    measure(round_start_ - 1);
  } else {
    settle(round_best_, trigger_);
    return;
  }
  explain("timing " + threads_text(threads()) + (trigger_.empty() ? "" : " (" + trigger_ + ")"), "threads.timing",
          {{"threads", std::to_string(threads())}}, true);
}

void ThreadTuner::settle(int candidate, std::string trigger) {  // by value: trigger_ is cleared below
  const bool changed = candidate != settled_ || !ever_settled_;
  recheck_after_ = changed || !ever_settled_ ? opt_.recheck_seconds
                                              : std::min(recheck_after_ * 2, 8 * opt_.recheck_seconds);
  ever_settled_ = true;
  const bool switching = candidate != current_;
  phase_ = Phase::kSettled;
  settled_ = candidate;
  current_ = candidate;
  settled_seconds_ = seconds_[size_t(candidate)];
  since_check_ = 0;
  window_.clear();
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
