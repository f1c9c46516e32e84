// threadpool.h — persistent workers that split a kernel's loop into contiguous ranges.
//
// run(n, fn) covers the tasks [0, n) with calls fn(begin, end, thread) on all threads (the
// caller is thread 0). The range is cut into chunks that idle threads take in turn, so a
// thread that was preempted does not stall the others. Which thread runs a task never changes
// what the task computes (kernels split their work so that every output is computed by one
// task, in a fixed order; `thread` only picks scratch memory): results are bit-identical for
// any thread count and any timing. Dispatch allocates nothing.
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
// Runs fn over [0, n) split across the threads. Called from inside a running task (a kernel
// that is itself split), it runs the whole range on the calling thread: no nesting, no deadlock.
void run(int n, RangeFn fn, void* ctx);
bool in_parallel_region();          // true inside a task started by run()
// Calls fn(ctx, t, t + 1, t) exactly once on every thread t (for per-thread housekeeping).
void run_on_each_thread(RangeFn fn, void* ctx);

// Below this much work (about multiply-adds) a kernel runs on the calling thread: waking the
// other threads would cost more than it saves (generation's one-token products, for example).
constexpr int64_t kMinParallelWork = int64_t(1) << 15;

// Convenience wrapper for lambdas: parallel_for(n, [&](int begin, int end, int thread) {...}, work)
// `work` estimates the whole loop's cost in multiply-adds (default: always worth splitting).
template <class F>
void parallel_for(int n, F&& f, int64_t work = INT64_MAX) {
  if (n <= 0) return;
  if (num_threads() == 1 || n == 1 || work < kMinParallelWork || in_parallel_region()) {
    f(0, n, 0);
    return;
  }
  run(n, [](void* ctx, int b, int e, int t) { (*static_cast<F*>(ctx))(b, e, t); }, &f);
}

}  // namespace tinygpt::tp
