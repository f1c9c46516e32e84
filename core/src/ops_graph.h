// ops_graph.h — what every file of ops (ops.cpp, ops_rnn.cpp) uses to check its inputs and make its
// output a graph node. Internal to core/src.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "tinygpt/error.h"
#include "tinygpt/tensor.h"

namespace tinygpt::nn::graph {

[[noreturn]] inline void fail(const std::string& op, const std::string& what) { throw tinygpt::Error(op + ": " + what); }

inline void require_defined(const char* op, const Tensor& t, const char* name) {
  if (!t.defined()) fail(op, std::string(name) + " is undefined");
}

// Make `out` a graph node: record the parents and the closure that sends gradient to them.
template <class F>
Node* attach(Arena& arena, const Tensor& out, const char* op, std::initializer_list<Tensor> parents, F backward) {
  Node* node = arena.make<Node>();
  node->op = op;
  node->out = out;
  for (const Tensor& p : parents)
    if (p.defined()) node->parents[node->n_parents++] = p;
  node->backward = BackwardFn(backward);
  out.impl()->requires_grad = true;
  out.impl()->node = node;
  return node;
}

inline bool any_wants_grad(std::initializer_list<Tensor> ts) {
  for (const Tensor& t : ts)
    if (wants_grad(t)) return true;
  return false;
}

// grad pointer of a parent, or nullptr when it does not require grad
inline float* grad_of(const Tensor& t) { return t.defined() && t.requires_grad() ? t.grad() : nullptr; }

// The same for a backward that writes every element: *overwrite when the buffer holds no
// contribution yet (write it with =, it was never zeroed), else add with += (Tensor::grad_to_write)
inline float* grad_to_write(const Tensor& t, bool* overwrite) {
  *overwrite = false;
  return t.defined() && t.requires_grad() ? t.grad_to_write(overwrite) : nullptr;
}

// In a recycling backward (Tensor::GradBuffers::recycle) an op's output gradient is dead once the
// op's backward returns. An input whose gradient buffer holds nothing yet can take the output's
// buffer instead of a copy of it: the two swap, and the input's untouched buffer is recycled in
// the output's place. True when it did (t's gradient now holds out's); else the caller copies or
// adds as usual. Never a parameter's gradient (it is not the arena's, and never unset).
inline bool take_output_grad(const Tensor& t, const Tensor& out) {
  if (!t.defined() || !t.requires_grad()) return false;
  TensorImpl* in = t.impl();
  TensorImpl* o = out.impl();
  if (!o->arena || !o->arena->recycling_grads || in->arena != o->arena || !in->grad || !in->grad_unset || !o->grad ||
      o->grad_unset || in->shape.numel() != o->shape.numel())
    return false;
  std::swap(in->grad, o->grad);
  in->grad_unset = false;
  o->grad_unset = true;
  return true;
}

}  // namespace tinygpt::nn::graph
