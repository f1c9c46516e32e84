// kernel_list.h — the one list of kernels: one row per kernel, TINYGPT_KERNEL(return type,
// name, (parameters), (arguments)). Everything else is generated from it by including this file
// with TINYGPT_KERNEL defined (the file undefines it at the end, and has no include guard):
//   kernels.h       the public kernels:: declarations and their kernels::ref:: scalar twins
//   kernels_isa.h   KernelTable (one function pointer per row) and the per-ISA declarations
//   kernels.cpp     each ISA's table, filled by name
//   dispatch.cpp    the public functions, forwarding to the table chosen at start-up
// Adding a kernel: one row here, its production version (kernels.cpp, gemm.cpp,
// kernels_seq2seq.cpp or kernels_rnn.cpp) and its scalar twin (kernels_ref.cpp,
// kernels_seq2seq_ref.cpp, kernels_rnn_ref.cpp);
// tests/test_kernels.cpp compares the two.
//
// Conventions (llm.c): outputs first, sizes last; a backward kernel takes d-prefixed
// gradients and ACCUMULATES into them (+=). Shapes:
//   B batch, T time, C channels, V vocab, NH heads, HS = C / NH head size,
//   N = B * T rows when the batch and time dimensions are flattened.
#ifndef TINYGPT_KERNEL
#error "define TINYGPT_KERNEL(ret, name, params, args) before including kernel_list.h"
#endif

// ---- GEMM ----------------------------------------------------------------------------------
// C (M, N) = [C +] op(A) (M, K) @ op(B) (K, N)
// op(A) = A (stored M x K, row stride lda) or, with transA, A^T (A stored K x M).
// op(B) = B (stored K x N, row stride ldb) or, with transB, B^T (B stored N x K).
TINYGPT_KERNEL(void, sgemm,
               (bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                float* C, int ldc, bool accumulate),
               (transA, transB, M, N, K, A, lda, B, ldb, C, ldc, accumulate))
// The same product on the calling thread only, for kernels that are themselves split across
// threads (attention's per-head products); small products skip packing (gemm.cpp). Same bits
// as sgemm.
TINYGPT_KERNEL(void, sgemm_serial,
               (bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                float* C, int ldc, bool accumulate),
               (transA, transB, M, N, K, A, lda, B, ldb, C, ldc, accumulate))

// ---- linear layer: out = inp @ weight + bias ---------------------------------------------
// out (N, OC); inp (N, IC); weight (IC, OC); bias (OC) or nullptr
TINYGPT_KERNEL(void, matmul_forward,
               (float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC),
               (out, inp, weight, bias, N, IC, OC))
// out (N, OC) = inp @ weight [+ bias] + residual (N, OC): a linear layer and the residual connection
// after it in one pass (the sum added by the product's stores), the same bits as matmul_forward
// then out + residual. out must not alias residual.
TINYGPT_KERNEL(void, matmul_forward_residual,
               (float* out, const float* inp, const float* weight, const float* bias, const float* residual, int N,
                int IC, int OC),
               (out, inp, weight, bias, residual, N, IC, OC))
// out (N, OC) = act(inp @ weight [+ bias]), act kActRelu or kActGelu (kernels.h); with kActGelu,
// slope (N, OC) (may be nullptr) = gelu'(inp @ weight + bias), what the backward multiplies by:
// matmul_forward, then relu_forward or gelu_forward_slope in place. The feed-forward's first layer.
TINYGPT_KERNEL(void, matmul_forward_act,
               (float* out, float* slope, const float* inp, const float* weight, const float* bias, int N, int IC,
                int OC, int act),
               (out, slope, inp, weight, bias, N, IC, OC, act))
// dinp (N, IC) = (dout @ weight^T) * act'(z), WRITTEN (the first and only contribution): kActRelu:
// where aux (N, IC), the forward's ReLU output, is > 0, else 0; kActGelu: times aux, the forward's
// GELU slope. sgemm, then relu_mask or mul_forward in place. The feed-forward's gradient through
// its second layer to its hidden activation.
TINYGPT_KERNEL(void, matmul_backward_dinp_act,
               (float* dinp, const float* aux, const float* dout, const float* weight, int N, int IC, int OC, int act),
               (dinp, aux, dout, weight, N, IC, OC, act))
// dinp (N, IC) += dout @ weight^T;  dweight (IC, OC) += inp^T @ dout;  dbias (OC) += sum_n dout
// any of dinp / dweight / dbias may be nullptr (not wanted)
TINYGPT_KERNEL(void, matmul_backward,
               (float* dinp, float* dweight, float* dbias, const float* dout, const float* inp, const float* weight,
                int N, int IC, int OC),
               (dinp, dweight, dbias, dout, inp, weight, N, IC, OC))

// ---- LayerNorm over the last dim ---------------------------------------------------------
// out (N, C) = (inp - mean) * rstd * weight + bias;  mean, rstd (N) are saved for backward
TINYGPT_KERNEL(void, layernorm_forward,
               (float* out, float* mean, float* rstd, const float* inp, const float* weight, const float* bias, int N,
                int C, float eps),
               (out, mean, rstd, inp, weight, bias, N, C, eps))
// dweight (C), dbias (C) += gradients given dout (N, C); dinp (N, C) += its gradient, or = with
// accumulate false (its first contribution: nothing to zero first); any may be nullptr
TINYGPT_KERNEL(void, layernorm_backward,
               (float* dinp, float* dweight, float* dbias, const float* dout, const float* inp, const float* weight,
                const float* mean, const float* rstd, int N, int C, bool accumulate),
               (dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C, accumulate))

// ---- GELU (tanh approximation) -----------------------------------------------------------
// out (n) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))   (out may be inp: in place)
TINYGPT_KERNEL(void, gelu_forward, (float* out, const float* inp, int64_t n), (out, inp, n))
// dinp (n) += gelu'(inp) * dout
TINYGPT_KERNEL(void, gelu_backward, (float* dinp, const float* inp, const float* dout, int64_t n), (dinp, inp, dout, n))
// out (n) = gelu(inp) and slope (n) = gelu'(inp), the factor gelu_backward multiplies dout by, from
// one tanh (either may be inp: in place): nn::linear_gelu keeps the slope for its backward
TINYGPT_KERNEL(void, gelu_forward_slope, (float* out, float* slope, const float* inp, int64_t n), (out, slope, inp, n))

// ---- softmax over the last dim -------------------------------------------------------------
// out (N, C) = softmax(inp (N, C)) per row
TINYGPT_KERNEL(void, softmax_forward, (float* out, const float* inp, int N, int C), (out, inp, N, C))
// dinp (N, C) += out * (dout - <dout, out>)
TINYGPT_KERNEL(void, softmax_backward, (float* dinp, const float* out, const float* dout, int N, int C),
               (dinp, out, dout, N, C))

// ---- fused softmax + cross-entropy ---------------------------------------------------------
// losses (N) = -log softmax(logits (N, V))[target];  probs (N, V) saved for backward
TINYGPT_KERNEL(void, crossentropy_forward,
               (float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V),
               (losses, probs, logits, targets, N, V))
// dlogits (N, V) += dloss * (probs - onehot(target))   (dloss: d(total)/d(loss_n), same for all n)
TINYGPT_KERNEL(void, crossentropy_backward,
               (float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V),
               (dlogits, probs, targets, dloss, N, V))

// ---- causal multi-head self-attention (after the qkv projection) -------------------------
// qkv (B, T, 3C) holds [q | k | v] per position, head h at channels h*HS .. h*HS+HS-1.
// att (B, NH, T, T): softmax_j(q_i . k_j / sqrt(HS)) for j <= i, exactly 0 for j > i
// out (B, T, C): out_i = sum_j att_ij v_j, heads side by side
TINYGPT_KERNEL(void, attention_forward, (float* out, float* att, const float* qkv, int B, int T, int C, int NH),
               (out, att, qkv, B, T, C, NH))
// dqkv (B, T, 3C) += gradient through the attention given dout (B, T, C); = (every element
// written, the buffer's old values never read) when accumulate is false
TINYGPT_KERNEL(void, attention_backward,
               (float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C, int NH,
                bool accumulate),
               (dqkv, dout, qkv, att, B, T, C, NH, accumulate))
// Decoding n new positions p0 .. p0+n-1 against a KV cache (generation):
// q from qkv (n, 3C); keys and values of positions 0 .. p0+n-1 in k_cache, v_cache (T, C).
// out (n, C): out_i = sum_{j <= p0+i} softmax_j(q_i . k_j / sqrt(HS)) v_j per head
TINYGPT_KERNEL(void, attention_decode,
               (float* out, const float* qkv, const float* k_cache, const float* v_cache, int p0, int n, int C, int NH),
               (out, qkv, k_cache, v_cache, p0, n, C, NH))

// ---- small vector ops ----------------------------------------------------------------------
// out (n) = a + b
TINYGPT_KERNEL(void, add_forward, (float* out, const float* a, const float* b, int64_t n), (out, a, b, n))
// out (n) = a * b   (out may be a or b)
TINYGPT_KERNEL(void, mul_forward, (float* out, const float* a, const float* b, int64_t n), (out, a, b, n))
// dst (n) += src
TINYGPT_KERNEL(void, accumulate, (float* dst, const float* src, int64_t n), (dst, src, n))
// sum of x^2 over x (n), in double, in a fixed order
TINYGPT_KERNEL(double, sum_squares, (const float* x, int64_t n), (x, n))
// x (n) *= s
TINYGPT_KERNEL(void, scale, (float* x, float s, int64_t n), (x, s, n))

// ---- AdamW (one flat loop over a parameter range) ----------------------------------------
// g = grads * grad_scale (the clip's factor, 1 when it does not clip: the same bits as scaling the
// gradients in place first, without that pass over them)
// m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
// p = p (1 - lr wd) - lr (m / bc1) / (sqrt(v / bc2) + eps)    with bc_i = 1 - b_i^t
TINYGPT_KERNEL(void, adamw_update,
               (float* params, const float* grads, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                float eps, float weight_decay, float bias_correction1, float bias_correction2, float grad_scale),
               (params, grads, m, v, n, lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2,
                grad_scale))

// ---- encoder-decoder (seq2seq): kernels_seq2seq.cpp, twins in kernels_seq2seq_ref.cpp -------
// General multi-head attention over separate query and key/value inputs, with an optional
// causal mask and key-padding mask (encoder self-attention, decoder self-attention,
// cross-attention, and decoding against caches); shapes and strides in AttentionShape (kernels.h).
// out (B, Tq, C), att (B, NH, Tq, Tk):
//   s_ij = q_i . k_j / sqrt(HS) + mask_ij,  mask_ij = -inf where key j is padding (key_pad[b, j] != 0)
//   or, if causal, j > i + (Tk - Tq);  att_i = softmax(s_i);  out_i = sum_j att_ij v_j
// key_pad (B, Tk) or nullptr. A row whose keys are all masked gets att = 0 and out = 0 (not NaN).
TINYGPT_KERNEL(void, mha_forward,
               (float* out, float* att, const float* q, const float* k, const float* v, const uint8_t* key_pad,
                const AttentionShape& s),
               (out, att, q, k, v, key_pad, s))
// dq (laid out like q) += ..., dk, dv (laid out like k, v) += ... given dout (B, Tq, C) and the
// forward's att; = when accumulate is false (every element of the heads' slices written, masked
// and padding keys' rows with 0). Requires kv_batch != 0 (keys owned by one batch element each).
TINYGPT_KERNEL(void, mha_backward,
               (float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k, const float* v,
                const float* att, const uint8_t* key_pad, const AttentionShape& s, bool accumulate),
               (dq, dk, dv, dout, q, k, v, att, key_pad, s, accumulate))
// ReLU: out (n) = max(x, 0);  backward: dinp (n) += dout where inp > 0
TINYGPT_KERNEL(void, relu_forward, (float* out, const float* inp, int64_t n), (out, inp, n))
TINYGPT_KERNEL(void, relu_backward, (float* dinp, const float* inp, const float* dout, int64_t n), (dinp, inp, dout, n))
// d (n) = d where out > 0, else 0: the ReLU's backward in place of dout, from its output (nn::linear_relu)
TINYGPT_KERNEL(void, relu_mask, (float* d, const float* out, int64_t n), (d, out, n))
// Cross-entropy that skips rows whose target is negative (padding): losses[n] = 0 there and
// probs row n is left untouched; otherwise as crossentropy_forward / crossentropy_backward.
TINYGPT_KERNEL(void, crossentropy_ignore_forward,
               (float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V),
               (losses, probs, logits, targets, N, V))
TINYGPT_KERNEL(void, crossentropy_ignore_backward,
               (float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V),
               (dlogits, probs, targets, dloss, N, V))

// ---- recurrent layers (rnn.h): kernels_rnn.cpp, twins in kernels_rnn_ref.cpp ---------------
// One layer of B sequences over T steps with H units, after the input projection
// xg = x W_ih^T + b_ih (one GEMM for every step). cell: 0 tanh RNN (G = 1 block of H rows),
// 1 GRU (G = 3: r z n), 2 LSTM (G = 4: i f g o): torch.nn's gate order and weight layout.
//   a_t  = xg_t + h_{t-1} W_hh^T + b_hh                                      (B, G*H)
//   rnn:  h_t = tanh(a_t)
//   gru:  r = sig(a_r), z = sig(a_z), hn = (h_{t-1} W_hh^T + b_hh)_n, n = tanh(xg_n + r hn),
//         h_t = (1 - z) n + z h_{t-1}
//   lstm: i, f, o = sig(a_i, a_f, a_o), g = tanh(a_g), c_t = f c_{t-1} + i g, h_t = o tanh(c_t)
// h (B, T, H) every hidden state; c (B, T, H) every cell state (lstm; else nullptr);
// gates (B, T, 4H) what backward needs (gru: r z n hn; lstm: i f g o; rnn: nullptr);
// xg (B, T, G*H); w_hh (G*H, H) (torch's weight_hh); b_hh (G*H); h0, c0 (B, H), or nullptr for zeros.
// Each step is one pass over the units, split across the threads by blocks of units: the step's
// product with W_hh and the cell's arithmetic are fused (the gates never leave the registers).
TINYGPT_KERNEL(void, rnn_forward,
               (float* h, float* c, float* gates, const float* xg, const float* w_hh, const float* b_hh,
                const float* h0, const float* c0, int cell, int B, int T, int H),
               (h, c, gates, xg, w_hh, b_hh, h0, c0, cell, B, T, H))
// Backpropagation through time over the T steps of rnn_forward. dh (B, T, H): the loss's gradient
// w.r.t. every h_t from outside the layer (the layer above, the head); dc (B, T, H) the same for
// every c_t (lstm), or nullptr. WRITES (=) dgx (B, T, G*H), the gradient w.r.t. the input part of
// a_t (xg), and, for the GRU only, dgh (B, T, G*H) w.r.t. its recurrent part h_{t-1} W_hh^T + b_hh
// (the same as dgx but in the n block; nullptr for rnn and lstm, whose two parts are equal).
// ACCUMULATES (+=) into dh0, dc0 (B, H) when they are given (the gradient of the initial state).
TINYGPT_KERNEL(void, rnn_backward,
               (float* dgx, float* dgh, float* dh0, float* dc0, const float* dh, const float* dc, const float* h,
                const float* c, const float* gates, const float* w_hh, const float* h0, const float* c0, int cell, int B,
                int T, int H),
               (dgx, dgh, dh0, dc0, dh, dc, h, c, gates, w_hh, h0, c0, cell, B, T, H))
// out (n) = tanh(inp) (out may be inp);  backward: dinp (n) += (1 - out^2) dout
TINYGPT_KERNEL(void, tanh_forward, (float* out, const float* inp, int64_t n), (out, inp, n))
TINYGPT_KERNEL(void, tanh_backward, (float* dinp, const float* out, const float* dout, int64_t n), (dinp, out, dout, n))

#undef TINYGPT_KERNEL
