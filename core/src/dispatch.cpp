// dispatch.cpp — the public kernels:: functions, forwarding to the implementation chosen for
// this CPU, and the scratch memory the implementations share. Compiled for the baseline ISA.
#include <atomic>
#include <cstring>
#include <vector>

#include "kernels_isa.h"
#include "threadpool.h"

namespace tinygpt::kernels {

#if defined(TINYGPT_WITH_AVX2)
namespace avx2 {
const KernelTable& table();
}
#endif

namespace {

// Best first.
std::vector<const KernelTable*> compiled_tables() {
  std::vector<const KernelTable*> tables;
#if defined(TINYGPT_WITH_AVX2)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) tables.push_back(&avx2::table());
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
  for (const KernelTable* t : compiled_tables()) names += (names.empty() ? "" : " ") + std::string(t->backend);
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

constexpr int kScratchSlots = 3;
std::atomic<size_t> g_scratch_high[kScratchSlots];  // the largest size any thread asked for
std::atomic<bool> g_scratch_grew{false};

float* scratch(int slot, size_t n) {
  thread_local std::vector<float> buffers[kScratchSlots];
  std::vector<float>& b = buffers[slot];
  if (b.size() < n) {
    b.resize(n);
    size_t high = g_scratch_high[slot].load(std::memory_order_relaxed);
    while (n > high && !g_scratch_high[slot].compare_exchange_weak(high, n, std::memory_order_relaxed)) {
    }
    if (n > high) g_scratch_grew.store(true, std::memory_order_release);
  }
  return b.data();
}

void share_scratch_sizes() {
  if (!g_scratch_grew.exchange(false, std::memory_order_acq_rel)) return;
  tp::run_on_each_thread(
      [](void*, int, int, int) {
        for (int slot = 0; slot < kScratchSlots; slot++) scratch(slot, g_scratch_high[slot].load(std::memory_order_relaxed));
      },
      nullptr);
}

float* shared_scratch(size_t n) {
  static std::vector<float> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

// ---- forwarding ------------------------------------------------------------------------------

void sgemm(bool ta, bool tb, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
           bool acc) {
  active().sgemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, acc);
}
void matmul_forward(float* out, const float* inp, const float* w, const float* b, int N, int IC, int OC) {
  active().matmul_forward(out, inp, w, b, N, IC, OC);
}
void matmul_backward(float* dinp, float* dw, float* db, const float* dout, const float* inp, const float* w, int N,
                     int IC, int OC) {
  active().matmul_backward(dinp, dw, db, dout, inp, w, N, IC, OC);
}
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* w, const float* b, int N,
                       int C, float eps) {
  active().layernorm_forward(out, mean, rstd, inp, w, b, N, C, eps);
}
void layernorm_backward(float* dinp, float* dw, float* db, const float* dout, const float* inp, const float* w,
                        const float* mean, const float* rstd, int N, int C) {
  active().layernorm_backward(dinp, dw, db, dout, inp, w, mean, rstd, N, C);
}
void gelu_forward(float* out, const float* inp, int64_t n) { active().gelu_forward(out, inp, n); }
void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) { active().gelu_backward(dinp, inp, dout, n); }
void softmax_forward(float* out, const float* inp, int N, int C) { active().softmax_forward(out, inp, N, C); }
void softmax_backward(float* dinp, const float* out, const float* dout, int N, int C) {
  active().softmax_backward(dinp, out, dout, N, C);
}
void crossentropy_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V) {
  active().crossentropy_forward(losses, probs, logits, targets, N, V);
}
void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V) {
  active().crossentropy_backward(dlogits, probs, targets, dloss, N, V);
}
void attention_forward(float* out, float* att, const float* qkv, int B, int T, int C, int NH) {
  active().attention_forward(out, att, qkv, B, T, C, NH);
}
void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C, int NH) {
  active().attention_backward(dqkv, dout, qkv, att, B, T, C, NH);
}
void attention_decode(float* out, const float* qkv, const float* k_cache, const float* v_cache, int p0, int n, int C,
                      int NH) {
  active().attention_decode(out, qkv, k_cache, v_cache, p0, n, C, NH);
}
void add_forward(float* out, const float* a, const float* b, int64_t n) { active().add_forward(out, a, b, n); }
void accumulate(float* dst, const float* src, int64_t n) { active().accumulate(dst, src, n); }
double sum_squares(const float* x, int64_t n) { return active().sum_squares(x, n); }
void scale(float* x, float s, int64_t n) { active().scale(x, s, n); }
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, float lr, float b1, float b2, float eps,
                  float wd, float bc1, float bc2) {
  active().adamw_update(p, g, m, v, n, lr, b1, b2, eps, wd, bc1, bc2);
}
// seq2seq kernels
void mha_forward(float* out, float* att, const float* q, const float* k, const float* v, const uint8_t* key_pad,
                 const AttentionShape& s) {
  active().mha_forward(out, att, q, k, v, key_pad, s);
}
void mha_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k, const float* v,
                  const float* att, const uint8_t* key_pad, const AttentionShape& s) {
  active().mha_backward(dq, dk, dv, dout, q, k, v, att, key_pad, s);
}
void relu_forward(float* out, const float* inp, int64_t n) { active().relu_forward(out, inp, n); }
void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) { active().relu_backward(dinp, inp, dout, n); }
void crossentropy_ignore_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N,
                                 int V) {
  active().crossentropy_ignore_forward(losses, probs, logits, targets, N, V);
}
void crossentropy_ignore_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N,
                                  int V) {
  active().crossentropy_ignore_backward(dlogits, probs, targets, dloss, N, V);
}

}  // namespace tinygpt::kernels
