// threadpool.cpp — a fork-join pool of persistent std::thread workers.
//
// The caller publishes a job (fn, ctx, n) and bumps a generation counter; workers spin
// briefly on the counter and then sleep on a condition variable, so a burst of small
// kernels (a training step issues a few hundred) does not pay a wake-up per kernel.
#include "threadpool.h"

#include <algorithm>
#include <atomic>
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
void run(int n, RangeFn fn, void* ctx) {
  if (n > 0) fn(ctx, 0, n, 0);
}
bool in_parallel_region() { return false; }
void run_on_each_thread(RangeFn fn, void* ctx) { fn(ctx, 0, 1, 0); }

#else

namespace {

thread_local bool tl_in_task = false;

// How long an idle worker polls for the next job before it sleeps (a few hundred microseconds:
// the serial stretches between a step's parallel kernels are shorter, and waking a sleeping
// thread costs tens of microseconds natively and more in a browser).
#ifndef TINYGPT_POOL_SPINS
#define TINYGPT_POOL_SPINS 200000
#endif
constexpr int kSpinsBeforeSleep = TINYGPT_POOL_SPINS;
// A job is cut into about this many chunks per thread.
constexpr int kChunksPerThread = 4;

class Pool {
 public:
  ~Pool() { stop_workers(); }

  int threads() const { return int(workers_.size()) + 1; }

  void resize(int n) {
    if (n == threads()) return;
    stop_workers();
    stop_ = false;
    // Workers start from the current generation: a job published before a worker first runs
    // is still seen as new by it.
    const uint64_t now = generation_.load(std::memory_order_acquire);
    for (int t = 1; t < n; t++) workers_.emplace_back([this, t, now] { worker_loop(t, now); });
  }

  // each_thread: every thread runs exactly the one task with its own index (n = threads)
  void run(int n, RangeFn fn, void* ctx, bool each_thread = false) {
    const int P = threads();
    if (P == 1 || n == 1 || tl_in_task) {
      fn(ctx, 0, n, 0);
      return;
    }
    fn_ = fn;
    ctx_ = ctx;
    n_ = n;
    each_thread_ = each_thread;
    chunk_ = std::max(1, n / (P * kChunksPerThread));
    next_.store(0, std::memory_order_relaxed);
    pending_.store(P - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    work(0);
    // Wait for the workers' chunks (spin: they are short).
    while (pending_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }

 private:
  // Takes chunks of the job until none is left. Chunks are handed out first come, first
  // served, so a thread the OS preempted (a browser's other threads, another program) does not
  // hold up the others at the next barrier.
  void work(int t) {
    tl_in_task = true;
    if (each_thread_) {
      fn_(ctx_, t, t + 1, t);
      tl_in_task = false;
      return;
    }
    for (;;) {
      const int begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
      if (begin >= n_) break;
      fn_(ctx_, begin, std::min(n_, begin + chunk_), t);
    }
    tl_in_task = false;
  }

  void worker_loop(int t, uint64_t seen) {
    for (;;) {
      // Spin a little for the next job, then sleep.
      uint64_t g;
      int spins = 0;
      while ((g = generation_.load(std::memory_order_acquire)) == seen && !stop_.load(std::memory_order_acquire)) {
        if (++spins < kSpinsBeforeSleep) continue;
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(); });
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = g;
      work(t);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> next_{0};  // first task index not yet taken
  int chunk_ = 1;
  bool each_thread_ = false;
  std::atomic<bool> stop_{false};
  RangeFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int n_ = 0;
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

void run(int n, RangeFn fn, void* ctx) {
  if (n <= 0) return;
  pool().run(n, fn, ctx);
}

bool in_parallel_region() { return tl_in_task; }

void run_on_each_thread(RangeFn fn, void* ctx) { pool().run(pool().threads(), fn, ctx, true); }

#endif

}  // namespace tinygpt::tp

