// cpu_clock.h — CPU seconds for the benchmarks' --cpu-time: on a machine shared with busy
// programs, a thread's CPU time measures the code, where the wall clock also measures the share
// of the core it got.
//
// Natively: CLOCK_THREAD_CPUTIME_ID (this thread) or CLOCK_PROCESS_CPUTIME_ID (every thread).
// In wasm, Emscripten's clock_gettime knows the wall clocks only (it fails for these), so both
// read Node's process.cpuUsage(): the process, that is this thread and V8's helper threads, which
// are idle once the code is compiled and warm. The benchmarks allow --cpu-time with one thread.
#pragma once

#include <ctime>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
EM_JS(double, bench_node_cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
#endif

namespace bench {

enum class CpuClock { thread, process };

inline double cpu_seconds(CpuClock which) {
#if defined(__EMSCRIPTEN__)
  (void)which;
  return bench_node_cpu_seconds();
#else
  timespec ts;
  clock_gettime(which == CpuClock::thread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
#endif
}

}  // namespace bench
