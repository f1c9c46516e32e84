// seq2seq.cpp — the encoder-decoder Transformer: parameter layout, initialisation, the
// teacher-forced forward pass, and incremental decoding with a KV cache.
#include "tinygpt/seq2seq.h"

#include <cmath>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"
#include "tinygpt/rng.h"

namespace tinygpt::model {

using tinygpt::Error;

void Seq2SeqDims::validate() const {
  auto check = [](bool ok, const std::string& msg) {
    if (!ok) throw Error("invalid seq2seq config: " + msg);
  };
  check(n_enc_layer >= 1 && n_enc_layer <= 64,
        "encoder layers (n_enc_layer) must be between 1 and 64 (got " + std::to_string(n_enc_layer) + ")");
  check(n_dec_layer >= 1 && n_dec_layer <= 64,
        "decoder layers (n_dec_layer) must be between 1 and 64 (got " + std::to_string(n_dec_layer) + ")");
  check(n_head >= 1 && n_head <= 128, "heads (n_head) must be between 1 and 128 (got " + std::to_string(n_head) + ")");
  check(n_embd >= 1 && n_embd <= 8192, "width (n_embd) must be between 1 and 8192 (got " + std::to_string(n_embd) + ")");
  check(d_ff >= 1 && d_ff <= 65536,
        "feed-forward width (d_ff) must be between 1 and 65536 (got " + std::to_string(d_ff) + ")");
  check(vocab_size >= data::kPairVocab && vocab_size <= 65536 + 3,
        "vocabulary must be between 259 and 65539 tokens (text tokens and BOS, EOS, PAD; got " + std::to_string(vocab_size) + ")");
  check(block_size >= 2 && block_size <= 4096,
        "maximum length (block_size) must be between 2 and 4096 tokens (got " + std::to_string(block_size) + ")");
  check(n_embd % n_head == 0, "width " + std::to_string(n_embd) + " is not divisible by " + std::to_string(n_head) +
                                  " heads (each head gets width / heads channels)");
}

int64_t Seq2SeqDims::num_parameters() const {
  const int64_t C = n_embd, F = d_ff, V = vocab_size;
  const int64_t ff = C * F + F + F * C + C;
  const int64_t enc_layer = 3 * C * C + C * C + 2 * C + ff + 2 * C;
  const int64_t dec_layer = 3 * C * C + C * C + 2 * C + (C * C + 2 * C * C + C * C) + 2 * C + ff + 2 * C;
  return 2 * V * C + n_enc_layer * enc_layer + n_dec_layer * dec_layer + 2 * C + C * V + V;
}

int64_t seq2seq_activation_bytes(const Seq2SeqDims& d, int B) {
  // Floats of every tensor a training step allocates at S = T = block_size (see forward_logits),
  // counted twice (the activation and its gradient), plus per-op bookkeeping (nodes, tensor
  // handles, masks, 64-byte alignment).
  const int64_t N = int64_t(B) * d.block_size, C = d.n_embd, F = d.d_ff, NH = d.n_head, T = d.block_size;
  const int64_t V = d.vocab_size;
  const int64_t ln = C + 2;                          // output + mean + rstd per row
  const int64_t ff = F + C;                          // feed_forward_residual: the hidden activation, the output
  const int64_t enc_row = 3 * C + C + NH * T + C + C + ln + ff + C + ln;
  const int64_t dec_row = (3 * C + C + NH * T + C + C + ln) + (C + 2 * C + C + NH * T + C + C + ln) + (ff + C + ln);
  const int64_t floats = N * (2 * C) * 2                 // embeddings + positions, source and target
                         + d.n_enc_layer * N * enc_row + d.n_dec_layer * N * dec_row
                         + N * (ln + V + V + 1);         // final LayerNorm, logits, probabilities, losses
  const int64_t ops = 4 + d.n_enc_layer * 15 + d.n_dec_layer * 25;
  return floats * 2 * int64_t(sizeof(float)) + ops * 1024 + 4 * N * 64;
}

void sinusoidal_encoding(float* pe, int T, int C) {
  for (int pos = 0; pos < T; pos++)
    for (int i = 0; i < C; i += 2) {
      // i = 2k: the pair (2k, 2k+1) shares the frequency 1 / 10000^(2k / C)
      const double angle = double(pos) / std::pow(10000.0, double(i) / double(C));
      pe[int64_t(pos) * C + i] = float(std::sin(angle));
      if (i + 1 < C) pe[int64_t(pos) * C + i + 1] = float(std::cos(angle));
    }
}

Seq2Seq::Seq2Seq(const Seq2SeqDims& dims) : dims_(dims) {
  dims_.validate();
  const int C = dims_.n_embd, F = dims_.d_ff, V = dims_.vocab_size;

  // 1) the table of named parameters
  auto entry = [&](const std::string& name, nn::Shape shape) {
    block_.add(name, shape, shape.ndim >= 2);  // matrices and embeddings decay
  };
  entry("src_embed.weight", {V, C});
  entry("tgt_embed.weight", {V, C});
  for (int l = 0; l < dims_.n_enc_layer; l++) {
    const std::string p = "encoder.layers." + std::to_string(l) + ".";
    entry(p + "self_attn.qkv.weight", {C, 3 * C});
    entry(p + "self_attn.out_proj.weight", {C, C});
    entry(p + "norm1.weight", {C});
    entry(p + "norm1.bias", {C});
    entry(p + "linear1.weight", {C, F});
    entry(p + "linear1.bias", {F});
    entry(p + "linear2.weight", {F, C});
    entry(p + "linear2.bias", {C});
    entry(p + "norm2.weight", {C});
    entry(p + "norm2.bias", {C});
  }
  for (int l = 0; l < dims_.n_dec_layer; l++) {
    const std::string p = "decoder.layers." + std::to_string(l) + ".";
    entry(p + "self_attn.qkv.weight", {C, 3 * C});
    entry(p + "self_attn.out_proj.weight", {C, C});
    entry(p + "norm1.weight", {C});
    entry(p + "norm1.bias", {C});
    entry(p + "cross_attn.q.weight", {C, C});
    entry(p + "cross_attn.kv.weight", {C, 2 * C});
    entry(p + "cross_attn.out_proj.weight", {C, C});
    entry(p + "norm2.weight", {C});
    entry(p + "norm2.bias", {C});
    entry(p + "linear1.weight", {C, F});
    entry(p + "linear1.bias", {F});
    entry(p + "linear2.weight", {F, C});
    entry(p + "linear2.bias", {C});
    entry(p + "norm3.weight", {C});
    entry(p + "norm3.bias", {C});
  }
  entry("decoder.norm.weight", {C});
  entry("decoder.norm.bias", {C});
  entry("proj.weight", {C, V});
  entry("proj.bias", {V});

  // 2) one block for all parameters and one for all gradients, and a view per entry (table order)
  block_.allocate(dims_.num_parameters());
  size_t next = 0;
  auto view = [&] { return block_.tensor(next++); };
  src_emb_ = view();
  tgt_emb_ = view();
  enc_.resize(size_t(dims_.n_enc_layer));
  for (EncoderLayer& e : enc_) {
    e.qkv_w = view(), e.out_w = view();
    e.ln1_g = view(), e.ln1_b = view();
    e.fc1_w = view(), e.fc1_b = view();
    e.fc2_w = view(), e.fc2_b = view();
    e.ln2_g = view(), e.ln2_b = view();
  }
  dec_.resize(size_t(dims_.n_dec_layer));
  for (DecoderLayer& d : dec_) {
    d.qkv_w = view(), d.out_w = view();
    d.ln1_g = view(), d.ln1_b = view();
    d.q_w = view(), d.kv_w = view(), d.cross_out_w = view();
    d.ln2_g = view(), d.ln2_b = view();
    d.fc1_w = view(), d.fc1_b = view();
    d.fc2_w = view(), d.fc2_b = view();
    d.ln3_g = view(), d.ln3_b = view();
  }
  lnf_g_ = view(), lnf_b_ = view();
  proj_w_ = view(), proj_b_ = view();

  // 4) the positional encoding: a constant table, no gradient
  pe_.resize(size_t(dims_.block_size) * C);
  sinusoidal_encoding(pe_.data(), dims_.block_size, C);
  pe_view_.data = pe_.data();
  pe_view_.shape = nn::Shape{dims_.block_size, C};
  pe_view_.requires_grad = false;

  enc_att_.resize(enc_.size());
  dec_att_.resize(dec_.size());
  cross_att_.resize(dec_.size());
  init_weights(dims_.seed);
}

void Seq2Seq::init_weights(uint64_t seed) {
  data::Rng rng(seed);
  for (const ParamInfo& p : block_.table()) {
    float* w = block_.params() + p.offset;
    const int64_t n = p.shape.numel();
    if (p.name.ends_with("embed.weight")) {
      for (int64_t i = 0; i < n; i++) w[i] = float(rng.normal());
    } else if (p.shape.ndim == 2) {
      // Xavier-uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)), keeps the variance of x W near that of x
      const double a = std::sqrt(6.0 / double(p.shape[0] + p.shape[1]));
      for (int64_t i = 0; i < n; i++) w[i] = float((2.0 * rng.uniform() - 1.0) * a);
    } else {
      const bool gain = p.name.find("norm") != std::string::npos && p.name.ends_with(".weight");
      for (int64_t i = 0; i < n; i++) w[i] = gain ? 1.0f : 0.0f;
    }
  }
}


nn::Tensor Seq2Seq::last_attention(AttentionKind kind, int layer) const {
  const std::vector<nn::Tensor>& maps = kind == AttentionKind::encoder_self ? enc_att_
                                        : kind == AttentionKind::decoder_self ? dec_att_
                                                                              : cross_att_;
  if (layer < 0 || layer >= int(maps.size())) throw Error("last_attention: no layer " + std::to_string(layer));
  return maps[size_t(layer)];
}

// ---- the teacher-forced forward pass ---------------------------------------------------------

namespace {
// (n) 1 where the token is PAD: the key-padding mask
const uint8_t* padding_mask(nn::Arena& arena, const int32_t* tokens, int64_t n, int32_t pad) {
  auto* mask = static_cast<uint8_t*>(arena.alloc_bytes(size_t(n)));
  for (int64_t i = 0; i < n; i++) mask[i] = tokens[i] == pad;
  return mask;
}

void check_lengths(int B, int S, int T, int block_size) {
  if (B < 1 || S < 1 || T < 1) throw Error("seq2seq: batch, source and target lengths must be at least 1");
  if (S > block_size || T > block_size)
    throw Error("seq2seq: source length " + std::to_string(S) + " or target length " + std::to_string(T) +
                " exceeds the maximum length (block_size) " + std::to_string(block_size));
}
}  // namespace

nn::Tensor Seq2Seq::embed(nn::Arena& arena, const nn::Tensor& table, const int32_t* tokens, int B, int T) const {
  nn::Tensor x = nn::embedding(arena, table, tokens, B, T);  // (B, T, C)
  return nn::add_positional(arena, x, nn::Tensor(const_cast<nn::TensorImpl*>(&pe_view_)));  // + PE[0:T], no gradient to PE
}

nn::Tensor Seq2Seq::feed_forward_residual(nn::Arena& arena, const nn::Tensor& x, const nn::Tensor& w1,
                                          const nn::Tensor& b1, const nn::Tensor& w2, const nn::Tensor& b2) const {
  // (B, T, C): FF(x) + x, FF(x) = relu(x w1 + b1) w2 + b2, the (B, T, F) hidden activation inside the op
  return nn::feed_forward_residual(arena, x, w1, b1, w2, b2, x, nn::Activation::relu);
}

nn::Tensor Seq2Seq::encode_layers(nn::Arena& arena, const int32_t* src, const uint8_t* src_pad, int B, int S,
                                  std::vector<nn::Tensor>* att) const {
  const int NH = dims_.n_head;
  const nn::Tensor none;
  nn::Tensor x = embed(arena, src_emb_, src, B, S);  // (B, S, C)
  for (size_t l = 0; l < enc_.size(); l++) {
    const EncoderLayer& e = enc_[l];
    // y = LN1(self_attn(x) + x)
    nn::Tensor qkv = nn::linear_lastdim(arena, x, e.qkv_w, none);  // (B, S, 3C)
    nn::Tensor a = nn::masked_attention(arena, qkv, NH, {false, src_pad}, att ? &(*att)[l] : nullptr);  // (B, S, C)
    a = nn::linear_residual(arena, a, e.out_w, none, x);            // (B, S, C): out-projection + x
    nn::Tensor y = nn::layernorm_lastdim(arena, a, e.ln1_g, e.ln1_b);
    // x = LN2(FF(y) + y)
    nn::Tensor f = feed_forward_residual(arena, y, e.fc1_w, e.fc1_b, e.fc2_w, e.fc2_b);  // (B, S, C)
    x = nn::layernorm_lastdim(arena, f, e.ln2_g, e.ln2_b);                             // (B, S, C)
  }
  return x;
}

nn::Tensor Seq2Seq::encode(nn::Arena& arena, const int32_t* src, int B, int S) const {
  check_lengths(B, S, 1, dims_.block_size);
  return encode_layers(arena, src, padding_mask(arena, src, int64_t(B) * S, dims_.tokens().pad()), B, S, nullptr);
}

nn::Tensor Seq2Seq::forward_logits(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, int B, int S, int T) {
  check_lengths(B, S, T, dims_.block_size);
  const int NH = dims_.n_head;
  const nn::Tensor none;
  const uint8_t* src_pad = padding_mask(arena, src, int64_t(B) * S, dims_.tokens().pad());     // (B, S)
  const uint8_t* tgt_pad = padding_mask(arena, tgt_in, int64_t(B) * T, dims_.tokens().pad());  // (B, T)
  nn::Tensor enc = encode_layers(arena, src, src_pad, B, S, &enc_att_);  // (B, S, C)
  nn::Tensor z = embed(arena, tgt_emb_, tgt_in, B, T);                   // (B, T, C)
  for (size_t l = 0; l < dec_.size(); l++) {
    const DecoderLayer& d = dec_[l];
    // y = LN1(self_attn(z, causal mask) + z)
    nn::Tensor qkv = nn::linear_lastdim(arena, z, d.qkv_w, none);                    // (B, T, 3C)
    nn::Tensor a = nn::masked_attention(arena, qkv, NH, {true, tgt_pad}, &dec_att_[l]);  // (B, T, C)
    a = nn::linear_residual(arena, a, d.out_w, none, z);                             // (B, T, C): + z
    nn::Tensor y = nn::layernorm_lastdim(arena, a, d.ln1_g, d.ln1_b);                 // (B, T, C)
    // u = LN2(cross_attn(q = y, k = v = enc) + y)
    nn::Tensor q = nn::linear_lastdim(arena, y, d.q_w, none);      // (B, T, C)
    nn::Tensor kv = nn::linear_lastdim(arena, enc, d.kv_w, none);  // (B, S, 2C)
    nn::Tensor c = nn::cross_attention(arena, q, kv, NH, {false, src_pad}, &cross_att_[l]);  // (B, T, C)
    c = nn::linear_residual(arena, c, d.cross_out_w, none, y);  // (B, T, C): + y
    nn::Tensor u = nn::layernorm_lastdim(arena, c, d.ln2_g, d.ln2_b);  // (B, T, C)
    // z = LN3(FF(u) + u)
    nn::Tensor f = feed_forward_residual(arena, u, d.fc1_w, d.fc1_b, d.fc2_w, d.fc2_b);  // (B, T, C)
    z = nn::layernorm_lastdim(arena, f, d.ln3_g, d.ln3_b);                             // (B, T, C)
  }
  z = nn::layernorm_lastdim(arena, z, lnf_g_, lnf_b_);  // (B, T, C)
  return nn::linear_lastdim(arena, z, proj_w_, proj_b_);  // (B, T, V)
}

nn::Tensor Seq2Seq::loss(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, const int32_t* tgt_out, int B,
                         int S, int T) {
  return nn::cross_entropy_ignore(arena, forward_logits(arena, src, tgt_in, B, S, T), tgt_out);
}

// ---- incremental decoding ------------------------------------------------------------------

void Seq2Seq::start_decoding(Seq2SeqCache& c, const int32_t* src, int S, int rows, bool shared_source) const {
  const int C = dims_.n_embd, F = dims_.d_ff, NH = dims_.n_head, Tmax = dims_.block_size, V = dims_.vocab_size;
  const int Ld = dims_.n_dec_layer;
  if (rows < 1) throw Error("decoding needs at least one row");
  const int n_src = shared_source ? 1 : rows;
  check_lengths(n_src, S, 1, Tmax);
  c.rows = rows, c.S = S, c.length = 0, c.shared_source = shared_source;
  c.src_pad.resize(size_t(rows) * S);
  for (int r = 0; r < rows; r++)
    for (int j = 0; j < S; j++) c.src_pad[size_t(r) * S + j] = src[size_t(shared_source ? 0 : r) * S + j] == dims_.tokens().pad();
  c.cross_kv.resize(size_t(Ld) * n_src * S * 2 * C);
  c.self_k.resize(size_t(Ld) * rows * Tmax * C);
  c.self_v.resize(size_t(Ld) * rows * Tmax * C);
  c.cross_att.resize(size_t(Ld) * rows * NH * S);
  c.x.resize(size_t(rows) * C);
  c.h.resize(size_t(rows) * C);
  c.qkv.resize(size_t(rows) * 3 * C);
  c.y.resize(size_t(rows) * C);
  c.ff.resize(size_t(rows) * F);
  c.logits.resize(size_t(rows) * V);
  c.stats.resize(size_t(2) * rows);
  c.att.resize(size_t(rows) * NH * Tmax);
  c.reorder.resize(std::max(size_t(rows) * Tmax * C, size_t(n_src) * S * 2 * C));

  // the encoder runs once; each decoder layer's cross-attention keys and values come from it
  nn::GradMode no_grad(false);
  c.arena.reset();
  nn::Tensor enc = encode(c.arena, src, n_src, S);  // (n_src, S, C)
  for (int l = 0; l < Ld; l++)
    kernels::matmul_forward(c.cross_kv.data() + size_t(l) * n_src * S * 2 * C, enc.data(), dec_[size_t(l)].kv_w.data(),
                            nullptr, n_src * S, C, 2 * C);
  c.arena.reset();
}

const float* Seq2Seq::decode_step(Seq2SeqCache& c, const int32_t* tokens) const {
  const int C = dims_.n_embd, F = dims_.d_ff, NH = dims_.n_head, Tmax = dims_.block_size, V = dims_.vocab_size;
  const int R = c.rows, S = c.S, t = c.length;
  if (R < 1 || c.self_k.size() != size_t(dims_.n_dec_layer) * R * Tmax * C)
    throw Error("decode_step: call start_decoding() first");
  if (t >= Tmax)
    throw Error("decode_step: the target already fills the maximum length (block_size) of " + std::to_string(Tmax));
  for (int r = 0; r < R; r++)
    if (tokens[r] < 0 || tokens[r] >= V) throw Error("decode_step: token " + std::to_string(tokens[r]) + " out of range");
  float* x = c.x.data();      // (R, C)
  float* h = c.h.data();      // (R, C)
  float* qkv = c.qkv.data();  // (R, 3C)
  float* y = c.y.data();      // (R, C)
  float* ff = c.ff.data();    // (R, F)
  float* mean = c.stats.data();
  float* rstd = c.stats.data() + R;
  const float eps = 1e-5f;
  for (int r = 0; r < R; r++)
    kernels::add_forward(x + int64_t(r) * C, tgt_emb_.data() + int64_t(tokens[r]) * C, pe_.data() + int64_t(t) * C, C);

  // self-attention of the new position over positions 0..t of its row
  kernels::AttentionShape self;
  self.B = R, self.Tq = 1, self.Tk = t + 1, self.C = C, self.NH = NH;
  self.q_row = 3 * C, self.q_batch = 3 * C;
  self.kv_row = C, self.kv_batch = int64_t(Tmax) * C;
  // cross-attention over the source's keys and values (shared by every row in beam search)
  const int n_src = c.shared_source ? 1 : R;
  kernels::AttentionShape cross;
  cross.B = R, cross.Tq = 1, cross.Tk = S, cross.C = C, cross.NH = NH;
  cross.q_row = C, cross.q_batch = C;
  cross.kv_row = 2 * C, cross.kv_batch = c.shared_source ? 0 : int64_t(S) * 2 * C;

  for (size_t l = 0; l < dec_.size(); l++) {
    const DecoderLayer& d = dec_[l];
    float* k_cache = c.self_k.data() + l * size_t(R) * Tmax * C;  // (R, Tmax, C)
    float* v_cache = c.self_v.data() + l * size_t(R) * Tmax * C;  // (R, Tmax, C)
    // y = LN1(self_attn(x) + x)
    kernels::matmul_forward(qkv, x, d.qkv_w.data(), nullptr, R, C, 3 * C);
    for (int r = 0; r < R; r++) {
      std::memcpy(k_cache + (int64_t(r) * Tmax + t) * C, qkv + int64_t(r) * 3 * C + C, size_t(C) * sizeof(float));
      std::memcpy(v_cache + (int64_t(r) * Tmax + t) * C, qkv + int64_t(r) * 3 * C + 2 * C, size_t(C) * sizeof(float));
    }
    kernels::mha_forward(y, c.att.data(), qkv, k_cache, v_cache, nullptr, self);
    kernels::matmul_forward(h, y, d.out_w.data(), nullptr, R, C, C);
    kernels::add_forward(h, h, x, int64_t(R) * C);
    kernels::layernorm_forward(x, mean, rstd, h, d.ln1_g.data(), d.ln1_b.data(), R, C, eps);
    // u = LN2(cross_attn(q = y, k = v = enc) + y)
    const float* kv = c.cross_kv.data() + l * size_t(n_src) * S * 2 * C;  // (n_src, S, 2C)
    kernels::matmul_forward(qkv, x, d.q_w.data(), nullptr, R, C, C);     // q (R, C)
    kernels::mha_forward(y, c.cross_att.data() + l * size_t(R) * NH * S, qkv, kv, kv + C, c.src_pad.data(), cross);
    kernels::matmul_forward(h, y, d.cross_out_w.data(), nullptr, R, C, C);
    kernels::add_forward(h, h, x, int64_t(R) * C);
    kernels::layernorm_forward(x, mean, rstd, h, d.ln2_g.data(), d.ln2_b.data(), R, C, eps);
    // z = LN3(FF(u) + u)
    kernels::matmul_forward_act(ff, nullptr, x, d.fc1_w.data(), d.fc1_b.data(), R, C, F, kernels::kActRelu);
    kernels::matmul_forward(h, ff, d.fc2_w.data(), d.fc2_b.data(), R, F, C);
    kernels::add_forward(h, h, x, int64_t(R) * C);
    kernels::layernorm_forward(x, mean, rstd, h, d.ln3_g.data(), d.ln3_b.data(), R, C, eps);
  }
  c.length++;
  kernels::layernorm_forward(h, mean, rstd, x, lnf_g_.data(), lnf_b_.data(), R, C, eps);
  kernels::matmul_forward(c.logits.data(), h, proj_w_.data(), proj_b_.data(), R, C, V);
  return c.logits.data();
}

void Seq2Seq::reorder_rows(Seq2SeqCache& c, const int* parent) const {
  const int C = dims_.n_embd, Tmax = dims_.block_size, R = c.rows, S = c.S, t = c.length;
  for (int r = 0; r < R; r++)
    if (parent[r] < 0 || parent[r] >= R) throw Error("reorder_rows: parent row " + std::to_string(parent[r]) + " out of range");
  float* tmp = c.reorder.data();
  // out (R, rows_stride) <- in[parent[r]]: copy through tmp so rows can swap
  auto permute = [&](float* base, int64_t row_floats, int64_t used_floats) {
    for (int r = 0; r < R; r++)
      std::memcpy(tmp + r * used_floats, base + parent[r] * row_floats, size_t(used_floats) * sizeof(float));
    for (int r = 0; r < R; r++)
      std::memcpy(base + r * row_floats, tmp + r * used_floats, size_t(used_floats) * sizeof(float));
  };
  for (size_t l = 0; l < dec_.size(); l++) {
    permute(c.self_k.data() + l * size_t(R) * Tmax * C, int64_t(Tmax) * C, int64_t(t) * C);
    permute(c.self_v.data() + l * size_t(R) * Tmax * C, int64_t(Tmax) * C, int64_t(t) * C);
  }
  if (!c.shared_source) {
    for (size_t l = 0; l < dec_.size(); l++)
      permute(c.cross_kv.data() + l * size_t(R) * S * 2 * C, int64_t(S) * 2 * C, int64_t(S) * 2 * C);
    std::vector<uint8_t> pad(c.src_pad);
    for (int r = 0; r < R; r++) std::memcpy(&c.src_pad[size_t(r) * S], &pad[size_t(parent[r]) * S], size_t(S));
  }
}

}  // namespace tinygpt::model
