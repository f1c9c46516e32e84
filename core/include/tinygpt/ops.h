// ops.h — the differentiable operations a GPT needs.
//
// Every op allocates its output in the Arena it is given, computes the forward pass with a
// kernel from core/src/kernels.h and, when an input requires grad (and grad mode is on),
// attaches a Node whose backward closure accumulates (+=) into the inputs' gradients.
// GPT-sized ops (linear, layernorm, attention, softmax + cross-entropy, gelu) are single
// nodes with hand-written fused backward kernels.
//
// Shapes: B batch, T time, C channels, V vocab, NH heads, HS = C / NH head size.
#pragma once

#include <cstdint>

#include "tinygpt/tensor.h"

namespace tinygpt::nn {

// out (B, T, C) = table[tokens]  with table (V, C), tokens (B, T)
Tensor embedding(Arena& arena, const Tensor& table, const int32_t* tokens, int B, int T);

// out (B, T, C) = x + pos[0:T]  with x (B, T, C), pos (maxT, C): learned positions, broadcast over B
Tensor add_positional(Arena& arena, const Tensor& x, const Tensor& pos);

// out = a + b  (same shape)
Tensor add(Arena& arena, const Tensor& a, const Tensor& b);

// out (M, N) = a (M, K) @ b (K, N)
Tensor matmul(Arena& arena, const Tensor& a, const Tensor& b);

// out (..., N) = x (..., K) @ w (K, N) + b (N);  b may be undefined (no bias)
Tensor linear_lastdim(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b);

// out (..., C) = (x - mean) / sqrt(var + eps) * gain + bias over the last dim
Tensor layernorm_lastdim(Arena& arena, const Tensor& x, const Tensor& gain, const Tensor& bias, float eps = 1e-5f);

// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Tensor gelu(Arena& arena, const Tensor& x);

// out (..., N) = gelu(x (..., K) @ w (K, N) + b (N)): the MLP's first layer as one op, the same bits as
// gelu(linear_lastdim(x, w, b)). It keeps gelu's slope from the forward (one tanh, not two) in the
// pre-activation's buffer, and its backward multiplies the output's gradient by it in place.
Tensor linear_gelu(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b);

// out (..., N) = max(x (..., K) @ w (K, N) + b (N), 0): the encoder-decoder's feed-forward first layer as
// one op, the values of relu(linear_lastdim(x, w, b)). The ReLU runs in place on the product and its
// backward masks the output's gradient in place (where out > 0): no pre-activation kept, no pass to zero.
Tensor linear_relu(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b);

// out (..., C) = act(x (..., K) @ w1 (K, F) + b1 (F)) @ w2 (F, C) + b2 (C) + res (..., C): a Transformer's
// feed-forward sublayer and its residual connection as one op (act: ReLU for the encoder-decoder,
// GELU for the GPT): the same bits as linear_residual(linear_relu or linear_gelu(x, w1, b1), w2, b2,
// res). The hidden activation (..., F) has no tensor of its own (no other op reads it): its gradient
// dz = act'(z) * (dout @ w2^T) is written once (kernels::matmul_backward_dinp_act) into a buffer the
// backward lends and takes back, and the weights' gradients are written by their first product
// (weight_backward). b1, b2 may be undefined.
enum class Activation { relu, gelu };
Tensor feed_forward_residual(Arena& arena, const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                             const Tensor& b2, const Tensor& res, Activation act);

// out (..., N) = x (..., K) @ w (K, N) + b (N) + res (..., N): a linear layer and the residual connection
// after it (a Transformer's attention and feed-forward outputs) as one op, the same bits as
// add(linear_lastdim(x, w, b), res). The sum is added by the product's stores: no pass over memory,
// and no (..., N) tensor for the layer's output alone. b may be undefined.
Tensor linear_residual(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& res);

// out (..., C) = softmax over the last dim
Tensor softmax_lastdim(Arena& arena, const Tensor& x);

// scalar: mean over all positions of -log softmax(logits)[target];  logits (..., V), targets (numel / V)
Tensor cross_entropy(Arena& arena, const Tensor& logits, const int32_t* targets);

// Causal multi-head attention core, after the qkv projection:
// qkv (B, T, 3C) -> out (B, T, C), out_i = sum_{j <= i} softmax_j(q_i . k_j / sqrt(HS)) v_j per head.
// If att_probs is given it receives the (B, NH, T, T) probabilities (zero above the diagonal).
Tensor causal_attention(Arena& arena, const Tensor& qkv, int n_head, Tensor* att_probs = nullptr);

// The whole attention sublayer: qkv = x W_qkv + b_qkv; y = causal_attention(qkv); out = y W_proj + b_proj
// x (B, T, C), w_qkv (C, 3C), b_qkv (3C), w_proj (C, C), b_proj (C)
Tensor self_attention(Arena& arena, const Tensor& x, const Tensor& w_qkv, const Tensor& b_qkv, const Tensor& w_proj,
                      const Tensor& b_proj, int n_head, Tensor* att_probs = nullptr);

// The single-head case of self_attention (n_head = 1, head size = C).
Tensor self_attention_1h(Arena& arena, const Tensor& x, const Tensor& w_qkv, const Tensor& b_qkv,
                         const Tensor& w_proj, const Tensor& b_proj, Tensor* att_probs = nullptr);

// A view with another shape and the same data; gradients flow back 1:1.
Tensor reshape(Arena& arena, const Tensor& x, const Shape& shape);

// ---- encoder-decoder ops (model::Seq2Seq; docs/seq2seq_transformer.md) -----------------------
// Masks for masked_attention and cross_attention. Masked scores get -inf before the softmax, so
// their weights are exactly 0; a query whose keys are all masked gets zero weights and output.
struct AttentionMask {
  bool causal = false;               // query i sees keys j <= i only (decoder self-attention)
  const uint8_t* key_pad = nullptr;  // (B, Tk) or nullptr: nonzero = a padding key no query sees (copied)
};

// Multi-head self-attention core with masks: qkv (B, T, 3C) -> out (B, T, C);
// att_probs, if given, receives the (B, NH, T, T) weights.
Tensor masked_attention(Arena& arena, const Tensor& qkv, int n_head, const AttentionMask& mask,
                        Tensor* att_probs = nullptr);

// Multi-head cross-attention core: queries q (B, Tq, C) from the decoder, keys and values
// kv (B, Tk, 2C) = [k | v] from the encoder output -> out (B, Tq, C); att_probs (B, NH, Tq, Tk).
Tensor cross_attention(Arena& arena, const Tensor& q, const Tensor& kv, int n_head, const AttentionMask& mask,
                       Tensor* att_probs = nullptr);

// out = max(x, 0)
Tensor relu(Arena& arena, const Tensor& x);

// scalar: mean of -log softmax(logits)[target] over the rows whose target is >= 0 (a negative
// target marks padding and is ignored); 0 when every row is padding. logits (..., V), targets (numel / V)
Tensor cross_entropy_ignore(Arena& arena, const Tensor& logits, const int32_t* targets);

// ---- recurrent layers (model::Recurrent, model::LstmSeq2Seq; docs/rnn.md): ops_rnn.cpp ----------
// The cells as torch.nn has them: 0 tanh RNN, 1 GRU (gates r z n), 2 LSTM (gates i f g o); G = 1, 3, 4.
// One layer's parameters, in torch's layout: w_ih (G*H, I), w_hh (G*H, H), b_ih (G*H), b_hh (G*H).
struct RecurrentWeights {
  Tensor w_ih, w_hh, b_ih, b_hh;
};
// The hidden states h (B, T, H) of one recurrent layer over x (B, T, I), from h0 (B, H) (and, for
// the LSTM, c0 (B, H)); undefined h0 / c0 start from zeros. Backpropagation through time reaches
// x, the weights, and h0 / c0 when they require grad. The equations are kernel_list.h's rnn_forward.
// c_out (LSTM): receives the cell states c (B, T, H), a second output gradients can flow into
// (the LSTM translator's decoder starts from the encoder's last c). gates_out: receives the saved
// activations (B, T, 4H) (gru: r z n hn; lstm: i f g o), for the hidden-state view; no gradient.
Tensor recurrent(Arena& arena, int cell, const Tensor& x, const RecurrentWeights& w, const Tensor& h0, const Tensor& c0,
                 Tensor* c_out = nullptr, Tensor* gates_out = nullptr);

// out = tanh(x)
Tensor tanh(Arena& arena, const Tensor& x);

// out (B, C) = x[b, index[b], :] for x (B, T, C): one position per row (copied)
Tensor take_positions(Arena& arena, const Tensor& x, const int32_t* index);

// out (..., 2C) = [x | x] for x (..., C): keys and values that are the same vectors, for cross_attention
Tensor repeat_lastdim(Arena& arena, const Tensor& x);

// ---- the GPT-2 layout's head (Config::tie_weights; docs/export.md) ------------------------------
// out (..., V) = x (..., C) @ table^T for table (V, C): logits from the token embedding itself (the
// head tied to wte, no bias). Gradients reach x and the table (which the embedding's own gradient
// also accumulates into).
Tensor tied_head(Arena& arena, const Tensor& x, const Tensor& table);

}  // namespace tinygpt::nn
