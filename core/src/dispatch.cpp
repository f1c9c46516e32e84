// dispatch.cpp — the public kernels:: functions, forwarding to the implementation chosen for
// this CPU, and the scratch memory the implementations share. Compiled for the baseline ISA.
#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels_isa.h"
#include "threadpool.h"
#include "tinygpt/error.h"

namespace tinygpt::kernels {

#if defined(TINYGPT_WITH_AVX2)
namespace avx2 {
const KernelTable& table();
}
#endif
#if defined(TINYGPT_WITH_AVX512)
namespace avx512 {
const KernelTable& table();
}
#endif

namespace {

// Best first.
std::vector<const KernelTable*> compiled_tables() {
  std::vector<const KernelTable*> tables;
#if defined(TINYGPT_WITH_AVX2) || defined(TINYGPT_WITH_AVX512)
  __builtin_cpu_init();  // libgcc's checks include the OS saving the wider registers (XGETBV)
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#if defined(TINYGPT_WITH_AVX512)
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    tables.push_back(&avx512::table());
#endif
#if defined(TINYGPT_WITH_AVX2)
  if (avx2) tables.push_back(&avx2::table());
#endif
  tables.push_back(&TINYGPT_ISA::table());
  return tables;
}

std::atomic<const KernelTable*> g_active{nullptr};

const KernelTable& active() {
  const KernelTable* t = g_active.load(std::memory_order_acquire);
  if (!t) {
    t = compiled_tables().front();
    g_active.store(t, std::memory_order_release);
  }
  return *t;
}

}  // namespace

const char* simd_backend() { return active().backend; }

std::string available_backends() {
  std::string names;
  for (const KernelTable* t : compiled_tables()) {
    if (!names.empty()) names += ' ';
    names += t->backend;
  }
  return names;
}

bool use_backend(const std::string& name) {
  for (const KernelTable* t : compiled_tables())
    if (name == t->backend) {
      g_active.store(t, std::memory_order_release);
      return true;
    }
  return false;
}

constexpr int kScratchSlots = kThreadScratchSlots;
std::atomic<size_t> g_scratch_high[kScratchSlots];  // the largest size any thread asked for
std::atomic<bool> g_scratch_grew{false};

namespace {
// Natively, scratch starts on a cache line: a 64-byte AVX-512 load (32-byte AVX2) from a buffer
// that malloc aligned to 16 bytes only would straddle two lines, and the packed GEMM panels are
// read that way throughout (it also made the SSE2 step time independent of where malloc put the
// panels: up to 17% apart). SIMD128 loads are 16 bytes, which malloc's alignment already serves,
// and measured 2% slower with the extra offset: wasm keeps malloc's address.
#if defined(__wasm__)
constexpr size_t kLineFloats = 0;
#else
constexpr size_t kLineFloats = 64 / sizeof(float);
#endif
float* line_aligned(std::vector<float>& b) {
  if (kLineFloats == 0) return b.data();
  const uintptr_t p = reinterpret_cast<uintptr_t>(b.data());
  return b.data() + ((64 - p % 64) % 64) / sizeof(float);
}
}  // namespace

float* scratch(ThreadScratch slot, size_t n) {
  thread_local std::vector<float> buffers[kScratchSlots];
  std::vector<float>& b = buffers[slot];
  if (b.size() < n + kLineFloats) {
    b.resize(n + kLineFloats);
    size_t high = g_scratch_high[slot].load(std::memory_order_relaxed);
    while (n > high && !g_scratch_high[slot].compare_exchange_weak(high, n, std::memory_order_relaxed)) {
    }
    // any growth, not only a new high mark: a thread that meets a need below the mark has grown
    // to that need only, and would grow again at the next larger one in a later step;
    // share_scratch_sizes brings it to the marks at once
    g_scratch_grew.store(true, std::memory_order_release);
  }
  return line_aligned(b);
}

void share_scratch_sizes() {
  // also when the pool has more threads than at the last call: a worker started or woken after
  // the needs were met (a run on one thread, then two) may do no task before the measured steps.
  // shared_with follows the count down too: a worker parked while a mark rose missed that share
  // (it held the marks of before), so it is brought up to date when it is active again.
  static int shared_with = 1;
  const int threads = tp::num_threads();
  const bool more_threads = threads > shared_with;
  shared_with = threads;
  if (!g_scratch_grew.exchange(false, std::memory_order_acq_rel) && !more_threads) return;
  tp::run_on_each_thread(
      [](void*, int, int, int) {
        for (int slot = 0; slot < kScratchSlots; slot++)
          scratch(ThreadScratch(slot), g_scratch_high[slot].load(std::memory_order_relaxed));
      },
      nullptr);
}

float* shared_scratch(SharedScratch slot, size_t n) {
  static std::vector<float> buffers[kSharedScratchSlots];
  std::vector<float>& b = buffers[slot];
  if (b.size() < n + kLineFloats) b.resize(n + kLineFloats);
  return line_aligned(b);
}

// ---- forwarding: one public function per row of kernel_list.h -------------------------------

namespace {
std::atomic<bool> g_profiling{false};
enum KernelId {
#define TINYGPT_KERNEL(ret, name, params, args) k_##name,
#include "kernel_list.h"
  kKernelCount
};
const char* const kKernelNames[] = {
#define TINYGPT_KERNEL(ret, name, params, args) #name,
#include "kernel_list.h"
};
std::atomic<int64_t> g_calls[kKernelCount], g_nanos[kKernelCount];

// times one call when profiling (kernels are called from the main thread; a kernel called
// inside another's parallel task would be counted inside that one's time too)
// (the calling thread's CPU time instead of the wall clock when asked: one thread on a busy machine)
std::atomic<bool> g_profile_cpu{false};
int64_t now_ns() {
  if (g_profile_cpu.load(std::memory_order_relaxed)) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
struct CallTimer {
  int id;
  int64_t t0;
  explicit CallTimer(int i) : id(i), t0(now_ns()) {}
  ~CallTimer() {
    g_calls[id].fetch_add(1, std::memory_order_relaxed);
    g_nanos[id].fetch_add(now_ns() - t0, std::memory_order_relaxed);
  }
};
}  // namespace

bool has_thread_cpu_clock() {
  timespec ts;
  return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0;
}

void set_profiling(bool on, bool cpu_time) {
  // Emscripten's clock_gettime knows the wall clocks only: every reading would fail and the
  // times would be garbage (uninitialised), so say so instead
  if (on && cpu_time && !has_thread_cpu_clock())
    throw tinygpt::Error("kernel profiling by CPU time: this build has no per-thread CPU clock (wasm); profile by the wall clock");
  g_profile_cpu.store(cpu_time, std::memory_order_relaxed);
  g_profiling.store(on, std::memory_order_relaxed);
}

bool profiling_cpu_time() { return g_profile_cpu.load(std::memory_order_relaxed); }

std::vector<KernelTime> kernel_times() {
  std::vector<KernelTime> out;
  for (int i = 0; i < kKernelCount; i++)
    out.push_back({kKernelNames[i], g_calls[i].exchange(0), double(g_nanos[i].exchange(0)) * 1e-9});
  return out;
}

#define TINYGPT_KERNEL(ret, name, params, args)                                          \
  ret name params {                                                                      \
    if (g_profiling.load(std::memory_order_relaxed)) {                                   \
      CallTimer timer(k_##name);                                                         \
      return active().name args;                                                         \
    }                                                                                    \
    return active().name args;                                                           \
  }
#include "kernel_list.h"

}  // namespace tinygpt::kernels
