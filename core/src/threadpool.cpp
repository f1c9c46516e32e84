// threadpool.cpp — a fork-join pool of persistent std::thread workers.
//
// A job is published in one atomic word, claim_ = (job generation << 32) | first task not yet
// claimed. Threads claim chunks with a compare-and-swap on that word, so a thread that looks at
// a job that has already been replaced (it woke late) fails its claim and runs nothing. The
// caller counts finished tasks and returns when all n are done: it waits for chunks that were
// claimed, never for a thread that was asleep or preempted and claimed nothing.
//
// Idle workers spin for the next job for a short while (a training step issues a few hundred
// kernels with short serial gaps between them, and waking a sleeping thread costs tens of
// microseconds natively and more in a browser), yielding the core while they spin, and then
// sleep on a condition variable. A worker that notices it was descheduled while spinning (its
// core is busy with another program) goes to sleep at once instead of competing for the core.
#include "threadpool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels.h"
#include "tinygpt/error.h"
#include "tinygpt/runtime.h"

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define TINYGPT_NO_THREADS 1
#endif

namespace tinygpt::tp {

#if defined(TINYGPT_NO_THREADS)

int num_threads() { return 1; }
int max_threads() { return 1; }
void set_num_threads(int n) {
  if (n != 1) throw tinygpt::Error("this build has no threads: thread count must be 1");
}
void run(int n, RangeFn fn, void* ctx, int, int) {
  if (n > 0) fn(ctx, 0, n, 0);
}
bool in_parallel_region() { return false; }
void run_on_each_thread(RangeFn fn, void* ctx) { fn(ctx, 0, 1, 0); }
// one thread: every parallel_for is inline; the counters say so (and nothing else)
namespace {
bool g_profiling = false;
int64_t g_inline_jobs = 0;
}  // namespace
void count_inline_job() {
  if (g_profiling) g_inline_jobs++;
}
void yield_thread() {}
}  // namespace tinygpt::tp

namespace tinygpt {
void set_pool_profiling(bool on) {
  if (on && !tp::g_profiling) tp::g_inline_jobs = 0;
  tp::g_profiling = on;
}
bool pool_profiling() { return tp::g_profiling; }
void reset_pool_stats() { tp::g_inline_jobs = 0; }
PoolStats pool_stats() {
  PoolStats s;
  s.threads = 1;
  s.inline_jobs = tp::g_inline_jobs;
  return s;
}
}  // namespace tinygpt

namespace tinygpt::tp {

#else

namespace {

thread_local bool tl_in_task = false;

using Clock = std::chrono::steady_clock;

// How long an idle worker polls for the next job before it sleeps.
#ifndef TINYGPT_POOL_SPIN_US
#define TINYGPT_POOL_SPIN_US 250
#endif
constexpr auto kSpinTime = std::chrono::microseconds(TINYGPT_POOL_SPIN_US);
// A gap this long between two polls means the OS ran something else on this core: stop spinning.
constexpr auto kPreemptedGap = std::chrono::microseconds(200);
constexpr int kPauseSpins = 64;     // polls with a CPU pause hint before polls start yielding
// Guided chunks: a claim takes 1/(kChunksPerThread * P) of what is left (at least min_chunk).
constexpr int kChunksPerThread = 4;
// The low word of claim_: the next task, or kEachThread for a run_on_each_thread job.
constexpr uint32_t kEachThread = 0x80000000u;
constexpr uint32_t kClosed = 0x7fffffffu;  // a job being described: nothing to claim yet

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// The counters behind tinygpt::pool_stats(): each written by one thread (busy, per thread) or
// by the caller only, except the worker counts (relaxed atomics). One cache line per thread.
struct alignas(64) ThreadCounters {
  std::atomic<int64_t> busy_ns{0};
};
struct Profile {
  std::atomic<bool> on{false};
  std::atomic<int64_t> start_ns{0};
  std::atomic<int64_t> publish_ns{0};  // when the current job was published
  std::atomic<int64_t> parallel_ns{0}, barrier_ns{0}, wake_ns{0};
  std::atomic<int64_t> jobs{0}, inline_jobs{0}, chunks{0}, joined{0}, sleeps{0};
  ThreadCounters threads[8];
  void reset() {
    for (auto* a : {&parallel_ns, &barrier_ns, &wake_ns, &jobs, &inline_jobs, &chunks, &joined, &sleeps})
      a->store(0, std::memory_order_relaxed);
    for (auto& t : threads) t.busy_ns.store(0, std::memory_order_relaxed);
    start_ns.store(now_ns(), std::memory_order_relaxed);
  }
};
Profile g_profile;
inline bool profiling() { return g_profile.on.load(std::memory_order_relaxed); }

inline uint32_t gen_of(uint64_t w) { return uint32_t(w >> 32); }
inline uint32_t low_of(uint64_t w) { return uint32_t(w); }

class Pool {
 public:
  ~Pool() { stop_workers(); }

  int threads() const { return active_.load(std::memory_order_relaxed); }

  // Fewer threads park the extra workers (asleep, keeping their scratch memory); more threads
  // wake them or start new ones. Switching back and forth (the ThreadTuner does) therefore
  // creates no thread and allocates nothing after the first time. Called between jobs only.
  void resize(int n) {
    if (n == threads()) return;
    // Workers start from the current generation: a job published before a worker first runs
    // is still seen as new by it.
    const uint32_t now = gen_;
    for (int t = int(workers_.size()) + 1; t < n; t++) workers_.emplace_back([this, t, now] { worker_loop(t, now); });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      active_.store(n);
      // An empty job: a worker waking from its parking finds this, not the job before it (which
      // it had no part in, and whose context is gone).
      n_.store(0, std::memory_order_relaxed);
      gen_++;
      claim_.store(uint64_t(gen_) << 32);
    }
    cv_.notify_all();  // parked workers that are active again stop sleeping
  }

  void run(int n, RangeFn fn, void* ctx, int min_chunk, int max_chunk, bool each_thread) {
    const int P = threads();
    if (P == 1 || (n == 1 && !each_thread) || tl_in_task) {
      count_inline_job();
      if (each_thread) fn(ctx, 0, 1, 0);
      else fn(ctx, 0, n, 0);
      return;
    }
    if (each_thread) n = P;
    const bool prof = profiling();
    const int64_t t0 = prof ? now_ns() : 0;
    if (prof) g_profile.publish_ns.store(t0, std::memory_order_relaxed);
    // Close the last job's claims before its description changes. A worker that read the last
    // job's claim word late could otherwise claim a task past its end (its size read from this
    // job) while the word still held the last job's generation, and run it with this job's
    // function and context, adding to this job's done count: the caller then returned while a
    // task still ran (a trap in a pool thread of the page, about once in 30 minutes; the test
    // "a worker that reads a job late never runs another job's task"). A closed generation has
    // nothing to claim (next >= n), older ones fail their compare-exchange, and the fields are
    // released after the close: a worker that reads a new value also sees the word closed.
    gen_++;
    claim_.store(uint64_t(gen_) << 32 | kClosed);
    fn_.store(fn, std::memory_order_release);
    ctx_.store(ctx, std::memory_order_release);
    n_.store(n, std::memory_order_release);
    min_chunk_.store(std::max(1, min_chunk), std::memory_order_release);
    max_chunk_.store(max_chunk > 0 ? max_chunk : n, std::memory_order_release);
    done_.store(0, std::memory_order_release);
    gen_++;
    // seq_cst: ordered before the sleepers_ check below (a worker going to sleep does the mirror
    // image: sleepers_ first, then claim_), so a sleeping worker is always woken
    claim_.store(uint64_t(gen_) << 32 | (each_thread ? kEachThread : 0u));
    if (sleepers_.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      cv_.notify_all();
    }
    work(0, gen_);
    const int64_t t1 = prof ? now_ns() : 0;
    // Wait for the chunks other threads claimed (they are short: spin, then yield the core).
    for (int spins = 0; done_.load(std::memory_order_acquire) < n; spins++) {
      if (spins < kPauseSpins) cpu_relax();
      else std::this_thread::yield();
    }
    if (prof) {
      const int64_t t2 = now_ns();
      g_profile.parallel_ns.fetch_add(t2 - t0, std::memory_order_relaxed);
      g_profile.barrier_ns.fetch_add(t2 - t1, std::memory_order_relaxed);
      g_profile.jobs.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  // Runs chunks of job `gen` until none is left to claim (or the job was replaced).
  void work(int t, uint32_t gen) {
    if (t >= threads()) return;  // parked
    uint64_t w = claim_.load(std::memory_order_acquire);
    if (gen_of(w) != gen) return;
    const RangeFn fn = fn_.load(std::memory_order_acquire);
    void* const ctx = ctx_.load(std::memory_order_acquire);
    const bool prof = profiling();
    bool joined = false;  // this thread claimed a chunk of the job
    tl_in_task = true;
    if (low_of(w) == kEachThread) {
      // every thread's own task; the caller waits for all of them, so this job is still current
      fn(ctx, t, t + 1, t);
      done_.fetch_add(1, std::memory_order_release);
      tl_in_task = false;
      return;
    }
    const int n = n_.load(std::memory_order_acquire);
    const int min_chunk = min_chunk_.load(std::memory_order_acquire);
    const int max_chunk = max_chunk_.load(std::memory_order_acquire);
    const int parts = kChunksPerThread * threads();
    for (;;) {
      if (gen_of(w) != gen) break;  // replaced: what we read above may belong to another job
      const int next = int(low_of(w));
      if (next >= n) break;
      const int left = n - next;
      const int chunk = std::min({left, max_chunk, std::max(min_chunk, (left + parts - 1) / parts)});
      if (!claim_.compare_exchange_weak(w, w + uint64_t(chunk), std::memory_order_acq_rel,
                                        std::memory_order_acquire))
        continue;  // w now holds the current word
      // A successful claim means job `gen` is open and unfinished (never closed since): fn, ctx
      // and n above are its own.
      if (prof) {
        const int64_t a = now_ns();
        if (!joined && t > 0) {
          joined = true;
          g_profile.joined.fetch_add(1, std::memory_order_relaxed);
          g_profile.wake_ns.fetch_add(std::max<int64_t>(0, a - g_profile.publish_ns.load(std::memory_order_relaxed)),
                                      std::memory_order_relaxed);
        }
        fn(ctx, next, next + chunk, t);
        if (t < 8) g_profile.threads[t].busy_ns.fetch_add(now_ns() - a, std::memory_order_relaxed);
        g_profile.chunks.fetch_add(1, std::memory_order_relaxed);
      } else {
        fn(ctx, next, next + chunk, t);
      }
      done_.fetch_add(chunk, std::memory_order_release);
      w = claim_.load(std::memory_order_acquire);
    }
    tl_in_task = false;
  }

  // Returns once claim_ holds a job newer than `seen` (its generation) or the pool stops. A
  // parked worker (t >= the active count) sleeps until it is active again.
  uint32_t wait_for_job(int t, uint32_t seen) {
    auto last = Clock::now();
    const auto deadline = last + kSpinTime;
    for (int spins = 0; t < threads(); spins++) {
      const uint64_t w = claim_.load(std::memory_order_acquire);
      if (gen_of(w) != seen || stop_.load(std::memory_order_relaxed)) return gen_of(w);
      if (spins < kPauseSpins) {
        cpu_relax();
        continue;
      }
      std::this_thread::yield();
      const auto now = Clock::now();
      if (now > deadline || now - last > kPreemptedGap) break;
      last = now;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (profiling() && t < threads()) g_profile.sleeps.fetch_add(1, std::memory_order_relaxed);
    sleepers_.fetch_add(1);
    while ((gen_of(claim_.load()) == seen || t >= threads()) && !stop_.load()) cv_.wait(lock);
    sleepers_.fetch_sub(1);
    return gen_of(claim_.load(std::memory_order_acquire));
  }

  void worker_loop(int t, uint32_t seen) {
    for (;;) {
      seen = wait_for_job(t, seen);
      if (stop_.load(std::memory_order_acquire)) return;
      work(t, seen);
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true);
    }
    cv_.notify_all();
    for (std::thread& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<uint64_t> claim_{0};  // (job generation << 32) | next task to claim (or kEachThread)
  std::atomic<int> done_{0};        // tasks of the current job finished
  std::atomic<int> sleepers_{0};    // workers blocked on cv_
  std::atomic<bool> stop_{false};
  std::atomic<int> active_{1};      // threads that take part in jobs (the caller and workers 1..active-1)
  // the current job (written by the caller before it publishes claim_)
  std::atomic<RangeFn> fn_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<int> n_{0};
  std::atomic<int> min_chunk_{1};
  std::atomic<int> max_chunk_{1};
  uint32_t gen_ = 0;  // the caller's count of jobs published
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int num_threads() { return pool().threads(); }

int max_threads() {
  unsigned hc = std::thread::hardware_concurrency();
  return hc ? int(hc) : 1;
}

void set_num_threads(int n) {
  if (n < 1 || n > 256) throw tinygpt::Error("thread count must be between 1 and 256, got " + std::to_string(n));
  pool().resize(n);
}

void run(int n, RangeFn fn, void* ctx, int min_chunk, int max_chunk) {
  if (n <= 0) return;
  pool().run(n, fn, ctx, min_chunk, max_chunk, false);
}

bool in_parallel_region() { return tl_in_task; }

void run_on_each_thread(RangeFn fn, void* ctx) { pool().run(pool().threads(), fn, ctx, 1, 0, true); }

void yield_thread() { std::this_thread::yield(); }

void count_inline_job() {
  if (profiling()) g_profile.inline_jobs.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace tinygpt::tp

namespace tinygpt {

void set_pool_profiling(bool on) {
  if (on && !tp::profiling()) tp::g_profile.reset();
  tp::g_profile.on.store(on);
}
bool pool_profiling() { return tp::profiling(); }
void reset_pool_stats() { tp::g_profile.reset(); }

PoolStats pool_stats() {
  using tp::g_profile;
  PoolStats s;
  constexpr double ms = 1e-6;
  s.threads = tp::num_threads();
  s.wall_ms = double(tp::now_ns() - g_profile.start_ns.load()) * ms;
  s.parallel_ms = double(g_profile.parallel_ns.load()) * ms;
  s.barrier_ms = double(g_profile.barrier_ns.load()) * ms;
  s.wake_ms = double(g_profile.wake_ns.load()) * ms;
  for (int t = 0; t < 8; t++) s.busy_ms[t] = double(g_profile.threads[t].busy_ns.load()) * ms;
  s.jobs = g_profile.jobs.load();
  s.inline_jobs = g_profile.inline_jobs.load();
  s.chunks = g_profile.chunks.load();
  s.joined = g_profile.joined.load();
  s.sleeps = g_profile.sleeps.load();
  return s;
}

}  // namespace tinygpt

namespace tinygpt::tp {

#endif

}  // namespace tinygpt::tp

