// kernels_isa.h — how one program carries the kernels compiled for several instruction sets.
//
// kernels.cpp and gemm.cpp are compiled once per ISA the build carries (a portable x86-64
// build: the SSE2 baseline and AVX2+FMA; elsewhere: one). Each copy lives in the namespace
// kernels::<isa> (simd.h's TINYGPT_ISA) and exports a table of its kernels; dispatch.cpp
// implements the public kernels:: functions by forwarding to the table chosen at startup.
//
// The per-ISA files use no standard-library templates that could be shared with other
// translation units (an AVX2-compiled copy of, say, std::vector<float>::resize could be
// picked by the linker and run on a CPU without AVX2): their scratch memory comes from
// scratch() and shared_scratch(), defined in the baseline dispatch.cpp.
#pragma once

#include <cstddef>

#include "kernels.h"
#include "simd.h"

namespace tinygpt::kernels {

struct KernelTable {
  const char* backend;
#define TINYGPT_KERNEL_FIELD(name) decltype(&kernels::name) name;
  TINYGPT_KERNEL_FIELD(sgemm)
  TINYGPT_KERNEL_FIELD(matmul_forward)
  TINYGPT_KERNEL_FIELD(matmul_backward)
  TINYGPT_KERNEL_FIELD(layernorm_forward)
  TINYGPT_KERNEL_FIELD(layernorm_backward)
  TINYGPT_KERNEL_FIELD(gelu_forward)
  TINYGPT_KERNEL_FIELD(gelu_backward)
  TINYGPT_KERNEL_FIELD(softmax_forward)
  TINYGPT_KERNEL_FIELD(softmax_backward)
  TINYGPT_KERNEL_FIELD(crossentropy_forward)
  TINYGPT_KERNEL_FIELD(crossentropy_backward)
  TINYGPT_KERNEL_FIELD(attention_forward)
  TINYGPT_KERNEL_FIELD(attention_backward)
  TINYGPT_KERNEL_FIELD(attention_decode)
  TINYGPT_KERNEL_FIELD(add_forward)
  TINYGPT_KERNEL_FIELD(accumulate)
  TINYGPT_KERNEL_FIELD(sum_squares)
  TINYGPT_KERNEL_FIELD(scale)
  TINYGPT_KERNEL_FIELD(adamw_update)
  // seq2seq kernels (kernels_seq2seq.cpp)
  TINYGPT_KERNEL_FIELD(mha_forward)
  TINYGPT_KERNEL_FIELD(mha_backward)
  TINYGPT_KERNEL_FIELD(relu_forward)
  TINYGPT_KERNEL_FIELD(relu_backward)
  TINYGPT_KERNEL_FIELD(crossentropy_ignore_forward)
  TINYGPT_KERNEL_FIELD(crossentropy_ignore_backward)
#undef TINYGPT_KERNEL_FIELD
};

// Per-thread scratch buffers, grown on demand and kept (slot 0: GEMM A panels, slot 1:
// attention, slot 2: B panels of a single-threaded GEMM). shared_scratch is one buffer for all threads (the GEMM's packed B panels),
// resized only by the calling thread before a parallel region reads it.
float* scratch(int slot, size_t n);
float* shared_scratch(size_t n);

namespace TINYGPT_ISA {
void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
           int ldc, bool accumulate);
// The same product on the calling thread only (for use inside a kernel's own parallel tasks).
void sgemm_serial(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                  float* C, int ldc, bool accumulate);
const KernelTable& table();
// defined in kernels_seq2seq.cpp (same ISA), listed in table()
void mha_forward(float* out, float* att, const float* q, const float* k, const float* v, const uint8_t* key_pad,
                 const AttentionShape& s);
void mha_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k, const float* v,
                  const float* att, const uint8_t* key_pad, const AttentionShape& s);
void relu_forward(float* out, const float* inp, int64_t n);
void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n);
void crossentropy_ignore_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N,
                                 int V);
void crossentropy_ignore_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N,
                                  int V);
}  // namespace TINYGPT_ISA

}  // namespace tinygpt::kernels
