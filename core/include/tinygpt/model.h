// model.h — TinyGPT: a decoder-only Transformer over bytes or BPE tokens.
//
// Dimensions (used in every shape comment of the project):
//   B   batch size                 T   time (sequence length), T <= block_size
//   C   channels (n_embd)          V   vocabulary = vocab_size (256 byte values, or a BPE vocabulary)
//   L   layers (n_layer)           NH  heads (n_head)      HS  head size = C / NH
//
// Forward (pre-norm blocks, GPT-2 style):
//   x = wte[tokens] + wpe[0:T]                              (B, T, C)
//   for each of the L blocks:
//     x = x + proj(causal_attention(qkv(LN1(x))))           (B, T, C)
//     x = x + fc_proj(gelu(fc(LN2(x))))                     (B, T, C), hidden (B, T, 4C)
//   logits = LN_f(x) @ lm_head.weight + lm_head.bias        (B, T, V)
//            or, in the GPT-2 layout (tie_weights 1): LN_f(x) @ wte^T, no lm_head parameters
//
// Parameters, and their gradients, each live in one contiguous float block; every named
// parameter (wte, h.0.attn.c_attn.weight, ...) is a view into it, described by param_table().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/ops.h"
#include "tinygpt/parameters.h"
#include "tinygpt/tensor.h"

namespace tinygpt::model {

// The byte vocabulary (tokenizer bytes): a byte is a token. A BPE run's V is its config's vocab_size.
constexpr int kVocab = 256;

// Per-sequence cache of keys and values for incremental decoding.
struct KVCache {
  std::vector<float> k, v;  // (L, block_size, C) each
  int length = 0;           // positions filled
  // scratch for one position (sized once)
  std::vector<float> x, h, qkv, y, fc, logits, stats;
};

class TinyGPT : public ModelParameters {  // params(), grads(), param_table(), param(name), ...
 public:
  explicit TinyGPT(const Config& config);  // validates, then initialises like GPT-2
  TinyGPT(const TinyGPT&) = delete;
  TinyGPT& operator=(const TinyGPT&) = delete;

  const Config& config() const { return config_; }

  // GPT-2 initialisation: N(0, 0.02) weights, residual projections N(0, 0.02 / sqrt(2L)),
  // zero biases, unit LayerNorm gains.
  void init_weights(uint64_t seed);

  // logits (B, T, V) for tokens (B, T). Builds a graph when grad mode is on.
  nn::Tensor forward_logits(nn::Arena& arena, const int32_t* tokens, int B, int T);
  // Mean cross-entropy of predicting targets (B, T) from tokens (B, T).
  nn::Tensor loss(nn::Arena& arena, const int32_t* tokens, const int32_t* targets, int B, int T);
  // x (B, T, C) + wpe[0:T]
  nn::Tensor add_positional(nn::Arena& arena, const nn::Tensor& x) const;

  // Attention probabilities (B, NH, T, T) of layer l from the last forward_logits; they live
  // in that call's arena, so they are valid until the arena is reset.
  nn::Tensor last_attention(int layer) const { return last_att_[size_t(layer)]; }

  // ---- incremental decoding with a KV cache (no graph, no arena) ----
  void reset_cache(KVCache& cache) const;  // sizes the buffers once, empties the cache
  // Append tokens (n >= 1, cache.length + n <= block_size); returns the logits (V) after the last.
  const float* decode(KVCache& cache, const int32_t* tokens, int n) const;

 private:
  struct Block {
    nn::Tensor ln1_g, ln1_b;    // (C), (C)
    nn::Tensor qkv_w, qkv_b;    // (C, 3C), (3C)
    nn::Tensor proj_w, proj_b;  // (C, C), (C)
    nn::Tensor ln2_g, ln2_b;    // (C), (C)
    nn::Tensor fc_w, fc_b;      // (C, 4C), (4C)
    nn::Tensor fcproj_w, fcproj_b;  // (4C, C), (C)
  };
  Config config_;
  nn::Tensor wte_;   // (V, C)
  nn::Tensor wpe_;   // (block_size, C)
  std::vector<Block> blocks_;
  nn::Tensor lnf_g_, lnf_b_;   // (C), (C)
  nn::Tensor lm_w_, lm_b_;     // (C, V), (V); undefined when tied (tie_weights: wte is the head)
  std::vector<nn::Tensor> last_att_;  // (B, NH, T, T) per layer
};

}  // namespace tinygpt::model
