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

// The thread pool's own counters, for finding where threads wait (bench/pool.mjs, the page's
// worker, `seq2seq_bench --profile --threads N`). Off by default: switched on, every split job and every chunk of it reads the
// clock (a few hundred ns each in wasm). Times are summed since reset_pool_stats().
struct PoolStats {
  int threads = 1;          // the pool's thread count when read
  double wall_ms = 0;       // since the reset
  double parallel_ms = 0;   // the caller's time inside split jobs (publish to the last chunk done)
  double barrier_ms = 0;    // part of parallel_ms: the caller, out of chunks, waiting for the others'
  double wake_ms = 0;       // summed over the workers' first claims: publish -> claim latency
  double busy_ms[8] = {};   // time inside tasks, threads 0 (the caller) .. 7
  int64_t jobs = 0;         // run() calls split across threads
  int64_t inline_jobs = 0;  // parallel_for calls run on the caller (too little work, or nested)
  int64_t chunks = 0;       // chunks claimed, all threads
  int64_t joined = 0;       // worker arrivals: a worker claimed at least one chunk of a job
  int64_t sleeps = 0;       // a worker gave up spinning and blocked (futex / Atomics.wait in wasm)
};
void set_pool_profiling(bool on);
bool pool_profiling();
void reset_pool_stats();
PoolStats pool_stats();
// Per-kernel wall time (kernels::set_profiling): every public kernel call adds its time to its
// row while on. kernel_timings() returns the rows with calls (summed since the last read) and
// resets them.
struct KernelTiming {
  std::string name;
  int64_t calls = 0;
  double ms = 0;
};
void set_kernel_profiling(bool on);
std::vector<KernelTiming> kernel_timings();

// Picks the thread count of a training run from the wall time of its steps, so that a run
// never stays on more threads than pay: when another program keeps a core busy, threads that
// wait for that core can make a step slower than one thread would.
//
// It compares two counts at a time, the best so far (the reference) and a neighbour (the
// challenger: half or twice as many), in interleaved windows of a few steps each, in the order
// R C C R R C C R: both counts are timed over the same stretch of time, so a load that comes,
// goes or grows while they are timed weighs on both alike (timing one count after the other
// would credit the first with a quiet moment the second did not get). It decides on the medians
// of all their timed steps, so a few disturbed steps do not decide. It starts with all threads,
// walks to fewer (halving: 16, 8, 4, 2, 1) while the challenger is at least min_gain faster,
// and settles on the best. It keeps watching the settled count: when its steps stay `slowdown`
// times slower (another program started) it tries fewer threads; after a while (the other
// program may have stopped) it tries more, then fewer. Results do not depend on the thread
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
// for given step times (and testable with made-up ones, tests/test_runtime.cpp). record()
// allocates nothing except when it makes a decision (a new reason() text), and switching the
// pool's count back and forth parks and wakes threads without creating them again.
class ThreadTuner {
 public:
  struct Options {
    int warmup_steps = 1;         // steps not timed after the count changes (pool and caches settle)
    int samples = 3;              // timed steps per window
    int windows = 4;              // windows per count in one comparison (R C C R R C C R: 4 each)
    int watch_steps = 5;          // settled: the median of this many recent steps is watched
    double min_gain = 0.05;       // the challenger must be this much faster (median) to be chosen
    double slowdown = 1.3;        // settled steps this many times slower than measured, for
                                  // watch_steps steps in a row: compare again
    double recheck_seconds = 30;  // training time between re-checks of the neighbours; doubles
                                  // while they keep losing (up to 8x), back to this after a change
  };

  explicit ThreadTuner(int max_threads = tinygpt::max_threads());
  ThreadTuner(int max_threads, const Options& options);

  int threads() const;  // the count to run the next step with
  // Records the wall time of the step just run with threads() threads; returns the count for
  // the next step. Steps that are not training steps (evaluation, generation) should not be fed.
  int record(double step_seconds);
  bool measuring() const;     // true while it is comparing counts (false once settled)
  std::string reason() const; // what it chose and why, in one line
  Message reason_message() const;  // the same, coded for the page (threads.*: error.h)

 private:
  enum class Phase { kCompare, kSettled };
  void compare(int reference, int challenger);  // start a comparison of two candidates
  void next_window();
  void finish_comparison();
  void settle(int candidate, std::string trigger);
  int count(int candidate) const { return candidates_[size_t(candidate)]; }
  int window_candidate(int window) const;       // R C C R R C C R ...
  double median_of(const std::vector<double>& xs);
  std::string times_line(int chosen) const;
  void explain_timing();

  Options opt_;
  std::vector<int> candidates_;   // thread counts, most first: max, max/2, ..., 1
  std::vector<double> seconds_;   // last measured median step time per candidate (0: never)
  Phase phase_ = Phase::kCompare;
  int current_ = 0;               // candidate running now
  int settled_ = 0;               // candidate chosen
  bool ever_settled_ = false;
  int reference_ = 0;             // the comparison's two candidates
  int challenger_ = 0;
  int round_start_ = 0;           // the round's first reference
  int direction_ = +1;            // +1: challengers with fewer threads, -1: more
  bool may_turn_ = false;         // the round may try the other way if its first challenger loses
  bool slowdown_round_ = false;   // the round started because the settled steps slowed
  int window_ = 0;                // the comparison's window now, 0 .. 2 * windows - 1
  int in_window_ = 0;             // timed steps in it so far
  std::string trigger_;           // why the current round started (empty: the first round)
  int skip_ = 0;                  // warm-up steps left before timing
  std::vector<double> reference_times_, challenger_times_;  // the comparison's timed steps
  std::vector<double> recent_;    // settled: the last watch_steps step times
  std::vector<double> sorted_;    // scratch for a median
  double settled_seconds_ = 0;    // the settled count's step time when it was chosen
  int slow_streak_ = 0;           // settled: steps in a row whose recent median was `slowdown` too slow
  double since_check_ = 0;        // training seconds since the last periodic re-check (or change)
  double recheck_after_ = 0;      // seconds until the next periodic re-check
  int64_t steps_ = 0;
  std::string why_;               // how the last decision came about
  std::string why_code_;          // its code and args (reason_message)
  MessageArgs why_args_;
  MessageArgs trigger_args_;      // trigger_'s args: {trigger: slowed, from_ms, to_ms} or {trigger: periodic}
  void explain(std::string text, std::string_view code, MessageArgs args, bool with_trigger);
};

}  // namespace tinygpt
