// rnn.cpp — the recurrent language models (rnn.h): parameter layout, initialisation, the forward
// pass through the layers, and generation one token at a time.
#include "tinygpt/rnn.h"

#include <cmath>
#include <cstring>

#include "kernels.h"
#include "tinygpt/error.h"
#include "tinygpt/model.h"
#include "tinygpt/rng.h"

namespace tinygpt::model {

using tinygpt::Error;

int cell_of(ModelKind kind) {
  switch (kind) {
    case ModelKind::rnn: return 0;
    case ModelKind::gru: return 1;
    case ModelKind::lstm: return 2;
    default: break;
  }
  throw Error(std::string("internal: ") + model_kind_name(kind) + " is not a recurrent kind");
}

int64_t recurrent_num_parameters(int cell, int V, int E, int H, int L) {
  const int64_t GH = int64_t(cell_gates(cell)) * H;
  int64_t n = int64_t(V) * E;
  for (int l = 0; l < L; l++) n += GH * ((l == 0 ? E : H) + H) + 2 * GH;
  return n + int64_t(H) * V + V;
}

int64_t recurrent_activation_bytes(const Config& c, int B) {
  const int cell = cell_of(c.model);
  const int64_t N = int64_t(B) * c.block_size, E = c.n_embd, H = c.n_hidden, V = c.vocab_size;
  const int64_t GH = cell_gates(cell) * H;
  // per layer: xg, the backward's dgx (and dgh), h, c, gates and h_{t-1}, and the gradients of h, c, x
  const int64_t per_layer = N * (3 * GH + 4 * H + 4 * H + std::max(E, H));
  // embedding and its gradient; logits, probabilities, their gradient, losses
  const int64_t floats = 2 * N * E + c.n_layer * per_layer + N * (3 * V + 1);
  const int64_t ops = 4 + 4 * c.n_layer;
  return floats * int64_t(sizeof(float)) + ops * 1024 + 16 * N;
}

Recurrent::Recurrent(const Config& config) : config_(config) {
  validate_config(config_);
  cell_ = cell_of(config_.model);
  const int V = config_.vocab_size, E = config_.n_embd, H = config_.n_hidden, L = config_.n_layer;
  const int GH = cell_gates(cell_) * H;

  // 1) the table of named parameters: TinyGPT's wte and lm_head around torch.nn.LSTM's names
  auto entry = [&](const std::string& name, nn::Shape shape) { block_.add(name, shape, shape.ndim >= 2); };
  entry("wte", {V, E});
  for (int l = 0; l < L; l++) {
    const std::string k = std::to_string(l);
    entry("rnn.weight_ih_l" + k, {GH, l == 0 ? E : H});
    entry("rnn.weight_hh_l" + k, {GH, H});
    entry("rnn.bias_ih_l" + k, {GH});
    entry("rnn.bias_hh_l" + k, {GH});
  }
  entry("lm_head.weight", {H, V});
  entry("lm_head.bias", {V});

  // 2) one block for all parameters and one for their gradients, a view per entry
  block_.allocate(recurrent_num_parameters(cell_, V, E, H, L));
  size_t next = 0;
  auto view = [&] { return block_.tensor(next++); };
  wte_ = view();
  layers_.resize(size_t(L));
  for (Layer& layer : layers_) {
    layer.w.w_ih = view(), layer.w.w_hh = view();
    layer.w.b_ih = view(), layer.w.b_hh = view();
  }
  lm_w_ = view(), lm_b_ = view();
  last_h_.resize(size_t(L));
  last_c_.resize(size_t(L));
  last_gates_.resize(size_t(L));
  init_weights(config_.seed);
}

void Recurrent::init_weights(uint64_t seed) {
  data::Rng rng(seed);
  const double k = 1.0 / std::sqrt(double(config_.n_hidden));
  for (const ParamInfo& p : block_.table()) {
    float* w = block_.params() + p.offset;
    const int64_t n = p.shape.numel();
    if (p.name == "wte") {
      for (int64_t i = 0; i < n; i++) w[i] = float(rng.normal());
    } else {
      for (int64_t i = 0; i < n; i++) w[i] = float((2.0 * rng.uniform() - 1.0) * k);
    }
  }
}

nn::Tensor Recurrent::forward_logits(nn::Arena& arena, const int32_t* tokens, int B, int T, const RecurrentState* start,
                                     RecurrentState* end) {
  if (B < 1 || T < 1) throw Error("forward: batch and sequence length must be at least 1");
  if (T > config_.block_size)
    throw Error("forward: sequence length " + std::to_string(T) + " exceeds the window of " +
                std::to_string(config_.block_size));
  const int H = config_.n_hidden, L = config_.n_layer;
  if (start && start->B != B) throw Error("forward: the starting state holds " + std::to_string(start->B) + " sequences, not " + std::to_string(B));
  nn::Tensor x = nn::embedding(arena, wte_, tokens, B, T);  // (B, T, E)
  for (int l = 0; l < L; l++) {
    nn::Tensor h0, c0;  // (B, H): constants (the gradient stops at the window's start)
    if (start) {
      h0 = arena.tensor({B, H});
      std::memcpy(h0.data(), start->h.data() + int64_t(l) * B * H, size_t(B) * H * sizeof(float));
      if (cell_ == 2) {
        c0 = arena.tensor({B, H});
        std::memcpy(c0.data(), start->c.data() + int64_t(l) * B * H, size_t(B) * H * sizeof(float));
      }
    }
    Layer& layer = layers_[size_t(l)];
    last_c_[size_t(l)] = nn::Tensor();
    last_gates_[size_t(l)] = nn::Tensor();
    x = nn::recurrent(arena, cell_, x, layer.w, h0, c0, &last_c_[size_t(l)], &last_gates_[size_t(l)]);  // (B, T, H)
    last_h_[size_t(l)] = x;
  }
  if (end) {
    end->B = B;
    end->h.resize(size_t(L) * B * H);
    if (cell_ == 2) end->c.resize(size_t(L) * B * H);
    for (int l = 0; l < L; l++)
      for (int b = 0; b < B; b++) {
        const int64_t at = (int64_t(b) * T + T - 1) * H, to = (int64_t(l) * B + b) * H;
        std::memcpy(end->h.data() + to, last_h_[size_t(l)].data() + at, size_t(H) * sizeof(float));
        if (cell_ == 2) std::memcpy(end->c.data() + to, last_c_[size_t(l)].data() + at, size_t(H) * sizeof(float));
      }
  }
  return nn::linear_lastdim(arena, x, lm_w_, lm_b_);  // (B, T, V)
}

nn::Tensor Recurrent::loss(nn::Arena& arena, const int32_t* tokens, const int32_t* targets, int B, int T,
                           const RecurrentState* start, RecurrentState* end) {
  return nn::cross_entropy(arena, forward_logits(arena, tokens, B, T, start, end), targets);
}

void Recurrent::reset_state(RecurrentState& s) const {
  const size_t LH = size_t(config_.n_layer) * config_.n_hidden;
  s.B = 1;
  s.h.assign(LH, 0.0f);
  if (cell_ == 2) s.c.assign(LH, 0.0f);
  else s.c.clear();
  s.logits.resize(size_t(config_.vocab_size));
}

const float* Recurrent::decode(RecurrentState& s, const int32_t* tokens, int n) const {
  const int E = config_.n_embd, H = config_.n_hidden, GH = cell_gates(cell_) * H, V = config_.vocab_size;
  if (s.B != 1 || s.h.size() != size_t(config_.n_layer) * H) throw Error("decode: call reset_state() first");
  if (n < 1) throw Error("decode: feed at least one token");
  for (int i = 0; i < n; i++)
    if (tokens[i] < 0 || tokens[i] >= V) throw Error("decode: token " + std::to_string(tokens[i]) + " out of range");
  const size_t width = size_t(std::max(E, H));
  if (s.x.size() < size_t(n) * width) {  // grows only for a longer prompt than before
    s.x.resize(size_t(n) * width);
    s.xg.resize(size_t(n) * GH);
    s.hs.resize(size_t(n) * H);
    s.cs.resize(size_t(n) * H);
    s.gates.resize(size_t(n) * 4 * H);
  }
  float* x = s.x.data();  // (n, in)
  for (int i = 0; i < n; i++)
    std::memcpy(x + int64_t(i) * E, wte_.data() + int64_t(tokens[i]) * E, size_t(E) * sizeof(float));
  int in = E;
  for (size_t l = 0; l < layers_.size(); l++) {
    const nn::RecurrentWeights& w = layers_[l].w;
    float* h_l = s.h.data() + l * H;
    float* c_l = cell_ == 2 ? s.c.data() + l * H : nullptr;
    // xg (n, G*H) = x W_ih^T + b_ih, then the steps from this layer's state
    for (int i = 0; i < n; i++) std::memcpy(s.xg.data() + int64_t(i) * GH, w.b_ih.data(), size_t(GH) * sizeof(float));
    kernels::sgemm(false, true, n, GH, in, x, in, w.w_ih.data(), in, s.xg.data(), GH, true);
    kernels::rnn_forward(s.hs.data(), c_l ? s.cs.data() : nullptr, cell_ ? s.gates.data() : nullptr, s.xg.data(),
                         w.w_hh.data(), w.b_hh.data(), h_l, c_l, cell_, 1, n, H);
    std::memcpy(h_l, s.hs.data() + int64_t(n - 1) * H, size_t(H) * sizeof(float));
    if (c_l) std::memcpy(c_l, s.cs.data() + int64_t(n - 1) * H, size_t(H) * sizeof(float));
    std::memcpy(x, s.hs.data(), size_t(n) * H * sizeof(float));
    in = H;
  }
  kernels::matmul_forward(s.logits.data(), x + int64_t(n - 1) * H, lm_w_.data(), lm_b_.data(), 1, H, V);
  return s.logits.data();
}

}  // namespace tinygpt::model
