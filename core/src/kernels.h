// kernels.h — every number-crunching loop of the model, in one place.
//
// Conventions (llm.c): outputs first, sizes last; a backward kernel takes d-prefixed
// gradients and ACCUMULATES into them (+=). Shapes are in the comments:
//   B batch, T time, C channels, V vocab, NH heads, HS = C / NH head size,
//   N = B * T rows when the batch and time dimensions are flattened.
//
// kernels::      the production versions (SIMD via simd.h, split across the thread pool);
//                 they forward to the implementation for this CPU (dispatch.cpp)
// kernels::ref::  plain scalar loops with the same signatures: the test reference
#pragma once

#include <cstdint>
#include <string>

namespace tinygpt::kernels {

// The SIMD backend in use: "avx2", "sse2", "simd128", "neon" or "scalar". A portable x86-64
// build carries a baseline (SSE2) and an AVX2+FMA copy of every kernel and picks the best
// one the CPU supports when the program starts.
const char* simd_backend();
std::string available_backends();  // e.g. "avx2 sse2", best first
// Switches to another compiled-in backend (for tests and benchmarks); false if unavailable.
bool use_backend(const std::string& name);
// Gives every thread of the pool per-thread scratch memory as large as any thread has needed so
// far. Which thread runs which task varies (chunks are taken first come, first served), so a
// thread could otherwise meet a kernel's scratch need for the first time late in a run and
// allocate then. Cheap when nothing grew; call it between steps (train::Trainer::step does).
void share_scratch_sizes();

// ---- GEMM ----------------------------------------------------------------------------------
// C (M, N) = [C +] op(A) (M, K) @ op(B) (K, N)
// op(A) = A (stored M x K, row stride lda) or, with transA, A^T (A stored K x M).
// op(B) = B (stored K x N, row stride ldb) or, with transB, B^T (B stored N x K).
void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
           float* C, int ldc, bool accumulate);

// ---- linear layer: out = inp @ weight + bias ---------------------------------------------
// out (N, OC); inp (N, IC); weight (IC, OC); bias (OC) or nullptr
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC);
// dinp (N, IC) += dout @ weight^T;  dweight (IC, OC) += inp^T @ dout;  dbias (OC) += sum_n dout
// any of dinp / dweight / dbias may be nullptr (not wanted)
void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int IC, int OC);

// ---- LayerNorm over the last dim ---------------------------------------------------------
// out (N, C) = (inp - mean) * rstd * weight + bias;  mean, rstd (N) are saved for backward
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps);
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C);

// ---- GELU (tanh approximation) -----------------------------------------------------------
// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
void gelu_forward(float* out, const float* inp, int64_t n);
void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n);

// ---- softmax over the last dim -------------------------------------------------------------
void softmax_forward(float* out, const float* inp, int N, int C);
// dinp += out * (dout - <dout, out>)
void softmax_backward(float* dinp, const float* out, const float* dout, int N, int C);

// ---- fused softmax + cross-entropy ---------------------------------------------------------
// losses (N) = -log softmax(logits)[target];  probs (N, V) saved for backward
void crossentropy_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V);
// dlogits (N, V) += dloss * (probs - onehot(target))   (dloss: d(total)/d(loss_n), same for all n)
void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V);

// ---- causal multi-head self-attention (after the qkv projection) -------------------------
// qkv (B, T, 3C) holds [q | k | v] per position, head h at channels h*HS .. h*HS+HS-1.
// att (B, NH, T, T): softmax_j(q_i . k_j / sqrt(HS)) for j <= i, exactly 0 for j > i
// out (B, T, C): out_i = sum_j att_ij v_j, heads side by side
void attention_forward(float* out, float* att, const float* qkv, int B, int T, int C, int NH);
// dqkv (B, T, 3C) += gradient through the attention given dout (B, T, C)
void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C,
                        int NH);

// Decoding n new positions p0 .. p0+n-1 against a KV cache (generation):
// q from qkv (n, 3C); keys and values of positions 0 .. p0+n-1 in k_cache, v_cache (T, C).
// out (n, C): out_i = sum_{j <= p0+i} softmax_j(q_i . k_j / sqrt(HS)) v_j per head
void attention_decode(float* out, const float* qkv, const float* k_cache, const float* v_cache, int p0, int n, int C,
                      int NH);

// ---- small vector ops ----------------------------------------------------------------------
void add_forward(float* out, const float* a, const float* b, int64_t n);  // out = a + b
void accumulate(float* dst, const float* src, int64_t n);                 // dst += src
double sum_squares(const float* x, int64_t n);
void scale(float* x, float s, int64_t n);

// ---- AdamW (one flat loop over a parameter range) ----------------------------------------
// m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
// p = p (1 - lr wd) - lr (m / bc1) / (sqrt(v / bc2) + eps)    with bc_i = 1 - b_i^t
void adamw_update(float* params, const float* grads, float* m, float* v, int64_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, float bias_correction1, float bias_correction2);

// ---- encoder-decoder (seq2seq) kernels: core/src/kernels_seq2seq.cpp -----------------------
// General multi-head attention over separate query and key/value inputs, with an optional
// causal mask and key-padding mask, as the encoder-decoder needs it (encoder self-attention,
// decoder self-attention, cross-attention, and decoding against caches).
// Head h uses channels h*HS .. h*HS+HS-1 of each q, k and v row. Rows are addressed with strides
// so the same kernel reads a fused qkv (B, T, 3C), a separate q (B, Tq, C) and kv (B, Tk, 2C), or
// a KV cache (rows, block_size, C).
struct AttentionShape {
  int B = 0, Tq = 0, Tk = 0, C = 0, NH = 0;
  int q_row = 0, kv_row = 0;           // floats from one position to the next in q, and in k / v
  int64_t q_batch = 0, kv_batch = 0;   // floats from one batch element to the next (kv_batch 0: shared keys)
  bool causal = false;                 // query i sees keys j <= i + (Tk - Tq) (Tq == Tk: j <= i)
};
// out (B, Tq, C), att (B, NH, Tq, Tk):
//   s_ij = q_i . k_j / sqrt(HS) + mask_ij,  mask_ij = -inf where key j is padding (key_pad[b, j] != 0)
//   or, if causal, j > i + (Tk - Tq);  att_i = softmax(s_i);  out_i = sum_j att_ij v_j
// key_pad (B, Tk) or nullptr. A row whose keys are all masked gets att = 0 and out = 0 (not NaN).
void mha_forward(float* out, float* att, const float* q, const float* k, const float* v, const uint8_t* key_pad,
                 const AttentionShape& s);
// dq (laid out like q) += ..., dk, dv (laid out like k, v) += ... given dout (B, Tq, C) and the
// forward's att. Requires kv_batch != 0 (keys owned by one batch element each).
void mha_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k, const float* v,
                  const float* att, const uint8_t* key_pad, const AttentionShape& s);

// ReLU: out = max(x, 0);  backward: dinp += dout where inp > 0
void relu_forward(float* out, const float* inp, int64_t n);
void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n);

// Cross-entropy that skips rows whose target is negative (padding): losses[n] = 0 there and
// probs row n is left untouched; otherwise as crossentropy_forward / crossentropy_backward.
void crossentropy_ignore_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N,
                                 int V);
void crossentropy_ignore_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N,
                                  int V);

namespace ref {
void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
           float* C, int ldc, bool accumulate);
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC);
void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int IC, int OC);
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps);
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C);
void gelu_forward(float* out, const float* inp, int64_t n);
void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n);
void softmax_forward(float* out, const float* inp, int N, int C);
void softmax_backward(float* dinp, const float* out, const float* dout, int N, int C);
void crossentropy_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V);
void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V);
void attention_forward(float* out, float* att, const float* qkv, int B, int T, int C, int NH);
void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C,
                        int NH);
void adamw_update(float* params, const float* grads, float* m, float* v, int64_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, float bias_correction1, float bias_correction2);
// seq2seq (core/src/kernels_seq2seq_ref.cpp)
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
}  // namespace ref

}  // namespace tinygpt::kernels
