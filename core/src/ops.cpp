// ops.cpp — forward pass + graph node for each op; the arithmetic is in kernels.cpp.
#include "tinygpt/ops.h"

#include <cstring>
#include <string>

#include "kernels.h"
#include "ops_graph.h"

namespace tinygpt::nn {

namespace {

using graph::any_wants_grad, graph::attach, graph::fail, graph::grad_of, graph::grad_to_write, graph::require_defined,
    graph::take_output_grad;

// dt += dout (n floats), the gradient of an input that out = ... + t passes on whole: in a recycling
// backward t takes out's buffer when it holds nothing yet (graph::take_output_grad); else a first
// contribution is a copy, a later one add_forward(dt, dt, dout) (split across the threads: a
// residual's gradient is large). dout is read before any buffer changes hands.
void pass_output_grad(const Tensor& t, const Tensor& out, const float* dout, int64_t n) {
  if (take_output_grad(t, out)) return;
  bool overwrite;
  if (float* dt = grad_to_write(t, &overwrite)) {
    if (overwrite) std::memcpy(dt, dout, size_t(n) * sizeof(float));
    else kernels::add_forward(dt, dt, dout, n);
  }
}

int32_t* copy_ints(Arena& arena, const int32_t* src, int64_t n) {
  auto* dst = static_cast<int32_t*>(arena.alloc_bytes(size_t(n) * sizeof(int32_t)));
  std::memcpy(dst, src, size_t(n) * sizeof(int32_t));
  return dst;
}

Shape with_last(const Shape& s, int64_t last) {
  Shape r = s;
  r.dims[r.ndim - 1] = last;
  return r;
}

}  // namespace

Tensor embedding(Arena& arena, const Tensor& table, const int32_t* tokens, int B, int T) {
  require_defined("embedding", table, "table");
  if (table.shape().ndim != 2) fail("embedding", "table must be (V, C), got " + table.shape().str());
  if (B <= 0 || T <= 0) fail("embedding", "B and T must be positive");
  const int V = int(table.dim(0)), C = int(table.dim(1));
  const int64_t N = int64_t(B) * T;
  for (int64_t n = 0; n < N; n++)
    if (tokens[n] < 0 || tokens[n] >= V)
      fail("embedding", "token " + std::to_string(tokens[n]) + " is outside the vocabulary [0, " + std::to_string(V) + ")");
  Tensor out = arena.tensor({B, T, C});  // (B, T, C)
  for (int64_t n = 0; n < N; n++)
    std::memcpy(out.data() + n * C, table.data() + int64_t(tokens[n]) * C, size_t(C) * sizeof(float));
  if (wants_grad(table)) {
    const int32_t* toks = copy_ints(arena, tokens, N);
    attach(arena, out, "embedding", {table}, [=] {
      // forward: out[n, :] = table[tokens[n], :]  ->  dtable[tokens[n], :] += dout[n, :]
      for (int64_t n = 0; n < N; n++) kernels::accumulate(table.grad() + int64_t(toks[n]) * C, out.grad() + n * C, C);
    });
  }
  return out;
}

Tensor add_positional(Arena& arena, const Tensor& x, const Tensor& pos) {
  require_defined("add_positional", x, "x");
  require_defined("add_positional", pos, "pos");
  if (x.shape().ndim != 3 || pos.shape().ndim != 2 || x.dim(2) != pos.dim(1))
    fail("add_positional", "expects x (B, T, C) and pos (maxT, C), got " + x.shape().str() + " and " + pos.shape().str());
  const int B = int(x.dim(0)), T = int(x.dim(1)), C = int(x.dim(2));
  if (T > pos.dim(0))
    fail("add_positional", "sequence length " + std::to_string(T) + " exceeds the " + std::to_string(pos.dim(0)) + " learned positions");
  Tensor out = arena.tensor(x.shape());  // (B, T, C)
  for (int b = 0; b < B; b++)
    kernels::add_forward(out.data() + int64_t(b) * T * C, x.data() + int64_t(b) * T * C, pos.data(), int64_t(T) * C);
  if (any_wants_grad({x, pos})) {
    attach(arena, out, "add_positional", {x, pos}, [=] {
      // forward: out[b, t, :] = x[b, t, :] + pos[t, :]
      // dx += dout in one split pass (dx + dout, as accumulate adds); dpos sums over b in order
      if (float* dx = grad_of(x)) kernels::add_forward(dx, dx, out.grad(), int64_t(B) * T * C);
      if (float* dpos = grad_of(pos))
        for (int b = 0; b < B; b++) kernels::accumulate(dpos, out.grad() + int64_t(b) * T * C, int64_t(T) * C);
    });
  }
  return out;
}

Tensor add(Arena& arena, const Tensor& a, const Tensor& b) {
  require_defined("add", a, "a");
  require_defined("add", b, "b");
  if (a.shape() != b.shape()) fail("add", "shapes differ: " + a.shape().str() + " and " + b.shape().str());
  Tensor out = arena.tensor(a.shape());
  kernels::add_forward(out.data(), a.data(), b.data(), a.numel());
  if (any_wants_grad({a, b})) {
    const int64_t n = a.numel();
    attach(arena, out, "add", {a, b}, [=] {
      // forward: out = a + b  ->  da += dout, db += dout. Once a has taken out's buffer, out's
      // gradient reads as unset and b copies or adds (pass_output_grad).
      const float* dout = out.grad();  // (n); stays valid when a buffer changes hands
      pass_output_grad(a, out, dout, n);
      pass_output_grad(b, out, dout, n);
    });
  }
  return out;
}

Tensor matmul(Arena& arena, const Tensor& a, const Tensor& b) {
  require_defined("matmul", a, "a");
  require_defined("matmul", b, "b");
  if (a.shape().ndim != 2 || b.shape().ndim != 2 || a.dim(1) != b.dim(0))
    fail("matmul", "expects (M, K) @ (K, N), got " + a.shape().str() + " @ " + b.shape().str());
  const int M = int(a.dim(0)), K = int(a.dim(1)), N = int(b.dim(1));
  Tensor out = arena.tensor({M, N});  // (M, N)
  kernels::sgemm(false, false, M, N, K, a.data(), K, b.data(), N, out.data(), N, false);
  if (any_wants_grad({a, b})) {
    attach(arena, out, "matmul", {a, b}, [=] {
      // forward: out = a @ b  ->  da += dout @ b^T,  db += a^T @ dout
      if (float* da = grad_of(a)) kernels::sgemm(false, true, M, K, N, out.grad(), N, b.data(), N, da, K, true);
      if (float* db = grad_of(b)) kernels::sgemm(true, false, K, N, M, a.data(), K, out.grad(), N, db, N, true);
    });
  }
  return out;
}

namespace {
// x (..., IC) @ w (IC, OC) [+ b]: checked; N rows
struct LinearDims {
  int N, IC, OC;
};
LinearDims linear_dims(const char* op, const Tensor& x, const Tensor& w, const Tensor& b) {
  require_defined(op, x, "x");
  require_defined(op, w, "w");
  if (w.shape().ndim != 2 || x.shape().ndim < 1 || x.shape().last() != w.dim(0))
    fail(op, "expects x (..., K) and w (K, N), got " + x.shape().str() + " and " + w.shape().str());
  const int IC = int(w.dim(0)), OC = int(w.dim(1));
  if (b.defined() && (b.shape().ndim != 1 || b.dim(0) != OC))
    fail(op, "bias must be (" + std::to_string(OC) + "), got " + b.shape().str());
  return {int(x.numel() / IC), IC, OC};
}

// forward: y (N, OC) = x @ w + b  ->  dw += x^T @ dy, db += sum of dy's rows (x: (N, IC))
void weight_backward(const float* x, const Tensor& w, const Tensor& b, const float* dy, LinearDims d) {
  bool overwrite;
  float* dw = grad_to_write(w, &overwrite);
  if (dw && overwrite) {
    // the weight's first contribution this step (model::ParameterBlock::zero_grad leaves it unset):
    // x^T @ dy written, not added to zeros (the same values)
    kernels::sgemm(true, false, d.IC, d.OC, d.N, x, d.IC, dy, d.OC, dw, d.OC, false);
    dw = nullptr;
  }
  kernels::matmul_backward(nullptr, dw, grad_of(b), dy, x, w.data(), d.N, d.IC, d.OC);
}

// the same, and dx += dy @ w^T
void linear_backward(const Tensor& x, const Tensor& w, const Tensor& b, const float* dy, LinearDims d) {
  bool overwrite;
  if (float* dx = grad_to_write(x, &overwrite))
    // the first contribution to dx: dy @ w^T written, not added to a zeroed buffer (the same bits)
    kernels::sgemm(false, true, d.N, d.IC, d.OC, dy, d.OC, w.data(), d.OC, dx, d.IC, !overwrite);
  weight_backward(x.data(), w, b, dy, d);
}
}  // namespace

Tensor linear_lastdim(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b) {
  const LinearDims d = linear_dims("linear", x, w, b);
  Tensor out = arena.tensor(with_last(x.shape(), d.OC));  // (..., OC)
  kernels::matmul_forward(out.data(), x.data(), w.data(), b.defined() ? b.data() : nullptr, d.N, d.IC, d.OC);
  if (any_wants_grad({x, w, b})) {
    // forward: out = x @ w + b
    attach(arena, out, "linear", {x, w, b}, [=] { linear_backward(x, w, b, out.grad(), d); });
  }
  return out;
}

Tensor linear_residual(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& res) {
  const LinearDims d = linear_dims("linear_residual", x, w, b);
  require_defined("linear_residual", res, "res");
  const Shape shape = with_last(x.shape(), d.OC);
  if (res.shape() != shape) fail("linear_residual", "res must be " + shape.str() + ", got " + res.shape().str());
  Tensor out = arena.tensor(shape);  // (..., OC)
  kernels::matmul_forward_residual(out.data(), x.data(), w.data(), b.defined() ? b.data() : nullptr, res.data(), d.N,
                                   d.IC, d.OC);
  if (any_wants_grad({x, w, b, res})) {
    // forward: out = x @ w + b + res  ->  the linear layer's gradients from dout, then dres += dout
    // (after them: res may be x itself, and a buffer res takes over must not change under them)
    attach(arena, out, "linear_residual", {x, w, b, res}, [=] {
      const float* dout = out.grad();  // (N, OC)
      linear_backward(x, w, b, dout, d);
      pass_output_grad(res, out, dout, out.numel());
    });
  }
  return out;
}

Tensor linear_gelu(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b) {
  const LinearDims d = linear_dims("linear_gelu", x, w, b);
  Tensor out = arena.tensor(with_last(x.shape(), d.OC));  // (..., OC)
  const int64_t n = out.numel();
  const float* bias = b.defined() ? b.data() : nullptr;
  if (!any_wants_grad({x, w, b})) {
    kernels::matmul_forward(out.data(), x.data(), w.data(), bias, d.N, d.IC, d.OC);
    kernels::gelu_forward(out.data(), out.data(), n);
    return out;
  }
  // the pre-activation x @ w + b is read by nothing else: its buffer becomes gelu's slope there
  float* slope = arena.alloc_floats(n);  // (..., OC)
  kernels::matmul_forward(slope, x.data(), w.data(), bias, d.N, d.IC, d.OC);
  kernels::gelu_forward_slope(out.data(), slope, slope, n);
  attach(arena, out, "linear_gelu", {x, w, b}, [=] {
    // forward: out = gelu(z), z = x @ w + b  ->  dz = gelu'(z) dout, in place of dout (only this op reads it)
    float* dz = out.grad();
    kernels::mul_forward(dz, dz, slope, n);
    linear_backward(x, w, b, dz, d);
  });
  return out;
}

Tensor linear_relu(Arena& arena, const Tensor& x, const Tensor& w, const Tensor& b) {
  const LinearDims d = linear_dims("linear_relu", x, w, b);
  Tensor out = arena.tensor(with_last(x.shape(), d.OC));  // (..., OC): x @ w + b, then max(., 0) in place
  const int64_t n = out.numel();
  kernels::matmul_forward(out.data(), x.data(), w.data(), b.defined() ? b.data() : nullptr, d.N, d.IC, d.OC);
  kernels::relu_forward(out.data(), out.data(), n);
  if (any_wants_grad({x, w, b})) {
    attach(arena, out, "linear_relu", {x, w, b}, [=] {
      // forward: out = max(z, 0), z = x @ w + b  ->  dz = dout where out > 0, in place of dout (only this op reads it)
      float* dz = out.grad();
      kernels::relu_mask(dz, out.data(), n);
      linear_backward(x, w, b, dz, d);
    });
  }
  return out;
}

Tensor feed_forward_residual(Arena& arena, const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2,
                             const Tensor& b2, const Tensor& res, Activation act) {
  const char* op = "feed_forward_residual";
  const LinearDims d1 = linear_dims(op, x, w1, b1);
  require_defined(op, w2, "w2");
  if (w2.shape().ndim != 2 || w2.dim(0) != d1.OC)
    fail(op, "w2 must be (" + std::to_string(d1.OC) + ", C), got " + w2.shape().str());
  const int N = d1.N, F = d1.OC, C = int(w2.dim(1));
  if (b2.defined() && (b2.shape().ndim != 1 || b2.dim(0) != C))
    fail(op, "b2 must be (" + std::to_string(C) + "), got " + b2.shape().str());
  require_defined(op, res, "res");
  const Shape shape = with_last(x.shape(), C);
  if (res.shape() != shape) fail(op, "res must be " + shape.str() + ", got " + res.shape().str());
  const int kact = act == Activation::relu ? kernels::kActRelu : kernels::kActGelu;
  const bool grad = any_wants_grad({x, w1, b1, w2, b2, res});
  float* h = arena.alloc_floats(int64_t(N) * F);  // (N, F): act(z), z = x @ w1 + b1
  // (N, F): GELU's slope gelu'(z), kept for the backward (the ReLU's mask is h > 0, from h itself)
  float* slope = grad && act == Activation::gelu ? arena.alloc_floats(int64_t(N) * F) : nullptr;
  kernels::matmul_forward_act(h, slope, x.data(), w1.data(), b1.defined() ? b1.data() : nullptr, N, d1.IC, F, kact);
  Tensor out = arena.tensor(shape);  // (..., C)
  kernels::matmul_forward_residual(out.data(), h, w2.data(), b2.defined() ? b2.data() : nullptr, res.data(), N, F, C);
  if (grad) {
    attach(arena, out, op, {x, w1, b1, w2, b2, res}, [=] {
      // forward: out = h @ w2 + b2 + res, h = act(z), z = x @ w1 + b1
      Arena& a = *out.impl()->arena;
      const float* dout = out.grad();  // (N, C)
      // dz (N, F) = act'(z) * (dout @ w2^T), written (h's gradient never exists apart from it), in a
      // buffer from the arena's gradients, back to them when done
      float* dz = a.take_grad_buffer(int64_t(N) * F);
      kernels::matmul_backward_dinp_act(dz, act == Activation::relu ? h : slope, dout, w2.data(), N, F, C, kact);
      weight_backward(h, w2, b2, dout, {N, F, C});
      pass_output_grad(res, out, dout, out.numel());  // after dout's last reader here: res may take its buffer
      linear_backward(x, w1, b1, dz, d1);
      if (a.recycling_grads) a.free_grads.push_back({int64_t(N) * F, dz});
    });
  }
  return out;
}

Tensor layernorm_lastdim(Arena& arena, const Tensor& x, const Tensor& gain, const Tensor& bias, float eps) {
  require_defined("layernorm", x, "x");
  require_defined("layernorm", gain, "gain");
  require_defined("layernorm", bias, "bias");
  const int C = int(x.shape().last());
  if (gain.numel() != C || bias.numel() != C)
    fail("layernorm", "gain and bias must have " + std::to_string(C) + " elements");
  const int N = int(x.numel() / C);
  Tensor out = arena.tensor(x.shape());  // (..., C)
  float* mean = arena.alloc_floats(N);   // (N)
  float* rstd = arena.alloc_floats(N);   // (N)
  kernels::layernorm_forward(out.data(), mean, rstd, x.data(), gain.data(), bias.data(), N, C, eps);
  if (any_wants_grad({x, gain, bias})) {
    attach(arena, out, "layernorm", {x, gain, bias}, [=] {
      // forward: out = (x - mean) * rstd * gain + bias; dx written where it holds nothing yet
      bool overwrite;
      float* dx = grad_to_write(x, &overwrite);
      kernels::layernorm_backward(dx, grad_of(gain), grad_of(bias), out.grad(), x.data(), gain.data(), mean, rstd, N, C,
                                  !overwrite);
    });
  }
  return out;
}

Tensor gelu(Arena& arena, const Tensor& x) {
  require_defined("gelu", x, "x");
  Tensor out = arena.tensor(x.shape());
  const int64_t n = x.numel();
  kernels::gelu_forward(out.data(), x.data(), n);
  if (wants_grad(x)) {
    attach(arena, out, "gelu", {x}, [=] {
      // forward: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      kernels::gelu_backward(x.grad(), x.data(), out.grad(), n);
    });
  }
  return out;
}

Tensor softmax_lastdim(Arena& arena, const Tensor& x) {
  require_defined("softmax", x, "x");
  const int C = int(x.shape().last());
  const int N = int(x.numel() / C);
  Tensor out = arena.tensor(x.shape());
  kernels::softmax_forward(out.data(), x.data(), N, C);
  if (wants_grad(x)) {
    attach(arena, out, "softmax", {x}, [=] {
      // forward: out = softmax(x)  ->  dx += out * (dout - <dout, out>)
      kernels::softmax_backward(x.grad(), out.data(), out.grad(), N, C);
    });
  }
  return out;
}

Tensor cross_entropy(Arena& arena, const Tensor& logits, const int32_t* targets) {
  require_defined("cross_entropy", logits, "logits");
  const int V = int(logits.shape().last());
  const int N = int(logits.numel() / V);
  for (int n = 0; n < N; n++)
    if (targets[n] < 0 || targets[n] >= V)
      fail("cross_entropy", "target " + std::to_string(targets[n]) + " is outside [0, " + std::to_string(V) + ")");
  float* losses = arena.alloc_floats(N);                 // (N)
  float* probs = arena.alloc_floats(int64_t(N) * V);     // (N, V)
  kernels::crossentropy_forward(losses, probs, logits.data(), targets, N, V);
  double sum = 0.0;
  for (int n = 0; n < N; n++) sum += losses[n];
  Tensor out = arena.tensor(Shape{});  // scalar
  out.data()[0] = float(sum / N);
  if (wants_grad(logits)) {
    const int32_t* tgt = copy_ints(arena, targets, N);
    attach(arena, out, "cross_entropy", {logits}, [=] {
      // forward: loss = mean_n -log p[n, y_n]  ->  dlogits[n, :] += dloss / N * (p[n, :] - onehot(y_n))
      kernels::crossentropy_backward(logits.grad(), probs, tgt, out.grad()[0] / float(N), N, V);
    });
  }
  return out;
}

Tensor causal_attention(Arena& arena, const Tensor& qkv, int n_head, Tensor* att_probs) {
  require_defined("causal_attention", qkv, "qkv");
  if (qkv.shape().ndim != 3 || qkv.dim(2) % 3 != 0)
    fail("causal_attention", "qkv must be (B, T, 3C), got " + qkv.shape().str());
  const int B = int(qkv.dim(0)), T = int(qkv.dim(1)), C = int(qkv.dim(2) / 3);
  if (n_head <= 0 || C % n_head != 0)
    fail("causal_attention", "width " + std::to_string(C) + " is not divisible by " + std::to_string(n_head) + " heads");
  Tensor out = arena.tensor({B, T, C});             // (B, T, C)
  Tensor att = arena.tensor({B, n_head, T, T});     // (B, NH, T, T)
  kernels::attention_forward(out.data(), att.data(), qkv.data(), B, T, C, n_head);
  if (att_probs) *att_probs = att;
  if (wants_grad(qkv)) {
    attach(arena, out, "causal_attention", {qkv}, [=] {
      bool overwrite;  // the first contribution to dqkv: written, not added to a zeroed buffer
      float* dqkv = grad_to_write(qkv, &overwrite);
      kernels::attention_backward(dqkv, out.grad(), qkv.data(), att.data(), B, T, C, n_head, !overwrite);
    });
  }
  return out;
}

Tensor self_attention(Arena& arena, const Tensor& x, const Tensor& w_qkv, const Tensor& b_qkv, const Tensor& w_proj,
                      const Tensor& b_proj, int n_head, Tensor* att_probs) {
  Tensor qkv = linear_lastdim(arena, x, w_qkv, b_qkv);          // (B, T, 3C)
  Tensor y = causal_attention(arena, qkv, n_head, att_probs);   // (B, T, C)
  return linear_lastdim(arena, y, w_proj, b_proj);              // (B, T, C)
}

Tensor self_attention_1h(Arena& arena, const Tensor& x, const Tensor& w_qkv, const Tensor& b_qkv,
                         const Tensor& w_proj, const Tensor& b_proj, Tensor* att_probs) {
  return self_attention(arena, x, w_qkv, b_qkv, w_proj, b_proj, 1, att_probs);
}

Tensor reshape(Arena& arena, const Tensor& x, const Shape& shape) {
  require_defined("reshape", x, "x");
  if (shape.numel() != x.numel()) fail("reshape", "cannot view " + x.shape().str() + " as " + shape.str());
  TensorImpl* v = arena.make<TensorImpl>();
  v->data = x.data();  // shares storage: a view
  v->shape = shape;
  v->arena = &arena;
  Tensor out(v);
  if (wants_grad(x)) {
    const int64_t n = x.numel();
    attach(arena, out, "reshape", {x}, [=] { kernels::accumulate(x.grad(), out.grad(), n); });
  }
  return out;
}

// ---- encoder-decoder ops -----------------------------------------------------------------------

namespace {
const uint8_t* copy_mask(Arena& arena, const uint8_t* mask, int64_t n) {
  if (!mask) return nullptr;
  auto* dst = static_cast<uint8_t*>(arena.alloc_bytes(size_t(n)));
  std::memcpy(dst, mask, size_t(n));
  return dst;
}

// The gradient buffer of an input that the kernel writes whole (mha_backward writes q's, k's and
// v's at once): *unset when it holds no contribution yet, as grad_to_write; an input that does not
// want a gradient gets a scratch buffer, unset as well.
float* grad_or_sink(Arena& arena, const Tensor& t, bool* unset) {
  if (grad_of(t)) return grad_to_write(t, unset);
  *unset = true;
  return arena.alloc_floats(t.numel());
}
}  // namespace

Tensor masked_attention(Arena& arena, const Tensor& qkv, int n_head, const AttentionMask& mask, Tensor* att_probs) {
  require_defined("masked_attention", qkv, "qkv");
  if (qkv.shape().ndim != 3 || qkv.dim(2) % 3 != 0)
    fail("masked_attention", "qkv must be (B, T, 3C), got " + qkv.shape().str());
  const int B = int(qkv.dim(0)), T = int(qkv.dim(1)), C = int(qkv.dim(2) / 3);
  if (n_head <= 0 || C % n_head != 0)
    fail("masked_attention", "width " + std::to_string(C) + " is not divisible by " + std::to_string(n_head) + " heads");
  kernels::AttentionShape s;
  s.B = B, s.Tq = T, s.Tk = T, s.C = C, s.NH = n_head;
  s.q_row = s.kv_row = 3 * C;
  s.q_batch = s.kv_batch = int64_t(T) * 3 * C;
  s.causal = mask.causal;
  const uint8_t* pad = copy_mask(arena, mask.key_pad, int64_t(B) * T);
  Tensor out = arena.tensor({B, T, C});          // (B, T, C)
  Tensor att = arena.tensor({B, n_head, T, T});  // (B, NH, T, T)
  const float* q = qkv.data();
  kernels::mha_forward(out.data(), att.data(), q, q + C, q + 2 * C, pad, s);
  if (att_probs) *att_probs = att;
  if (wants_grad(qkv)) {
    attach(arena, out, "masked_attention", {qkv}, [=] {
      const float* x = qkv.data();
      bool overwrite;  // the first contribution to dqkv: written, not added to a zeroed buffer
      float* dx = grad_to_write(qkv, &overwrite);
      kernels::mha_backward(dx, dx + s.C, dx + 2 * s.C, out.grad(), x, x + s.C, x + 2 * s.C, att.data(), pad, s,
                            !overwrite);
    });
  }
  return out;
}

Tensor cross_attention(Arena& arena, const Tensor& q, const Tensor& kv, int n_head, const AttentionMask& mask,
                       Tensor* att_probs) {
  require_defined("cross_attention", q, "q");
  require_defined("cross_attention", kv, "kv");
  if (q.shape().ndim != 3 || kv.shape().ndim != 3 || q.dim(0) != kv.dim(0) || kv.dim(2) != 2 * q.dim(2))
    fail("cross_attention", "expects q (B, Tq, C) and kv (B, Tk, 2C), got " + q.shape().str() + " and " +
                                kv.shape().str());
  const int B = int(q.dim(0)), Tq = int(q.dim(1)), Tk = int(kv.dim(1)), C = int(q.dim(2));
  if (n_head <= 0 || C % n_head != 0)
    fail("cross_attention", "width " + std::to_string(C) + " is not divisible by " + std::to_string(n_head) + " heads");
  kernels::AttentionShape s;
  s.B = B, s.Tq = Tq, s.Tk = Tk, s.C = C, s.NH = n_head;
  s.q_row = C, s.kv_row = 2 * C;
  s.q_batch = int64_t(Tq) * C, s.kv_batch = int64_t(Tk) * 2 * C;
  s.causal = mask.causal;
  const uint8_t* pad = copy_mask(arena, mask.key_pad, int64_t(B) * Tk);
  Tensor out = arena.tensor({B, Tq, C});           // (B, Tq, C)
  Tensor att = arena.tensor({B, n_head, Tq, Tk});  // (B, NH, Tq, Tk)
  const float* k = kv.data();
  kernels::mha_forward(out.data(), att.data(), q.data(), k, k + C, pad, s);
  if (att_probs) *att_probs = att;
  if (any_wants_grad({q, kv})) {
    Arena* ar = &arena;
    attach(arena, out, "cross_attention", {q, kv}, [=] {
      bool q_unset, kv_unset;
      float* dq = grad_or_sink(*ar, q, &q_unset);
      float* dkv = grad_or_sink(*ar, kv, &kv_unset);
      // both first contributions: written; else added, after zeroing the one that was unset
      const bool overwrite = q_unset && kv_unset;
      if (!overwrite && q_unset) std::memset(dq, 0, size_t(q.numel()) * sizeof(float));
      if (!overwrite && kv_unset) std::memset(dkv, 0, size_t(kv.numel()) * sizeof(float));
      const float* x = kv.data();
      kernels::mha_backward(dq, dkv, dkv + s.C, out.grad(), q.data(), x, x + s.C, att.data(), pad, s, !overwrite);
    });
  }
  return out;
}

Tensor relu(Arena& arena, const Tensor& x) {
  require_defined("relu", x, "x");
  Tensor out = arena.tensor(x.shape());
  const int64_t n = x.numel();
  kernels::relu_forward(out.data(), x.data(), n);
  if (wants_grad(x)) {
    attach(arena, out, "relu", {x}, [=] {
      // forward: out = max(x, 0)  ->  dx += dout where x > 0
      kernels::relu_backward(x.grad(), x.data(), out.grad(), n);
    });
  }
  return out;
}

Tensor cross_entropy_ignore(Arena& arena, const Tensor& logits, const int32_t* targets) {
  require_defined("cross_entropy_ignore", logits, "logits");
  const int V = int(logits.shape().last());
  const int N = int(logits.numel() / V);
  int counted = 0;
  for (int n = 0; n < N; n++) {
    if (targets[n] >= V)
      fail("cross_entropy_ignore", "target " + std::to_string(targets[n]) + " is outside [0, " + std::to_string(V) + ")");
    counted += targets[n] >= 0;
  }
  float* losses = arena.alloc_floats(N);              // (N)
  float* probs = arena.alloc_floats(int64_t(N) * V);  // (N, V); rows of ignored targets unused
  kernels::crossentropy_ignore_forward(losses, probs, logits.data(), targets, N, V);
  double sum = 0.0;
  for (int n = 0; n < N; n++) sum += losses[n];  // ignored rows hold 0
  Tensor out = arena.tensor(Shape{});  // scalar
  out.data()[0] = counted ? float(sum / counted) : 0.0f;
  if (wants_grad(logits)) {
    const int32_t* tgt = copy_ints(arena, targets, N);
    attach(arena, out, "cross_entropy_ignore", {logits}, [=] {
      if (counted == 0) return;  // every target is padding: the loss is the constant 0
      // forward: loss = mean over counted n of -log p[n, y_n]  ->  dlogits[n, :] += dloss / counted * (p[n, :] - onehot(y_n))
      kernels::crossentropy_ignore_backward(logits.grad(), probs, tgt, out.grad()[0] / float(counted), N, V);
    });
  }
  return out;
}

Tensor tied_head(Arena& arena, const Tensor& x, const Tensor& table) {
  require_defined("tied_head", x, "x");
  require_defined("tied_head", table, "table");
  if (table.shape().ndim != 2 || x.shape().ndim < 1 || x.shape().last() != table.dim(1))
    fail("tied_head", "expects x (..., C) and table (V, C), got " + x.shape().str() + " and " + table.shape().str());
  const int V = int(table.dim(0)), C = int(table.dim(1));
  const int N = int(x.numel() / C);
  Tensor out = arena.tensor(with_last(x.shape(), V));  // (..., V)
  kernels::sgemm(false, true, N, V, C, x.data(), C, table.data(), C, out.data(), V, false);
  if (any_wants_grad({x, table})) {
    attach(arena, out, "tied_head", {x, table}, [=] {
      // forward: out = x @ table^T  ->  dx += dout @ table,  dtable += dout^T @ x
      if (float* dx = grad_of(x)) kernels::sgemm(false, false, N, C, V, out.grad(), V, table.data(), C, dx, C, true);
      if (float* dt = grad_of(table)) kernels::sgemm(true, false, V, C, N, out.grad(), V, x.data(), C, dt, C, true);
    });
  }
  return out;
}

}  // namespace tinygpt::nn
