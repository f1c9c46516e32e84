// runtime.h — what the build can do and how many threads it uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/error.h"

namespace tinygpt {

const char* simd_backend();  // "avx512", "avx2", "sse2", "simd128", "neon" or "scalar"
int max_threads();           // hardware threads available (1 in a build without threads)
int num_threads();           // threads the kernels use now (default 1)
void set_num_threads(int n); // 1 .. 256; throws tinygpt::Error otherwise (or if the build has no threads)

// Picks the thread count of a training run from the wall time of its steps, so that a run
// never stays on more threads than pay: when another program keeps a core busy, threads that
// wait for that core can make a step slower than one thread would.
//
// It starts with all threads, then times fewer (halving: 16, 8, 4, 2, 1) while that is faster,
// and settles on the fastest. It keeps watching the settled count: when its steps get
// `slowdown` times slower (another program started) or after a while (the other program may
// have stopped), it times the neighbouring counts again. Results do not depend on the thread
// count (the kernels are bit-identical across counts), so switching never changes training.
//
//   ThreadTuner tuner;                         // candidates 1 .. max_threads()
//   set_num_threads(tuner.threads());
//   for (each training step) {
//     const double seconds = ...;              // wall time of trainer.step() alone
//     const int next = tuner.record(seconds);
//     if (next != num_threads()) set_num_threads(next);
//   }
//   tuner.reason();  // "2 threads: 25.0 ms/step (1 thread: 40.0 ms/step)"
//
// Pure bookkeeping: it never reads a clock or changes the pool itself, so it is deterministic
// for given step times (and testable with made-up ones). record() allocates nothing except when
// it makes a decision (a new reason() text), and switching the pool's count back and forth
// parks and wakes threads without creating them again.
class ThreadTuner {
 public:
  struct Options {
    int warmup_steps = 1;         // steps not timed after the count changes (pool and caches settle)
    int samples = 5;              // steps timed per measurement; their median counts
    double min_gain = 0.05;       // fewer or more threads must be this much faster to be chosen
    double slowdown = 1.3;        // settled steps this many times slower than measured: time again
    double recheck_seconds = 30;  // training time between re-checks of the neighbours; doubles
                                  // while they keep losing (up to 8x), back to this after a change
  };

  explicit ThreadTuner(int max_threads = tinygpt::max_threads());
  ThreadTuner(int max_threads, const Options& options);

  int threads() const;  // the count to run the next step with
  // Records the wall time of the step just run with threads() threads; returns the count for
  // the next step. Steps that are not training steps (evaluation, generation) should not be fed.
  int record(double step_seconds);
  bool measuring() const;     // true while it is timing a count (false once settled)
  std::string reason() const; // what it chose and why, in one line
  Message reason_message() const;  // the same, coded for the page (threads.*: error.h)

 private:
  enum class Phase { kMeasure, kSettled };
  void measure(int candidate);      // start timing candidates_[candidate]
  void finish_measurement(double median);
  void settle(int candidate, std::string trigger);
  int count(int candidate) const { return candidates_[size_t(candidate)]; }
  double window_median();
  std::string times_line(int chosen) const;

  Options opt_;
  std::vector<int> candidates_;   // thread counts, most first: max, max/2, ..., 1
  std::vector<double> seconds_;   // last measured median step time per candidate (0: never)
  Phase phase_ = Phase::kMeasure;
  int current_ = 0;               // candidate running now
  int settled_ = 0;               // candidate chosen
  bool ever_settled_ = false;
  int round_start_ = 0;           // the round's first candidate
  int round_best_ = -1;           // the fastest candidate of the round so far
  int direction_ = +1;            // +1: trying fewer threads next, -1: more
  std::string trigger_;           // why the current round started (empty: the first round)
  int skip_ = 0;                  // warm-up steps left before timing
  std::vector<double> window_;    // step times of the current measurement, or recent settled steps
  std::vector<double> sorted_;    // window_ sorted, for its median
  double settled_seconds_ = 0;    // the settled count's step time when it was chosen
  double since_check_ = 0;        // training seconds since the last re-check
  double recheck_after_ = 0;      // seconds until the next periodic re-check
  int64_t steps_ = 0;
  std::string why_;               // how the last decision came about
  std::string why_code_;          // its code and args (reason_message)
  MessageArgs why_args_;
  MessageArgs trigger_args_;      // trigger_'s args: {trigger: slowed, from_ms, to_ms} or {trigger: periodic}
  void explain(std::string text, std::string_view code, MessageArgs args, bool with_trigger);
};

}  // namespace tinygpt
