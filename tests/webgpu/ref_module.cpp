// ref_module.cpp — a test-only WebAssembly module: the core's scalar reference kernels
// (kernels::ref), its ops, optimizer, schedule and sampler, for tests/webgpu to compare the WGSL
// kernels against on the same inputs. Built with the wasm "tests" variant; never shipped.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "kernels.h"
#include "tinygpt/ops.h"
#include "tinygpt/optim.h"
#include "tinygpt/rng.h"
#include "tinygpt/sample.h"

using namespace tinygpt;
using emscripten::val;

namespace {

template <class T>
std::vector<T> in(const val& a) {
  std::vector<T> v(a["length"].as<size_t>());
  val(emscripten::typed_memory_view(v.size(), v.data())).call<void>("set", a);
  return v;
}
std::vector<float> f32(const val& a) { return in<float>(a); }
std::vector<int32_t> i32(const val& a) { return in<int32_t>(a); }
val out(const std::vector<float>& v) { return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data())); }

val sgemm(bool ta, bool tb, int M, int N, int K, const val& A, const val& B, const val& C, bool accumulate) {
  std::vector<float> a = f32(A), b = f32(B), c = f32(C);
  kernels::ref::sgemm(ta, tb, M, N, K, a.data(), ta ? M : K, b.data(), tb ? K : N, c.data(), N, accumulate);
  return out(c);
}

val layernorm_forward(const val& inp, const val& w, const val& b, int N, int C) {
  std::vector<float> x = f32(inp), ww = f32(w), bb = f32(b), o(x.size()), mean(static_cast<size_t>(N)), rstd(static_cast<size_t>(N));
  kernels::ref::layernorm_forward(o.data(), mean.data(), rstd.data(), x.data(), ww.data(), bb.data(), N, C, 1e-5f);
  val r = val::object();
  r.set("out", out(o));
  r.set("mean", out(mean));
  r.set("rstd", out(rstd));
  return r;
}

val layernorm_backward(const val& dout, const val& inp, const val& w, const val& mean, const val& rstd, int N, int C) {
  std::vector<float> dy = f32(dout), x = f32(inp), ww = f32(w), m = f32(mean), s = f32(rstd);
  std::vector<float> dx(x.size()), dw(static_cast<size_t>(C)), db(static_cast<size_t>(C));
  kernels::ref::layernorm_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(), ww.data(), m.data(), s.data(), N, C, true);
  val r = val::object();
  r.set("dinp", out(dx));
  r.set("dweight", out(dw));
  r.set("dbias", out(db));
  return r;
}

val matmul_backward_dbias(const val& dout, int N, int OC) {
  std::vector<float> dy = f32(dout), db(static_cast<size_t>(OC)), inp(static_cast<size_t>(N)), w(static_cast<size_t>(OC));
  kernels::ref::matmul_backward(nullptr, nullptr, db.data(), dy.data(), inp.data(), w.data(), N, 1, OC);
  return out(db);
}

val gelu_forward(const val& x) {
  std::vector<float> a = f32(x), o(a.size());
  kernels::ref::gelu_forward(o.data(), a.data(), int64_t(a.size()));
  return out(o);
}

val gelu_backward(const val& x, const val& dout) {
  std::vector<float> a = f32(x), dy = f32(dout), dx(a.size());
  kernels::ref::gelu_backward(dx.data(), a.data(), dy.data(), int64_t(a.size()));
  return out(dx);
}

val softmax_forward(const val& x, int N, int C) {
  std::vector<float> a = f32(x), o(a.size());
  kernels::ref::softmax_forward(o.data(), a.data(), N, C);
  return out(o);
}

val crossentropy(const val& logits, const val& targets, int N, int V, float dloss) {
  std::vector<float> z = f32(logits), losses(static_cast<size_t>(N)), probs(z.size()), dz(z.size());
  std::vector<int32_t> y = i32(targets);
  kernels::ref::crossentropy_forward(losses.data(), probs.data(), z.data(), y.data(), N, V);
  kernels::ref::crossentropy_backward(dz.data(), probs.data(), y.data(), dloss, N, V);
  val r = val::object();
  r.set("losses", out(losses));
  r.set("dlogits", out(dz));
  return r;
}

val attention(const val& qkv, const val& dout, int B, int T, int C, int NH) {
  std::vector<float> x = f32(qkv), dy = f32(dout), o(size_t(B) * T * C), att(size_t(B) * NH * T * T), dx(x.size());
  kernels::ref::attention_forward(o.data(), att.data(), x.data(), B, T, C, NH);
  kernels::ref::attention_backward(dx.data(), dy.data(), x.data(), att.data(), B, T, C, NH, true);
  val r = val::object();
  r.set("out", out(o));
  r.set("att", out(att));
  r.set("dqkv", out(dx));
  return r;
}

// Masked multi-head attention (kernels::ref::mha_forward / mha_backward, the seq2seq model's):
// q (B, Tq, q_row) with the queries at q_off, kv (B, Tk, kv_row) with keys at k_off and values at
// v_off, key_pad (B, Tk) 1 = hidden (or empty: none); dout (B, Tq, C). Returns out, att, and dq, dkv
// laid out like q and kv (zeros outside the head columns).
val mha(const val& qv, const val& kvv, const val& pad, const val& doutv, int B, int Tq, int Tk, int C, int NH, int q_row,
        int q_off, int kv_row, int k_off, int v_off, bool causal) {
  std::vector<float> q = f32(qv), kv = f32(kvv), dy = f32(doutv);
  std::vector<int32_t> p = i32(pad);
  std::vector<uint8_t> mask(p.begin(), p.end());
  kernels::AttentionShape s;
  s.B = B, s.Tq = Tq, s.Tk = Tk, s.C = C, s.NH = NH, s.causal = causal;
  s.q_row = q_row, s.q_batch = int64_t(Tq) * q_row, s.kv_row = kv_row, s.kv_batch = int64_t(Tk) * kv_row;
  std::vector<float> o(size_t(B) * Tq * C), att(size_t(B) * NH * Tq * Tk), dq(q.size()), dkv(kv.size());
  const uint8_t* m = mask.empty() ? nullptr : mask.data();
  kernels::ref::mha_forward(o.data(), att.data(), q.data() + q_off, kv.data() + k_off, kv.data() + v_off, m, s);
  kernels::ref::mha_backward(dq.data() + q_off, dkv.data() + k_off, dkv.data() + v_off, dy.data(), q.data() + q_off,
                             kv.data() + k_off, kv.data() + v_off, att.data(), m, s, true);
  val r = val::object();
  r.set("out", out(o));
  r.set("att", out(att));
  r.set("dq", out(dq));
  r.set("dkv", out(dkv));
  return r;
}

// Cross-entropy with ignored (negative) targets, as the seq2seq loss: the mean over the counted
// rows and the gradient of that mean.
val crossentropy_ignore(const val& logits, const val& targets, int N, int V) {
  std::vector<float> z = f32(logits), losses(static_cast<size_t>(N)), probs(z.size()), dz(z.size());
  std::vector<int32_t> y = i32(targets);
  int counted = 0;
  for (int32_t t : y) counted += t >= 0;
  kernels::ref::crossentropy_ignore_forward(losses.data(), probs.data(), z.data(), y.data(), N, V);
  if (counted) kernels::ref::crossentropy_ignore_backward(dz.data(), probs.data(), y.data(), 1.0f / float(counted), N, V);
  double sum = 0.0;
  for (float l : losses) sum += l;
  val r = val::object();
  r.set("losses", out(losses));
  r.set("mean", counted ? sum / counted : 0.0);
  r.set("dlogits", out(dz));
  return r;
}

val relu_forward(const val& x) {
  std::vector<float> a = f32(x), o(a.size());
  kernels::ref::relu_forward(o.data(), a.data(), int64_t(a.size()));
  return out(o);
}

// dinp (n) = dinp0 + dout where inp > 0
val relu_backward(const val& dinp0, const val& x, const val& dout) {
  std::vector<float> d = f32(dinp0), a = f32(x), dy = f32(dout);
  kernels::ref::relu_backward(d.data(), a.data(), dy.data(), int64_t(a.size()));
  return out(d);
}

// The production decode kernel (its own tests compare it with ref::attention_forward).
val attention_decode(const val& qkv_row, const val& k_cache, const val& v_cache, int p, int C, int NH) {
  std::vector<float> q = f32(qkv_row), k = f32(k_cache), v = f32(v_cache), o(static_cast<size_t>(C));
  kernels::attention_decode(o.data(), q.data(), k.data(), v.data(), p, 1, C, NH);
  return out(o);
}

val adamw(const val& params, const val& grads, const val& m, const val& v, float lr, float b1, float b2, float eps,
          float wd, float bc1, float bc2) {
  std::vector<float> p = f32(params), g = f32(grads), mm = f32(m), vv = f32(v);
  kernels::ref::adamw_update(p.data(), g.data(), mm.data(), vv.data(), int64_t(p.size()), lr, b1, b2, eps, wd, bc1, bc2, 1.0f);
  val r = val::object();
  r.set("params", out(p));
  r.set("m", out(mm));
  r.set("v", out(vv));
  return r;
}

// optim::clip_grad_norm: {norm, grads after clipping}
val clip_grad_norm(const val& grads, float max_norm) {
  std::vector<float> g = f32(grads);
  const float norm = optim::clip_grad_norm(g.data(), int64_t(g.size()), max_norm);
  val r = val::object();
  r.set("norm", norm);
  r.set("grads", out(g));
  return r;
}

float lr_at(float max_lr, float min_lr, int warmup, int total, double step) {
  return optim::Schedule{max_lr, min_lr, warmup, total}.lr_at(int64_t(step));
}

// ops.cpp's embedding + add_positional, forward and backward for a given output gradient
val embedding(const val& wte, const val& wpe, const val& tokens, const val& dout, int B, int T, int C) {
  nn::Arena arena;
  std::vector<float> te = f32(wte), pe = f32(wpe), dy = f32(dout);
  std::vector<int32_t> tok = i32(tokens);
  const int V = int(te.size()) / C, maxT = int(pe.size()) / C;
  nn::Tensor table = arena.from({V, C}, te, true), pos = arena.from({maxT, C}, pe, true);
  nn::Tensor y = nn::add_positional(arena, nn::embedding(arena, table, tok.data(), B, T), pos);  // (B, T, C)
  nn::Tensor w = arena.from({B, T, C}, dy, false);
  nn::Tensor row = nn::reshape(arena, y, {1, y.numel()});
  nn::Tensor col = nn::reshape(arena, w, {w.numel(), 1});
  nn::reshape(arena, nn::matmul(arena, row, col), {}).backward();  // d/dy sum(y * dout) = dout
  val r = val::object();
  r.set("out", out(std::vector<float>(y.data(), y.data() + y.numel())));
  r.set("dwte", out(std::vector<float>(table.grad(), table.grad() + table.numel())));
  r.set("dwpe", out(std::vector<float>(pos.grad(), pos.grad() + pos.numel())));
  return r;
}

int sample_logits(const val& logits, float temperature, int top_k, float top_p, double seed) {
  std::vector<float> z = f32(logits), scratch(2 * z.size());
  sample::Options o;
  o.temperature = temperature, o.top_k = top_k, o.top_p = top_p;
  data::Rng rng{uint64_t(seed)};
  return sample::sample_logits(z.data(), int(z.size()), o, rng, scratch.data());
}

// The first k uniform numbers of data::Rng(seed), as float (what the GPU sampler is given)
val uniforms(double seed, int k) {
  data::Rng rng{uint64_t(seed)};
  std::vector<float> u(static_cast<size_t>(k));
  for (float& x : u) x = float(rng.uniform());
  return out(u);
}

}  // namespace

EMSCRIPTEN_BINDINGS(tinygpt_ref) {
  emscripten::function("uniforms", &uniforms);
  emscripten::function("sgemm", &sgemm);
  emscripten::function("layernorm_forward", &layernorm_forward);
  emscripten::function("layernorm_backward", &layernorm_backward);
  emscripten::function("matmul_backward_dbias", &matmul_backward_dbias);
  emscripten::function("gelu_forward", &gelu_forward);
  emscripten::function("gelu_backward", &gelu_backward);
  emscripten::function("softmax_forward", &softmax_forward);
  emscripten::function("crossentropy", &crossentropy);
  emscripten::function("attention", &attention);
  emscripten::function("mha", &mha);
  emscripten::function("crossentropy_ignore", &crossentropy_ignore);
  emscripten::function("relu_forward", &relu_forward);
  emscripten::function("relu_backward", &relu_backward);
  emscripten::function("attention_decode", &attention_decode);
  emscripten::function("adamw", &adamw);
  emscripten::function("clip_grad_norm", &clip_grad_norm);
  emscripten::function("lr_at", &lr_at);
  emscripten::function("embedding", &embedding);
  emscripten::function("sample_logits", &sample_logits);
}
