// kernels.h — every number-crunching loop of the model, in one place.
//
// The kernels themselves, with their shapes, are listed once in kernel_list.h; this header
// declares them twice from that list:
//   kernels::       the production versions (SIMD via simd.h, split across the thread pool);
//                   they forward to the implementation chosen for this CPU (dispatch.cpp)
//   kernels::ref::  plain scalar loops with the same signatures: the test reference
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinygpt::kernels {

// The SIMD backend in use: "avx512", "avx2", "sse2", "simd128", "neon" or "scalar". A portable
// x86-64 build carries a baseline (SSE2), an AVX2+FMA and an AVX-512 copy of every kernel and
// picks the best one the CPU supports when the program starts.
const char* simd_backend();
std::string available_backends();  // e.g. "avx512 avx2 sse2", best first
// Switches to another compiled-in backend (for tests and benchmarks); false if unavailable.
bool use_backend(const std::string& name);
// Gives every thread of the pool per-thread scratch memory as large as any thread has needed so
// far. Which thread runs which task varies (chunks are taken first come, first served), so a
// thread could otherwise meet a kernel's scratch need for the first time late in a run and
// allocate then. Cheap when nothing grew; call it between steps (train::Trainer::step does).
void share_scratch_sizes();

// Per-kernel timing for the benchmarks (seq2seq_bench --profile): while on, every public kernel
// call adds its wall time to its row of the list (name, calls, seconds), in kernel_list.h order.
// Off by default: one relaxed atomic load per call. cpu_time: the calling thread's CPU time
// instead of the wall clock (meaningful with one thread, on a machine shared with busy processes).
struct KernelTime {
  const char* name;
  int64_t calls;
  double seconds;
};
// Throws tinygpt::Error for cpu_time where there is no per-thread CPU clock (wasm).
void set_profiling(bool on, bool cpu_time = false);
bool profiling_cpu_time();  // the clock set_profiling chose: the thread's CPU time (true) or the wall clock
bool has_thread_cpu_clock();
std::vector<KernelTime> kernel_times();  // and resets them

// Shape of a general multi-head attention (the encoder-decoder's mha_forward / mha_backward):
// head h uses channels h*HS .. h*HS+HS-1 of each q, k and v row. Rows are addressed with strides
// so the same kernel reads a fused qkv (B, T, 3C), a separate q (B, Tq, C) and kv (B, Tk, 2C), or
// a KV cache (rows, block_size, C).
struct AttentionShape {
  int B = 0, Tq = 0, Tk = 0, C = 0, NH = 0;
  int q_row = 0, kv_row = 0;           // floats from one position to the next in q, and in k / v
  int64_t q_batch = 0, kv_batch = 0;   // floats from one batch element to the next (kv_batch 0: shared keys)
  bool causal = false;                 // query i sees keys j <= i + (Tk - Tq) (Tq == Tk: j <= i)
};

// The activations a linear layer's kernels apply after its product (matmul_forward_act,
// matmul_backward_dinp_act): max(z, 0), and GELU's tanh approximation.
enum Act : int { kActRelu = 1, kActGelu = 2 };

#define TINYGPT_KERNEL(ret, name, params, args) ret name params;
#include "kernel_list.h"

namespace ref {
#define TINYGPT_KERNEL(ret, name, params, args) ret name params;
#include "kernel_list.h"
}  // namespace ref

}  // namespace tinygpt::kernels
