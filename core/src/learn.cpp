// learn.cpp — one traced training step of the walkthrough's tiny GPT (see learn.h).
#include "tinygpt/learn.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "kernels.h"
#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/ops.h"

namespace tinygpt::learn {

using tinygpt::Error;

namespace {

Param make_param(const std::string& name, nn::Shape shape, std::vector<float> values) {
  if (int64_t(values.size()) != shape.numel()) throw Error("internal: wrong number of values for " + name);
  return {name, shape, std::move(values), shape.ndim >= 2};  // TinyGPT's rule: dim >= 2 decays
}

std::vector<float> filled(int64_t n, float value) { return std::vector<float>(size_t(n), value); }

// Deterministic "hand-friendly" values for the bigger variant: multiples of 0.1 in [-scale, scale].
std::vector<float> pattern(int64_t n, int salt, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) {
    const int64_t k = (i * 7 + salt * 13 + (i * i) % 5) % 11;  // 0..10
    v[size_t(i)] = std::round((float(k) - 5.0f) / 5.0f * scale * 10.0f) / 10.0f;
  }
  return v;
}

}  // namespace

Model walkthrough_model() {
  Model m;
  m.name = "walkthrough";
  m.V = 4, m.C = 2, m.NH = 1, m.T = 3;
  m.tokens = {2, 1, 3, 0};
  const std::string h = "h.0.";
  m.params = {
      // docs/walkthrough.md, section 2: token rows [0,0] [1,0] [0,1] [1,1]; positions [0.1,0] [0,0.1] [0.1,0.1]
      make_param("wte", {4, 2}, {0, 0, 1, 0, 0, 1, 1, 1}),
      make_param("wpe", {3, 2}, {0.1f, 0, 0, 0.1f, 0.1f, 0.1f}),
      make_param(h + "ln_1.weight", {2}, {1, 1}),
      make_param(h + "ln_1.bias", {2}, {0, 0}),
      // section 4: Q = K = V = H, i.e. c_attn = [I I I]
      make_param(h + "attn.c_attn.weight", {2, 6}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1}),
      make_param(h + "attn.c_attn.bias", {6}, filled(6, 0)),
      // proj = I; the bias keeps x_2 = [1.1, 1.1] + A_2 away from zero variance (A_2 = Y_2 = 0)
      make_param(h + "attn.c_proj.weight", {2, 2}, {1, 0, 0, 1}),
      make_param(h + "attn.c_proj.bias", {2}, {0.1f, -0.1f}),
      make_param(h + "ln_2.weight", {2}, {1, 1}),
      make_param(h + "ln_2.bias", {2}, {0, 0}),
      make_param(h + "mlp.c_fc.weight", {2, 8},
                 {0.5f, -0.5f, 1.0f, 0.0f, -1.0f, 0.25f, 0.0f, 0.5f,    //
                  0.5f, 0.5f, 0.0f, 1.0f, -0.25f, -1.0f, 0.5f, 0.0f}),
      make_param(h + "mlp.c_fc.bias", {8}, filled(8, 0)),
      make_param(h + "mlp.c_proj.weight", {8, 2},
                 {0.1f, 0.0f, 0.0f, 0.1f, -0.1f, 0.0f, 0.0f, -0.1f,     //
                  0.05f, 0.05f, -0.05f, 0.05f, 0.1f, -0.1f, 0.0f, 0.0f}),
      make_param(h + "mlp.c_proj.bias", {2}, {0, 0}),
      make_param("ln_f.weight", {2}, {1, 1}),
      make_param("ln_f.bias", {2}, {0, 0}),
      // LN_f(x) = [-1, +1] gives the logits [2, 1, 0, -1] of section 6: W row 1 - row 0 = [2, 1, 0, -1]
      make_param("lm_head.weight", {2, 4}, {-1, -0.5f, 0, 0.5f, 1, 0.5f, 0, -0.5f}),
      make_param("lm_head.bias", {4}, filled(4, 0)),
  };
  return m;
}

Model two_head_model() {
  Model m;
  m.name = "two-heads";
  m.V = 8, m.C = 4, m.NH = 2, m.T = 3;
  m.tokens = {2, 1, 3, 0};
  const int V = m.V, C = m.C, T = m.T;
  const std::string h = "h.0.";
  std::vector<float> c_attn = filled(C * 3 * C, 0);  // (C, 3C): q = k = v = h, plus a pattern on q
  for (int c = 0; c < C; c++)
    for (int part = 0; part < 3; part++) c_attn[size_t(c * 3 * C + part * C + c)] = 1.0f;
  const std::vector<float> q_mix = pattern(C * C, 5, 0.5f);
  for (int c = 0; c < C; c++)
    for (int d = 0; d < C; d++) c_attn[size_t(c * 3 * C + d)] += q_mix[size_t(c * C + d)];
  std::vector<float> c_proj = filled(C * C, 0);  // (C, C) = I
  for (int c = 0; c < C; c++) c_proj[size_t(c * C + c)] = 1.0f;
  m.params = {
      make_param("wte", {V, C}, pattern(V * C, 1, 1.0f)),
      make_param("wpe", {T, C}, pattern(T * C, 2, 0.2f)),
      make_param(h + "ln_1.weight", {C}, filled(C, 1)),
      make_param(h + "ln_1.bias", {C}, filled(C, 0)),
      make_param(h + "attn.c_attn.weight", {C, 3 * C}, c_attn),
      make_param(h + "attn.c_attn.bias", {3 * C}, filled(3 * C, 0)),
      make_param(h + "attn.c_proj.weight", {C, C}, c_proj),
      make_param(h + "attn.c_proj.bias", {C}, {0.1f, -0.1f, 0.2f, -0.2f}),
      make_param(h + "ln_2.weight", {C}, filled(C, 1)),
      make_param(h + "ln_2.bias", {C}, filled(C, 0)),
      make_param(h + "mlp.c_fc.weight", {C, 4 * C}, pattern(C * 4 * C, 3, 1.0f)),
      make_param(h + "mlp.c_fc.bias", {4 * C}, filled(4 * C, 0)),
      make_param(h + "mlp.c_proj.weight", {4 * C, C}, pattern(4 * C * C, 4, 0.2f)),
      make_param(h + "mlp.c_proj.bias", {C}, filled(C, 0)),
      make_param("ln_f.weight", {C}, filled(C, 1)),
      make_param("ln_f.bias", {C}, filled(C, 0)),
      make_param("lm_head.weight", {C, V}, pattern(C * V, 6, 1.0f)),
      make_param("lm_head.bias", {V}, filled(V, 0)),
  };
  return m;
}

Model model_named(const std::string& name) {
  if (name == "walkthrough") return walkthrough_model();
  if (name == "two-heads") return two_head_model();
  throw Error("unknown learn-by-hand model '" + name + "': choose \"walkthrough\" or \"two-heads\"");
}

void set_token(Model& model, int position, int token) {
  if (position < 0 || position > model.T)
    throw Error("token position " + std::to_string(position) + " is outside [0, " + std::to_string(model.T) +
                "]: the step reads T + 1 = " + std::to_string(model.T + 1) + " tokens");
  if (token < 0 || token >= model.V)
    throw Error("token " + std::to_string(token) + " is outside the vocabulary [0, " + std::to_string(model.V) + ")");
  model.tokens[size_t(position)] = token;
}

void set_weight(Model& model, const std::string& param, int64_t index, float value) {
  for (Param& p : model.params) {
    if (p.name != param) continue;
    if (index < 0 || index >= p.shape.numel())
      throw Error("index " + std::to_string(index) + " is outside " + param + " " + p.shape.str() + " (" +
                  std::to_string(p.shape.numel()) + " values)");
    if (!std::isfinite(value)) throw Error("a weight must be a finite number");
    p.values[size_t(index)] = value;
    return;
  }
  throw Error("no parameter named '" + param + "'");
}

// ---- the traced step -----------------------------------------------------------------------

namespace {

constexpr float kEps = 1e-5f;  // nn::layernorm_lastdim's default

std::string short_number(float x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", double(x));
  return buf;
}

struct Recorder {
  Trace trace;
  std::string phase = "data";
  void add(const std::string& name, const std::string& node, nn::Shape shape, const float* values,
           const std::string& equation, const std::string& function, const std::string& doc) {
    Entry e{name, phase, node, shape, std::vector<float>(values, values + shape.numel()), equation, function, doc};
    trace.entries.push_back(std::move(e));
  }
  void add(const std::string& name, const std::string& node, const nn::Tensor& t, const std::string& equation,
           const std::string& function, const std::string& doc) {
    add(name, node, t.shape(), t.data(), equation, function, doc);
  }
};

// What the forward pass knows about a graph node's output, for naming its gradient.
struct NodeInfo {
  std::string name, node, doc;
};

}  // namespace

Trace trace_step(const Model& model) {
  const int V = model.V, C = model.C, NH = model.NH, T = model.T;
  if (NH < 1 || C % NH != 0) throw Error("learn-by-hand model: width C must be divisible by the heads NH");
  if (int(model.tokens.size()) != T + 1) throw Error("learn-by-hand model: the step needs T + 1 tokens");
  const int HS = C / NH;
  const std::string tC = std::to_string(C), tV = std::to_string(V);

  // 1) the parameters in one contiguous block, their gradients in another (like model::TinyGPT)
  int64_t n_params = 0;
  for (const Param& p : model.params) n_params += p.shape.numel();
  std::vector<float> params(static_cast<size_t>(n_params)), grads(static_cast<size_t>(n_params), 0.0f);
  std::vector<nn::TensorImpl> views(model.params.size());
  std::vector<optim::DecaySegment> segments;
  std::map<const nn::TensorImpl*, size_t> param_of;  // view -> index into model.params
  std::map<std::string, nn::Tensor> P;
  int64_t offset = 0;
  for (size_t i = 0; i < model.params.size(); i++) {
    const Param& p = model.params[i];
    std::copy(p.values.begin(), p.values.end(), params.begin() + offset);
    views[i].data = params.data() + offset;
    views[i].grad = grads.data() + offset;
    views[i].shape = p.shape;
    views[i].requires_grad = true;
    segments.push_back({offset, p.shape.numel(), p.decay});
    param_of[&views[i]] = i;
    P[p.name] = nn::Tensor(&views[i]);
    offset += p.shape.numel();
  }
  auto param = [&](const std::string& name) {
    auto it = P.find(name);
    if (it == P.end()) throw Error("learn-by-hand model: missing parameter " + name);
    return it->second;
  };

  Recorder r;
  nn::Arena arena(1 << 16);
  std::map<const nn::TensorImpl*, NodeInfo> info;  // graph outputs by tensor
  // a forward value that is also a node of the autograd graph: its entry, and the name its gradient gets
  auto add_node = [&](const std::string& name, const std::string& node, const nn::Tensor& t, const std::string& equation,
                      const std::string& function, const std::string& doc) {
    r.add(name, node, t, equation, function, doc);
    info[t.impl()] = {name, node, doc};
  };

  // 2) the batch: the walkthrough's only window of T + 1 tokens
  for (int32_t tok : model.tokens)
    if (tok < 0 || tok >= V) throw Error("token " + std::to_string(tok) + " is outside the vocabulary [0, " + tV + ")");
  std::vector<uint8_t> bytes(model.tokens.begin(), model.tokens.end());
  data::Dataset dataset(bytes);
  const data::Batch batch = dataset.sample_batch(1, T);  // (1, T) each
  {
    std::vector<float> tok(model.tokens.begin(), model.tokens.end()), x(batch.x.begin(), batch.x.end()),
        y(batch.y.begin(), batch.y.end());
    const std::string doc = "walkthrough.md#1-the-training-pair";
    r.add("tokens", "data", {T + 1}, tok.data(), "the corpus: T + 1 = " + std::to_string(T + 1) + " tokens",
          "data::Dataset", doc);
    r.add("x", "data", {1, T}, x.data(), "x_t = tokens[t], t = 0..T-1", "data::Dataset::sample_batch", doc);
    r.add("y", "data", {1, T}, y.data(), "y_t = tokens[t+1] = x_(t+1)", "data::Dataset::sample_batch", doc);
  }

  // 3) forward, recording as it goes
  r.phase = "forward";
  const std::string d_emb = "walkthrough.md#2-embeddings", d_ln = "walkthrough.md#3-layernorm",
                    d_att = NH == 1 ? "walkthrough.md#4-attention-with-one-head" : "multihead_attention.md#1-from-one-head-to-nh-heads",
                    d_mlp = "walkthrough.md#5-residuals-and-the-mlp", d_ce = "walkthrough.md#6-lm-head-and-cross-entropy",
                    d_step = "walkthrough.md#7-one-training-step";
  r.phase = "data";
  const std::string maker = model.name == "two-heads" ? "learn::two_head_model" : "learn::walkthrough_model";
  for (const Param& p : model.params)
    r.add(p.name, "params", p.shape, p.values.data(),
          p.name + " " + p.shape.str() + (p.decay ? ", weight decay applies" : ", no weight decay"), maker,
          d_emb);
  r.phase = "forward";

  nn::Tensor E = nn::embedding(arena, param("wte"), batch.x.data(), 1, T);  // (1, T, C)
  add_node("wte[x]", "embedding", E, "E_t = W_te[x_t]", "nn::embedding", d_emb);
  nn::Tensor X = nn::add_positional(arena, E, param("wpe"));  // (1, T, C)
  add_node("X", "embedding", X, "X_t = W_te[x_t] + W_pe[t]", "nn::add_positional", d_emb);

  // LayerNorm: the op is one fused node; its kernel's saved statistics are the mean and 1/std
  auto layernorm = [&](const nn::Tensor& in, const std::string& pre, const std::string& gain_bias) {
    std::vector<float> scratch(static_cast<size_t>(T * C)), mean(static_cast<size_t>(T)), rstd(static_cast<size_t>(T)),
        var(static_cast<size_t>(T));
    nn::Tensor g = param(gain_bias + ".weight"), b = param(gain_bias + ".bias");
    kernels::layernorm_forward(scratch.data(), mean.data(), rstd.data(), in.data(), g.data(), b.data(), T, C, kEps);
    for (int t = 0; t < T; t++) var[size_t(t)] = 1.0f / (rstd[size_t(t)] * rstd[size_t(t)]) - kEps;
    r.add(pre + ".mean", pre, {1, T}, mean.data(), "μ_t = (1/C) Σ_c x_tc", "kernels::layernorm_forward", d_ln);
    r.add(pre + ".var", pre, {1, T}, var.data(), "σ²_t = (1/C) Σ_c (x_tc − μ_t)²  (= 1/r_t² − ε)",
          "kernels::layernorm_forward", d_ln);
    r.add(pre + ".rstd", pre, {1, T}, rstd.data(), "r_t = 1/√(σ²_t + ε), ε = 1e-5", "kernels::layernorm_forward", d_ln);
    nn::Tensor out = nn::layernorm_lastdim(arena, in, g, b, kEps);  // (1, T, C)
    add_node(pre + ".out", pre, out, "LN(x)_tc = (x_tc − μ_t) r_t g_c + β_c", "nn::layernorm_lastdim", d_ln);
    return out;
  };
  const std::string blk = "h.0.";
  nn::Tensor H = layernorm(X, "ln_1", blk + "ln_1");  // (1, T, C)

  nn::Tensor qkv = nn::linear_lastdim(arena, H, param(blk + "attn.c_attn.weight"), param(blk + "attn.c_attn.bias"));
  add_node("qkv", "qkv", qkv, "[Q K V] = H W_qkv + b_qkv  (1, T, 3C)", "nn::linear_lastdim", d_att);
  {
    // Q, K, V per head (NH, T, HS): channel h*HS + i of each third of a qkv row
    for (int part = 0; part < 3; part++) {
      std::vector<float> v(size_t(NH) * T * HS);
      for (int hh = 0; hh < NH; hh++)
        for (int t = 0; t < T; t++)
          for (int i = 0; i < HS; i++)
            v[size_t((hh * T + t) * HS + i)] = qkv.data()[int64_t(t) * 3 * C + part * C + hh * HS + i];
      const char* nm = part == 0 ? "Q" : part == 1 ? "K" : "V";
      r.add(nm, "qkv", {NH, T, HS}, v.data(),
            std::string(nm) + "_h = channels [h·HS, (h+1)·HS) of the " + (part == 0 ? "first" : part == 1 ? "second" : "third") +
                " third of qkv",
            "nn::linear_lastdim", d_att);
    }
  }
  {
    // the scores and the mask that kernels::attention_forward computes internally, made with the same GEMM
    std::vector<float> scores(size_t(NH) * T * T), mask(size_t(T) * T), masked(size_t(NH) * T * T);
    for (int hh = 0; hh < NH; hh++)
      kernels::sgemm(false, true, T, T, HS, qkv.data() + hh * HS, 3 * C, qkv.data() + C + hh * HS, 3 * C,
                     scores.data() + int64_t(hh) * T * T, T, false);
    kernels::scale(scores.data(), 1.0f / std::sqrt(float(HS)), int64_t(NH) * T * T);
    for (int i = 0; i < T; i++)
      for (int j = 0; j < T; j++) mask[size_t(i * T + j)] = j <= i ? 0.0f : -std::numeric_limits<float>::infinity();
    for (int hh = 0; hh < NH; hh++)
      kernels::add_forward(masked.data() + int64_t(hh) * T * T, scores.data() + int64_t(hh) * T * T, mask.data(), T * T);
    r.add("scores", "attention", {NH, T, T}, scores.data(), "S_h,ij = Q_h,i · K_h,j / √HS", "kernels::sgemm", d_att);
    r.add("mask", "attention", {T, T}, mask.data(), "M_ij = 0 if j ≤ i, −∞ if j > i (causal)",
          "kernels::attention_forward", d_att);
    r.add("scores + mask", "attention", {NH, T, T}, masked.data(), "S_h,ij + M_ij", "kernels::add_forward", d_att);
  }
  nn::Tensor att;
  nn::Tensor Y = nn::causal_attention(arena, qkv, NH, &att);  // (1, T, C); att (1, NH, T, T)
  r.add("att", "attention", att, "P_h,i: = softmax_j(S_h,ij + M_ij)", "nn::causal_attention", d_att);
  add_node("Y", "attention", Y, "Y_h,i = Σ_j P_h,ij V_h,j, heads side by side", "nn::causal_attention", d_att);
  nn::Tensor A = nn::linear_lastdim(arena, Y, param(blk + "attn.c_proj.weight"), param(blk + "attn.c_proj.bias"));
  add_node("A", "attn_proj", A, "A = Y W_proj + b_proj", "nn::linear_lastdim", d_att);
  nn::Tensor X1 = nn::add(arena, X, A);  // (1, T, C)
  add_node("X + A", "residual_1", X1, "X ← X + A (residual)", "nn::add", d_mlp);

  nn::Tensor H2 = layernorm(X1, "ln_2", blk + "ln_2");  // (1, T, C)
  nn::Tensor F = nn::linear_lastdim(arena, H2, param(blk + "mlp.c_fc.weight"), param(blk + "mlp.c_fc.bias"));
  add_node("fc", "mlp", F, "F = LN₂(X) W_fc + b_fc  (1, T, 4C)", "nn::linear_lastdim", d_mlp);
  nn::Tensor G = nn::gelu(arena, F);  // (1, T, 4C)
  add_node("gelu", "mlp", G, "G = ½ F (1 + tanh(√(2/π) (F + 0.044715 F³)))", "nn::gelu", d_mlp);
  nn::Tensor Mo = nn::linear_lastdim(arena, G, param(blk + "mlp.c_proj.weight"), param(blk + "mlp.c_proj.bias"));
  add_node("mlp", "mlp", Mo, "MLP = G W_proj2 + b_proj2  (1, T, C)", "nn::linear_lastdim", d_mlp);
  nn::Tensor X2 = nn::add(arena, X1, Mo);  // (1, T, C)
  add_node("X + MLP", "residual_2", X2, "X ← X + MLP(LN₂(X)) (residual)", "nn::add", d_mlp);

  nn::Tensor Hf = layernorm(X2, "ln_f", "ln_f");  // (1, T, C)
  nn::Tensor Z = nn::linear_lastdim(arena, Hf, param("lm_head.weight"), param("lm_head.bias"));  // (1, T, V)
  add_node("logits", "lm_head", Z, "Z = LN_f(X) W_lm + b_lm  (1, T, V)", "nn::linear_lastdim", d_ce);
  {
    // the fused cross-entropy keeps its softmax and per-row losses to itself: ask its kernel
    std::vector<float> losses(static_cast<size_t>(T)), probs(static_cast<size_t>(T * V));
    kernels::crossentropy_forward(losses.data(), probs.data(), Z.data(), batch.y.data(), T, V);
    r.add("probs", "loss", {1, T, V}, probs.data(), "p_t = softmax(Z_t)", "kernels::crossentropy_forward", d_ce);
    r.add("losses", "loss", {1, T}, losses.data(), "ℓ_t = −log p_t[y_t] = log Σ_v e^(Z_tv − m) − (Z_t,y − m)",
          "kernels::crossentropy_forward", d_ce);
  }
  nn::Tensor loss = nn::cross_entropy(arena, Z, batch.y.data());  // scalar
  add_node("loss", "loss", loss, "L = (1/T) Σ_t ℓ_t", "nn::cross_entropy", d_ce);
  r.trace.loss = loss.item();

  // 4) backward: the nodes in the order nn::Tensor::backward runs them (reverse topological
  // order); a node's output gradient is complete when it runs, and each parameter here is used
  // by one node only, so its gradient is complete once that node has run.
  loss.backward();
  r.phase = "backward";
  const std::string d_bwd = "autograd_and_memory_layout.md#c3-the-backward-algorithm";
  const std::vector<nn::Node*>& order = arena.topo_order;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const nn::Node* node = *it;
    auto found = info.find(node->out.impl());
    const NodeInfo ni = found != info.end() ? found->second : NodeInfo{node->op, node->op, d_bwd};
    const std::string fn = std::string("nn::") + (std::string(node->op) == "layernorm"  ? "layernorm_lastdim"
                                                  : std::string(node->op) == "linear"   ? "linear_lastdim"
                                                                                        : node->op);
    r.add("d(" + ni.name + ")", ni.node, node->out.shape(), node->out.grad(),
          ni.name == "loss" ? "∂L/∂L = 1 (the seed)" : "∂L/∂(" + ni.name + "), complete when " + node->op + "'s backward runs",
          "nn::Tensor::backward", d_bwd);
    for (int pi = 0; pi < node->n_parents; pi++) {
      auto p = param_of.find(node->parents[pi].impl());
      if (p == param_of.end()) continue;
      const Param& prm = model.params[p->second];
      r.add("d(" + prm.name + ")", ni.node, prm.shape, node->parents[pi].grad(),
            "∂L/∂" + prm.name + ", accumulated (+=) by " + node->op + "'s backward", fn, d_bwd);
    }
  }

  // 5) the update: clip the global norm, then one AdamW step (t = 1)
  r.phase = "update";
  const std::string d_opt = "walkthrough.md#7-one-training-step";
  r.trace.grad_norm = optim::clip_grad_norm(grads.data(), n_params, model.grad_clip);
  r.add("grad norm", "adamw", {1}, &r.trace.grad_norm,
        "‖g‖ = √(Σ g²) over every parameter; if ‖g‖ > clip (" + short_number(model.grad_clip) +
            ") every g is scaled by clip/‖g‖",
        "optim::clip_grad_norm", d_opt);
  optim::AdamW opt(n_params, model.adamw, segments);
  opt.step(params.data(), grads.data(), model.lr);
  {
    // the same expressions optim::AdamW::step passes to its kernel, shown for t = 1
    const float t = float(opt.t());
    const float hyper[5] = {model.lr, model.adamw.beta1, model.adamw.beta2, model.adamw.eps, model.adamw.weight_decay};
    r.add("hyperparameters", "adamw", {5}, hyper, "[α, β₁, β₂, ε, λ]", "optim::AdamWConfig", d_opt);
    const float bc[2] = {1.0f - std::pow(model.adamw.beta1, t), 1.0f - std::pow(model.adamw.beta2, t)};
    r.add("bias corrections", "adamw", {2}, bc, "[1 − β₁ᵗ, 1 − β₂ᵗ] at t = 1", "optim::AdamW::step", d_opt);
  }
  for (size_t i = 0; i < model.params.size(); i++) {
    const Param& p = model.params[i];
    const int64_t off = segments[i].offset;
    r.add("m[" + p.name + "]", "adamw", p.shape, opt.m().data() + off, "m = β₁ m + (1 − β₁) g", "kernels::adamw_update",
          d_opt);
    r.add("v[" + p.name + "]", "adamw", p.shape, opt.v().data() + off, "v = β₂ v + (1 − β₂) g²", "kernels::adamw_update",
          d_opt);
    r.add(p.name + " (new)", "adamw", p.shape, params.data() + off,
          p.decay ? "θ ← θ (1 − αλ) − α m̂ / (√v̂ + ε),  m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ)"
                  : "θ ← θ − α m̂ / (√v̂ + ε)  (no decay: a gain or a bias)",
          "optim::AdamW::step", d_opt);
  }
  return std::move(r.trace);
}

}  // namespace tinygpt::learn
