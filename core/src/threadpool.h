// threadpool.h — persistent workers that split a kernel's loop into contiguous ranges.
//
// run(n, fn, ctx) covers the tasks [0, n) with calls fn(ctx, begin, end, thread) on all threads
// (the caller is thread 0). Threads claim chunks of the range in turn, large ones first and
// smaller ones towards the end (guided scheduling), so a thread that was preempted, or that
// wakes late, does not stall the others: the caller waits only for chunks that were claimed,
// never for an idle thread. Which thread runs a task never changes what the task computes
// (kernels split their work so that every output is computed by one task, in a fixed order;
// `thread` only picks scratch memory): results are bit-identical for any thread count and any
// timing. Dispatch allocates nothing.
// With one thread (the default in a build without threads) it is a plain function call.
// The pool is one per process and not reentrant across callers: drive one training session
// at a time (the CLI and the wasm module do).
#pragma once

#include <cstdint>

namespace tinygpt::tp {

using RangeFn = void (*)(void* ctx, int begin, int end, int thread);

int num_threads();                  // threads that run() uses, including the caller
void set_num_threads(int n);        // 1..256 (more than max_threads() only oversubscribes); starts or stops workers
int max_threads();                  // hardware concurrency (1 where threads are unavailable)
// Runs fn over [0, n) split across the threads, in chunks of at least min_chunk tasks. Called
// from inside a running task (a kernel that is itself split), it runs the whole range on the
// calling thread: no nesting, no deadlock. max_chunk > 0 caps a claim at that many tasks (for
// tasks long enough that a thread descheduled while holding several would stall the others).
void run(int n, RangeFn fn, void* ctx, int min_chunk = 1, int max_chunk = 0);
bool in_parallel_region();          // true inside a task started by run()
// Calls fn(ctx, t, t + 1, t) exactly once on every thread t (for per-thread housekeeping).
void run_on_each_thread(RangeFn fn, void* ctx);
// Gives the core to another thread for a moment (a task waiting for another task of its job).
void yield_thread();
// Counts a parallel_for that ran on the calling thread (tinygpt::pool_stats(), when profiling).
void count_inline_job();

// Below this much work (about multiply-adds) a kernel runs on the calling thread: waking the
// other threads would cost more than it saves (generation's one-token products, for example).
constexpr int64_t kMinParallelWork = int64_t(1) << 15;
// A chunk a thread claims holds at least this much work, so that with many threads the claims
// (one atomic operation each) stay cheap next to the work they hand out.
constexpr int64_t kMinChunkWork = int64_t(1) << 13;

// Convenience wrapper for lambdas: parallel_for(n, [&](int begin, int end, int thread) {...}, work)
// `work` estimates the whole loop's cost in multiply-adds (default: always worth splitting, and
// chunks as small as one task).
template <class F>
void parallel_for(int n, F&& f, int64_t work = INT64_MAX, int max_chunk = 0) {
  if (n <= 0) return;
  if (num_threads() == 1 || n == 1 || work < kMinParallelWork || in_parallel_region()) {
    count_inline_job();
    f(0, n, 0);
    return;
  }
  const int64_t min_chunk = work == INT64_MAX ? 1 : (kMinChunkWork * n + work - 1) / work;
  run(n, [](void* ctx, int b, int e, int t) { (*static_cast<F*>(ctx))(b, e, t); }, &f,
      int(min_chunk < 1 ? 1 : min_chunk > n ? n : min_chunk), max_chunk);
}

}  // namespace tinygpt::tp
