// rnn_seq2seq.cpp — the LSTM encoder-decoder with attention (rnn_seq2seq.h): parameters,
// initialisation, the teacher-forced forward pass, and decoding one token per step.
#include "tinygpt/rnn_seq2seq.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"
#include "tinygpt/rng.h"

namespace tinygpt::model {

using tinygpt::Error;

namespace {
constexpr int kLstm = 2;  // nn::recurrent's cell number

// Where each source row ends: the position of its last byte before the padding (0 for an empty row).
void last_positions(int32_t* out, const int32_t* src, int B, int S, int32_t pad) {
  for (int b = 0; b < B; b++) {
    int len = 0;
    while (len < S && src[int64_t(b) * S + len] != pad) len++;
    out[b] = std::max(len, 1) - 1;
  }
}

const uint8_t* padding_mask(nn::Arena& arena, const int32_t* tokens, int64_t n, int32_t pad) {
  auto* mask = static_cast<uint8_t*>(arena.alloc_bytes(size_t(n)));
  for (int64_t i = 0; i < n; i++) mask[i] = tokens[i] == pad;
  return mask;
}
}  // namespace

void LstmSeq2SeqDims::validate() const {
  auto check = [](bool ok, const std::string& msg) {
    if (!ok) throw Error("invalid lstm_seq2seq config: " + msg);
  };
  check(n_enc_layer >= 1 && n_enc_layer <= 64, "n_enc_layer must be between 1 and 64");
  check(n_dec_layer >= 1 && n_dec_layer <= 64, "n_dec_layer must be between 1 and 64");
  check(n_embd >= 1 && n_embd <= 8192, "n_embd must be between 1 and 8192");
  check(n_hidden >= 1 && n_hidden <= 8192, "n_hidden must be between 1 and 8192");
  check(block_size >= 2 && block_size <= 4096, "block_size must be between 2 and 4096 tokens");
  check(vocab_size >= data::kPairVocab && vocab_size <= 65536 + 3, "the vocabulary must be between 259 and 65539 tokens");
}

int64_t LstmSeq2SeqDims::num_parameters() const {
  const int64_t V = vocab_size, E = n_embd, H = n_hidden;
  auto layers = [&](int L) {
    int64_t n = 0;
    for (int l = 0; l < L; l++) n += 4 * H * ((l == 0 ? E : H) + H) + 8 * H;
    return n;
  };
  return 2 * V * E + layers(n_enc_layer) + layers(n_dec_layer) + 3 * H * H + H + H * V + V;
}

int64_t lstm_seq2seq_activation_bytes(const LstmSeq2SeqDims& d, int B) {
  const int64_t N = int64_t(B) * d.block_size, E = d.n_embd, H = d.n_hidden, V = d.vocab_size;
  const int64_t per_layer = N * (3 * 4 * H + 8 * H + std::max(E, H));  // as recurrent_activation_bytes
  const int64_t attention = N * (H + 2 * H + H) + int64_t(B) * d.block_size * d.block_size;  // q, kv, ctx, weights
  const int64_t floats = 2 * 2 * N * E + (d.n_enc_layer + d.n_dec_layer) * per_layer + 2 * B * H * 4 + attention +
                         N * 4 * H /* the mix */ + N * (3 * V + 1);
  const int64_t ops = 16 + 4 * (d.n_enc_layer + d.n_dec_layer);
  return 2 * floats * int64_t(sizeof(float)) + ops * 1024 + 64 * N;
}

LstmSeq2Seq::LstmSeq2Seq(const LstmSeq2SeqDims& dims) : dims_(dims) {
  dims_.validate();
  const int V = dims_.vocab_size, E = dims_.n_embd, H = dims_.n_hidden;
  auto entry = [&](const std::string& name, nn::Shape shape) { block_.add(name, shape, shape.ndim >= 2); };
  entry("src_embed.weight", {V, E});
  entry("tgt_embed.weight", {V, E});
  for (const char* side : {"encoder", "decoder"}) {
    const int L = side[0] == 'e' ? dims_.n_enc_layer : dims_.n_dec_layer;
    for (int l = 0; l < L; l++) {
      const std::string p = std::string(side) + ".", k = std::to_string(l);
      entry(p + "weight_ih_l" + k, {4 * H, l == 0 ? E : H});
      entry(p + "weight_hh_l" + k, {4 * H, H});
      entry(p + "bias_ih_l" + k, {4 * H});
      entry(p + "bias_hh_l" + k, {4 * H});
    }
  }
  entry("attn.weight", {H, H});
  entry("combine.context.weight", {H, H});
  entry("combine.hidden.weight", {H, H});
  entry("combine.bias", {H});
  entry("proj.weight", {H, V});
  entry("proj.bias", {V});
  block_.allocate(dims_.num_parameters());
  size_t next = 0;
  auto view = [&] { return block_.tensor(next++); };
  src_emb_ = view(), tgt_emb_ = view();
  for (auto* side : {&enc_, &dec_}) {
    side->resize(size_t(side == &enc_ ? dims_.n_enc_layer : dims_.n_dec_layer));
    for (nn::RecurrentWeights& w : *side) w.w_ih = view(), w.w_hh = view(), w.b_ih = view(), w.b_hh = view();
  }
  attn_w_ = view();
  mix_ctx_w_ = view(), mix_h_w_ = view(), mix_b_ = view();
  proj_w_ = view(), proj_b_ = view();
  init_weights(dims_.seed);
}

void LstmSeq2Seq::init_weights(uint64_t seed) {
  data::Rng rng(seed);
  const double k = 1.0 / std::sqrt(double(dims_.n_hidden));
  for (const ParamInfo& p : block_.table()) {
    float* w = block_.params() + p.offset;
    const int64_t n = p.shape.numel();
    const bool lstm = p.name.starts_with("encoder.") || p.name.starts_with("decoder.");
    if (p.name.ends_with("embed.weight")) {
      for (int64_t i = 0; i < n; i++) w[i] = float(rng.normal());
    } else if (lstm) {
      for (int64_t i = 0; i < n; i++) w[i] = float((2.0 * rng.uniform() - 1.0) * k);
    } else if (p.shape.ndim == 2) {
      const double a = std::sqrt(6.0 / double(p.shape[0] + p.shape[1]));  // Xavier-uniform
      for (int64_t i = 0; i < n; i++) w[i] = float((2.0 * rng.uniform() - 1.0) * a);
    } else {
      std::fill(w, w + n, 0.0f);
    }
  }
}

nn::Tensor LstmSeq2Seq::encode(nn::Arena& arena, const int32_t* src, int B, int S, std::vector<nn::Tensor>* h_last,
                               std::vector<nn::Tensor>* c_last) const {
  auto* last = static_cast<int32_t*>(arena.alloc_bytes(size_t(B) * sizeof(int32_t)));
  last_positions(last, src, B, S, dims_.tokens().pad());
  nn::Tensor x = nn::embedding(arena, src_emb_, src, B, S);  // (B, S, E)
  for (const nn::RecurrentWeights& w : enc_) {
    nn::Tensor c;
    x = nn::recurrent(arena, kLstm, x, w, nn::Tensor(), nn::Tensor(), &c);  // (B, S, H), c (B, S, H)
    h_last->push_back(nn::take_positions(arena, x, last));                  // (B, H)
    c_last->push_back(nn::take_positions(arena, c, last));                  // (B, H)
  }
  return x;
}

nn::Tensor LstmSeq2Seq::forward_logits(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, int B, int S,
                                       int T) {
  if (B < 1 || S < 1 || T < 1) throw Error("lstm_seq2seq: batch, source and target lengths must be at least 1");
  if (S > dims_.block_size || T > dims_.block_size)
    throw Error("lstm_seq2seq: source length " + std::to_string(S) + " or target length " + std::to_string(T) +
                " exceeds the maximum length (block_size) " + std::to_string(dims_.block_size));
  const nn::Tensor none;
  // the encoder's last states, one per layer, in members whose capacity stays: a steady-state
  // training step allocates nothing (tests/test_rnn_alloc.cpp)
  std::vector<nn::Tensor>& h0 = enc_h_last_;
  std::vector<nn::Tensor>& c0 = enc_c_last_;
  h0.clear(), c0.clear();
  nn::Tensor enc = encode(arena, src, B, S, &h0, &c0);                // (B, S, H)
  nn::Tensor x = nn::embedding(arena, tgt_emb_, tgt_in, B, T);        // (B, T, E)
  for (size_t l = 0; l < dec_.size(); l++) {
    const bool from_encoder = l < h0.size();
    x = nn::recurrent(arena, kLstm, x, dec_[l], from_encoder ? h0[l] : none, from_encoder ? c0[l] : none);  // (B, T, H)
  }
  h0.clear(), c0.clear();  // they live in this arena
  nn::Tensor q = nn::linear_lastdim(arena, x, attn_w_, none);        // (B, T, H)
  nn::Tensor kv = nn::repeat_lastdim(arena, enc);                     // (B, S, 2H): keys = values = enc
  const uint8_t* pad = padding_mask(arena, src, int64_t(B) * S, dims_.tokens().pad());      // (B, S)
  nn::Tensor ctx = nn::cross_attention(arena, q, kv, 1, {false, pad}, &last_att_);  // (B, T, H); att (B, 1, T, S)
  nn::Tensor mix = nn::add(arena, nn::linear_lastdim(arena, ctx, mix_ctx_w_, none), nn::linear_lastdim(arena, x, mix_h_w_, mix_b_));
  mix = nn::tanh(arena, mix);                                         // (B, T, H)
  return nn::linear_lastdim(arena, mix, proj_w_, proj_b_);            // (B, T, V)
}

nn::Tensor LstmSeq2Seq::loss(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, const int32_t* tgt_out, int B,
                             int S, int T) {
  return nn::cross_entropy_ignore(arena, forward_logits(arena, src, tgt_in, B, S, T), tgt_out);
}

// ---- incremental decoding ------------------------------------------------------------------------

void LstmSeq2Seq::start_decoding(Cache& c, const int32_t* src, int S, int rows, bool shared_source) const {
  const int E = dims_.n_embd, H = dims_.n_hidden, V = dims_.vocab_size, Ld = dims_.n_dec_layer;
  if (rows < 1) throw Error("decoding needs at least one row");
  if (S < 1 || S > dims_.block_size)
    throw Error("lstm_seq2seq: source length " + std::to_string(S) + " is outside 1 .. block_size (" +
                std::to_string(dims_.block_size) + ")");
  const int n_src = shared_source ? 1 : rows;
  c.rows = rows, c.S = S, c.length = 0, c.shared_source = shared_source;
  c.src_pad.resize(size_t(rows) * S);
  for (int r = 0; r < rows; r++)
    for (int j = 0; j < S; j++) c.src_pad[size_t(r) * S + j] = src[size_t(shared_source ? 0 : r) * S + j] == dims_.tokens().pad();
  c.kv.resize(size_t(n_src) * S * 2 * H);
  c.h.assign(size_t(Ld) * rows * H, 0.0f);
  c.c.assign(size_t(Ld) * rows * H, 0.0f);
  c.cross_att.resize(size_t(rows) * S);
  const size_t width = size_t(std::max(E, H));
  c.x.resize(rows * width), c.xg.resize(size_t(rows) * 4 * H), c.hs.resize(size_t(rows) * H), c.cs.resize(size_t(rows) * H);
  c.gates.resize(size_t(rows) * 4 * H), c.q.resize(size_t(rows) * H), c.ctx.resize(size_t(rows) * H);
  c.mix.resize(size_t(2) * rows * H), c.logits.resize(size_t(rows) * V);
  c.reorder.resize(std::max(size_t(rows) * H, size_t(n_src) * S * 2 * H));

  nn::GradMode no_grad(false);
  c.arena.reset();
  std::vector<nn::Tensor> h_last, c_last;
  nn::Tensor enc = encode(c.arena, src, n_src, S, &h_last, &c_last);  // (n_src, S, H)
  for (int64_t p = 0; p < int64_t(n_src) * S; p++) {
    std::memcpy(c.kv.data() + p * 2 * H, enc.data() + p * H, size_t(H) * sizeof(float));
    std::memcpy(c.kv.data() + p * 2 * H + H, enc.data() + p * H, size_t(H) * sizeof(float));
  }
  for (size_t l = 0; l < std::min(h_last.size(), size_t(Ld)); l++)
    for (int r = 0; r < rows; r++) {
      const int from = shared_source ? 0 : r;
      std::memcpy(c.h.data() + (l * rows + r) * H, h_last[l].data() + int64_t(from) * H, size_t(H) * sizeof(float));
      std::memcpy(c.c.data() + (l * rows + r) * H, c_last[l].data() + int64_t(from) * H, size_t(H) * sizeof(float));
    }
  c.arena.reset();
}

const float* LstmSeq2Seq::decode_step(Cache& c, const int32_t* tokens) const {
  const int E = dims_.n_embd, H = dims_.n_hidden, V = dims_.vocab_size, R = c.rows, S = c.S;
  if (R < 1 || c.h.size() != size_t(dims_.n_dec_layer) * R * H) throw Error("decode_step: call start_decoding() first");
  if (c.length >= dims_.block_size)
    throw Error("decode_step: the target already fills the maximum length (block_size) of " + std::to_string(dims_.block_size));
  for (int r = 0; r < R; r++)
    if (tokens[r] < 0 || tokens[r] >= V) throw Error("decode_step: token " + std::to_string(tokens[r]) + " out of range");
  float* x = c.x.data();  // (R, in)
  for (int r = 0; r < R; r++) std::memcpy(x + int64_t(r) * E, tgt_emb_.data() + int64_t(tokens[r]) * E, size_t(E) * sizeof(float));
  int in = E;
  for (size_t l = 0; l < dec_.size(); l++) {
    const nn::RecurrentWeights& w = dec_[l];
    float* h_l = c.h.data() + l * size_t(R) * H;  // (R, H)
    float* c_l = c.c.data() + l * size_t(R) * H;
    for (int r = 0; r < R; r++) std::memcpy(c.xg.data() + int64_t(r) * 4 * H, w.b_ih.data(), size_t(4) * H * sizeof(float));
    kernels::sgemm(false, true, R, 4 * H, in, x, in, w.w_ih.data(), in, c.xg.data(), 4 * H, true);
    kernels::rnn_forward(c.hs.data(), c.cs.data(), c.gates.data(), c.xg.data(), w.w_hh.data(), w.b_hh.data(), h_l, c_l,
                         kLstm, R, 1, H);
    std::memcpy(h_l, c.hs.data(), size_t(R) * H * sizeof(float));
    std::memcpy(c_l, c.cs.data(), size_t(R) * H * sizeof(float));
    std::memcpy(x, c.hs.data(), size_t(R) * H * sizeof(float));
    in = H;
  }
  // attention of the new position over the source, then h~ and the logits
  kernels::matmul_forward(c.q.data(), x, attn_w_.data(), nullptr, R, H, H);
  kernels::AttentionShape s;
  s.B = R, s.Tq = 1, s.Tk = S, s.C = H, s.NH = 1;
  s.q_row = H, s.q_batch = H;
  s.kv_row = 2 * H, s.kv_batch = c.shared_source ? 0 : int64_t(S) * 2 * H;
  kernels::mha_forward(c.ctx.data(), c.cross_att.data(), c.q.data(), c.kv.data(), c.kv.data() + H, c.src_pad.data(), s);
  float* m1 = c.mix.data();           // (R, H) ctx W_cc
  float* m2 = c.mix.data() + R * H;   // (R, H) h W_ch + b
  kernels::matmul_forward(m1, c.ctx.data(), mix_ctx_w_.data(), nullptr, R, H, H);
  kernels::matmul_forward(m2, x, mix_h_w_.data(), mix_b_.data(), R, H, H);
  kernels::add_forward(m1, m1, m2, int64_t(R) * H);
  kernels::tanh_forward(m1, m1, int64_t(R) * H);
  kernels::matmul_forward(c.logits.data(), m1, proj_w_.data(), proj_b_.data(), R, H, V);
  c.length++;
  return c.logits.data();
}

void LstmSeq2Seq::reorder_rows(Cache& c, const int* parent) const {
  const int H = dims_.n_hidden, R = c.rows, S = c.S;
  for (int r = 0; r < R; r++)
    if (parent[r] < 0 || parent[r] >= R) throw Error("reorder_rows: parent row " + std::to_string(parent[r]) + " out of range");
  float* tmp = c.reorder.data();
  auto permute = [&](float* base, int64_t row_floats) {
    for (int r = 0; r < R; r++) std::memcpy(tmp + r * row_floats, base + parent[r] * row_floats, size_t(row_floats) * sizeof(float));
    std::memcpy(base, tmp, size_t(R) * row_floats * sizeof(float));
  };
  for (int l = 0; l < dims_.n_dec_layer; l++) {
    permute(c.h.data() + int64_t(l) * R * H, H);
    permute(c.c.data() + int64_t(l) * R * H, H);
  }
  if (!c.shared_source) {
    permute(c.kv.data(), int64_t(S) * 2 * H);
    std::vector<uint8_t> pad(c.src_pad);
    for (int r = 0; r < R; r++) std::memcpy(&c.src_pad[size_t(r) * S], &pad[size_t(parent[r]) * S], size_t(S));
  }
}

}  // namespace tinygpt::model
