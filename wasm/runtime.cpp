// runtime.cpp — the runtime feature: which SIMD backend is compiled in, the module's memory, and
// the kernels' threads (the threads build; 1 elsewhere).
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <string>

#include "common.h"
#include "tinygpt/runtime.h"

namespace tinygpt::js {

namespace {

std::string backend() { return simd_backend(); }
double memory_bytes() { return double(emscripten_get_heap_size()); }
int max_threads_js() { return max_threads(); }
int num_threads_js() { return num_threads(); }
void set_threads(int n) {
  guarded([&] { set_num_threads(n); });
}
// The pool's counters (tinygpt::PoolStats), for benchmarks: where the threads wait.
void set_pool_profiling_js(bool on) { set_pool_profiling(on); }
emscripten::val pool_stats_js() {
  const PoolStats s = pool_stats();
  emscripten::val o = emscripten::val::object();
  o.set("threads", s.threads);
  o.set("wallMs", s.wall_ms);
  o.set("parallelMs", s.parallel_ms);
  o.set("barrierMs", s.barrier_ms);
  o.set("wakeMs", s.wake_ms);
  emscripten::val busy = emscripten::val::array();
  for (int t = 0; t < s.threads && t < 8; t++) busy.call<void>("push", s.busy_ms[t]);
  o.set("busyMs", busy);
  o.set("jobs", double(s.jobs));
  o.set("inlineJobs", double(s.inline_jobs));
  o.set("chunks", double(s.chunks));
  o.set("joined", double(s.joined));
  o.set("sleeps", double(s.sleeps));
  return o;
}
void set_kernel_profiling_js(bool on) { set_kernel_profiling(on); }
emscripten::val kernel_timings_js() {
  emscripten::val rows = emscripten::val::array();
  for (const KernelTiming& k : kernel_timings()) {
    emscripten::val o = emscripten::val::object();
    o.set("name", k.name);
    o.set("calls", double(k.calls));
    o.set("ms", k.ms);
    rows.call<void>("push", o);
  }
  return rows;
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_runtime) {
  using namespace tinygpt::js;
  emscripten::function("backend", &backend);
  emscripten::function("memoryBytes", &memory_bytes);
  emscripten::function("maxThreads", &max_threads_js);
  emscripten::function("numThreads", &num_threads_js);
  emscripten::function("setThreads", &set_threads);
  emscripten::function("setPoolProfiling", &set_pool_profiling_js);
  emscripten::function("poolStats", &pool_stats_js);
  emscripten::function("setKernelProfiling", &set_kernel_profiling_js);
  emscripten::function("kernelTimings", &kernel_timings_js);
}
