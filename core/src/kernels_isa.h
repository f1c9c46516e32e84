// kernels_isa.h — how one program carries the kernels compiled for several instruction sets.
//
// kernels.cpp, gemm.cpp, kernels_seq2seq.cpp and kernels_rnn.cpp are compiled once per ISA the build carries (a
// portable x86-64 build: the SSE2 baseline, AVX2+FMA and AVX-512; elsewhere: one). Each copy
// lives in the namespace kernels::<isa> (simd.h's TINYGPT_ISA) and exports a table of its
// kernels (one entry per row of kernel_list.h); dispatch.cpp implements the public kernels::
// functions by forwarding to the table chosen at startup.
//
// The per-ISA files use no standard-library templates that could be shared with other
// translation units (an AVX2- or AVX-512-compiled copy of, say, std::vector<float>::resize could
// be picked by the linker and run on a CPU without those instructions): their scratch memory comes from
// scratch() and shared_scratch(), defined in the baseline dispatch.cpp.
#pragma once

#include <cstddef>

#include "kernels.h"
#include "simd.h"

namespace tinygpt::kernels {

struct KernelTable {
  const char* backend;
#define TINYGPT_KERNEL(ret, name, params, args) ret(*name) params;
#include "kernel_list.h"
};

// Scratch memory, grown on demand and kept. scratch() is per thread; shared_scratch() is one
// buffer per slot for all threads, resized only by the calling thread before a parallel
// region uses it.
enum ThreadScratch { kGemmAPanels, kAttentionRow, kAttentionKeys, kGemmBPanelsSerial, kThreadScratchSlots };
enum SharedScratch { kGemmBPanels, kAttentionDs, kColumnSums, kRnnWeights, kRnnCarry, kSharedScratchSlots };
float* scratch(ThreadScratch slot, size_t n);
float* shared_scratch(SharedScratch slot, size_t n);

namespace TINYGPT_ISA {
// This ISA's kernels (kernels.cpp, gemm.cpp), one per row of kernel_list.h.
#define TINYGPT_KERNEL(ret, name, params, args) ret name params;
#include "kernel_list.h"
const KernelTable& table();
// C (M, N) = [bias (N, every row) +] A (M, K) @ B (K, N) [+ residual (M, N), row stride ldr]:
// sgemm with the bias and the residual folded into the product's stores (matmul_forward,
// matmul_forward_residual), the same bits as copying the bias into C and accumulating, then
// adding the residual. bias and residual may be null.
void sgemm_bias(int M, int N, int K, const float* A, int lda, const float* B, int ldb, const float* bias, float* C,
                int ldc, const float* residual = nullptr, int ldr = 0);
}  // namespace TINYGPT_ISA

}  // namespace tinygpt::kernels
