// ops_rnn.cpp — the ops the recurrent models add (ops.h): a whole recurrent layer as one graph
// node (forward and backpropagation through time in kernels_rnn.cpp), tanh, and the two small
// reshuffles the LSTM translator needs (take_positions, repeat_lastdim).
#include <cstring>
#include <string>

#include "kernels.h"
#include "ops_graph.h"
#include "tinygpt/ops.h"

namespace tinygpt::nn {

namespace {

using graph::any_wants_grad, graph::attach, graph::fail, graph::grad_of, graph::require_defined;

inline const float* data_of(const Tensor& t) { return t.defined() ? t.data() : nullptr; }

int gate_blocks(int cell) { return cell == 0 ? 1 : cell == 1 ? 3 : 4; }

// What the backward pass of a recurrent layer reads (kept in the arena: the closure holds a pointer).
struct RecurrentSaved {
  int cell, B, T, I, H;
  Tensor x, h, c;  // (B, T, I), (B, T, H), (B, T, H) (lstm)
  RecurrentWeights w;
  Tensor h0, c0;     // (B, H) or undefined
  const float* gates;  // (B, T, 4H) or nullptr (rnn)
};

void recurrent_backward(Arena& arena, const RecurrentSaved& s) {
  const int N = s.B * s.T, GH = gate_blocks(s.cell) * s.H, H = s.H, I = s.I;
  float* dgx = arena.alloc_floats(int64_t(N) * GH);                               // (B, T, G*H)
  float* dgh = s.cell == 1 ? arena.alloc_floats(int64_t(N) * GH) : nullptr;       // (B, T, G*H), GRU only
  const float* dh = s.h.grad() ? s.h.grad() : arena.alloc_zeros(int64_t(N) * H);  // nobody read h: zeros
  const float* dc = s.c.defined() ? s.c.grad() : nullptr;
  kernels::rnn_backward(dgx, dgh, grad_of(s.h0), grad_of(s.c0), dh, dc, s.h.data(), data_of(s.c), s.gates,
                        s.w.w_hh.data(), data_of(s.h0), data_of(s.c0), s.cell, s.B, s.T, H);
  const float* drec = dgh ? dgh : dgx;  // the gradient of h_{t-1} W_hh^T + b_hh
  // forward: a_t = ... + h_{t-1} W_hh^T + b_hh  ->  dW_hh += sum_t da_t^T h_{t-1}, db_hh += sum_t da_t
  if (float* dw = grad_of(s.w.w_hh)) {
    float* hprev = arena.alloc_floats(int64_t(N) * H);  // (B, T, H): h_{t-1}, h0 (or 0) at t = 0
    for (int b = 0; b < s.B; b++) {
      float* row = hprev + int64_t(b) * s.T * H;
      if (s.h0.defined()) std::memcpy(row, s.h0.data() + int64_t(b) * H, size_t(H) * sizeof(float));
      else std::memset(row, 0, size_t(H) * sizeof(float));
      std::memcpy(row + H, s.h.data() + int64_t(b) * s.T * H, size_t(s.T - 1) * H * sizeof(float));
    }
    kernels::sgemm(true, false, GH, H, N, drec, GH, hprev, H, dw, H, true);
  }
  if (float* db = grad_of(s.w.b_hh)) kernels::matmul_backward(nullptr, nullptr, db, drec, nullptr, nullptr, N, 0, GH);
  // forward: xg = x W_ih^T + b_ih  ->  dW_ih += dxg^T x, db_ih += sum dxg, dx += dxg W_ih
  if (float* dw = grad_of(s.w.w_ih)) kernels::sgemm(true, false, GH, I, N, dgx, GH, s.x.data(), I, dw, I, true);
  if (float* db = grad_of(s.w.b_ih)) kernels::matmul_backward(nullptr, nullptr, db, dgx, nullptr, nullptr, N, 0, GH);
  if (float* dx = grad_of(s.x)) kernels::sgemm(false, false, N, I, GH, dgx, GH, s.w.w_ih.data(), I, dx, I, true);
}

void check_recurrent(int cell, const Tensor& x, const RecurrentWeights& w, const Tensor& h0, const Tensor& c0) {
  const char* op = "recurrent";
  if (cell < 0 || cell > 2) fail(op, "cell must be 0 (rnn), 1 (gru) or 2 (lstm)");
  if (!x.defined() || !w.w_ih.defined() || !w.w_hh.defined() || !w.b_ih.defined() || !w.b_hh.defined())
    fail(op, "x and the four weights must be defined");
  if (x.shape().ndim != 3) fail(op, "x must be (B, T, I), got " + x.shape().str());
  const int64_t B = x.dim(0), I = x.dim(2), GH = w.w_hh.dim(0), H = GH / gate_blocks(cell);
  if (w.w_hh.shape() != Shape{GH, H} || GH != gate_blocks(cell) * H || w.w_ih.shape() != Shape{GH, I} ||
      w.b_ih.shape() != Shape{GH} || w.b_hh.shape() != Shape{GH})
    fail(op, "weights must be w_ih (G*H, I), w_hh (G*H, H), b_ih and b_hh (G*H); got " + w.w_ih.shape().str() + ", " +
                 w.w_hh.shape().str() + ", " + w.b_ih.shape().str() + ", " + w.b_hh.shape().str() + " for x " +
                 x.shape().str());
  if (h0.defined() && h0.shape() != Shape{B, H}) fail(op, "h0 must be (B, H), got " + h0.shape().str());
  if (c0.defined() && (cell != 2 || c0.shape() != Shape{B, H})) fail(op, "c0 is the LSTM's (B, H) cell state");
}

}  // namespace

Tensor recurrent(Arena& arena, int cell, const Tensor& x, const RecurrentWeights& w, const Tensor& h0, const Tensor& c0,
                 Tensor* c_out, Tensor* gates_out) {
  check_recurrent(cell, x, w, h0, c0);
  const int B = int(x.dim(0)), T = int(x.dim(1)), I = int(x.dim(2));
  const int GH = int(w.w_hh.dim(0)), H = GH / gate_blocks(cell), N = B * T;
  // xg (B, T, G*H) = x W_ih^T + b_ih: one GEMM for every step
  float* xg = arena.alloc_floats(int64_t(N) * GH);
  for (int n = 0; n < N; n++) std::memcpy(xg + int64_t(n) * GH, w.b_ih.data(), size_t(GH) * sizeof(float));
  kernels::sgemm(false, true, N, GH, I, x.data(), I, w.w_ih.data(), I, xg, GH, true);
  Tensor h = arena.tensor({B, T, H});                          // (B, T, H)
  Tensor c = cell == 2 ? arena.tensor({B, T, H}) : Tensor();   // (B, T, H)
  float* gates = cell == 0 ? nullptr : arena.alloc_floats(int64_t(N) * 4 * H);  // (B, T, 4H)
  kernels::rnn_forward(h.data(), data_of(c) ? c.data() : nullptr, gates, xg, w.w_hh.data(), w.b_hh.data(), data_of(h0),
                       data_of(c0), cell, B, T, H);
  if (c_out) *c_out = c;
  if (gates_out && gates) {  // a view of the saved activations, outside the graph
    TensorImpl* v = arena.make<TensorImpl>();
    v->data = gates;
    v->shape = Shape{B, T, 4 * H};
    *gates_out = Tensor(v);
  }
  if (any_wants_grad({x, w.w_ih, w.w_hh, w.b_ih, w.b_hh, h0, c0})) {
    auto* s = arena.make<RecurrentSaved>();
    *s = RecurrentSaved{cell, B, T, I, H, x, h, c, w, h0, c0, gates};
    Arena* ar = &arena;
    Node* node = attach(arena, h, "recurrent", {x, w.w_ih, w.w_hh, w.b_ih, w.b_hh, h0, c0},
                        [=] { recurrent_backward(*ar, *s); });
    if (c.defined()) {  // c is a second output of the same node: its consumers run before it
      c.impl()->requires_grad = true;
      c.impl()->node = node;
      c.impl()->arena = &arena;
    }
  }
  return h;
}

Tensor tanh(Arena& arena, const Tensor& x) {
  require_defined("tanh", x, "x");
  Tensor out = arena.tensor(x.shape());
  const int64_t n = x.numel();
  kernels::tanh_forward(out.data(), x.data(), n);
  if (wants_grad(x)) {
    attach(arena, out, "tanh", {x}, [=] {
      // forward: out = tanh(x)  ->  dx += (1 - out^2) dout
      kernels::tanh_backward(x.grad(), out.data(), out.grad(), n);
    });
  }
  return out;
}

Tensor take_positions(Arena& arena, const Tensor& x, const int32_t* index) {
  if (!x.defined() || x.shape().ndim != 3) fail("take_positions", "x must be (B, T, C)");
  const int B = int(x.dim(0)), T = int(x.dim(1)), C = int(x.dim(2));
  auto* idx = static_cast<int32_t*>(arena.alloc_bytes(size_t(B) * sizeof(int32_t)));
  for (int b = 0; b < B; b++) {
    if (index[b] < 0 || index[b] >= T)
      fail("take_positions", "position " + std::to_string(index[b]) + " is outside [0, " + std::to_string(T) + ")");
    idx[b] = index[b];
  }
  Tensor out = arena.tensor({B, C});  // (B, C)
  for (int b = 0; b < B; b++)
    std::memcpy(out.data() + int64_t(b) * C, x.data() + (int64_t(b) * T + idx[b]) * C, size_t(C) * sizeof(float));
  if (wants_grad(x)) {
    attach(arena, out, "take_positions", {x}, [=] {
      // forward: out[b] = x[b, idx[b]]  ->  dx[b, idx[b]] += dout[b]
      for (int b = 0; b < B; b++)
        kernels::accumulate(x.grad() + (int64_t(b) * T + idx[b]) * C, out.grad() + int64_t(b) * C, C);
    });
  }
  return out;
}

Tensor repeat_lastdim(Arena& arena, const Tensor& x) {
  if (!x.defined() || x.shape().ndim < 1) fail("repeat_lastdim", "x is undefined");
  const int C = int(x.shape().last());
  const int64_t rows = x.numel() / C;
  Shape s = x.shape();
  s.dims[s.ndim - 1] = 2 * C;
  Tensor out = arena.tensor(s);  // (..., 2C)
  for (int64_t r = 0; r < rows; r++) {
    std::memcpy(out.data() + r * 2 * C, x.data() + r * C, size_t(C) * sizeof(float));
    std::memcpy(out.data() + r * 2 * C + C, x.data() + r * C, size_t(C) * sizeof(float));
  }
  if (wants_grad(x)) {
    attach(arena, out, "repeat_lastdim", {x}, [=] {
      // forward: out = [x | x]  ->  dx += dout[:, :C] + dout[:, C:]
      for (int64_t r = 0; r < rows; r++) {
        kernels::accumulate(x.grad() + r * C, out.grad() + r * 2 * C, C);
        kernels::accumulate(x.grad() + r * C, out.grad() + r * 2 * C + C, C);
      }
    });
  }
  return out;
}

}  // namespace tinygpt::nn
