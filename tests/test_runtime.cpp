// test_runtime.cpp — the ThreadTuner's decisions, fed with made-up step times (no clocks, no
// threads: every run of these tests makes the same decisions); at the end, the thread pool's
// counters (counts only).
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>
#include <string>

#include "kernels.h"
#include "threadpool.h"
#include "tinygpt/runtime.h"

using namespace tinygpt;

namespace {

// Runs `steps` steps, each taking seconds_for(threads) for the count the tuner asks for; returns
// the total time.
double drive(ThreadTuner& tuner, int steps, const std::function<double(int)>& seconds_for) {
  double total = 0;
  for (int i = 0; i < steps; i++) {
    const double s = seconds_for(tuner.threads());
    total += s;
    tuner.record(s);
  }
  return total;
}

std::function<double(int)> table(std::map<int, double> ms) {
  return [ms](int threads) { return ms.at(threads) / 1000.0; };
}

}  // namespace

TEST_CASE("the thread tuner keeps two threads when they are faster", "[runtime]") {
  ThreadTuner tuner(2);
  CHECK(tuner.threads() == 2);  // starts with all of them
  CHECK(tuner.measuring());
  drive(tuner, 40, table({{2, 25.0}, {1, 40.0}}));
  CHECK_FALSE(tuner.measuring());
  CHECK(tuner.threads() == 2);
  CHECK(tuner.reason().find("2 threads: 25.0 ms/step (1 thread: 40.0 ms/step)") != std::string::npos);
}

TEST_CASE("the thread tuner drops to one thread when another program holds a core", "[runtime]") {
  ThreadTuner tuner(2);
  drive(tuner, 40, table({{2, 60.0}, {1, 40.0}}));
  CHECK(tuner.threads() == 1);
  CHECK(tuner.reason().find("1 thread: 40.0 ms/step (2 threads: 60.0 ms/step)") != std::string::npos);
}

TEST_CASE("fewer threads must be clearly faster to be chosen", "[runtime]") {
  ThreadTuner tuner(2);
  drive(tuner, 40, table({{2, 25.0}, {1, 24.5}}));  // 2% faster: within min_gain (5%)
  CHECK(tuner.threads() == 2);
}

TEST_CASE("the thread tuner follows a busy core that comes and goes", "[runtime]") {
  ThreadTuner tuner(2);
  const auto quiet = table({{2, 25.0}, {1, 40.0}});
  const auto busy = table({{2, 60.0}, {1, 40.0}});
  drive(tuner, 100, quiet);
  REQUIRE(tuner.threads() == 2);
  // another program takes a core: within a few steps the tuner notices and compares again
  // (5 steps to see the slowdown, then a comparison: 2 x 4 windows of 3 steps and the warm-ups)
  drive(tuner, 60, busy);
  CHECK(tuner.threads() == 1);
  CHECK(tuner.reason().find("steps slowed from 25.0 ms to 60.0 ms") != std::string::npos);
  // it stops again: a periodic re-check (after 30 s of training, 750 steps of 40 ms) goes back
  drive(tuner, 800, quiet);
  CHECK(tuner.threads() == 2);
  CHECK(tuner.reason().find("periodic re-check") != std::string::npos);
}

TEST_CASE("with a core taken the tuned run stays within 0.9x of one thread", "[runtime]") {
  // the contended machine of the issue: one thread 40 ms/step, two threads much slower
  ThreadTuner tuner(2);
  const int steps = 5000;
  const double total = drive(tuner, steps, table({{2, 100.0}, {1, 40.0}}));
  const double one_thread = steps * 0.040;
  INFO("tuned " << total << " s, one thread " << one_thread << " s");
  CHECK(one_thread / total >= 0.9);  // the re-checks at two threads cost less than 10%
  CHECK(tuner.threads() == 1);
}

TEST_CASE("the thread tuner finds the fastest of many counts", "[runtime]") {
  SECTION("an optimum in the middle") {
    ThreadTuner tuner(16);
    CHECK(tuner.threads() == 16);
    drive(tuner, 100, table({{16, 30.0}, {8, 20.0}, {4, 22.0}, {2, 35.0}, {1, 60.0}}));
    CHECK(tuner.threads() == 8);
  }
  SECTION("all the way down") {
    ThreadTuner tuner(16);
    drive(tuner, 200, table({{16, 90.0}, {8, 70.0}, {4, 50.0}, {2, 45.0}, {1, 40.0}}));
    CHECK(tuner.threads() == 1);
  }
  SECTION("counts that are not powers of two halve downwards") {
    ThreadTuner tuner(12);
    drive(tuner, 100, table({{12, 30.0}, {6, 20.0}, {3, 25.0}, {1, 60.0}}));
    CHECK(tuner.threads() == 6);
  }
  SECTION("back up when a re-check finds more threads faster") {
    ThreadTuner tuner(16);
    drive(tuner, 200, table({{16, 90.0}, {8, 70.0}, {4, 50.0}, {2, 45.0}, {1, 40.0}}));
    REQUIRE(tuner.threads() == 1);
    // the other programs stop: periodic re-checks climb back to 16
    drive(tuner, 20000, table({{16, 10.0}, {8, 14.0}, {4, 20.0}, {2, 30.0}, {1, 40.0}}));
    CHECK(tuner.threads() == 16);
  }
}

TEST_CASE("a few slow steps do not move the thread tuner", "[runtime]") {
  ThreadTuner tuner(2);
  int step = 0;
  drive(tuner, 300, [&](int threads) {
    step++;
    const double ms = threads == 2 ? 25.0 : 40.0;
    return (step % 10 == 0 ? 5 * ms : ms) / 1000.0;  // every tenth step is disturbed
  });
  CHECK(tuner.threads() == 2);
}

TEST_CASE("with one thread available the tuner has nothing to measure", "[runtime]") {
  ThreadTuner tuner(1);
  CHECK(tuner.threads() == 1);
  CHECK_FALSE(tuner.measuring());
  drive(tuner, 50, table({{1, 40.0}}));
  CHECK(tuner.threads() == 1);
  CHECK(tuner.reason().find("1 thread") != std::string::npos);
}

// ---- noise: the tuner against step times that lie ------------------------------------------------
//
// A "world" gives the time of step i at a thread count: the count's true speed times what the rest
// of the machine does to it at that moment. The tuner only sees the times of the counts it runs;
// the same world also gives what every fixed count would have taken, step for step.

namespace {

using World = std::function<double(int threads, int step)>;

struct Outcome {
  double tuned = 0;                  // seconds, the tuner choosing
  std::map<int, double> fixed;       // seconds at each fixed count
  double best_fixed() const {
    double b = 1e300;
    for (const auto& [n, s] : fixed) b = std::min(b, s);
    return b;
  }
};

Outcome race(int max_threads, int steps, const World& world) {
  ThreadTuner tuner(max_threads);
  Outcome o;
  for (int i = 0; i < steps; i++) {
    const double s = world(tuner.threads(), i);
    o.tuned += s;
    tuner.record(s);
  }
  for (int n = max_threads;; n /= 2) {
    for (int i = 0; i < steps; i++) o.fixed[n] += world(n, i);
    if (n == 1) break;
  }
  return o;
}

// A uniform number in [0, 1) from std::mt19937 (whose sequence the standard fixes: the same here and in wasm).
double uniform(std::mt19937& rng) { return double(rng()) / 4294967296.0; }

}  // namespace

TEST_CASE("the tuner times both counts in interleaved windows: R C C R R C C R", "[runtime]") {
  ThreadTuner tuner(2);
  std::string seen;
  for (int i = 0; i < 29; i++) {
    seen += char('0' + tuner.threads());
    tuner.record(tuner.threads() == 2 ? 0.025 : 0.040);
  }
  // a warm-up step at each change of count, then 3 timed steps per window
  CHECK(seen == "2222" "1111111" "2222222" "1111111" "2222");
  CHECK_FALSE(tuner.measuring());
  CHECK(tuner.threads() == 2);
}

TEST_CASE("a load that fades while the tuner times does not pass for the faster count", "[runtime]") {
  // two threads are truly faster (25 vs 40 ms), but the machine starts 3x loaded and calms down
  // over the first 12 steps: timing 2 threads first and 1 thread after would see 2 threads at
  // ~65 ms and 1 thread at ~60 ms and keep the wrong one
  const World fading = [](int threads, int step) {
    const double load = step < 12 ? 3.0 - 2.0 * step / 12.0 : 1.0;
    return (threads == 2 ? 0.025 : 0.040) * load;
  };
  ThreadTuner tuner(2);
  for (int i = 0; i < 60; i++) tuner.record(fading(tuner.threads(), i));
  CHECK(tuner.threads() == 2);
  // and the mirror image: the load grows while it times, one thread truly faster
  const World growing = [](int threads, int step) {
    const double load = 1.0 + 0.05 * step;
    return (threads == 2 ? 0.060 : 0.040) * load;
  };
  ThreadTuner other(2);
  for (int i = 0; i < 60; i++) other.record(growing(other.threads(), i));
  CHECK(other.threads() == 1);
}

TEST_CASE("under a busy core and bursts of other load the tuned run keeps 0.9x of one thread", "[runtime]") {
  // the contended machine of issue 27: one core busy (2 threads 100 ms, 1 thread 40 ms), and
  // other programs coming and going in bursts of 5 to 60 steps that slow every step 1.5 to 3x (300 seeds)
  for (uint32_t seed = 1; seed <= 300; seed++) {
    std::mt19937 rng(seed);
    std::vector<double> load(6000, 1.0);
    for (size_t i = 0; i < load.size();) {
      const size_t quiet = 5 + size_t(uniform(rng) * 60), burst = 5 + size_t(uniform(rng) * 55);
      const double factor = 1.5 + 1.5 * uniform(rng);
      for (size_t k = i + quiet; k < std::min(load.size(), i + quiet + burst); k++) load[k] = factor;
      i += quiet + burst;
    }
    const World world = [&](int threads, int step) { return (threads == 2 ? 0.100 : 0.040) * load[size_t(step)]; };
    const Outcome o = race(2, 5000, world);
    INFO("seed " << seed << ": tuned " << o.tuned << " s, one thread " << o.fixed.at(1) << " s");
    CHECK(o.fixed.at(1) / o.tuned >= 0.9);
  }
}

TEST_CASE("with heavy-tailed noise on every step the tuner stays within 0.9x of the best fixed count", "[runtime]") {
  // each step: 10% of them disturbed 1.5 to 5x, and a slow random walk of the machine's load (1 to
  // 2x, +-1.5% a step); the
  // fastest count is drawn per seed (the others 1.25 to 2x slower per halving), with 2, 4 or 16 threads available
  int checked = 0;
  // (medians have their limit: with 30% of the steps disturbed, some comparisons see most of one
  // count's 12 steps disturbed, and some seeds fall well below 0.9x)
  for (uint32_t seed = 1; seed <= 300; seed++) {
    std::mt19937 rng(seed);
    const int max = seed % 3 == 0 ? 16 : seed % 3 == 1 ? 2 : 4;
    std::map<int, double> speed;   // seconds per step at each count, quiet: each halving away from
    const int best = 1 << int(uniform(rng) * (max == 16 ? 5 : max == 4 ? 3 : 2));   // the best one costs 1.25 to 2x
    const double gap = 1.25 + 0.75 * uniform(rng);
    for (int n = max;; n /= 2) {
      speed[n] = 0.030 * std::pow(gap, std::abs(std::log2(double(n)) - std::log2(double(best))));
      if (n == 1) break;
    }
    std::vector<double> noise(4000), walk(4000);
    double w = 1.0;
    for (size_t i = 0; i < noise.size(); i++) {
      noise[i] = uniform(rng) < 0.1 ? 1.5 + 3.5 * uniform(rng) : 1.0;
      w = std::clamp(w * (0.985 + 0.03 * uniform(rng)), 1.0, 2.0);
      walk[i] = w;
    }
    const World world = [&](int threads, int step) { return speed.at(threads) * noise[size_t(step)] * walk[size_t(step)]; };
    const Outcome o = race(max, 4000, world);
    INFO("seed " << seed << ", " << max << " threads, fastest " << best << ": tuned " << o.tuned << " s, best fixed " << o.best_fixed() << " s");
    CHECK(o.best_fixed() / o.tuned >= 0.9);
    checked++;
  }
  CHECK(checked == 300);
}

// The pool's counters (tinygpt::pool_stats): they count only while switched on, and count split
// jobs, chunks and parallel_for calls run inline; times are only checked for consistency (no
// timed assertions).

TEST_CASE("the pool's counters count split jobs, chunks and inline calls only while on", "[runtime][threads]") {
  const int saved = tinygpt::num_threads();
  tinygpt::set_num_threads(tinygpt::max_threads() > 1 ? 2 : 1);
  const bool split = tinygpt::num_threads() > 1;
  std::vector<float> x(1 << 16, 1.0f);
  auto job = [&] {
    tinygpt::tp::parallel_for(64, [&](int b, int e, int) {
      for (int i = b * 1024; i < e * 1024; i++) x[size_t(i)] = x[size_t(i)] * 0.5f + 1.0f;
    });
  };
  tinygpt::set_pool_profiling(false);
  job();
  tinygpt::set_pool_profiling(true);  // resets
  CHECK(tinygpt::pool_profiling());
  job();
  job();
  tinygpt::tp::parallel_for(8, [&](int, int, int) {}, 100);  // too little work: inline
  const tinygpt::PoolStats s = tinygpt::pool_stats();
  tinygpt::set_pool_profiling(false);
  job();  // off: not counted
  const tinygpt::PoolStats after = tinygpt::pool_stats();
  CHECK(s.threads == tinygpt::num_threads());
  CHECK(s.jobs == (split ? 2 : 0));
  CHECK(s.inline_jobs == (split ? 1 : 3));
  if (split) {
    CHECK(s.chunks >= 2);
    CHECK(s.chunks <= 128);
    CHECK(s.joined <= s.jobs);
  }
  CHECK(s.parallel_ms >= s.barrier_ms);
  CHECK(s.barrier_ms >= 0);
  CHECK(s.wall_ms >= s.parallel_ms);
  CHECK(after.jobs == s.jobs);
  CHECK(after.chunks == s.chunks);
  CHECK(after.inline_jobs == s.inline_jobs);
  tinygpt::set_num_threads(saved);
}

// kernels::set_profiling(on, cpu_time): natively each call adds its thread's CPU time; wasm has
// no per-thread CPU clock (Emscripten's clock_gettime fails for it, and the times were garbage
// from an unset timespec), so there asking for it fails with a message and changes nothing.
TEST_CASE("kernel timings by CPU time: counted natively, refused with a message in wasm", "[runtime]") {
  std::vector<float> a(64 * 64, 0.5f), b(64 * 64, 0.25f), c(64 * 64);  // (64, 64) each
  auto product = [&] { kernels::sgemm(false, false, 64, 64, 64, a.data(), 64, b.data(), 64, c.data(), 64, false); };
  auto sgemm_row = [] {
    for (const kernels::KernelTime& t : kernels::kernel_times())
      if (std::string(t.name) == "sgemm") return t;
    return kernels::KernelTime{"sgemm", -1, -1.0};
  };
  kernels::kernel_times();  // reset
#if defined(__EMSCRIPTEN__)
  CHECK_FALSE(kernels::has_thread_cpu_clock());
  CHECK_THROWS_WITH(kernels::set_profiling(true, true), Catch::Contains("no per-thread CPU clock"));
  CHECK_FALSE(kernels::profiling_cpu_time());
  product();  // profiling stayed off
  CHECK(sgemm_row().calls == 0);
#else
  CHECK(kernels::has_thread_cpu_clock());
  kernels::set_profiling(true, true);
  CHECK(kernels::profiling_cpu_time());
  for (int i = 0; i < 3; i++) product();
  kernels::set_profiling(false);
  const kernels::KernelTime t = sgemm_row();
  CHECK(t.calls == 3);
  CHECK(t.seconds >= 0.0);
  CHECK(t.seconds < 1.0);  // 3 products of 0.5 MFLOP: microseconds, not an unset clock's garbage
  CHECK(c[0] == 64 * 0.5f * 0.25f);
#endif
  // the wall clock works everywhere
  kernels::set_profiling(true);
  CHECK_FALSE(kernels::profiling_cpu_time());
  product();
  kernels::set_profiling(false);
  CHECK(sgemm_row().calls == 1);
}

// The pool hands a job's tasks out by generation: a worker that read a job's description late
// (the job already finished, the next one being published, or the thread count changed) must
// never run a task of one job with another job's function, context or size. Jobs of three kinds
// alternate (sizes 7 and 997, with and without a cap on the chunk, with a larger least chunk);
// every task checks the context it was given and counts itself, and a job's context is marked
// gone once its job returned. The stale claim this catches ran about once in 30 minutes of
// training in the page (a trap in a pool thread, in layernorm_forward's task,
// docs/reliability.md); with more threads than cores, preempted workers wake at the worst
// moments, so it shows within these jobs.
namespace {
struct StressJob {
  volatile uint32_t tag;  // 0 once its job returned
  int n;
  std::vector<int>* hits;
  std::atomic<int>* bad;
};
template <uint32_t Tag>
void stress_task(void* ctx, int b, int e, int) {
  auto* j = static_cast<StressJob*>(ctx);
  if (j->tag != Tag || b < 0 || e > j->n || b >= e) {
    j->bad->fetch_add(1);
    return;
  }
  for (int i = b; i < e; i++) (*j->hits)[size_t(i)]++;
}
}  // namespace

TEST_CASE("a worker that reads a job late never runs another job's task", "[runtime][threads]") {
  const int saved = tinygpt::num_threads();
  // more threads than cores (2 here): workers are preempted mid-claim (a build without threads: 1)
  tinygpt::set_num_threads(tinygpt::max_threads() > 1 ? 3 : 1);
  std::atomic<int> bad{0};
  int missed = 0;
  std::vector<int> hits_a(7), hits_b(997), hits_c(997);
  // the jobs' contexts outlive the loop: a finished job's is marked gone (tag 0), so a task run
  // after its job returned counts as bad (in real code its context would be a dead stack frame)
  StressJob a{0, 7, &hits_a, &bad}, b{0, 997, &hits_b, &bad}, c{0, 997, &hits_c, &bad};
  for (int round = 0; round < 100000 && bad.load() == 0 && missed == 0; round++) {
    // now and then a count of threads parks a worker and wakes it again: a worker that wakes
    // from its parking finds an empty job, never the last one's tasks
    if (round % 64 == 0 && tinygpt::max_threads() > 1) tinygpt::set_num_threads(round % 128 == 0 ? 2 : 3);
    std::fill(hits_a.begin(), hits_a.end(), 0);
    a.tag = 0xA;
    tinygpt::tp::run(a.n, stress_task<0xA>, &a);
    a.tag = 0;
    std::fill(hits_b.begin(), hits_b.end(), 0);
    b.tag = 0xB;
    tinygpt::tp::run(b.n, stress_task<0xB>, &b, 1, 3);
    b.tag = 0;
    // the same size in chunks of at least 5 tasks
    std::fill(hits_c.begin(), hits_c.end(), 0);
    c.tag = 0xC;
    tinygpt::tp::run(c.n, stress_task<0xC>, &c, 5);
    c.tag = 0;
    for (int h : hits_a) missed += h != 1;
    for (int h : hits_b) missed += h != 1;
    for (int h : hits_c) missed += h != 1;
    if (missed || bad.load()) {
      std::string a_hits;
      for (int h : hits_a) a_hits += std::to_string(h) + " ";
      int zero = 0, twice = 0;
      for (int h : hits_b) zero += h == 0, twice += h > 1;
      INFO("round " << round << ", job A's hits: " << a_hits << "; job B: " << zero << " tasks not run, " << twice << " run more than once; bad contexts " << bad.load());
      CHECK(missed == 0);
    }
  }
  CHECK(bad.load() == 0);
  CHECK(missed == 0);
  tinygpt::set_num_threads(saved);
}
