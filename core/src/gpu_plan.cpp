// gpu_plan.cpp — TinyGPT's step as a schedule of GPU kernels (gpu_plan.h).
//
// The forward pass below is model.cpp's forward_logits, op for op; the backward pass is the
// autograd graph of that forward in reverse (ops.cpp's backward closures), with the gradient of
// every parameter written (=) by exactly one op, so no step needs to zero the gradients.
#include "tinygpt/gpu_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <tuple>

#include "tinygpt/error.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/trainer.h"  // kDivergedLoss

namespace tinygpt::gpu {

using tinygpt::Error;

namespace {

int64_t aligned(int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

constexpr float kEps = 1e-5f;  // LayerNorm (ops.h's default)

class Builder {
 public:
  explicit Builder(Plan& plan) : plan_(plan) {}

  // A buffer of its own for every region: WebGPU validates usage per buffer, so an op may not
  // read one region of a buffer while it writes another. (Offsets stay 0; kAlign still holds.)
  Region take(const std::string& name, int64_t count, DType dtype = DType::f32) {
    for (const Buffer& b : plan_.buffers)
      if (b.name == name) throw Error("internal: two GPU buffers named " + name);
    plan_.buffers.push_back({name, aligned(std::max<int64_t>(count, 1)), dtype});
    return Region{int(plan_.buffers.size()) - 1, 0, count};
  }

  // A LayerNorm's mean and rstd (N each) in one buffer, rstd at an aligned offset: (both, mean, rstd).
  std::tuple<Region, Region, Region> stats(const std::string& name, int64_t N) {
    const Region both = take(name, aligned(N) + N);
    return {both, Region{both.buffer, 0, N}, Region{both.buffer, aligned(N), N}};
  }

  // out (M, N) = LN(x) (M, K) @ w (K, N) + bias [then GELU, keeping the pre-activation in aux]: one
  // matmul_ln dispatch that also writes ln (M, K) and the stats (mean, then rstd at rstd's offset).
  void ln_matmul(std::vector<Op>& prog, const char* what, Region out, Region x, Region params, Region aux, Region ln,
                 Region stats, Region rstd, Region w, Region bias, Region ln_w, Region ln_b, uint32_t M, uint32_t N,
                 uint32_t K, uint32_t gelu) {
    for (const Region* r : {&w, &bias, &ln_w, &ln_b})
      if (r->buffer != params.buffer) throw Error("internal: " + prefix_ + what + ": a parameter outside the params binding");
    if (w.count != int64_t(K) * N || bias.count != N || ln_w.count != K || ln_b.count != K || ln.count != int64_t(M) * K)
      throw Error("internal: " + prefix_ + what + ": shapes");
    auto off = [&](const Region& r) { return uint32_t(r.offset - params.offset); };
    op(prog, "matmul_ln", what, {out, x, params, aux, ln, stats},
       {M, N, K, gelu, aux.defined() ? 1u : 0u, off(w), off(bias), off(ln_w), off(ln_b), uint32_t(rstd.offset)}, {kEps});
  }

  // Label prefix of the ops that follow (the layer they belong to, e.g. "h.1.").
  void at(const std::string& prefix) { prefix_ = prefix; }

  // Appends an op (out of line, with initializer lists: the dozens of call sites stay small).
  void op(std::vector<Op>& prog, const char* kernel, const char* what, std::initializer_list<Region> regions,
          std::initializer_list<uint32_t> dim_list, std::initializer_list<float> scalars = {}) {
    op(prog, kernel, what, regions, std::vector<uint32_t>(dim_list), scalars);
  }
  void op(std::vector<Op>& prog, const char* kernel, const char* what, std::initializer_list<Region> regions,
          std::vector<uint32_t> dims, std::initializer_list<float> scalars = {}) {
    const std::string label = prefix_ + what;
    std::vector<Region> args(regions);
    auto need = [&](size_t arg, int64_t count) {
      if (args[arg].defined() && args[arg].count != count)
        throw Error("internal: " + label + ": argument " + std::to_string(arg) + " has " +
                    std::to_string(args[arg].count) + " elements, the op needs " + std::to_string(count));
    };
    const std::string k = kernel;
    if (k == "matmul") {  // out, A, B, bias, res, aux, dbias; dims M N K transA transB accumulate epilogue
      const int64_t M = dims[0], N = dims[1], K = dims[2];
      args.resize(7);
      need(0, M * N), need(1, M * K), need(2, K * N), need(3, N), need(4, M * N), need(5, M * N), need(6, N);
      for (size_t a : {3, 4, 5, 6}) dims.push_back(args[a].defined() ? 1 : 0);  // has_bias has_res has_aux has_dbias
    } else if (k == "linear_backward") {  // dinp, dout, weight, aux, dweight, inp, dbias; dims R I O epilogue has_dbias
      const int64_t R = dims[0], I = dims[1], O = dims[2];
      need(0, R * I), need(1, R * O), need(2, I * O), need(3, R * I), need(4, I * O), need(5, R * I), need(6, O);
    } else if (k == "matvec") {  // out, x, W, bias, state, ln_w, ln_b; dims K N in_row out_row accumulate gelu
      args.resize(7);
      need(2, int64_t(dims[0]) * dims[1]), need(3, dims[1]), need(5, dims[0]), need(6, dims[0]);
      dims.push_back(args[3].defined() ? 1 : 0);  // has_bias
      dims.push_back(args[5].defined() ? 1 : 0);  // has_ln (scalars: eps)
    }
    const KernelInfo* info = find_kernel(k);
    if (!info) throw Error("internal: " + label + ": no GPU kernel " + k + " (gpu_plan.h, TINYGPT_GPU_KERNELS)");
    if (int(args.size()) != info->args)
      throw Error("internal: " + label + ": " + k + " takes " + std::to_string(info->args) + " arguments, not " +
                  std::to_string(args.size()));
    prog.push_back({k, label, std::move(args), std::move(dims), std::vector<float>(scalars)});
  }

 private:
  Plan& plan_;
  std::string prefix_;
};

constexpr Region kNone{};

struct Layer {
  Region ln1_w, ln1_b, qkv_w, qkv_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, fcproj_w, fcproj_b;
};

struct Params {
  Region all;  // the whole block (kernels that take parameters at offsets: matmul_ln, decode_layer)
  Region wte, wpe, lnf_w, lnf_b, lm_w, lm_b;
  std::vector<Layer> h;
};

// Saved activations of one layer's forward (what its backward reads).
struct LayerActs {
  Region x;                        // (N, C) the block's input
  Region ln1, ln1_mean, ln1_rstd;  // (N, C), (N), (N)
  Region ln1_stats, ln2_stats;     // mean then rstd, in one region each (matmul_ln writes both)
  Region qkv;                      // (N, 3C)
  Region atty, lse;                // (N, C), (B, NH, T)
  Region xmid;                     // (N, C) after the attention sublayer
  Region ln2, ln2_mean, ln2_rstd;  // (N, C), (N), (N)
  Region fc_pre, fc;               // (N, 4C) before and after GELU
};

struct ForwardActs {
  std::vector<LayerActs> layers;
  Region x_final;                  // (N, C) the last block's output
  Region lnf, lnf_mean, lnf_rstd;  // (N, C), (N), (N)
  Region logits;                   // (N, V)
};

struct ForwardSpec {
  int B = 1, T = 1;
  std::string buffer_prefix;        // activations go to buffers named prefix + ...
  bool keep = true;                 // keep every layer's activations (training); else reuse one set
  std::vector<Region> qkv_dest;     // per layer: write qkv here (the KV cache) instead of a new region
  std::vector<Region> att_probs;    // per layer: also write the attention probabilities (B, NH, T, T)
  bool logits = true;               // compute logits for every row
};

Params param_regions(const Plan& plan, int params_buf, int L) {
  auto find = [&](const std::string& name) {
    for (const ParamSlot& p : plan.params)
      if (p.name == name) return Region{params_buf, p.gpu_offset, p.count};
    throw Error("internal: no parameter " + name);
  };
  Params P;
  P.all = Region{params_buf, 0, plan.gpu_params};
  P.wte = find("wte");
  P.wpe = find("wpe");
  for (int l = 0; l < L; l++) {
    const std::string p = "h." + std::to_string(l) + ".";
    P.h.push_back({find(p + "ln_1.weight"), find(p + "ln_1.bias"), find(p + "attn.c_attn.weight"),
                   find(p + "attn.c_attn.bias"), find(p + "attn.c_proj.weight"), find(p + "attn.c_proj.bias"),
                   find(p + "ln_2.weight"), find(p + "ln_2.bias"), find(p + "mlp.c_fc.weight"),
                   find(p + "mlp.c_fc.bias"), find(p + "mlp.c_proj.weight"), find(p + "mlp.c_proj.bias")});
  }
  P.lnf_w = find("ln_f.weight");
  P.lnf_b = find("ln_f.bias");
  P.lm_w = find("lm_head.weight");
  P.lm_b = find("lm_head.bias");
  return P;
}

Params with_buffer(Params p, int buf) {
  auto set = [&](Region& r) { r.buffer = buf; };
  for (Region* r : {&p.all, &p.wte, &p.wpe, &p.lnf_w, &p.lnf_b, &p.lm_w, &p.lm_b}) set(*r);
  for (Layer& l : p.h)
    for (Region* r : {&l.ln1_w, &l.ln1_b, &l.qkv_w, &l.qkv_b, &l.proj_w, &l.proj_b, &l.ln2_w, &l.ln2_b, &l.fc_w,
                      &l.fc_b, &l.fcproj_w, &l.fcproj_b})
      set(*r);
  return p;
}


// model.cpp's forward_logits as ops: tokens (B, T) -> logits (B, T, V).
ForwardActs forward(Builder& b, std::vector<Op>& prog, const Params& P, const Config& mc, const ForwardSpec& s,
                    Region tokens) {
  const uint32_t B = uint32_t(s.B), T = uint32_t(s.T), C = uint32_t(mc.n_embd), NH = uint32_t(mc.n_head);
  const uint32_t V = uint32_t(mc.vocab_size), N = B * T;
  const int64_t NC = int64_t(N) * C;
  const std::string pre = s.buffer_prefix;
  ForwardActs out;
  Region x = b.take(pre + "x", NC);
  b.op(prog, "embedding_forward", "wte[tokens] + wpe", {x, tokens, P.wte, P.wpe}, {N, T, C});
  // with keep == false one set of regions serves every layer (inference)
  LayerActs shared;
  for (size_t l = 0; l < P.h.size(); l++) {
    const Layer& w = P.h[l];
    const std::string name = "h." + std::to_string(l);
    LayerActs a;
    const bool fresh = s.keep || l == 0;
    const std::string at = pre + (s.keep ? name : std::string("layer")) + ".";
    if (fresh) {
      a.ln1 = b.take(at + "ln_1", NC);
      std::tie(a.ln1_stats, a.ln1_mean, a.ln1_rstd) = b.stats(at + "ln_1.stats", N);
      a.qkv = s.qkv_dest.empty() ? b.take(at + "qkv", 3 * NC) : kNone;
      a.atty = b.take(at + "attn", NC), a.lse = b.take(at + "attn.lse", int64_t(B) * NH * T);
      a.xmid = b.take(at + "x_mid", NC);
      a.ln2 = b.take(at + "ln_2", NC);
      std::tie(a.ln2_stats, a.ln2_mean, a.ln2_rstd) = b.stats(at + "ln_2.stats", N);
      a.fc_pre = s.keep ? b.take(at + "fc.pre", 4 * NC) : kNone;
      a.fc = b.take(at + "fc", 4 * NC);
      if (!s.keep) shared = a;
    } else {
      a = shared;
    }
    a.x = x;
    if (!s.qkv_dest.empty()) a.qkv = s.qkv_dest[l];
    b.at(name + ".");
    // attention sublayer: x = x + proj(attention(qkv(LN1(x))))
    b.ln_matmul(prog, "ln_1 + attn.c_attn forward", a.qkv, x, P.all, kNone, a.ln1, a.ln1_stats, a.ln1_rstd, w.qkv_w,
                w.qkv_b, w.ln1_w, w.ln1_b, N, 3 * C, C, 0);
    b.op(prog, "attention_forward", "attn causal attention", {a.atty, a.lse, a.qkv}, {B, T, C, NH});
    if (!s.att_probs.empty())
      b.op(prog, "attention_probs", "attn probabilities", {s.att_probs[l], a.qkv, a.lse}, {B, T, C, NH});
    b.op(prog, "matmul", "attn.c_proj forward + residual", {a.xmid, a.atty, w.proj_w, w.proj_b, x, kNone},
         {N, C, C, 0, 0, 0, 0});
    // MLP sublayer: x = x + fc_proj(gelu(fc(LN2(x))))
    b.ln_matmul(prog, "ln_2 + mlp.c_fc forward + gelu", a.fc, a.xmid, P.all, a.fc_pre, a.ln2, a.ln2_stats, a.ln2_rstd,
                w.fc_w, w.fc_b, w.ln2_w, w.ln2_b, N, 4 * C, C, 1);
    // the block's output: a new region when training; the input's region otherwise (dead by now)
    Region x_out = s.keep ? b.take(pre + name + ".out", NC) : x;
    b.op(prog, "matmul", "mlp.c_proj forward + residual", {x_out, a.fc, w.fcproj_w, w.fcproj_b, a.xmid, kNone},
         {N, C, 4 * C, 0, 0, 0, 0});
    out.layers.push_back(a);
    x = x_out;
  }
  b.at("");
  out.x_final = x;
  out.lnf = b.take(pre + "ln_f", NC);
  Region lnf_stats;
  std::tie(lnf_stats, out.lnf_mean, out.lnf_rstd) = b.stats(pre + "ln_f.stats", N);
  if (s.logits) {
    out.logits = b.take(pre + "logits", int64_t(N) * V);
    b.ln_matmul(prog, "ln_f + lm_head forward", out.logits, x, P.all, kNone, out.lnf, lnf_stats, out.lnf_rstd, P.lm_w, P.lm_b,
                P.lnf_w, P.lnf_b, N, V, C, 0);
  } else {
    b.op(prog, "layernorm_forward", "ln_f", {out.lnf, out.lnf_mean, out.lnf_rstd, x, P.lnf_w, P.lnf_b}, {N, C}, {kEps});
  }
  return out;
}

// All of the training forward's activations in one buffer ("acts"), each region at an aligned
// offset: block_forward binds it once, read-write (a kernel has 8 storage bindings, and WebGPU
// forbids binding one buffer read-only and writable in one dispatch). The backward only reads it,
// so its ops may bind several regions of it. buffer -1: counting only.
struct Arena {
  int buffer = -1;
  int64_t used = 0;
  Region take(int64_t count) {
    const Region r{buffer, used, count};
    used += aligned(std::max<int64_t>(count, 1));
    return r;
  }
  // a LayerNorm's mean and rstd: (both, mean, rstd), rstd aligned(N) after the mean (block_forward's rule)
  std::tuple<Region, Region, Region> stats(int64_t N) {
    const Region both = take(aligned(N) + N);
    return {both, Region{buffer, both.offset, N}, Region{buffer, both.offset + aligned(N), N}};
  }
};

// The regions of block_forward's training forward in the arena (logits stay a buffer of their own:
// the cross-entropy turns them into their gradient in place). lnf_stats: ln_f's mean and rstd.
ForwardActs row_layout(Arena& a, int L, int64_t N, int64_t C, int64_t lse_count, Region& lnf_stats) {
  ForwardActs f;
  Region x = a.take(N * C);  // (N, C) the embedding
  for (int l = 0; l < L; l++) {
    LayerActs la;
    la.x = x;
    la.ln1 = a.take(N * C);
    std::tie(la.ln1_stats, la.ln1_mean, la.ln1_rstd) = a.stats(N);
    la.qkv = a.take(3 * N * C);
    la.atty = a.take(N * C), la.lse = a.take(lse_count);
    la.xmid = a.take(N * C);
    la.ln2 = a.take(N * C);
    std::tie(la.ln2_stats, la.ln2_mean, la.ln2_rstd) = a.stats(N);
    la.fc_pre = a.take(4 * N * C), la.fc = a.take(4 * N * C);
    x = a.take(N * C);  // (N, C) the block's output
    f.layers.push_back(la);
  }
  f.x_final = x;
  f.lnf = a.take(N * C);
  std::tie(lnf_stats, f.lnf_mean, f.lnf_rstd) = a.stats(N);
  return f;
}

int64_t row_arena_elements(const Config& mc) {
  Arena dry;
  Region lnf_stats;
  const int64_t N = int64_t(mc.batch_size) * mc.block_size;
  row_layout(dry, mc.n_layer, N, mc.n_embd, N * mc.n_head, lnf_stats);
  return dry.used;
}

// The training forward with block_forward: a workgroup takes 16 rows through a whole block. Rows
// are independent except in attention, whose keys and values come from other rows' qkv: so each
// dispatch starts at attention (over the qkv the previous dispatch wrote for every row) and ends
// with the next block's ln_1 + qkv (or ln_f + lm_head + the loss). L + 1 dispatches: the embedding
// with h.0's qkv, then one per block. tail: block_forward's for the last dispatch (1, 2 or 3).
ForwardActs forward_rows(Builder& b, std::vector<Op>& prog, const Params& P, const Config& mc, int B_, int T_,
                         Region tokens, Region targets, Region losses, uint32_t tail) {
  const uint32_t B = uint32_t(B_), T = uint32_t(T_), C = uint32_t(mc.n_embd), NH = uint32_t(mc.n_head);
  const uint32_t V = uint32_t(mc.vocab_size), N = B * T;
  const int L = mc.n_layer;
  Arena arena;
  arena.buffer = b.take("acts", row_arena_elements(mc)).buffer;
  Region lnf_stats;
  ForwardActs f = row_layout(arena, L, N, C, int64_t(N) * NH, lnf_stats);
  const Region acts{arena.buffer, 0, arena.used};
  f.logits = b.take("acts.logits", int64_t(N) * V);
  auto at = [](const Region& r) { return uint32_t(r.offset); };  // offsets in acts and in params
  const LayerActs none;
  for (int l = -1; l < L; l++) {
    const bool embed = l < 0, head = l == L - 1;
    const LayerActs& a = embed ? none : f.layers[size_t(l)];
    const Layer* w = embed ? nullptr : &P.h[size_t(l)];
    const Layer* next = head ? nullptr : &P.h[size_t(l + 1)];
    const Region x_out = head ? f.x_final : f.layers[size_t(l + 1)].x;
    const Region ln_n = head ? f.lnf : f.layers[size_t(l + 1)].ln1;
    const Region stats_n = head ? lnf_stats : f.layers[size_t(l + 1)].ln1_stats;
    const uint32_t out_n = head ? 0 : at(f.layers[size_t(l + 1)].qkv);
    std::vector<uint32_t> dims = {N, T, C, NH, head ? V : 3 * C, embed ? 1u : 0u, head ? tail : 0u};
    for (const Region* r : {&a.x, &a.qkv, &a.atty, &a.lse, &a.xmid, &a.ln2, &a.ln2_stats, &a.fc_pre, &a.fc})
      dims.push_back(at(*r));
    for (uint32_t d : {at(x_out), at(ln_n), at(stats_n), out_n}) dims.push_back(d);
    if (embed) {
      dims.insert(dims.end(), {at(P.wte), at(P.wpe), 0, 0, 0, 0, 0, 0});
    } else {
      for (const Region* r : {&w->proj_w, &w->proj_b, &w->ln2_w, &w->ln2_b, &w->fc_w, &w->fc_b, &w->fcproj_w, &w->fcproj_b})
        dims.push_back(at(*r));
    }
    const std::array<const Region*, 4> tail_params =
        head ? std::array<const Region*, 4>{&P.lnf_w, &P.lnf_b, &P.lm_w, &P.lm_b}
             : std::array<const Region*, 4>{&next->ln1_w, &next->ln1_b, &next->qkv_w, &next->qkv_b};
    for (const Region* r : tail_params) dims.push_back(at(*r));
    const std::string name = embed ? "" : "h." + std::to_string(l);
    const std::string label =
        (embed ? std::string("wte[tokens] + wpe") : name + " attention, c_proj, ln_2, mlp (16 rows a workgroup)") + "; " +
        (head ? "ln_f + lm_head" + std::string(tail >= 2 ? ", softmax + cross-entropy" : "")
              : "h." + std::to_string(l + 1) + ".ln_1 + attn.c_attn forward");
    b.op(prog, "block_forward", label.c_str(),
         {acts, P.all, embed ? tokens : kNone, head ? f.logits : kNone, head && tail >= 2 ? targets : kNone,
          head && tail >= 2 ? losses : kNone},
         {}, {kEps, 1.0f / float(N)});
    prog.back().dims = std::move(dims);
  }
  return f;
}

// The gradients of the forward above, for a mean cross-entropy over the N positions.
void backward(Builder& b, std::vector<Op>& prog, const Params& P, const Params& G, const Config& mc, int B_,
              int T_, const ForwardActs& f, Region tokens) {
  const uint32_t B = uint32_t(B_), T = uint32_t(T_), C = uint32_t(mc.n_embd), NH = uint32_t(mc.n_head);
  const uint32_t V = uint32_t(mc.vocab_size), N = B * T;
  const int64_t NC = int64_t(N) * C;
  const Region dres = b.take("grad.residual", NC);  // (N, C) gradient of the residual stream
  const Region dln = b.take("grad.ln", NC);         // (N, C) gradient of a LayerNorm's output
  const Region dqkv = b.take("grad.qkv", 3 * NC);   // (N, 3C)
  const Region datty = b.take("grad.attn", NC);     // (N, C)
  const Region dfc = b.take("grad.fc", 4 * NC);     // (N, 4C) gradient of the GELU's input
  const Region& dlogits = f.logits;          // the cross-entropy kernel wrote them in place

  // Each linear layer's two gradient GEMMs (dinp, and dweight with dbias) are one linear_backward
  // dispatch; each LayerNorm's row and parameter gradients one layernorm_backward_all.
  // logits = lnf @ lm_w + lm_b
  b.op(prog, "linear_backward", "lm_head backward: dinp; dweight, dbias",
       {dln, dlogits, P.lm_w, kNone, G.lm_w, f.lnf, G.lm_b}, {N, C, V, 0, 1});
  // lnf = LN(x_final)
  b.op(prog, "layernorm_backward_all", "ln_f backward: dinp; params",
       {dres, dln, f.x_final, P.lnf_w, f.lnf_mean, f.lnf_rstd, G.lnf_w, G.lnf_b}, {N, C, 0});
  for (size_t li = P.h.size(); li-- > 0;) {
    const Layer& w = P.h[li];
    const Layer& g = G.h[li];
    const LayerActs& a = f.layers[li];
    b.at("h." + std::to_string(li) + ".");
    // x_out = xmid + gelu(fc_pre) @ fcproj_w + fcproj_b;  fc_pre = ln2 @ fc_w + fc_b
    b.op(prog, "linear_backward", "mlp.c_proj backward: dinp + gelu backward; dweight, dbias",
         {dfc, dres, w.fcproj_w, a.fc_pre, g.fcproj_w, a.fc, g.fcproj_b}, {N, 4 * C, C, 2, 1});
    b.op(prog, "linear_backward", "mlp.c_fc backward: dinp; dweight, dbias",
         {dln, dfc, w.fc_w, kNone, g.fc_w, a.ln2, g.fc_b}, {N, C, 4 * C, 0, 1});
    // ln2 = LN(xmid): the residual's gradient gains the LayerNorm's
    b.op(prog, "layernorm_backward_all", "ln_2 backward: dinp; params",
         {dres, dln, a.xmid, w.ln2_w, a.ln2_mean, a.ln2_rstd, g.ln2_w, g.ln2_b}, {N, C, 1});
    // xmid = x + atty @ proj_w + proj_b
    b.op(prog, "linear_backward", "attn.c_proj backward: dinp; dweight, dbias",
         {datty, dres, w.proj_w, kNone, g.proj_w, a.atty, g.proj_b}, {N, C, C, 0, 1});
    // atty = causal_attention(qkv)
    b.op(prog, "attention_backward", "attn backward: dq; dk, dv", {dqkv, datty, a.atty, a.qkv, a.lse}, {B, T, C, NH});
    // qkv = ln1 @ qkv_w + qkv_b
    b.op(prog, "linear_backward", "attn.c_attn backward: dinp; dweight, dbias",
         {dln, dqkv, w.qkv_w, kNone, g.qkv_w, a.ln1, g.qkv_b}, {N, C, 3 * C, 0, 1});
    b.op(prog, "layernorm_backward_all", "ln_1 backward: dinp; params",
         {dres, dln, a.x, w.ln1_w, a.ln1_mean, a.ln1_rstd, g.ln1_w, g.ln1_b}, {N, C, 1});
  }
  b.at("");
  // x = wte[tokens] + wpe[0:T]
  b.op(prog, "embedding_backward", "wte, wpe backward", {G.wte, G.wpe, dres, tokens}, {B, T, C, V});
}

// The parameters: the CPU table, re-laid out decay-first and aligned.
void lay_out_params(Plan& plan, const std::vector<model::ParamInfo>& table) {
  int64_t at = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (const model::ParamInfo& p : table) {
      if (p.decay != (pass == 0)) continue;
      plan.params.push_back({p.name, p.offset, at, p.shape.numel(), p.decay});
      at += aligned(p.shape.numel());
    }
    if (pass == 0) plan.decay_params = at;
  }
  plan.gpu_params = at;
}

}  // namespace

bool fused_decode(const Config& c) { return c.n_embd <= kFusedDecodeMaxC && c.n_head <= 64; }

bool fused_forward(const Config& c) {
  return c.n_embd <= kRowForwardMaxC && row_arena_elements(c) * 4 <= kRowArenaMaxBytes;
}

const KernelInfo* find_kernel(const std::string& name) {
  for (const KernelInfo& k : kKernels)
    if (name == k.name) return &k;
  return nullptr;
}

int Plan::buffer_index(const std::string& name) const {
  for (size_t i = 0; i < buffers.size(); i++)
    if (buffers[i].name == name) return int(i);
  throw Error("gpu plan: no buffer named '" + name + "'");
}

std::vector<float> Plan::to_gpu_layout(const float* cpu) const {
  std::vector<float> gpu(size_t(gpu_params), 0.0f);
  for (const ParamSlot& p : params)
    std::copy(cpu + p.cpu_offset, cpu + p.cpu_offset + p.count, gpu.begin() + p.gpu_offset);
  return gpu;
}

void Plan::to_cpu_layout(const float* gpu, float* cpu) const {
  for (const ParamSlot& p : params) std::copy(gpu + p.gpu_offset, gpu + p.gpu_offset + p.count, cpu + p.cpu_offset);
}

Plan make_plan(const Config& mc, const std::vector<model::ParamInfo>& table, bool fuse_forward, bool fuse_decode) {
  if (mc.tie_weights) throw Error("gpu plan: the GPT-2 layout (tie_weights 1) trains on the CPU only for now");
  validate_config(mc);
  const Config& tc = mc;  // the optimizer's fields
  if (table.empty() || table.front().name != "wte") throw Error("gpu plan: the parameter table is not TinyGPT's");
  // the embedding backward's grid has a row per token and per position (65535 at most)
  if (int64_t(mc.vocab_size) + mc.block_size > 65535)
    throw Error("gpu plan: vocab_size " + std::to_string(mc.vocab_size) + " plus block_size " + std::to_string(mc.block_size) +
                " is above the 65535 rows a WebGPU grid has: this model trains on the CPU");
  Plan plan;
  plan.config = mc;
  plan.fused_forward = fuse_forward && fused_forward(mc);
  plan.fused_decode = fuse_decode && fused_decode(mc);
  plan.batch_inputs = {"tokens", "targets"};
  plan.batch_size = mc.batch_size;
  plan.head_size = mc.n_embd / mc.n_head;
  Builder b(plan);
  const int L = mc.n_layer, T = mc.block_size, C = mc.n_embd, NH = mc.n_head, V = mc.vocab_size;
  const int B = tc.batch_size;
  const int64_t N = int64_t(B) * T;

  lay_out_params(plan, table);
  plan.num_params = num_parameters(mc);
  if (table.back().offset + table.back().shape.numel() != plan.num_params)
    throw Error("gpu plan: the parameter table does not match the model config");
  const int params_buf = b.take("params", plan.gpu_params).buffer;
  const int grads_buf = b.take("grads", plan.gpu_params).buffer;
  const int m_buf = b.take("adam_m", plan.gpu_params).buffer;
  const int v_buf = b.take("adam_v", plan.gpu_params).buffer;
  const Params P = param_regions(plan, params_buf, L);
  const Params G = with_buffer(P, grads_buf);

  const Region state = b.take("state", kStateWords, DType::u32);
  plan.io["state"] = state;
  plan.io["params"] = {params_buf, 0, plan.gpu_params};
  plan.io["adam_m"] = {m_buf, 0, plan.gpu_params};
  plan.io["adam_v"] = {v_buf, 0, plan.gpu_params};

  // ---- train and eval: a (B, T) batch ----
  const Region x_tokens = b.take("tokens", N, DType::u32), y_tokens = b.take("targets", N, DType::u32);
  plan.io["tokens"] = x_tokens;
  plan.io["targets"] = y_tokens;
  // per step from the host (the core's optim::Schedule and AdamW, exactly): lr, 1 - beta1^t, 1 - beta2^t
  const Region step_scalars = b.take("step.scalars", 3);
  plan.io["step.scalars"] = step_scalars;
  const Region losses = b.take("losses", N);
  // partial sums of the gradient norm: one workgroup per 64Ki gradients, at most 256
  const uint32_t G_parts = uint32_t(std::clamp<int64_t>(plan.gpu_params / 65536, 1, 256));
  const Region partials = b.take("grad_norm.partials", G_parts);

  // the forward pass is shared by train and eval (same regions)
  std::vector<Op> forward_ops;
  std::vector<Op>& train = plan.programs["train"];
  const bool rows = plan.fused_forward;
  ForwardActs fw;
  if (rows) {
    // the loss (and dlogits) in the last block_forward; eval's copy of it stops at the logits
    fw = forward_rows(b, forward_ops, P, mc, B, T, x_tokens, y_tokens, losses, 3);
    train = forward_ops;
    forward_ops.back().dims[6] = 1;
    forward_ops.back().args[4] = forward_ops.back().args[5] = kNone;
    forward_ops.back().label = forward_ops.back().label.substr(0, forward_ops.back().label.find(", softmax"));
  } else {
    ForwardSpec fs;
    fs.B = B, fs.T = T, fs.buffer_prefix = "acts.";
    fw = forward(b, forward_ops, P, mc, fs, x_tokens);
    train = forward_ops;
    b.op(train, "crossentropy", "softmax + cross-entropy, forward and backward", {fw.logits, losses, y_tokens},
         {uint32_t(N), uint32_t(V), 1}, {1.0f / float(N)});
  }
  backward(b, train, P, G, mc, B, T, fw, x_tokens);
  b.op(train, "grad_norm_partials", "gradient norm: partial sums", {partials, {grads_buf, 0, plan.gpu_params}},
       {uint32_t(plan.gpu_params), G_parts});
  b.op(train, "optimizer_scalars", "mean loss, gradient norm, clip scale; this step's learning rate and bias corrections",
       {state, partials, step_scalars, losses}, {G_parts, uint32_t(N)}, {tc.grad_clip, train::kDivergedLoss});
  b.op(train, "adamw", "AdamW",
       {{params_buf, 0, plan.gpu_params}, {m_buf, 0, plan.gpu_params}, {v_buf, 0, plan.gpu_params},
        {grads_buf, 0, plan.gpu_params}, state},
       {uint32_t(plan.gpu_params), uint32_t(plan.decay_params)}, {tc.beta1, tc.beta2, tc.eps, tc.weight_decay});

  // eval: the same forward over the training arena, loss only
  std::vector<Op>& eval = plan.programs["eval"];
  eval = forward_ops;
  b.op(eval, "crossentropy", "softmax + cross-entropy", {fw.logits, losses, y_tokens}, {uint32_t(N), uint32_t(V), 0},
       {1.0f / float(N)});
  b.op(eval, "mean_loss", "mean loss", {state, losses}, {uint32_t(N), uint32_t(kEvalLoss)});

  // ---- inspect: one sequence of up to T bytes (padded to T; causal, so padding changes nothing) ----
  std::vector<Op>& inspect = plan.programs["inspect"];
  const Region ins_tokens = b.take("inspect.tokens", T, DType::u32);
  plan.io["inspect.tokens"] = ins_tokens;
  ForwardSpec is;
  is.B = 1, is.T = T, is.buffer_prefix = "inspect.", is.keep = false;
  for (int l = 0; l < L; l++) {
    is.att_probs.push_back(b.take("inspect.attention." + std::to_string(l), int64_t(NH) * T * T));  // (NH, T, T)
    plan.io["inspect.attention." + std::to_string(l)] = is.att_probs.back();
  }
  const ForwardActs fi = forward(b, inspect, P, mc, is, ins_tokens);
  const Region ins_probs = b.take("inspect.probs", int64_t(T) * V);
  b.op(inspect, "softmax", "next-byte probabilities", {ins_probs, fi.logits}, {uint32_t(T), uint32_t(V)});
  plan.io["inspect.probs"] = ins_probs;

  // ---- decoding with a KV cache ----
  const Region window = b.take("decode.window", T, DType::u32);  // (T) the bytes in the window
  const Region out_log = b.take("decode.out", int64_t(kMaxChunk) * kSampleRecordWords, DType::u32);
  const Region draws = b.take("decode.draws", kMaxChunk);  // uniform numbers, one per sampled byte
  const Region options = b.take("decode.options", 4);      // temperature, top_k, top_p, window_keep
  const Region logits = b.take("decode.logits", V);        // (V) after the last position
  plan.io["decode.window"] = window;
  plan.io["decode.out"] = out_log;
  plan.io["decode.draws"] = draws;
  plan.io["decode.options"] = options;
  plan.io["decode.logits"] = logits;
  std::vector<Region> cache;  // per layer (T, 3C): the qkv rows of every position; k and v are the cache
  for (int l = 0; l < L; l++) cache.push_back(b.take("decode.cache." + std::to_string(l), int64_t(T) * 3 * C));

  // prefill: the whole window (gen_len bytes, padded to T) through the model; logits of row gen_len - 1
  std::vector<Op>& prefill = plan.programs["prefill"];
  ForwardSpec ps;
  ps.B = 1, ps.T = T, ps.buffer_prefix = "prefill.", ps.keep = false, ps.qkv_dest = cache, ps.logits = false;
  const ForwardActs fp = forward(b, prefill, P, mc, ps, window);
  b.op(prefill, "matvec", "lm_head at the last position", {logits, fp.lnf, P.lm_w, P.lm_b, state},
       {uint32_t(C), uint32_t(V), 1, 0, 0, 0});

  // decode: one more byte at position gen_len - 1 (already in the window)
  std::vector<Op>& decode = plan.programs["decode"];
  const Region x1 = b.take("decode.x", C);
  const Region y1 = b.take("decode.attn", C), fc1 = b.take("decode.fc", 4 * C);
  const Region scores = b.take("decode.attn.scores", int64_t(NH) * T);
  const uint32_t uC = uint32_t(C);
  if (plan.fused_decode) {
    // a small model: each block in one dispatch of one workgroup (decode_layer), the embedding in the first
    const Region all_params{params_buf, 0, plan.gpu_params};
    for (int l = 0; l < L; l++) {
      const Layer& w = P.h[size_t(l)];
      b.at("h." + std::to_string(l) + ".");
      auto off = [](const Region& r) { return uint32_t(r.offset); };
      b.op(decode, "decode_layer", l == 0 ? "wte[byte] + wpe[position], then the block -> KV cache" : "the block -> KV cache",
           {x1, cache[size_t(l)], state, all_params, scores, window},
           {uC, uint32_t(T), uint32_t(NH), l == 0 ? 1u : 0u, off(P.wte), off(P.wpe), off(w.ln1_w), off(w.ln1_b), off(w.qkv_w),
            off(w.qkv_b), off(w.proj_w), off(w.proj_b), off(w.ln2_w), off(w.ln2_b), off(w.fc_w), off(w.fc_b), off(w.fcproj_w),
            off(w.fcproj_b)},
           {kEps});
    }
  } else {
    // each LayerNorm is folded into the matvec after it (one row: every workgroup normalises it)
    b.op(decode, "embedding_decode", "wte[byte] + wpe[position]", {x1, window, state, P.wte, P.wpe}, {uC});
    for (int l = 0; l < L; l++) {
      const Layer& w = P.h[size_t(l)];
      b.at("h." + std::to_string(l) + ".");
      b.op(decode, "matvec", "ln_1 + attn.c_attn -> KV cache", {cache[size_t(l)], x1, w.qkv_w, w.qkv_b, state, w.ln1_w, w.ln1_b},
           {uC, 3 * uC, 0, 1, 0, 0}, {kEps});
      b.op(decode, "attention_decode", "attn over the cache", {y1, cache[size_t(l)], state, scores},
           {uint32_t(T), uC, uint32_t(NH)});
      b.op(decode, "matvec", "attn.c_proj + residual", {x1, y1, w.proj_w, w.proj_b, state}, {uC, uC, 0, 0, 1, 0});
      b.op(decode, "matvec", "ln_2 + mlp.c_fc + gelu", {fc1, x1, w.fc_w, w.fc_b, state, w.ln2_w, w.ln2_b},
           {uC, 4 * uC, 0, 0, 0, 1}, {kEps});
      b.op(decode, "matvec", "mlp.c_proj + residual", {x1, fc1, w.fcproj_w, w.fcproj_b, state}, {4 * uC, uC, 0, 0, 1, 0});
    }
  }
  b.at("");
  b.op(decode, "matvec", "ln_f + lm_head", {logits, x1, P.lm_w, P.lm_b, state, P.lnf_w, P.lnf_b}, {uC, uint32_t(V), 0, 0, 0, 0},
       {kEps});

  // sample: one byte from the logits; appends it to the window (or starts a new window of window_keep bytes)
  b.op(plan.programs["sample"], "sample", "sample a byte", {out_log, window, state, logits, draws, options},
       {uint32_t(T), uint32_t(V)});
  return plan;
}

// ---- the encoder-decoder (seq2seq.h) ----------------------------------------------------------
//
// The forward pass is model::Seq2Seq::forward_logits, op for op (post-norm: each LayerNorm runs on
// the residual sum that the GEMM before it wrote, matmul's residual epilogue); the backward pass is
// its autograd graph in reverse, with every parameter's gradient written (=) by exactly one op. The
// residual stream's gradient goes through a LayerNorm at every sublayer, so it ping-pongs between
// two regions: a LayerNorm's backward reads one and writes the other, and the linear layer whose
// input is that LayerNorm's output accumulates its input gradient onto it.

namespace {

struct EncW {
  Region qkv_w, out_w, ln1_w, ln1_b, fc1_w, fc1_b, fc2_w, fc2_b, ln2_w, ln2_b;
};
struct DecW {
  Region qkv_w, out_w, ln1_w, ln1_b, q_w, kv_w, cout_w, ln2_w, ln2_b, fc1_w, fc1_b, fc2_w, fc2_b, ln3_w, ln3_b;
};
struct S2SParams {
  Region src_emb, tgt_emb, lnf_w, lnf_b, proj_w, proj_b;
  std::vector<EncW> enc;
  std::vector<DecW> dec;
};

S2SParams s2s_param_regions(const Plan& plan, int buf, int Le, int Ld) {
  auto find = [&](const std::string& name) {
    for (const ParamSlot& p : plan.params)
      if (p.name == name) return Region{buf, p.gpu_offset, p.count};
    throw Error("internal: no parameter " + name);
  };
  S2SParams P;
  P.src_emb = find("src_embed.weight"), P.tgt_emb = find("tgt_embed.weight");
  for (int l = 0; l < Le; l++) {
    const std::string p = "encoder.layers." + std::to_string(l) + ".";
    P.enc.push_back({find(p + "self_attn.qkv.weight"), find(p + "self_attn.out_proj.weight"), find(p + "norm1.weight"),
                     find(p + "norm1.bias"), find(p + "linear1.weight"), find(p + "linear1.bias"),
                     find(p + "linear2.weight"), find(p + "linear2.bias"), find(p + "norm2.weight"), find(p + "norm2.bias")});
  }
  for (int l = 0; l < Ld; l++) {
    const std::string p = "decoder.layers." + std::to_string(l) + ".";
    P.dec.push_back({find(p + "self_attn.qkv.weight"), find(p + "self_attn.out_proj.weight"), find(p + "norm1.weight"),
                     find(p + "norm1.bias"), find(p + "cross_attn.q.weight"), find(p + "cross_attn.kv.weight"),
                     find(p + "cross_attn.out_proj.weight"), find(p + "norm2.weight"), find(p + "norm2.bias"),
                     find(p + "linear1.weight"), find(p + "linear1.bias"), find(p + "linear2.weight"),
                     find(p + "linear2.bias"), find(p + "norm3.weight"), find(p + "norm3.bias")});
  }
  P.lnf_w = find("decoder.norm.weight"), P.lnf_b = find("decoder.norm.bias");
  P.proj_w = find("proj.weight"), P.proj_b = find("proj.bias");
  return P;
}

// A post-norm LayerNorm: its input (the residual sum), output and statistics.
struct LN {
  Region in, out, mean, rstd;
};
struct EncActs {
  Region x, qkv, att, lse;  // x (Ns, C) the layer's input
  LN ln1, ln2;              // ln1.out = y; ln2.out = the layer's output
  Region ff;                // (Ns, F) after the ReLU
};
struct DecActs {
  Region z, qkv, att, lse;  // z (Nt, C) the layer's input
  LN ln1, ln2, ln3;         // y, u, the layer's output
  Region q, kv, cross, cross_lse;
  Region ff;
};
struct S2SForward {
  std::vector<EncActs> enc;
  Region enc_out;
  std::vector<DecActs> dec;
  LN lnf;
  Region logits;
};

// The dims of attention_masked_forward / _probs, and _backward's extra ones.
std::vector<uint32_t> attn_dims(uint32_t B, uint32_t Tq, uint32_t Tk, uint32_t C, uint32_t NH, uint32_t q_row, uint32_t q_off,
                                uint32_t kv_row, uint32_t k_off, uint32_t v_off, bool causal, uint32_t pad) {
  return {B, Tq, Tk, C, NH, q_row, q_off, kv_row, k_off, v_off, causal ? 1u : 0u, pad};
}

class S2SBuilder {
 public:
  S2SBuilder(Builder& b, const Config& c, const S2SParams& P, int B, int S, int T, std::string prefix)
      : b_(b), P_(P), B_(uint32_t(B)), S_(uint32_t(S)), T_(uint32_t(T)), C_(uint32_t(c.n_embd)), NH_(uint32_t(c.n_head)),
        F_(uint32_t(c.d_ff)), V_(uint32_t(model_vocab(c))), pad_(0), pre_(std::move(prefix)) {}
  void set_pad(uint32_t pad) { pad_ = pad; }

  Region take(const std::string& name, int64_t n) { return b_.take(pre_ + name, n); }
  LN ln_regions(const std::string& name, Region in, int64_t N) {
    LN ln;
    ln.in = in;
    ln.out = take(name, N * C_);
    ln.mean = take(name + ".mean", N);
    ln.rstd = take(name + ".rstd", N);
    return ln;
  }
  void ln_forward(std::vector<Op>& prog, const char* what, const LN& ln, Region w, Region bias, uint32_t N) {
    b_.op(prog, "layernorm_forward", what, {ln.out, ln.mean, ln.rstd, ln.in, w, bias}, {N, C_}, {kEps});
  }
  // out (N, n_out) = x (N, n_in) @ w [+ bias] [+ res] [then ReLU]
  void linear(std::vector<Op>& prog, const char* what, Region out, Region x, Region w, Region bias, Region res, uint32_t N,
              uint32_t n_out, uint32_t n_in, bool relu = false) {
    b_.op(prog, "matmul", what, {out, x, w, bias, res, kNone, kNone}, {N, n_out, n_in, 0, 0, 0, relu ? 3u : 0u});
  }

  // LN(self_attn(x, mask) + x) over B sequences of L rows (the mask: the sequences' tokens, padding
  // masked; causal for the decoder): the first sub-layer of an encoder and of a decoder layer.
  // With probs, also the attention weights (B, NH, L, L).
  void self_attention(std::vector<Op>& prog, const std::string& n, Region x, Region mask, uint32_t L, bool causal,
                      const char* what, Region qkv_w, Region out_w, Region ln_w, Region ln_b, Region probs, Region& qkv,
                      Region& att, Region& lse, LN& ln) {
    const uint32_t C = C_, N = B_ * L;
    qkv = take(n + "qkv", int64_t(N) * 3 * C);
    att = take(n + "attn", int64_t(N) * C);
    lse = take(n + "attn.lse", int64_t(B_) * NH_ * L);
    linear(prog, "self_attn.qkv forward", qkv, x, qkv_w, kNone, kNone, N, 3 * C, C);
    b_.op(prog, "attention_masked_forward", what, {att, lse, qkv, qkv, mask}, attn(B_, L, L, 3 * C, 0, 3 * C, C, 2 * C, causal));
    if (probs.defined())
      b_.op(prog, "attention_masked_probs", "self_attn weights", {probs, qkv, qkv, lse, mask},
            attn(B_, L, L, 3 * C, 0, 3 * C, C, 2 * C, causal));
    ln = ln_regions(n + "norm1", take(n + "norm1.in", int64_t(N) * C), N);
    linear(prog, "self_attn.out_proj forward + residual", ln.in, att, out_w, kNone, x, N, C, C);
    ln_forward(prog, "norm1", ln, ln_w, ln_b, N);
  }

  // LN(FF(y) + y) over N rows, FF = linear2(ReLU(linear1(y))): the last sub-layer of both.
  void feed_forward(std::vector<Op>& prog, const std::string& n, const std::string& norm, Region y, uint32_t N, Region fc1_w,
                    Region fc1_b, Region fc2_w, Region fc2_b, Region ln_w, Region ln_b, Region& ff, LN& ln) {
    const uint32_t C = C_, F = F_;
    ff = take(n + "ff", int64_t(N) * F);
    linear(prog, "linear1 forward + relu", ff, y, fc1_w, fc1_b, kNone, N, F, C, true);
    ln = ln_regions(n + norm, take(n + norm + ".in", int64_t(N) * C), N);
    linear(prog, "linear2 forward + residual", ln.in, ff, fc2_w, fc2_b, y, N, C, F);
    ln_forward(prog, norm.c_str(), ln, ln_w, ln_b, N);
  }

  S2SForward forward(std::vector<Op>& prog, Region src, Region tgt_in, Region pe, const std::vector<Region>* cross_probs) {
    S2SForward f;
    encode(prog, f, src, pe);
    decode(prog, f, src, tgt_in, pe, cross_probs);
    return f;
  }

  // the encoder: f.enc, f.enc_out
  void encode(std::vector<Op>& prog, S2SForward& f, Region src, Region pe, const std::vector<Region>* self_probs = nullptr) {
    const uint32_t B = B_, S = S_, C = C_;
    const uint32_t Ns = B * S;
    // encoder: x = src_embed[src] + PE[0:S]
    Region x = take("enc.x", int64_t(Ns) * C);
    b_.op(prog, "embedding_forward", "src_embed[src] + PE", {x, src, P_.src_emb, pe}, {Ns, S, C});
    for (size_t l = 0; l < P_.enc.size(); l++) {
      const EncW& w = P_.enc[l];
      const std::string n = "enc." + std::to_string(l) + ".";
      b_.at("encoder.layers." + std::to_string(l) + ".");
      EncActs a;
      a.x = x;
      // y = LN1(self_attn(x, src padding) + x)
      self_attention(prog, n, x, src, S, false, "self_attn (source padding masked)", w.qkv_w, w.out_w, w.ln1_w, w.ln1_b,
                     self_probs ? (*self_probs)[l] : kNone, a.qkv, a.att, a.lse, a.ln1);
      // x = LN2(FF(y) + y)
      feed_forward(prog, n, "norm2", a.ln1.out, Ns, w.fc1_w, w.fc1_b, w.fc2_w, w.fc2_b, w.ln2_w, w.ln2_b, a.ff, a.ln2);
      x = a.ln2.out;
      f.enc.push_back(a);
    }
    f.enc_out = x;
    b_.at("");
  }

  // the decoder over the encoder's output f.enc_out: f.dec, f.lnf, f.logits; with cross_probs
  // (per layer, (B, NH, T, S)) also the cross-attention weights
  void decode(std::vector<Op>& prog, S2SForward& f, Region src, Region tgt_in, Region pe,
              const std::vector<Region>* cross_probs, const std::vector<Region>* self_probs = nullptr) {
    const uint32_t B = B_, S = S_, T = T_, C = C_, NH = NH_, V = V_;
    const uint32_t Ns = B * S, Nt = B * T;
    // decoder: z = tgt_embed[tgt_in] + PE[0:T]
    Region z = take("dec.x", int64_t(Nt) * C);
    b_.op(prog, "embedding_forward", "tgt_embed[tgt_in] + PE", {z, tgt_in, P_.tgt_emb, pe}, {Nt, T, C});
    for (size_t l = 0; l < P_.dec.size(); l++) {
      const DecW& w = P_.dec[l];
      const std::string n = "dec." + std::to_string(l) + ".";
      b_.at("decoder.layers." + std::to_string(l) + ".");
      DecActs a;
      a.z = z;
      // y = LN1(self_attn(z, causal + target padding) + z)
      self_attention(prog, n, z, tgt_in, T, true, "self_attn (causal, target padding masked)", w.qkv_w, w.out_w, w.ln1_w,
                     w.ln1_b, self_probs ? (*self_probs)[l] : kNone, a.qkv, a.att, a.lse, a.ln1);
      // u = LN2(cross_attn(q = y, k = v = enc, source padding) + y)
      a.q = take(n + "cross.q", int64_t(Nt) * C);
      a.kv = take(n + "cross.kv", int64_t(Ns) * 2 * C);
      a.cross = take(n + "cross", int64_t(Nt) * C);
      a.cross_lse = take(n + "cross.lse", int64_t(B) * NH * T);
      linear(prog, "cross_attn.q forward", a.q, a.ln1.out, w.q_w, kNone, kNone, Nt, C, C);
      linear(prog, "cross_attn.kv forward", a.kv, f.enc_out, w.kv_w, kNone, kNone, Ns, 2 * C, C);
      b_.op(prog, "attention_masked_forward", "cross_attn (source padding masked)", {a.cross, a.cross_lse, a.q, a.kv, src},
            attn(B, T, S, C, 0, 2 * C, 0, C, false));
      if (cross_probs)
        b_.op(prog, "attention_masked_probs", "cross_attn weights", {(*cross_probs)[l], a.q, a.kv, a.cross_lse, src},
              attn(B, T, S, C, 0, 2 * C, 0, C, false));
      a.ln2 = ln_regions(n + "norm2", take(n + "norm2.in", int64_t(Nt) * C), Nt);
      linear(prog, "cross_attn.out_proj forward + residual", a.ln2.in, a.cross, w.cout_w, kNone, a.ln1.out, Nt, C, C);
      ln_forward(prog, "norm2", a.ln2, w.ln2_w, w.ln2_b, Nt);
      // z = LN3(FF(u) + u)
      feed_forward(prog, n, "norm3", a.ln2.out, Nt, w.fc1_w, w.fc1_b, w.fc2_w, w.fc2_b, w.ln3_w, w.ln3_b, a.ff, a.ln3);
      z = a.ln3.out;
      f.dec.push_back(a);
    }
    b_.at("");
    f.lnf = ln_regions("dec.norm", z, Nt);
    ln_forward(prog, "decoder.norm", f.lnf, P_.lnf_w, P_.lnf_b, Nt);
    f.logits = take("logits", int64_t(Nt) * V);
    linear(prog, "proj forward", f.logits, f.lnf.out, P_.proj_w, P_.proj_b, kNone, Nt, V, C);
  }

  // The cached decoder (translation: greedy, sampled, beam), its start: the keys and values of the cross-attention (per layer
  // (S, 2C)) from the encoder's output f.enc_out (B = 1), once per source.
  std::vector<Region> cross_kv(std::vector<Op>& prog, const S2SForward& f) {
    std::vector<Region> kv;
    for (size_t l = 0; l < P_.dec.size(); l++) {
      b_.at("decoder.layers." + std::to_string(l) + ".");
      kv.push_back(take("dec." + std::to_string(l) + ".cross.kv", int64_t(S_) * 2 * C_));
      linear(prog, "cross_attn.kv forward", kv.back(), f.enc_out, P_.dec[l].kv_w, kNone, kNone, S_, 2 * C_, C_);
    }
    b_.at("");
    return kv;
  }

  // The cached decoder, one step: the decoder over R rows at one position p =
  // state[gen_len] - 1 (every row of a beam is as long as the others). tokens (R): each row's newest
  // token; pe_row (C): PE[p]; slots (R, T): where each row's ancestors sit in the cache (see
  // attention_beam); src (S): the source, for its padding. Returns the logits (R, V). The same
  // arithmetic as decode() for a row's last position, with the self-attention's keys and values of the
  // earlier positions kept from earlier steps instead of computed again. cross_q_lse gets each layer's
  // cross-attention queries and lse (for its weights: translate.beam.pick).
  Region beam_step(std::vector<Op>& prog, const std::vector<Region>& cross_kv, Region src, Region tokens, Region pe_row,
                   Region slots, Region state, uint32_t R, std::vector<std::pair<Region, Region>>* cross_q_lse = nullptr) {
    const uint32_t C = C_, NH = NH_, V = V_, T = T_;
    Region x = take("dec.x", int64_t(R) * C);  // (R, C)
    b_.op(prog, "embedding_forward", "tgt_embed[token] + PE[p]", {x, tokens, P_.tgt_emb, pe_row}, {R, 1, C});
    const Region scores = take("scores", int64_t(R) * NH * T);  // (R, NH, T)
    for (size_t l = 0; l < P_.dec.size(); l++) {
      const DecW& w = P_.dec[l];
      const std::string n = "dec." + std::to_string(l) + ".";
      b_.at("decoder.layers." + std::to_string(l) + ".");
      // y = LN1(self_attn(x over the cache) + x)
      const Region qkv = take(n + "qkv", int64_t(R) * 3 * C), att = take(n + "attn", int64_t(R) * C);
      const Region cache = take(n + "cache", int64_t(T) * R * 2 * C);  // (T, R, 2C): k, v
      linear(prog, "self_attn.qkv forward", qkv, x, w.qkv_w, kNone, kNone, R, 3 * C, C);
      b_.op(prog, "attention_beam", "self_attn over the KV cache", {att, cache, scores, qkv, slots, state}, {R, T, C, NH});
      LN ln1 = ln_regions(n + "norm1", take(n + "norm1.in", int64_t(R) * C), R);
      linear(prog, "self_attn.out_proj forward + residual", ln1.in, att, w.out_w, kNone, x, R, C, C);
      ln_forward(prog, "norm1", ln1, w.ln1_w, w.ln1_b, R);
      // u = LN2(cross_attn(q = y, k = v = enc, source padding) + y): the R queries share one source
      const Region q = take(n + "cross.q", int64_t(R) * C), cross = take(n + "cross", int64_t(R) * C);
      const Region lse = take(n + "cross.lse", int64_t(NH) * R);
      linear(prog, "cross_attn.q forward", q, ln1.out, w.q_w, kNone, kNone, R, C, C);
      b_.op(prog, "attention_masked_forward", "cross_attn (source padding masked)", {cross, lse, q, cross_kv[l], src},
            attn(1, R, S_, C, 0, 2 * C, 0, C, false));
      if (cross_q_lse) cross_q_lse->push_back({q, lse});
      LN ln2 = ln_regions(n + "norm2", take(n + "norm2.in", int64_t(R) * C), R);
      linear(prog, "cross_attn.out_proj forward + residual", ln2.in, cross, w.cout_w, kNone, ln1.out, R, C, C);
      ln_forward(prog, "norm2", ln2, w.ln2_w, w.ln2_b, R);
      // x = LN3(FF(u) + u)
      Region ff;
      LN ln3;
      feed_forward(prog, n, "norm3", ln2.out, R, w.fc1_w, w.fc1_b, w.fc2_w, w.fc2_b, w.ln3_w, w.ln3_b, ff, ln3);
      x = ln3.out;
    }
    b_.at("");
    LN lnf = ln_regions("dec.norm", x, R);
    ln_forward(prog, "decoder.norm", lnf, P_.lnf_w, P_.lnf_b, R);
    const Region logits = take("logits", int64_t(R) * V);  // (R, V)
    linear(prog, "proj forward", logits, lnf.out, P_.proj_w, P_.proj_b, kNone, R, V, C);
    return logits;
  }

  // The cached step's cross-attention weights of layer l, probs (NH, R, S), from the queries, keys and
  // values and lse the step used (beam_step's cross_q_lse, cross_kv).
  void beam_cross_probs(std::vector<Op>& prog, size_t l, Region probs, Region q, Region kv, Region lse, Region src,
                        uint32_t R) {
    b_.at("decoder.layers." + std::to_string(l) + ".");
    b_.op(prog, "attention_masked_probs", "cross_attn weights", {probs, q, kv, lse, src}, attn(1, R, S_, C_, 0, 2 * C_, 0, C_, false));
    b_.at("");
  }

  void backward(std::vector<Op>& prog, const S2SParams& G, const S2SForward& f, Region src, Region tgt_in) {
    const uint32_t B = B_, S = S_, T = T_, C = C_, NH = NH_, F = F_, V = V_;
    const uint32_t Ns = B * S, Nt = B * T;
    (void)NH;
    // the residual stream's gradient, two regions per side (see the top of this section)
    const Region tA = take("grad.dec.a", int64_t(Nt) * C), tB = take("grad.dec.b", int64_t(Nt) * C);
    const Region sA = take("grad.enc.a", int64_t(Ns) * C), sB = take("grad.enc.b", int64_t(Ns) * C);
    const Region dqkv_t = take("grad.dec.qkv", int64_t(Nt) * 3 * C), datt_t = take("grad.dec.attn", int64_t(Nt) * C);
    const Region dq = take("grad.dec.cross.q", int64_t(Nt) * C), dkv = take("grad.dec.cross.kv", int64_t(Ns) * 2 * C);
    const Region dff_t = take("grad.dec.ff", int64_t(Nt) * F);
    const Region denc = take("grad.enc.out", int64_t(Ns) * C);
    const Region dqkv_s = take("grad.enc.qkv", int64_t(Ns) * 3 * C), datt_s = take("grad.enc.attn", int64_t(Ns) * C);
    const Region dff_s = take("grad.enc.ff", int64_t(Ns) * F);
    const Region dpe_t = take("grad.pe.tgt", int64_t(T) * C), dpe_s = take("grad.pe.src", int64_t(S) * C);  // unused
    Region cur = tA;
    auto other = [](Region c, Region a, Region b) { return c.buffer == a.buffer ? b : a; };
    // out = LN(in): the residual gradient moves to the other region
    auto ln_back = [&](const char* what, const LN& ln, Region w, Region gw, Region gb, uint32_t N, Region a, Region b) {
      const Region next = other(cur, a, b);
      b_.op(prog, "layernorm_backward_all", what, {next, cur, ln.in, w, ln.mean, ln.rstd, gw, gb}, {N, C, 0});
      cur = next;
    };
    // y = x @ w [+ bias]: dx (+)= dy @ w^T, dw = x^T dy, db
    auto lin_back = [&](const char* what, Region dx, Region dy, Region w, Region aux, Region gw, Region x, Region gb,
                        uint32_t N, uint32_t n_in, uint32_t n_out, uint32_t epilogue, bool accumulate) {
      b_.op(prog, "linear_backward", what, {dx, dy, w, aux, gw, x, gb},
            {N, n_in, n_out, epilogue, gb.defined() ? 1u : 0u, accumulate ? 1u : 0u});
    };
    // feed_forward's backward from the gradient at LN's input (cur): linear2 into dff through the
    // ReLU, then linear1 adds its input's gradient to cur (the residual's); y: the sub-layer's input
    auto feed_forward_back = [&](const auto& w, const auto& g, const auto& a, Region y, Region dff, uint32_t N) {
      lin_back("linear2 backward: dinp + relu backward; dweight, dbias", dff, cur, w.fc2_w, a.ff, g.fc2_w, a.ff, g.fc2_b,
               N, F, C, 3, false);
      lin_back("linear1 backward: dinp += (residual); dweight, dbias", cur, dff, w.fc1_w, kNone, g.fc1_w, y, g.fc1_b, N, C,
               F, 0, true);
    };
    // self_attention's backward likewise: out_proj into datt, the attention into dqkv, and qkv adds
    // its input's gradient to cur; x: the sub-layer's input, L its rows per sequence, mask its tokens
    auto self_attention_back = [&](const auto& w, const auto& g, const auto& a, Region x, Region datt, Region dqkv,
                                   uint32_t L, bool causal, Region mask) {
      const uint32_t N = B * L;
      lin_back("self_attn.out_proj backward", datt, cur, w.out_w, kNone, g.out_w, a.att, kNone, N, C, C, 0, false);
      std::vector<uint32_t> d = attn(B, L, L, 3 * C, 0, 3 * C, C, 2 * C, causal);
      d.insert(d.end(), {3 * C, 0, 3 * C, C, 2 * C, 0});
      b_.op(prog, "attention_masked_backward", "self_attn backward: dq; dk, dv",
            {kNone, dqkv, datt, a.att, a.qkv, a.qkv, a.lse, mask}, std::move(d));
      lin_back("self_attn.qkv backward: dinp += (residual); dweight", cur, dqkv, w.qkv_w, kNone, g.qkv_w, x, kNone, N, C,
               3 * C, 0, true);
    };
    // logits = LN_f(z) @ proj_w + proj_b
    lin_back("proj backward: dinp; dweight, dbias", tB, f.logits, P_.proj_w, kNone, G.proj_w, f.lnf.out, G.proj_b, Nt, C,
             V, 0, false);
    cur = tB;
    ln_back("decoder.norm backward", f.lnf, P_.lnf_w, G.lnf_w, G.lnf_b, Nt, tA, tB);
    for (size_t li = P_.dec.size(); li-- > 0;) {
      const DecW& w = P_.dec[li];
      const DecW& g = G.dec[li];
      const DecActs& a = f.dec[li];
      b_.at("decoder.layers." + std::to_string(li) + ".");
      ln_back("norm3 backward", a.ln3, w.ln3_w, g.ln3_w, g.ln3_b, Nt, tA, tB);
      feed_forward_back(w, g, a, a.ln2.out, dff_t, Nt);
      ln_back("norm2 backward", a.ln2, w.ln2_w, g.ln2_w, g.ln2_b, Nt, tA, tB);
      lin_back("cross_attn.out_proj backward", datt_t, cur, w.cout_w, kNone, g.cout_w, a.cross, kNone, Nt, C, C, 0, false);
      std::vector<uint32_t> d = attn(B, T, S, C, 0, 2 * C, 0, C, false);
      d.insert(d.end(), {C, 0, 2 * C, 0, C, 1});
      b_.op(prog, "attention_masked_backward", "cross_attn backward: dq; dk, dv", {dq, dkv, datt_t, a.cross, a.q, a.kv,
                                                                                a.cross_lse, src}, std::move(d));
      // every decoder layer reads the encoder's output: its gradient sums over them
      lin_back("cross_attn.kv backward: d(encoder output) (+)=; dweight", denc, dkv, w.kv_w, kNone, g.kv_w, f.enc_out,
               kNone, Ns, C, 2 * C, 0, li + 1 != P_.dec.size());
      lin_back("cross_attn.q backward: dinp += (residual); dweight", cur, dq, w.q_w, kNone, g.q_w, a.ln1.out, kNone, Nt,
               C, C, 0, true);
      ln_back("norm1 backward", a.ln1, w.ln1_w, g.ln1_w, g.ln1_b, Nt, tA, tB);
      self_attention_back(w, g, a, a.z, datt_t, dqkv_t, T, true, tgt_in);
    }
    b_.at("");
    b_.op(prog, "embedding_backward", "tgt_embed backward", {G.tgt_emb, dpe_t, cur, tgt_in}, {B, T, C, V});
    cur = denc;
    for (size_t li = P_.enc.size(); li-- > 0;) {
      const EncW& w = P_.enc[li];
      const EncW& g = G.enc[li];
      const EncActs& a = f.enc[li];
      b_.at("encoder.layers." + std::to_string(li) + ".");
      ln_back("norm2 backward", a.ln2, w.ln2_w, g.ln2_w, g.ln2_b, Ns, sA, sB);
      feed_forward_back(w, g, a, a.ln1.out, dff_s, Ns);
      ln_back("norm1 backward", a.ln1, w.ln1_w, g.ln1_w, g.ln1_b, Ns, sA, sB);
      self_attention_back(w, g, a, a.x, datt_s, dqkv_s, S, false, src);
    }
    b_.at("");
    b_.op(prog, "embedding_backward", "src_embed backward", {G.src_emb, dpe_s, cur, src}, {B, S, C, V});
  }

 private:
  std::vector<uint32_t> attn(uint32_t B, uint32_t Tq, uint32_t Tk, uint32_t q_row, uint32_t q_off, uint32_t kv_row,
                             uint32_t k_off, uint32_t v_off, bool causal) const {
    return attn_dims(B, Tq, Tk, C_, NH_, q_row, q_off, kv_row, k_off, v_off, causal, pad_);
  }
  Builder& b_;
  const S2SParams& P_;
  uint32_t B_, S_, T_, C_, NH_, F_, V_, pad_;
  std::string pre_;
};

S2SParams with_buffer(S2SParams p, int buf) {
  auto set = [&](Region& r) { r.buffer = buf; };
  for (Region* r : {&p.src_emb, &p.tgt_emb, &p.lnf_w, &p.lnf_b, &p.proj_w, &p.proj_b}) set(*r);
  for (EncW& e : p.enc)
    for (Region* r : {&e.qkv_w, &e.out_w, &e.ln1_w, &e.ln1_b, &e.fc1_w, &e.fc1_b, &e.fc2_w, &e.fc2_b, &e.ln2_w, &e.ln2_b})
      set(*r);
  for (DecW& d : p.dec)
    for (Region* r : {&d.qkv_w, &d.out_w, &d.ln1_w, &d.ln1_b, &d.q_w, &d.kv_w, &d.cout_w, &d.ln2_w, &d.ln2_b, &d.fc1_w,
                      &d.fc1_b, &d.fc2_w, &d.fc2_b, &d.ln3_w, &d.ln3_b})
      set(*r);
  return p;
}

}  // namespace

std::pair<int, int> pair_lengths(int max_source, int max_target, int block_size) {
  auto up = [&](int n) { return std::min(block_size, std::max(1, (n + kPairLenStep - 1) / kPairLenStep * kPairLenStep)); };
  return {up(max_source), up(max_target + 1)};
}

Plan make_seq2seq_plan(const Config& mc, const std::vector<model::ParamInfo>& table, int src_len, int tgt_len) {
  validate_config(mc);
  if (mc.model != ModelKind::seq2seq) throw Error("gpu plan: make_seq2seq_plan needs the seq2seq model kind");
  const model::Seq2SeqDims dims = seq2seq_dims(mc);
  if (table.empty() || table.front().name != "src_embed.weight") throw Error("gpu plan: the parameter table is not Seq2Seq's");
  const int S = src_len > 0 ? src_len : dims.block_size, T = tgt_len > 0 ? tgt_len : dims.block_size;
  if (S > dims.block_size || T > dims.block_size)
    throw Error("gpu plan: batches of " + std::to_string(S) + " and " + std::to_string(T) + " tokens are longer than block_size " +
                std::to_string(dims.block_size));
  if (int64_t(dims.vocab_size) + dims.block_size > 65535)
    throw Error("gpu plan: vocab_size " + std::to_string(dims.vocab_size) + " plus block_size " +
                std::to_string(dims.block_size) + " is above the 65535 rows a WebGPU grid has: this model trains on the CPU");
  Plan plan;
  plan.kind = "seq2seq";
  plan.config = mc;
  plan.config.vocab_size = dims.vocab_size;
  plan.batch_size = mc.batch_size;
  plan.head_size = mc.n_embd / mc.n_head;
  plan.src_len = S, plan.tgt_len = T;
  plan.batch_inputs = {"src", "tgt_in", "targets"};
  Builder b(plan);
  lay_out_params(plan, table);
  plan.num_params = dims.num_parameters();
  if (table.back().offset + table.back().shape.numel() != plan.num_params)
    throw Error("gpu plan: the parameter table does not match the model config");
  const int params_buf = b.take("params", plan.gpu_params).buffer;
  const int grads_buf = b.take("grads", plan.gpu_params).buffer;
  const int m_buf = b.take("adam_m", plan.gpu_params).buffer;
  const int v_buf = b.take("adam_v", plan.gpu_params).buffer;
  const S2SParams P = s2s_param_regions(plan, params_buf, dims.n_enc_layer, dims.n_dec_layer);
  const S2SParams G = with_buffer(P, grads_buf);
  const Region state = b.take("state", kStateWords, DType::u32);
  plan.io["state"] = state;
  plan.io["params"] = {params_buf, 0, plan.gpu_params};
  plan.io["adam_m"] = {m_buf, 0, plan.gpu_params};
  plan.io["adam_v"] = {v_buf, 0, plan.gpu_params};

  // the sinusoidal table (block_size, C): the core's numbers, written once by the host
  const int C = dims.n_embd, Tmax = dims.block_size, B = mc.batch_size;
  const Region pe = b.take("pe", int64_t(Tmax) * C);
  plan.io["pe"] = pe;
  std::vector<float>& table_pe = plan.constants["pe"];
  table_pe.resize(size_t(Tmax) * C);
  model::sinusoidal_encoding(table_pe.data(), Tmax, C);

  const int64_t Ns = int64_t(B) * S, Nt = int64_t(B) * T;
  const Region src = b.take("src", Ns, DType::u32), tgt_in = b.take("tgt_in", Nt, DType::u32);
  const Region targets = b.take("targets", Nt, DType::u32);
  plan.io["src"] = src, plan.io["tgt_in"] = tgt_in, plan.io["targets"] = targets;
  const Region step_scalars = b.take("step.scalars", 3);
  plan.io["step.scalars"] = step_scalars;
  const Region losses = b.take("losses", Nt);
  const uint32_t G_parts = uint32_t(std::clamp<int64_t>(plan.gpu_params / 65536, 1, 256));
  const Region partials = b.take("grad_norm.partials", G_parts);

  S2SBuilder sb(b, mc, P, B, S, T, "acts.");
  sb.set_pad(uint32_t(dims.tokens().pad()));
  std::vector<Op> forward_ops;
  const S2SForward fw = sb.forward(forward_ops, src, tgt_in, pe, nullptr);
  const uint32_t uNt = uint32_t(Nt), V = uint32_t(dims.vocab_size);
  std::vector<Op>& train = plan.programs["train"];
  train = forward_ops;
  b.op(train, "crossentropy_masked", "softmax + cross-entropy (padding targets ignored), forward and backward",
       {fw.logits, losses, targets}, {uNt, V, 1});
  sb.backward(train, G, fw, src, tgt_in);
  b.op(train, "grad_norm_partials", "gradient norm: partial sums", {partials, {grads_buf, 0, plan.gpu_params}},
       {uint32_t(plan.gpu_params), G_parts});
  b.op(train, "optimizer_scalars", "mean loss, gradient norm, clip scale; this step's learning rate and bias corrections",
       {state, partials, step_scalars, losses}, {G_parts, uNt}, {mc.grad_clip, train::kDivergedLoss});
  b.op(train, "adamw", "AdamW",
       {{params_buf, 0, plan.gpu_params}, {m_buf, 0, plan.gpu_params}, {v_buf, 0, plan.gpu_params},
        {grads_buf, 0, plan.gpu_params}, state},
       {uint32_t(plan.gpu_params), uint32_t(plan.decay_params)}, {mc.beta1, mc.beta2, mc.eps, mc.weight_decay});
  std::vector<Op>& eval = plan.programs["eval"];
  eval = forward_ops;
  b.op(eval, "crossentropy_masked", "softmax + cross-entropy (padding targets ignored)", {fw.logits, losses, targets},
       {uNt, V, 0});
  b.op(eval, "mean_loss", "mean loss", {state, losses}, {uNt, uint32_t(kEvalLoss)});

  // ---- greedy translation of one source (padded to block_size: its padding is masked) ----
  // translate.encode once, then translate.step per output token: the decoder over the tokens so far
  // (state[gen_len] of them in translate.tgt_in, BOS first; the rest PAD, hidden by the causal mask),
  // the cross-attention weights, and greedy_pick, which appends the most likely allowed token.
  const Region tr_src = b.take("translate.src", Tmax, DType::u32), tr_tgt = b.take("translate.tgt_in", Tmax, DType::u32);
  const Region tr_out = b.take("translate.out", 2 * int64_t(Tmax), DType::u32);  // (token, probability) per step
  plan.io["translate.src"] = tr_src, plan.io["translate.tgt_in"] = tr_tgt, plan.io["translate.out"] = tr_out;
  std::vector<Region> cross;  // per decoder layer (NH, T, S)
  for (int l = 0; l < dims.n_dec_layer; l++) {
    cross.push_back(b.take("translate.cross." + std::to_string(l), int64_t(mc.n_head) * Tmax * Tmax));
    plan.io["translate.cross." + std::to_string(l)] = cross.back();
  }
  S2SBuilder tb(b, mc, P, 1, Tmax, Tmax, "translate.");
  tb.set_pad(uint32_t(dims.tokens().pad()));
  S2SForward ft;
  tb.encode(plan.programs["translate.encode"], ft, tr_src, pe);
  std::vector<Op>& step = plan.programs["translate.step"];
  tb.decode(step, ft, tr_src, tr_tgt, pe, &cross);
  const data::PairTokens ids = dims.tokens();
  b.op(step, "greedy_pick", "the most likely text token or EOS -> translate.tgt_in", {tr_out, tr_tgt, state, ft.logits},
       {uint32_t(Tmax), V, uint32_t(ids.text), uint32_t(ids.eos()), 0});
  // beam search (sample::BeamSearch keeps the search on the host): the decoder over one hypothesis's
  // tokens in translate.tgt_in, its logits (Tmax, V) in translate.logits; translate.step without the
  // cross-attention weights and the pick
  std::vector<Op>& beam = plan.programs["translate.logits"];
  for (const Op& op : step)
    if (op.kernel != "greedy_pick" && op.kernel != "attention_masked_probs") beam.push_back(op);
  plan.io["translate.logits"] = ft.logits;
  // translation with a KV cache (kBeamRows rows, one position per step; see attention_beam):
  // translate.beam.start encodes the source and computes the cross-attention's keys and values once;
  // translate.beam.step takes every row one token further. The host writes each row's newest token,
  // the cache slots of its ancestors and gen_len = p + 1, and copies PE[p] into translate.beam.pe.
  {
    const uint32_t R = kBeamRows;
    const Region bt = b.take("translate.beam.tokens", R, DType::u32), bpe = b.take("translate.beam.pe", C);
    const Region slots = b.take("translate.beam.slots", int64_t(R) * Tmax, DType::u32);  // (R, T)
    plan.io["translate.beam.tokens"] = bt, plan.io["translate.beam.pe"] = bpe, plan.io["translate.beam.slots"] = slots;
    S2SBuilder kb(b, mc, P, 1, Tmax, Tmax, "translate.beam.");
    kb.set_pad(uint32_t(dims.tokens().pad()));
    std::vector<Op>& start = plan.programs["translate.beam.start"];
    start = plan.programs["translate.encode"];
    const std::vector<Region> kv = kb.cross_kv(start, ft);
    std::vector<std::pair<Region, Region>> q_lse;
    const Region logits = kb.beam_step(plan.programs["translate.beam.step"], kv, tr_src, bt, bpe, slots, state, R, &q_lse);
    plan.io["translate.beam.logits"] = logits;
    // greedy translation on the same cache (one row; slots all 0): after each translate.beam.step,
    // translate.beam.pick writes row 0's cross-attention weights (per layer (NH, R, S): the host copies
    // row 0 into translate.cross.l's row p) and greedy_pick's token into translate.beam.tokens
    std::vector<Op>& pick = plan.programs["translate.beam.pick"];
    for (int l = 0; l < dims.n_dec_layer; l++) {
      const std::string name = "translate.beam.cross." + std::to_string(l);
      const Region probs = b.take(name, int64_t(mc.n_head) * R * Tmax);  // (NH, R, S)
      plan.io[name] = probs;
      kb.beam_cross_probs(pick, size_t(l), probs, q_lse[size_t(l)].first, kv[size_t(l)], q_lse[size_t(l)].second, tr_src, R);
    }
    b.op(pick, "greedy_pick", "the most likely text token or EOS (row 0) -> translate.beam.tokens",
         {tr_out, bt, state, logits}, {uint32_t(Tmax), V, uint32_t(ids.text), uint32_t(ids.eos()), 1});
  }

  // ---- inspect: a source and a target read by the model (teacher forcing), padded to block_size:
  // every attention map (encoder self, decoder self, cross) and the next-token probabilities
  const Region pair_src = b.take("pair.src", Tmax, DType::u32), pair_tgt = b.take("pair.tgt_in", Tmax, DType::u32);
  plan.io["pair.src"] = pair_src, plan.io["pair.tgt_in"] = pair_tgt;
  std::vector<Region> enc_maps, dec_maps, cross_maps;
  auto maps = [&](std::vector<Region>& out, const std::string& what, int layers) {
    for (int l = 0; l < layers; l++) {
      const std::string name = "pair." + what + "." + std::to_string(l);
      out.push_back(b.take(name, int64_t(mc.n_head) * Tmax * Tmax));  // (NH, T, T)
      plan.io[name] = out.back();
    }
  };
  maps(enc_maps, "encoder", dims.n_enc_layer), maps(dec_maps, "decoder", dims.n_dec_layer), maps(cross_maps, "cross", dims.n_dec_layer);
  S2SBuilder ib(b, mc, P, 1, Tmax, Tmax, "pair.");
  ib.set_pad(uint32_t(dims.tokens().pad()));
  S2SForward fi;
  std::vector<Op>& inspect = plan.programs["pair.inspect"];
  ib.encode(inspect, fi, pair_src, pe, &enc_maps);
  ib.decode(inspect, fi, pair_src, pair_tgt, pe, &cross_maps, &dec_maps);
  const Region pair_probs = b.take("pair.probs", int64_t(Tmax) * V);
  plan.io["pair.probs"] = pair_probs;
  b.op(inspect, "softmax", "next-token probabilities", {pair_probs, fi.logits}, {uint32_t(Tmax), V});
  return plan;
}

// ---- JSON ---------------------------------------------------------------------------------

namespace {

std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}

// A float as its IEEE-754 bit pattern: exact, and no float formatting code in the wasm module.
std::string float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return std::to_string(u);
}

std::string region_json(const Region& r) {
  if (!r.defined()) return "null";
  return "[" + std::to_string(r.buffer) + "," + std::to_string(r.offset) + "," + std::to_string(r.count) + "]";
}

}  // namespace

std::string to_json(const Plan& p) {
  // plain appends (no iostreams, no temporaries): this is part of the page's wasm payload
  std::string o;
  auto str = [&](const std::string& v) { o += quoted(v); };
  auto num = [&](int64_t v) { o += std::to_string(v); };
  auto key = [&](const char* k) {
    if (o.back() != '{' && o.back() != '[') o += ',';
    o += '"';
    o += k;
    o += "\":";
  };
  auto field = [&](const char* k, int64_t v) { key(k), num(v); };
  auto list = [&](const auto& items, auto&& item) {
    o += '[';
    for (size_t i = 0; i < items.size(); i++) {
      if (i) o += ',';
      item(items[i]);
    }
    o += ']';
  };
  o += '{';
  field("version", 1);
  key("kind"), str(p.kind);
  const bool s2s = p.kind == "seq2seq";
  key("model"), o += '{';
  field("n_layer", s2s ? p.config.n_dec_layer : p.config.n_layer), field("n_head", p.config.n_head);
  field("n_embd", p.config.n_embd);
  field("block_size", p.config.block_size), field("vocab_size", p.config.vocab_size);
  if (s2s) field("n_enc_layer", p.config.n_enc_layer), field("n_dec_layer", p.config.n_dec_layer), field("d_ff", p.config.d_ff);
  o += '}';
  if (s2s) field("srcLen", p.src_len), field("tgtLen", p.tgt_len);
  else field("fusedForward", p.fused_forward ? 1 : 0), field("fusedDecode", p.fused_decode ? 1 : 0);
  key("batchInputs"), list(p.batch_inputs, [&](const std::string& n) { str(n); });
  key("constants"), o += '{';
  for (const auto& [name, values] : p.constants) key(name.c_str()), list(values, [&](float f) { o += float_bits(f); });
  o += '}';
  field("batch", p.batch_size), field("headSize", p.head_size), field("align", kAlign);
  field("numParams", p.num_params), field("gpuParams", p.gpu_params), field("decayParams", p.decay_params);
  field("stateWords", kStateWords), field("sampleRecordWords", kSampleRecordWords), field("maxChunk", kMaxChunk);
  key("state"), o += '{';
#define TINYGPT_GPU_STATE_FIELD(slot, json_key, word) field(#json_key, slot);
  TINYGPT_GPU_STATE(TINYGPT_GPU_STATE_FIELD)
#undef TINYGPT_GPU_STATE_FIELD
  o += '}';
  key("kernels"), o += '{';
  for (const KernelInfo& k : kKernels) field(k.name, k.args);
  o += '}';
  key("buffers"), list(p.buffers, [&](const Buffer& b) {
    o += '{';
    key("name"), str(b.name);
    field("elements", b.elements);
    key("type"), o += b.dtype == DType::u32 ? "\"u32\"" : "\"f32\"";
    o += '}';
  });
  key("params"), list(p.params, [&](const ParamSlot& s) {
    o += '{';
    key("name"), str(s.name);
    field("cpu", s.cpu_offset), field("gpu", s.gpu_offset), field("count", s.count);
    key("decay"), o += s.decay ? "true" : "false";
    o += '}';
  });
  key("io"), o += '{';
  for (const auto& [name, r] : p.io) key(name.c_str()), o += region_json(r);
  o += '}';
  key("programs"), o += '{';
  for (const auto& [name, ops] : p.programs) {
    key(name.c_str()), list(ops, [&](const Op& op) {
      o += '{';
      key("kernel"), str(op.kernel);
      key("label"), str(op.label);
      key("args"), list(op.args, [&](const Region& r) { o += region_json(r); });
      key("dims"), list(op.dims, [&](uint32_t d) { num(d); });
      key("scalars"), list(op.scalars, [&](float f) { o += float_bits(f); });
      o += '}';
    });
  }
  o += "}}";
  return o;
}

}  // namespace tinygpt::gpu
