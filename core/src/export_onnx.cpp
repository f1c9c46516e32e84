// export_onnx.cpp — a model as an ONNX graph (onnx.proto3 messages, written with protobuf.h).
//
// The GPT's graph is the forward pass of model.h with past keys/values (export.h has its inputs and
// outputs). Per block, in the ops of ONNX opset 17:
//   h    = LayerNormalization(x, ln_1)                                   (B, T, C)
//   q,k,v = Split(MatMul(h, c_attn.weight) + c_attn.bias)                (B, T, C) each
//   q, k, v -> Reshape (B, T, NH, HS) -> Transpose                        (B, NH, T, HS)
//   present.key = Concat(past.key, k), present.value likewise             (B, NH, S, HS), S = P + T
//   att  = Softmax(Where(allowed, q @ present.key^T / sqrt(HS), lowest))  (B, NH, T, S)
//   x    = x + (att @ present.value -> (B, T, C)) @ c_proj.weight + c_proj.bias
//   x    = x + gelu(LN_2(x) @ c_fc.weight + c_fc.bias) @ mlp.c_proj.weight + mlp.c_proj.bias
// allowed (B, 1, T, S) = key j <= P + query i (causal, past included) and attention_mask[b, j] != 0.
// GELU is the tanh form the core computes (kernels_ref.cpp gelu_forward), written out of Mul/Add/Tanh
// (opset 20's Gelu(approximate="tanh") is newer than some runtimes that read opset 17).
// Weights are initializers under the core's names ("h.0.attn.c_attn.weight"), in its (in, out) layout,
// which is MatMul's right operand as it is.
//
// The translator (export_seq2seq) is two graphs, as the Hugging Face (optimum) exporters split an
// encoder-decoder: the encoder, which also gives every decoder layer's cross-attention keys and values
// (computed once per source), and the decoder with past keys/values, which reads them (seq2seq.h
// has the forward pass: post-norm layers, sinusoidal positions, ReLU, attention without biases).
//
// The LSTM translator (export_lstm_seq2seq) is two graphs too: the encoder (ONNX LSTM layers given
// each source's length, so that their last states are those at its last real token, where the
// core's decoder starts) and the decoder, its LSTM state in and out as the recurrent language
// models', attending over the encoder's outputs (rnn_seq2seq.h: Luong's "general" scores / sqrt(H)).
//
// The recurrent language models (export_recurrent) are ONNX's own RNN, GRU and LSTM ops: torch.nn's
// cells, whose layouts (w_ih (G*H, I), w_hh (G*H, H)) are ONNX's W and R once the gate blocks are
// reordered, and whose GRU is ONNX's with linear_before_reset 1 (n = tanh(W_in x + b_in + r (W_hn h + b_hn))).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "protobuf.h"
#include "tinygpt/error.h"
#include "tinygpt/export.h"
#include "tinygpt/model.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/seq2seq.h"

namespace tinygpt::onnx {

namespace {

// onnx.proto's TensorProto.DataType and AttributeProto.AttributeType values used here.
enum DataType : int { kFloat = 1, kInt64 = 7, kBool = 9 };
enum AttrType : int { kAttrFloat = 1, kAttrInt = 2, kAttrString = 3, kAttrInts = 7 };

struct Attr {
  std::string name;
  AttrType type = kAttrInt;
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  static Attr integer(std::string n, int64_t v) { return {std::move(n), kAttrInt, v, 0, {}, {}}; }
  static Attr real(std::string n, float v) { return {std::move(n), kAttrFloat, 0, v, {}, {}}; }
  static Attr list(std::string n, std::vector<int64_t> v) { return {std::move(n), kAttrInts, 0, 0, {}, std::move(v)}; }
};

// A dimension of a graph input or output: a number, or a name (a symbolic size).
struct Dim {
  int64_t value = -1;
  std::string param;
  Dim(int64_t v) : value(v) {}  // NOLINT: dimensions read best as {B, NH, 7, 8}
  Dim(const char* p) : param(p) {}
  Dim(std::string p) : param(std::move(p)) {}
};

// GraphProto under construction: nodes, initializers, inputs and outputs, each a run of fields of
// the same message (field order within one repeated field is what counts).
class Graph {
 public:
  // A node; returns its output's name (given, or a fresh one).
  std::string op(const char* type, const std::vector<std::string>& in, const std::vector<Attr>& attrs = {}, std::string out = "") {
    if (out.empty()) out = fresh(type);
    node(type, in, {out}, attrs);
    return out;
  }
  // A node with n outputs (Split).
  std::vector<std::string> ops(const char* type, const std::vector<std::string>& in, int n, const std::vector<Attr>& attrs = {}) {
    std::vector<std::string> outs;
    for (int i = 0; i < n; i++) outs.push_back(fresh(type));
    node(type, in, outs, attrs);
    return outs;
  }
  // A float initializer (a weight).
  std::string weight(const std::string& name, const std::vector<int64_t>& dims, const float* data) {
    pb::Writer t;
    for (int64_t d : dims) t.int64(1, d);  // dims
    t.int64(2, kFloat);                    // data_type
    t.string(8, name);                     // name
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    t.bytes(9, data, size_t(n) * sizeof(float));  // raw_data: little-endian, as x86-64 and wasm hold it
    weight_bytes_ += size_t(n) * sizeof(float);
    inits_.message(5, t);
    return name;
  }
  // An int64 initializer: a 1-D list, or a scalar (dims []).
  std::string ints(const std::vector<int64_t>& v, bool scalar = false) {
    pb::Writer t;
    if (!scalar) t.int64(1, int64_t(v.size()));
    t.int64(2, kInt64);
    const std::string name = fresh("const");
    t.string(8, name);
    for (int64_t x : v) t.int64(7, x);  // int64_data
    inits_.message(5, t);
    return name;
  }
  std::string scalar(float f) {
    pb::Writer t;
    t.int64(2, kFloat);
    const std::string name = fresh("const");
    t.string(8, name);
    t.float32(4, f);  // float_data
    inits_.message(5, t);
    return name;
  }
  void input(const std::string& name, DataType type, const std::vector<Dim>& dims) { inputs_.message(11, value_info(name, type, dims)); }
  void output(const std::string& name, DataType type, const std::vector<Dim>& dims) { outputs_.message(12, value_info(name, type, dims)); }

  // The ModelProto: IR version, producer, opset, the graph and metadata_props.
  std::vector<uint8_t> model(const std::string& graph_name, const std::vector<std::pair<std::string, std::string>>& metadata) {
    // protobuf's own limit (and onnxruntime's) for one message; larger graphs need external data
    if (weight_bytes_ > (size_t(1) << 31) - (size_t(64) << 20))
      throw Error("onnx: the weights take " + std::to_string(weight_bytes_ >> 20) +
                  " MiB, more than an ONNX file holds in one piece (2 GiB)");
    pb::Writer g;
    g.append(nodes_);
    g.string(2, graph_name);
    g.append(inits_);
    g.append(inputs_);
    g.append(outputs_);
    pb::Writer m;
    m.int64(1, kIrVersion);
    m.string(2, "tinygpt");
    m.string(3, "1");
    pb::Writer opset;
    opset.string(1, "");
    opset.int64(2, kOpset);
    m.message(8, opset);
    for (const auto& [k, v] : metadata) {
      pb::Writer e;
      e.string(1, k);
      e.string(2, v);
      m.message(14, e);
    }
    m.message(7, g);
    return m.take();
  }

 private:
  std::string fresh(const char* hint) { return std::string(hint) + "_" + std::to_string(next_++); }
  void node(const char* type, const std::vector<std::string>& in, const std::vector<std::string>& out, const std::vector<Attr>& attrs) {
    pb::Writer n;
    for (const std::string& s : in) n.string(1, s);
    for (const std::string& s : out) n.string(2, s);
    n.string(3, out[0] + "_node");
    n.string(4, type);
    for (const Attr& a : attrs) {
      pb::Writer w;
      w.string(1, a.name);
      if (a.type == kAttrFloat) w.float32(2, a.f);
      if (a.type == kAttrInt) w.int64(3, a.i);
      if (a.type == kAttrString) w.string(4, a.s);
      for (int64_t x : a.ints) w.int64(8, x);
      w.int64(20, a.type);
      n.message(5, w);
    }
    nodes_.message(1, n);
  }
  static pb::Writer value_info(const std::string& name, DataType type, const std::vector<Dim>& dims) {
    pb::Writer shape;
    for (const Dim& d : dims) {
      pb::Writer dim;
      if (d.param.empty()) dim.int64(1, d.value);
      else dim.string(2, d.param);
      shape.message(1, dim);
    }
    pb::Writer tensor;
    tensor.int64(1, type);
    tensor.message(2, shape);
    pb::Writer tp;
    tp.message(1, tensor);
    pb::Writer vi;
    vi.string(1, name);
    vi.message(2, tp);
    return vi;
  }

  pb::Writer nodes_, inits_, inputs_, outputs_;
  size_t weight_bytes_ = 0;
  int next_ = 0;
};

// The parameter `name` of the model as an initializer (once; later calls reuse it).
std::string param(Graph& g, const model::ModelParameters& m, const std::string& name) {
  const model::ParamInfo& p = m.param_info(name);
  std::vector<int64_t> dims(p.shape.dims, p.shape.dims + p.shape.ndim);
  return g.weight(name, dims, m.params() + p.offset);
}

bool has_param(const model::ModelParameters& m, const std::string& name) {
  for (const model::ParamInfo& p : m.param_table())
    if (p.name == name) return true;
  return false;
}

// x @ w + b for the parameters prefix.weight (in, out) and prefix.bias.
std::string linear(Graph& g, const model::ModelParameters& m, const std::string& x, const std::string& prefix) {
  const std::string y = g.op("MatMul", {x, param(g, m, prefix + ".weight")});
  return g.op("Add", {y, param(g, m, prefix + ".bias")});
}

std::string layernorm(Graph& g, const model::ModelParameters& m, const std::string& x, const std::string& prefix) {
  return g.op("LayerNormalization", {x, param(g, m, prefix + ".weight"), param(g, m, prefix + ".bias")},
              {Attr::integer("axis", -1), Attr::real("epsilon", 1e-5f)});
}

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as kernels_ref.cpp's gelu_forward
std::string gelu(Graph& g, const std::string& x) {
  const std::string x3 = g.op("Mul", {g.op("Mul", {x, x}), x});
  const std::string inner = g.op("Add", {x, g.op("Mul", {x3, g.scalar(0.044715f)})});
  const std::string t = g.op("Tanh", {g.op("Mul", {inner, g.scalar(0.7978845608028654f)})});
  const std::string one_plus = g.op("Add", {t, g.scalar(1.0f)});
  return g.op("Mul", {g.op("Mul", {x, g.scalar(0.5f)}), one_plus});
}

// (B, T, C) -> (B, NH, T, HS)
std::string heads(Graph& g, const std::string& x, const std::string& shape_bthd) {
  return g.op("Transpose", {g.op("Reshape", {x, shape_bthd})}, {Attr::list("perm", {0, 2, 1, 3})});
}

struct Masks {
  std::string allowed;  // (B, 1, T, S) bool
  std::string lowest;   // the score a masked key gets
};

// allowed[b, 0, i, j] = j <= P + i and attention_mask[b, j] != 0, with P the past's length.
Masks attention_masks(Graph& g) {
  const std::string T = g.op("Gather", {g.op("Shape", {"input_ids"}), g.ints({1}, true)});                  // scalar
  const std::string P = g.op("Gather", {g.op("Shape", {"past_key_values.0.key"}), g.ints({2}, true)});      // scalar
  const std::string S = g.op("Add", {P, T});
  const std::string one = g.ints({1}, true);
  const std::string kpos = g.op("Range", {g.ints({0}, true), S, one});  // (S)
  const std::string qpos = g.op("Range", {P, S, one});                  // (T)
  const std::string causal = g.op("LessOrEqual", {g.op("Unsqueeze", {kpos, g.ints({0})}), g.op("Unsqueeze", {qpos, g.ints({1})})});  // (T, S)
  const std::string pad = g.op("Cast", {g.op("Unsqueeze", {"attention_mask", g.ints({1, 2})})}, {Attr::integer("to", kBool)});  // (B, 1, 1, S)
  return {g.op("And", {causal, pad}), g.scalar(std::numeric_limits<float>::lowest())};
}

void block(Graph& g, const model::TinyGPT& m, std::string& x, int l, const Masks& masks, const std::string& shape_bthd) {
  const Config& c = m.config();
  const int C = c.n_embd, HS = C / c.n_head;
  const std::string p = "h." + std::to_string(l) + ".";
  const std::string L = std::to_string(l);
  // attention: x = x + proj(attention(qkv(LN1(x))))
  const std::string qkv = linear(g, m, layernorm(g, m, x, p + "ln_1"), p + "attn.c_attn");           // (B, T, 3C)
  const std::vector<std::string> s = g.ops("Split", {qkv, g.ints({C, C, C})}, 3, {Attr::integer("axis", 2)});
  const std::string q = heads(g, s[0], shape_bthd);                                                    // (B, NH, T, HS)
  const std::string k = g.op("Concat", {"past_key_values." + L + ".key", heads(g, s[1], shape_bthd)}, {Attr::integer("axis", 2)},
                             "present." + L + ".key");                                                  // (B, NH, S, HS)
  const std::string v = g.op("Concat", {"past_key_values." + L + ".value", heads(g, s[2], shape_bthd)}, {Attr::integer("axis", 2)},
                             "present." + L + ".value");                                                // (B, NH, S, HS)
  const std::string kt = g.op("Transpose", {k}, {Attr::list("perm", {0, 1, 3, 2})});                   // (B, NH, HS, S)
  const std::string scores = g.op("Mul", {g.op("MatMul", {q, kt}), g.scalar(1.0f / std::sqrt(float(HS)))});  // (B, NH, T, S)
  const std::string att = g.op("Softmax", {g.op("Where", {masks.allowed, scores, masks.lowest})}, {Attr::integer("axis", -1)});
  const std::string y4 = g.op("Transpose", {g.op("MatMul", {att, v})}, {Attr::list("perm", {0, 2, 1, 3})});  // (B, T, NH, HS)
  const std::string y = g.op("Reshape", {y4, g.ints({0, 0, C})});                                       // (B, T, C)
  x = g.op("Add", {x, linear(g, m, y, p + "attn.c_proj")});
  // MLP: x = x + fc_proj(gelu(fc(LN2(x))))
  const std::string h = gelu(g, linear(g, m, layernorm(g, m, x, p + "ln_2"), p + "mlp.c_fc"));       // (B, T, 4C)
  x = g.op("Add", {x, linear(g, m, h, p + "mlp.c_proj")});
}

}  // namespace

std::vector<uint8_t> export_gpt(const model::TinyGPT& m) {
  const Config& c = m.config();
  const int C = c.n_embd, NH = c.n_head, HS = C / NH, L = c.n_layer;
  const int64_t V = m.param_info("wte").shape.dims[0];  // (V, C): the vocabulary, whatever the tokenizer
  Graph g;
  const char* past = "past_sequence_length";
  const char* total = "past_sequence_length + sequence_length";
  g.input("input_ids", kInt64, {"batch_size", "sequence_length"});
  g.input("attention_mask", kInt64, {"batch_size", total});
  g.input("position_ids", kInt64, {"batch_size", "sequence_length"});
  for (int l = 0; l < L; l++)
    for (const char* kv : {"key", "value"})
      g.input("past_key_values." + std::to_string(l) + "." + kv, kFloat, {"batch_size", NH, past, HS});
  g.output("logits", kFloat, {"batch_size", "sequence_length", V});
  for (int l = 0; l < L; l++)
    for (const char* kv : {"key", "value"}) g.output("present." + std::to_string(l) + "." + kv, kFloat, {"batch_size", NH, total, HS});

  // x = wte[input_ids] + wpe[position_ids]   (B, T, C)
  const std::string wte = param(g, m, "wte");
  std::string x = g.op("Add", {g.op("Gather", {wte, "input_ids"}), g.op("Gather", {param(g, m, "wpe"), "position_ids"})});
  const Masks masks = attention_masks(g);
  const std::string shape_bthd = g.ints({0, 0, NH, HS});  // Reshape: 0 keeps B and T
  for (int l = 0; l < L; l++) block(g, m, x, l, masks, shape_bthd);
  x = layernorm(g, m, x, "ln_f");
  // logits (B, T, V): the head's own weights (C, V), or wte (V, C) transposed when tied
  const std::string head = has_param(m, "lm_head.weight") ? param(g, m, "lm_head.weight")
                                                          : g.op("Transpose", {wte}, {Attr::list("perm", {1, 0})});
  std::string logits = g.op("MatMul", {x, head});
  if (has_param(m, "lm_head.bias")) logits = g.op("Add", {logits, param(g, m, "lm_head.bias")}, {}, "logits");
  else logits = g.op("Identity", {logits}, {}, "logits");
  return g.model("tinygpt", {{"model", "gpt"},
                             {"n_layer", std::to_string(L)},
                             {"n_head", std::to_string(NH)},
                             {"n_embd", std::to_string(C)},
                             {"block_size", std::to_string(c.block_size)},
                             {"vocab_size", std::to_string(V)}});
}

// ---- the recurrent language models -------------------------------------------------------------------

namespace {

// A recurrent layer's weights in ONNX's gate order: torch's blocks of H rows reordered.
//   lstm: torch i f g o -> ONNX i o f c (g is ONNX's c);  gru: torch r z n -> ONNX z r h;  rnn: one block
std::vector<float> onnx_gates(const float* w, int cell, int H, int64_t cols) {
  static const int kLstm[] = {0, 3, 1, 2}, kGru[] = {1, 0, 2}, kRnn[] = {0};
  const int* order = cell == 2 ? kLstm : cell == 1 ? kGru : kRnn;
  const int G = model::cell_gates(cell);
  std::vector<float> out(size_t(G) * H * cols);
  for (int gate = 0; gate < G; gate++)
    std::copy(w + int64_t(order[gate]) * H * cols, w + int64_t(order[gate] + 1) * H * cols, out.begin() + int64_t(gate) * H * cols);
  return out;
}

const float* param_data(const model::Recurrent& m, const std::string& name) { return m.params() + m.param_info(name).offset; }

}  // namespace

std::vector<uint8_t> export_recurrent(const model::Recurrent& m) {
  const Config& c = m.config();
  const int L = c.n_layer, H = c.n_hidden, E = c.n_embd;
  const int cell = model::cell_of(c.model), G = model::cell_gates(cell);
  const int64_t V = m.param_info("wte").shape.dims[0];  // (V, E)
  const char* op = cell == 2 ? "LSTM" : cell == 1 ? "GRU" : "RNN";
  Graph g;
  g.input("input_ids", kInt64, {"batch_size", "sequence_length"});
  g.input("h0", kFloat, {L, "batch_size", H});
  if (cell == 2) g.input("c0", kFloat, {L, "batch_size", H});
  g.output("logits", kFloat, {"batch_size", "sequence_length", V});
  g.output("hn", kFloat, {L, "batch_size", H});
  if (cell == 2) g.output("cn", kFloat, {L, "batch_size", H});

  // x = wte[input_ids], time first as ONNX's recurrent ops read it   (T, B, E)
  std::string x = g.op("Transpose", {g.op("Gather", {param(g, m, "wte"), "input_ids"})}, {Attr::list("perm", {1, 0, 2})});
  std::vector<std::string> hs, cs;
  for (int l = 0; l < L; l++) {
    const std::string k = std::to_string(l);
    const int64_t I = l == 0 ? E : H;
    const std::vector<float> w = onnx_gates(param_data(m, "rnn.weight_ih_l" + k), cell, H, I);
    const std::vector<float> r = onnx_gates(param_data(m, "rnn.weight_hh_l" + k), cell, H, H);
    std::vector<float> b = onnx_gates(param_data(m, "rnn.bias_ih_l" + k), cell, H, 1);   // ONNX's B: [W biases | R biases]
    const std::vector<float> bh = onnx_gates(param_data(m, "rnn.bias_hh_l" + k), cell, H, 1);
    b.insert(b.end(), bh.begin(), bh.end());
    const std::string W = g.weight("W_" + k, {1, int64_t(G) * H, I}, w.data());
    const std::string R = g.weight("R_" + k, {1, int64_t(G) * H, H}, r.data());
    const std::string B = g.weight("B_" + k, {1, 2 * int64_t(G) * H}, b.data());
    const auto slice = [&](const char* state) {  // (L, B, H) -> (1, B, H): this layer's
      return g.op("Slice", {state, g.ints({l}), g.ints({l + 1}), g.ints({0})});
    };
    std::vector<std::string> in = {x, W, R, B, "", slice("h0")};
    if (cell == 2) in.push_back(slice("c0"));
    std::vector<Attr> attrs = {Attr::integer("hidden_size", H)};
    if (cell == 1) attrs.push_back(Attr::integer("linear_before_reset", 1));  // torch's GRU: r (W_hn h + b_hn)
    const std::vector<std::string> out = g.ops(op, in, cell == 2 ? 3 : 2, attrs);
    x = g.op("Squeeze", {out[0], g.ints({1})});  // Y (T, 1, B, H) -> (T, B, H)
    hs.push_back(out[1]);
    if (cell == 2) cs.push_back(out[2]);
  }
  g.op("Concat", hs, {Attr::integer("axis", 0)}, "hn");
  if (cell == 2) g.op("Concat", cs, {Attr::integer("axis", 0)}, "cn");
  const std::string y = g.op("Transpose", {x}, {Attr::list("perm", {1, 0, 2})});  // (B, T, H)
  g.op("Add", {g.op("MatMul", {y, param(g, m, "lm_head.weight")}), param(g, m, "lm_head.bias")}, {}, "logits");
  return g.model("tinygpt", {{"model", model_kind_name(c.model)},
                             {"n_layer", std::to_string(L)},
                             {"n_embd", std::to_string(E)},
                             {"n_hidden", std::to_string(H)},
                             {"vocab_size", std::to_string(V)}});
}

// ---- the translator ------------------------------------------------------------------------------------

namespace {

// softmax(scale q k^T where allowed, else lowest) v for q (B, NH, Tq, HS), k and v (B, NH, Tk, HS),
// allowed broadcasting to (B, NH, Tq, Tk); the heads joined again: (B, Tq, C).
std::string attend(Graph& g, const std::string& q, const std::string& k, const std::string& v, const std::string& allowed,
                   const std::string& lowest, int C, int HS) {
  const std::string kt = g.op("Transpose", {k}, {Attr::list("perm", {0, 1, 3, 2})});                         // (B, NH, HS, Tk)
  const std::string scores = g.op("Mul", {g.op("MatMul", {q, kt}), g.scalar(1.0f / std::sqrt(float(HS)))});  // (B, NH, Tq, Tk)
  const std::string att = g.op("Softmax", {g.op("Where", {allowed, scores, lowest})}, {Attr::integer("axis", -1)});
  const std::string y4 = g.op("Transpose", {g.op("MatMul", {att, v})}, {Attr::list("perm", {0, 2, 1, 3})});  // (B, Tq, NH, HS)
  return g.op("Reshape", {y4, g.ints({0, 0, C})});                                                            // (B, Tq, C)
}

// ReLU(x W1 + b1) W2 + b2 for the layer's linear1 and linear2
std::string feed_forward(Graph& g, const model::Seq2Seq& m, const std::string& x, const std::string& prefix) {
  return linear(g, m, g.op("Relu", {linear(g, m, x, prefix + "linear1")}), prefix + "linear2");
}

// (B, 1, 1, S) bool from an int64 mask (B, S): 1 = a key to attend to
std::string key_mask(Graph& g, const std::string& mask) {
  return g.op("Cast", {g.op("Unsqueeze", {mask, g.ints({1, 2})})}, {Attr::integer("to", kBool)});
}

std::vector<std::pair<std::string, std::string>> seq2seq_metadata(const model::Seq2Seq& m, const char* part) {
  const model::Seq2SeqDims& d = m.dims();
  const data::PairTokens t = d.tokens();
  return {{"model", "seq2seq"}, {"part", part},
          {"n_enc_layer", std::to_string(d.n_enc_layer)}, {"n_dec_layer", std::to_string(d.n_dec_layer)},
          {"n_head", std::to_string(d.n_head)}, {"n_embd", std::to_string(d.n_embd)}, {"d_ff", std::to_string(d.d_ff)},
          {"block_size", std::to_string(d.block_size)}, {"vocab_size", std::to_string(d.vocab_size)},
          {"bos_token_id", std::to_string(t.bos())}, {"eos_token_id", std::to_string(t.eos())}, {"pad_token_id", std::to_string(t.pad())}};
}

std::vector<uint8_t> seq2seq_encoder(const model::Seq2Seq& m) {
  const model::Seq2SeqDims& d = m.dims();
  const int C = d.n_embd, NH = d.n_head, HS = C / NH;
  Graph g;
  g.input("input_ids", kInt64, {"batch_size", "encoder_sequence_length"});
  g.input("attention_mask", kInt64, {"batch_size", "encoder_sequence_length"});
  g.output("last_hidden_state", kFloat, {"batch_size", "encoder_sequence_length", C});
  for (int l = 0; l < d.n_dec_layer; l++)
    for (const char* kv : {"key", "value"})
      g.output("present." + std::to_string(l) + ".encoder." + kv, kFloat, {"batch_size", NH, "encoder_sequence_length", HS});

  // x = src_embed[input_ids] + PE[0:S]   (B, S, C)
  const std::string pe = g.weight("positional_encoding", {d.block_size, C}, m.positional_encoding());
  const std::string S = g.op("Gather", {g.op("Shape", {"input_ids"}), g.ints({1})});  // (1)
  const std::string pe_s = g.op("Slice", {pe, g.ints({0}), S, g.ints({0})});          // (S, C)
  std::string x = g.op("Add", {g.op("Gather", {param(g, m, "src_embed.weight"), "input_ids"}), pe_s});
  const std::string allowed = key_mask(g, "attention_mask");
  const std::string lowest = g.scalar(std::numeric_limits<float>::lowest());
  const std::string shape_bthd = g.ints({0, 0, NH, HS});
  for (int l = 0; l < d.n_enc_layer; l++) {
    const std::string p = "encoder.layers." + std::to_string(l) + ".";
    // y = LN1(self_attn(x, source padding) + x)
    const std::string qkv = g.op("MatMul", {x, param(g, m, p + "self_attn.qkv.weight")});  // (B, S, 3C)
    const std::vector<std::string> s = g.ops("Split", {qkv, g.ints({C, C, C})}, 3, {Attr::integer("axis", 2)});
    // one statement each: the nodes' names follow their order, which a call's arguments would leave to the compiler
    const std::string q = heads(g, s[0], shape_bthd), k = heads(g, s[1], shape_bthd), v = heads(g, s[2], shape_bthd);
    const std::string a = attend(g, q, k, v, allowed, lowest, C, HS);
    const std::string y = layernorm(g, m, g.op("Add", {g.op("MatMul", {a, param(g, m, p + "self_attn.out_proj.weight")}), x}), p + "norm1");
    // x = LN2(FF(y) + y)
    x = layernorm(g, m, g.op("Add", {feed_forward(g, m, y, p), y}), p + "norm2");
  }
  g.op("Identity", {x}, {}, "last_hidden_state");
  // every decoder layer's cross-attention keys and values: [k | v] = enc W_kv, as heads (B, NH, S, HS)
  for (int l = 0; l < d.n_dec_layer; l++) {
    const std::string L = std::to_string(l);
    const std::string kv = g.op("MatMul", {x, param(g, m, "decoder.layers." + L + ".cross_attn.kv.weight")});  // (B, S, 2C)
    const std::vector<std::string> s = g.ops("Split", {kv, g.ints({C, C})}, 2, {Attr::integer("axis", 2)});
    g.op("Identity", {heads(g, s[0], shape_bthd)}, {}, "present." + L + ".encoder.key");
    g.op("Identity", {heads(g, s[1], shape_bthd)}, {}, "present." + L + ".encoder.value");
  }
  return g.model("tinygpt-encoder", seq2seq_metadata(m, "encoder"));
}

std::vector<uint8_t> seq2seq_decoder(const model::Seq2Seq& m) {
  const model::Seq2SeqDims& d = m.dims();
  const int C = d.n_embd, NH = d.n_head, HS = C / NH;
  const char* past = "past_decoder_sequence_length";
  const char* total = "past_decoder_sequence_length + decoder_sequence_length";
  Graph g;
  g.input("input_ids", kInt64, {"batch_size", "decoder_sequence_length"});
  g.input("encoder_attention_mask", kInt64, {"batch_size", "encoder_sequence_length"});
  for (int l = 0; l < d.n_dec_layer; l++) {
    for (const char* kv : {"key", "value"})
      g.input("past_key_values." + std::to_string(l) + ".decoder." + kv, kFloat, {"batch_size", NH, past, HS});
    for (const char* kv : {"key", "value"})
      g.input("past_key_values." + std::to_string(l) + ".encoder." + kv, kFloat, {"batch_size", NH, "encoder_sequence_length", HS});
  }
  g.output("logits", kFloat, {"batch_size", "decoder_sequence_length", d.vocab_size});
  for (int l = 0; l < d.n_dec_layer; l++)
    for (const char* kv : {"key", "value"})
      g.output("present." + std::to_string(l) + ".decoder." + kv, kFloat, {"batch_size", NH, total, HS});

  // z = tgt_embed[input_ids] + PE[P:P+T]   (B, T, C), P the tokens already fed
  const std::string T = g.op("Gather", {g.op("Shape", {"input_ids"}), g.ints({1}, true)});                          // scalar
  const std::string P = g.op("Gather", {g.op("Shape", {"past_key_values.0.decoder.key"}), g.ints({2}, true)});      // scalar
  const std::string total_len = g.op("Add", {P, T});
  const std::string one = g.ints({1}, true);
  const std::string qpos = g.op("Range", {P, total_len, one});                   // (T)
  const std::string kpos = g.op("Range", {g.ints({0}, true), total_len, one});   // (P + T)
  const std::string pe = g.weight("positional_encoding", {d.block_size, C}, m.positional_encoding());
  std::string z = g.op("Add", {g.op("Gather", {param(g, m, "tgt_embed.weight"), "input_ids"}), g.op("Gather", {pe, qpos})});
  // causal over the past and the new tokens (T, P + T); the source's padding (B, 1, 1, S)
  const std::string causal = g.op("LessOrEqual", {g.op("Unsqueeze", {kpos, g.ints({0})}), g.op("Unsqueeze", {qpos, g.ints({1})})});
  const std::string source = key_mask(g, "encoder_attention_mask");
  const std::string lowest = g.scalar(std::numeric_limits<float>::lowest());
  const std::string shape_bthd = g.ints({0, 0, NH, HS});
  for (int l = 0; l < d.n_dec_layer; l++) {
    const std::string L = std::to_string(l);
    const std::string p = "decoder.layers." + L + ".";
    // y = LN1(self_attn(z, causal) + z)
    const std::string qkv = g.op("MatMul", {z, param(g, m, p + "self_attn.qkv.weight")});  // (B, T, 3C)
    const std::vector<std::string> s = g.ops("Split", {qkv, g.ints({C, C, C})}, 3, {Attr::integer("axis", 2)});
    const std::string k = g.op("Concat", {"past_key_values." + L + ".decoder.key", heads(g, s[1], shape_bthd)}, {Attr::integer("axis", 2)},
                               "present." + L + ".decoder.key");     // (B, NH, P + T, HS)
    const std::string v = g.op("Concat", {"past_key_values." + L + ".decoder.value", heads(g, s[2], shape_bthd)}, {Attr::integer("axis", 2)},
                               "present." + L + ".decoder.value");   // (B, NH, P + T, HS)
    const std::string a = attend(g, heads(g, s[0], shape_bthd), k, v, causal, lowest, C, HS);
    const std::string y = layernorm(g, m, g.op("Add", {g.op("MatMul", {a, param(g, m, p + "self_attn.out_proj.weight")}), z}), p + "norm1");
    // u = LN2(cross_attn(q = y W_q, the encoder's keys and values) + y)
    const std::string q = heads(g, g.op("MatMul", {y, param(g, m, p + "cross_attn.q.weight")}), shape_bthd);
    const std::string c = attend(g, q, "past_key_values." + L + ".encoder.key", "past_key_values." + L + ".encoder.value", source, lowest, C, HS);
    const std::string u = layernorm(g, m, g.op("Add", {g.op("MatMul", {c, param(g, m, p + "cross_attn.out_proj.weight")}), y}), p + "norm2");
    // z = LN3(FF(u) + u)
    z = layernorm(g, m, g.op("Add", {feed_forward(g, m, u, p), u}), p + "norm3");
  }
  z = layernorm(g, m, z, "decoder.norm");
  g.op("Add", {g.op("MatMul", {z, param(g, m, "proj.weight")}), param(g, m, "proj.bias")}, {}, "logits");  // (B, T, V)
  return g.model("tinygpt-decoder", seq2seq_metadata(m, "decoder"));
}

}  // namespace

std::vector<exporter::File> export_seq2seq(const model::Seq2Seq& m) {
  return {{"encoder_model.onnx", seq2seq_encoder(m)}, {"decoder_model.onnx", seq2seq_decoder(m)}};
}

// ---- the LSTM translator -----------------------------------------------------------------------------

namespace {

// One torch-layout LSTM layer of the model (prefix "encoder." or "decoder.", layer l) as ONNX's LSTM
// over x (T, B, I); returns its Y (T, 1, B, H), Y_h and Y_c (1, B, H).
std::vector<std::string> lstm_layer(Graph& g, const model::LstmSeq2Seq& m, const std::string& side, int l, const std::string& x,
                                    const std::string& lengths, const std::string& h0, const std::string& c0) {
  const int H = m.dims().n_hidden, cell = 2;
  const std::string k = std::to_string(l), p = side + ".";
  const int64_t I = m.param_info(p + "weight_ih_l" + k).shape.dims[1];
  const float* params = m.params();
  const auto data = [&](const std::string& name) { return params + m.param_info(name).offset; };
  const std::vector<float> w = onnx_gates(data(p + "weight_ih_l" + k), cell, H, I);
  const std::vector<float> r = onnx_gates(data(p + "weight_hh_l" + k), cell, H, H);
  std::vector<float> b = onnx_gates(data(p + "bias_ih_l" + k), cell, H, 1);  // ONNX's B: [W biases | R biases]
  const std::vector<float> bh = onnx_gates(data(p + "bias_hh_l" + k), cell, H, 1);
  b.insert(b.end(), bh.begin(), bh.end());
  const std::string W = g.weight(p + "W_" + k, {1, 4 * int64_t(H), I}, w.data());
  const std::string R = g.weight(p + "R_" + k, {1, 4 * int64_t(H), H}, r.data());
  const std::string B = g.weight(p + "B_" + k, {1, 8 * int64_t(H)}, b.data());
  std::vector<std::string> in = {x, W, R, B, lengths, h0, c0};
  while (in.back().empty()) in.pop_back();  // optional inputs left out: "" names one that is absent
  return g.ops("LSTM", in, 3, {Attr::integer("hidden_size", H)});
}

std::vector<std::pair<std::string, std::string>> lstm_seq2seq_metadata(const model::LstmSeq2Seq& m, const char* part) {
  const model::LstmSeq2SeqDims& d = m.dims();
  const data::PairTokens t = d.tokens();
  return {{"model", "lstm_seq2seq"}, {"part", part},
          {"n_enc_layer", std::to_string(d.n_enc_layer)}, {"n_dec_layer", std::to_string(d.n_dec_layer)},
          {"n_embd", std::to_string(d.n_embd)}, {"n_hidden", std::to_string(d.n_hidden)},
          {"block_size", std::to_string(d.block_size)}, {"vocab_size", std::to_string(d.vocab_size)},
          {"bos_token_id", std::to_string(t.bos())}, {"eos_token_id", std::to_string(t.eos())}, {"pad_token_id", std::to_string(t.pad())}};
}

std::vector<uint8_t> lstm_seq2seq_encoder(const model::LstmSeq2Seq& m) {
  const model::LstmSeq2SeqDims& d = m.dims();
  const int H = d.n_hidden, Le = d.n_enc_layer, Ld = d.n_dec_layer;
  Graph g;
  g.input("input_ids", kInt64, {"batch_size", "encoder_sequence_length"});
  g.input("attention_mask", kInt64, {"batch_size", "encoder_sequence_length"});
  g.output("last_hidden_state", kFloat, {"batch_size", "encoder_sequence_length", H});
  g.output("h0", kFloat, {Ld, "batch_size", H});
  g.output("c0", kFloat, {Ld, "batch_size", H});
  // each source's length (its real tokens come first, padding after): the LSTMs stop there   (B) int32
  const std::string lengths = g.op("Cast", {g.op("ReduceSum", {"attention_mask", g.ints({1})}, {Attr::integer("keepdims", 0)})},
                                   {Attr::integer("to", 6)});  // 6: int32
  // x = src_embed[input_ids], time first   (S, B, E)
  std::string x = g.op("Transpose", {g.op("Gather", {param(g, m, "src_embed.weight"), "input_ids"})}, {Attr::list("perm", {1, 0, 2})});
  std::vector<std::string> hs, cs;
  for (int l = 0; l < Le; l++) {
    const std::vector<std::string> out = lstm_layer(g, m, "encoder", l, x, lengths, "", "");
    x = g.op("Squeeze", {out[0], g.ints({1})});  // (S, B, H)
    hs.push_back(out[1]), cs.push_back(out[2]);   // (1, B, H): at each source's last real token
  }
  g.op("Transpose", {x}, {Attr::list("perm", {1, 0, 2})}, "last_hidden_state");  // (B, S, H)
  // the decoder's layer k starts from the encoder's layer k, zeros beyond the encoder's layers
  const std::string zeros = g.op("Expand", {g.scalar(0.0f), g.op("Shape", {hs[0]})});  // (1, B, H)
  std::vector<std::string> h0, c0;
  for (int l = 0; l < Ld; l++) h0.push_back(l < Le ? hs[size_t(l)] : zeros), c0.push_back(l < Le ? cs[size_t(l)] : zeros);
  g.op(Ld > 1 ? "Concat" : "Identity", h0, Ld > 1 ? std::vector<Attr>{Attr::integer("axis", 0)} : std::vector<Attr>{}, "h0");
  g.op(Ld > 1 ? "Concat" : "Identity", c0, Ld > 1 ? std::vector<Attr>{Attr::integer("axis", 0)} : std::vector<Attr>{}, "c0");
  return g.model("tinygpt-encoder", lstm_seq2seq_metadata(m, "encoder"));
}

std::vector<uint8_t> lstm_seq2seq_decoder(const model::LstmSeq2Seq& m) {
  const model::LstmSeq2SeqDims& d = m.dims();
  const int H = d.n_hidden, Ld = d.n_dec_layer;
  Graph g;
  g.input("input_ids", kInt64, {"batch_size", "decoder_sequence_length"});
  g.input("encoder_hidden_states", kFloat, {"batch_size", "encoder_sequence_length", H});
  g.input("encoder_attention_mask", kInt64, {"batch_size", "encoder_sequence_length"});
  g.input("h0", kFloat, {Ld, "batch_size", H});
  g.input("c0", kFloat, {Ld, "batch_size", H});
  g.output("logits", kFloat, {"batch_size", "decoder_sequence_length", d.vocab_size});
  g.output("hn", kFloat, {Ld, "batch_size", H});
  g.output("cn", kFloat, {Ld, "batch_size", H});
  // the decoder's LSTMs from the state given   (T, B, H)
  std::string x = g.op("Transpose", {g.op("Gather", {param(g, m, "tgt_embed.weight"), "input_ids"})}, {Attr::list("perm", {1, 0, 2})});
  std::vector<std::string> hs, cs;
  for (int l = 0; l < Ld; l++) {
    const auto slice = [&](const char* state) { return g.op("Slice", {state, g.ints({l}), g.ints({l + 1}), g.ints({0})}); };  // (1, B, H)
    const std::string h = slice("h0"), c = slice("c0");
    const std::vector<std::string> out = lstm_layer(g, m, "decoder", l, x, "", h, c);
    x = g.op("Squeeze", {out[0], g.ints({1})});
    hs.push_back(out[1]), cs.push_back(out[2]);
  }
  g.op(Ld > 1 ? "Concat" : "Identity", hs, Ld > 1 ? std::vector<Attr>{Attr::integer("axis", 0)} : std::vector<Attr>{}, "hn");
  g.op(Ld > 1 ? "Concat" : "Identity", cs, Ld > 1 ? std::vector<Attr>{Attr::integer("axis", 0)} : std::vector<Attr>{}, "cn");
  const std::string dec = g.op("Transpose", {x}, {Attr::list("perm", {1, 0, 2})});  // (B, T, H)
  // attention over the source: softmax_s(q_t . enc_s / sqrt(H)), padding masked   (B, T, S)
  const std::string q = g.op("MatMul", {dec, param(g, m, "attn.weight")});
  const std::string kt = g.op("Transpose", {"encoder_hidden_states"}, {Attr::list("perm", {0, 2, 1})});  // (B, H, S)
  const std::string scores = g.op("Mul", {g.op("MatMul", {q, kt}), g.scalar(1.0f / std::sqrt(float(H)))});
  const std::string allowed = g.op("Cast", {g.op("Unsqueeze", {"encoder_attention_mask", g.ints({1})})}, {Attr::integer("to", kBool)});  // (B, 1, S)
  const std::string att = g.op("Softmax", {g.op("Where", {allowed, scores, g.scalar(std::numeric_limits<float>::lowest())})},
                               {Attr::integer("axis", -1)});
  const std::string ctx = g.op("MatMul", {att, "encoder_hidden_states"});  // (B, T, H)
  // h~ = tanh(ctx W_c + (dec W_h + b)), logits = h~ W_p + b_p
  const std::string hidden = g.op("Add", {g.op("MatMul", {dec, param(g, m, "combine.hidden.weight")}), param(g, m, "combine.bias")});
  const std::string mix = g.op("Tanh", {g.op("Add", {g.op("MatMul", {ctx, param(g, m, "combine.context.weight")}), hidden})});
  g.op("Add", {g.op("MatMul", {mix, param(g, m, "proj.weight")}), param(g, m, "proj.bias")}, {}, "logits");
  return g.model("tinygpt-decoder", lstm_seq2seq_metadata(m, "decoder"));
}

}  // namespace

std::vector<exporter::File> export_lstm_seq2seq(const model::LstmSeq2Seq& m) {
  return {{"encoder_model.onnx", lstm_seq2seq_encoder(m)}, {"decoder_model.onnx", lstm_seq2seq_decoder(m)}};
}

}  // namespace tinygpt::onnx
