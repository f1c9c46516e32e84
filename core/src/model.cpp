// model.cpp — TinyGPT: parameter layout, initialisation, forward pass, KV-cache decoding.
#include "tinygpt/model.h"

#include <cmath>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"
#include "tinygpt/rng.h"

namespace tinygpt::model {

using tinygpt::Error;

TinyGPT::TinyGPT(const Config& config) : config_(config) {
  validate_config(config_);
  const int C = config_.n_embd, V = config_.vocab_size, L = config_.n_layer;

  // 1) the table of named parameters (nanoGPT's order and names)
  auto entry = [&](const std::string& name, nn::Shape shape, bool decay) { block_.add(name, shape, decay); };
  entry("wte", {V, C}, true);
  entry("wpe", {config_.block_size, C}, true);
  for (int l = 0; l < L; l++) {
    const std::string p = "h." + std::to_string(l) + ".";
    entry(p + "ln_1.weight", {C}, false);
    entry(p + "ln_1.bias", {C}, false);
    entry(p + "attn.c_attn.weight", {C, 3 * C}, true);
    entry(p + "attn.c_attn.bias", {3 * C}, false);
    entry(p + "attn.c_proj.weight", {C, C}, true);
    entry(p + "attn.c_proj.bias", {C}, false);
    entry(p + "ln_2.weight", {C}, false);
    entry(p + "ln_2.bias", {C}, false);
    entry(p + "mlp.c_fc.weight", {C, 4 * C}, true);
    entry(p + "mlp.c_fc.bias", {4 * C}, false);
    entry(p + "mlp.c_proj.weight", {4 * C, C}, true);
    entry(p + "mlp.c_proj.bias", {C}, false);
  }
  entry("ln_f.weight", {C}, false);
  entry("ln_f.bias", {C}, false);
  if (!config_.tie_weights) {  // the GPT-2 layout (tie_weights) has no head of its own: wte is the head
    entry("lm_head.weight", {C, V}, true);
    entry("lm_head.bias", {V}, false);
  }

  // 2) one block for all parameters and one for all gradients, and a view per entry
  block_.allocate(tinygpt::num_parameters(config_));
  size_t next = 0;
  auto view = [&] { return block_.tensor(next++); };
  wte_ = view();
  wpe_ = view();
  blocks_.resize(size_t(L));
  for (Block& b : blocks_) {
    b.ln1_g = view(), b.ln1_b = view();
    b.qkv_w = view(), b.qkv_b = view();
    b.proj_w = view(), b.proj_b = view();
    b.ln2_g = view(), b.ln2_b = view();
    b.fc_w = view(), b.fc_b = view();
    b.fcproj_w = view(), b.fcproj_b = view();
  }
  lnf_g_ = view(), lnf_b_ = view();
  if (!config_.tie_weights) lm_w_ = view(), lm_b_ = view();
  last_att_.resize(size_t(L));
  init_weights(config_.seed);
}

void TinyGPT::init_weights(uint64_t seed) {
  data::Rng rng(seed);
  const double residual_std = 0.02 / std::sqrt(2.0 * config_.n_layer);
  for (const ParamInfo& p : block_.table()) {
    float* w = block_.params() + p.offset;
    const int64_t n = p.shape.numel();
    const bool is_ln_gain = p.name.find("ln_") != std::string::npos && p.name.ends_with(".weight");
    if (p.decay) {
      // residual projections are scaled so the residual stream's variance does not grow with depth
      const bool residual = p.name.ends_with("attn.c_proj.weight") || p.name.ends_with("mlp.c_proj.weight");
      const double std = residual ? residual_std : 0.02;
      for (int64_t i = 0; i < n; i++) w[i] = float(rng.normal() * std);
    } else {
      const float value = is_ln_gain ? 1.0f : 0.0f;
      for (int64_t i = 0; i < n; i++) w[i] = value;
    }
  }
}

nn::Tensor TinyGPT::add_positional(nn::Arena& arena, const nn::Tensor& x) const {
  return nn::add_positional(arena, x, wpe_);
}

nn::Tensor TinyGPT::forward_logits(nn::Arena& arena, const int32_t* tokens, int B, int T) {
  if (B < 1 || T < 1) throw Error("forward: batch and sequence length must be at least 1");
  if (T > config_.block_size)
    throw Error("forward: sequence length " + std::to_string(T) + " exceeds the context of " +
                std::to_string(config_.block_size));
  const int NH = config_.n_head;
  nn::Tensor x = nn::embedding(arena, wte_, tokens, B, T);  // (B, T, C)
  x = add_positional(arena, x);                              // (B, T, C)
  for (size_t l = 0; l < blocks_.size(); l++) {
    const Block& blk = blocks_[l];
    // attention sublayer: x = x + proj(attention(qkv(LN1(x))))
    nn::Tensor h = nn::layernorm_lastdim(arena, x, blk.ln1_g, blk.ln1_b);  // (B, T, C)
    nn::Tensor qkv = nn::linear_lastdim(arena, h, blk.qkv_w, blk.qkv_b);  // (B, T, 3C)
    nn::Tensor y = nn::causal_attention(arena, qkv, NH, &last_att_[l]);   // (B, T, C); att (B, NH, T, T)
    x = nn::linear_residual(arena, y, blk.proj_w, blk.proj_b, x);  // (B, T, C): x + proj(y)
    // MLP sublayer: x = x + fc_proj(gelu(fc(LN2(x))))
    h = nn::layernorm_lastdim(arena, x, blk.ln2_g, blk.ln2_b);  // (B, T, C)
    // (B, T, C): x + fcproj(gelu(fc(h))), the (B, T, 4C) hidden activation inside the op
    x = nn::feed_forward_residual(arena, h, blk.fc_w, blk.fc_b, blk.fcproj_w, blk.fcproj_b, x, nn::Activation::gelu);
  }
  x = nn::layernorm_lastdim(arena, x, lnf_g_, lnf_b_);  // (B, T, C)
  if (config_.tie_weights) return nn::tied_head(arena, x, wte_);  // (B, T, V) = x wte^T
  return nn::linear_lastdim(arena, x, lm_w_, lm_b_);    // (B, T, V)
}

nn::Tensor TinyGPT::loss(nn::Arena& arena, const int32_t* tokens, const int32_t* targets, int B, int T) {
  return nn::cross_entropy(arena, forward_logits(arena, tokens, B, T), targets);
}

// ---- KV-cache decoding ---------------------------------------------------------------------

void TinyGPT::reset_cache(KVCache& c) const {
  const size_t C = size_t(config_.n_embd), T = size_t(config_.block_size), L = size_t(config_.n_layer);
  c.k.resize(L * T * C);
  c.v.resize(L * T * C);
  c.x.resize(T * C);
  c.h.resize(T * C);
  c.qkv.resize(T * 3 * C);
  c.y.resize(T * C);
  c.fc.resize(T * 4 * C);
  c.logits.resize(size_t(config_.vocab_size));
  c.stats.resize(2 * T);
  c.length = 0;
}

const float* TinyGPT::decode(KVCache& c, const int32_t* tokens, int n) const {
  const int C = config_.n_embd, V = config_.vocab_size, T = config_.block_size, NH = config_.n_head;
  if (c.k.size() != size_t(config_.n_layer) * T * C) throw Error("decode: call reset_cache() first");
  if (n < 1 || c.length + n > T)
    throw Error("decode: " + std::to_string(n) + " more tokens do not fit in the context of " + std::to_string(T));
  for (int i = 0; i < n; i++)
    if (tokens[i] < 0 || tokens[i] >= V) throw Error("decode: token " + std::to_string(tokens[i]) + " out of range");
  const int p0 = c.length;
  float* x = c.x.data();    // (n, C)
  float* h = c.h.data();    // (n, C)
  float* qkv = c.qkv.data();  // (n, 3C)
  float* y = c.y.data();    // (n, C)
  float* fc = c.fc.data();  // (n, 4C)
  float* mean = c.stats.data();
  float* rstd = c.stats.data() + T;
  for (int i = 0; i < n; i++)
    kernels::add_forward(x + int64_t(i) * C, wte_.data() + int64_t(tokens[i]) * C, wpe_.data() + int64_t(p0 + i) * C, C);
  for (size_t l = 0; l < blocks_.size(); l++) {
    const Block& blk = blocks_[l];
    float* k_cache = c.k.data() + l * size_t(T) * C;  // (T, C)
    float* v_cache = c.v.data() + l * size_t(T) * C;  // (T, C)
    kernels::layernorm_forward(h, mean, rstd, x, blk.ln1_g.data(), blk.ln1_b.data(), n, C, 1e-5f);
    kernels::matmul_forward(qkv, h, blk.qkv_w.data(), blk.qkv_b.data(), n, C, 3 * C);
    for (int i = 0; i < n; i++) {
      std::memcpy(k_cache + int64_t(p0 + i) * C, qkv + int64_t(i) * 3 * C + C, size_t(C) * sizeof(float));
      std::memcpy(v_cache + int64_t(p0 + i) * C, qkv + int64_t(i) * 3 * C + 2 * C, size_t(C) * sizeof(float));
    }
    kernels::attention_decode(y, qkv, k_cache, v_cache, p0, n, C, NH);
    kernels::matmul_forward(h, y, blk.proj_w.data(), blk.proj_b.data(), n, C, C);
    kernels::accumulate(x, h, int64_t(n) * C);
    kernels::layernorm_forward(h, mean, rstd, x, blk.ln2_g.data(), blk.ln2_b.data(), n, C, 1e-5f);
    kernels::matmul_forward_act(fc, nullptr, h, blk.fc_w.data(), blk.fc_b.data(), n, C, 4 * C, kernels::kActGelu);
    kernels::matmul_forward(h, fc, blk.fcproj_w.data(), blk.fcproj_b.data(), n, 4 * C, C);
    kernels::accumulate(x, h, int64_t(n) * C);
  }
  c.length += n;
  // logits for the last position only
  const float* x_last = x + int64_t(n - 1) * C;
  kernels::layernorm_forward(h, mean, rstd, x_last, lnf_g_.data(), lnf_b_.data(), 1, C, 1e-5f);
  if (config_.tie_weights) kernels::sgemm(false, true, 1, V, C, h, C, wte_.data(), C, c.logits.data(), V, false);  // h wte^T
  else kernels::matmul_forward(c.logits.data(), h, lm_w_.data(), lm_b_.data(), 1, C, V);
  return c.logits.data();
}

}  // namespace tinygpt::model
