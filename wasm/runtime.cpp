// runtime.cpp — the runtime feature: which SIMD backend is compiled in, the module's memory, and
// the kernels' threads (the threads build; 1 elsewhere).
#include <emscripten/bind.h>
#include <emscripten/heap.h>

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

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_runtime) {
  using namespace tinygpt::js;
  emscripten::function("backend", &backend);
  emscripten::function("memoryBytes", &memory_bytes);
  emscripten::function("maxThreads", &max_threads_js);
  emscripten::function("numThreads", &num_threads_js);
  emscripten::function("setThreads", &set_threads);
}
