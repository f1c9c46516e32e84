// tensor.h — row-major float tensors and reverse-mode autograd.
//
// A Tensor is a small handle to a TensorImpl: flat row-major storage, a shape, an optional
// gradient buffer and the Node (op) that produced it. Activations live in an Arena, a bump
// allocator that is rewound after every training step, so a steady-state step allocates
// nothing: the same sequence of requests reuses the same memory. Parameters live in the
// model's contiguous parameter block and are never freed by an Arena.
//
// Autograd: an op that sees an input requiring grad attaches a Node to its output holding
// the parents and a backward closure. Tensor::backward() seeds d(loss)/d(loss) = 1, orders
// the nodes topologically and runs the closures in reverse; every closure accumulates into
// its parents' gradients with +=, so a tensor used twice receives both contributions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "tinygpt/error.h"

namespace tinygpt::nn {

constexpr int kMaxDims = 4;
constexpr int kMaxParents = 8;  // a recurrent layer has 7: x, four weights, h0, c0

struct Shape {
  int ndim = 0;                 // 0 = scalar
  int64_t dims[kMaxDims] = {};  // row-major: the last dim is contiguous

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);
  int64_t numel() const;
  int64_t operator[](int i) const { return dims[i < 0 ? ndim + i : i]; }
  int64_t last() const { return ndim ? dims[ndim - 1] : 1; }
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const;  // "(2, 3, 4)"
};

struct Node;
class Arena;

struct TensorImpl {
  float* data = nullptr;  // (numel) row-major
  float* grad = nullptr;  // (numel); for arena tensors created when backward reaches it
  Shape shape;
  bool requires_grad = false;
  // grad is allocated but not yet zeroed: the first reader zeroes it (Tensor::grad()), or the
  // first writer that sets every element takes it as is (Tensor::grad_to_write()), so a gradient
  // that one op writes whole is never cleared first
  bool grad_unset = false;
  Node* node = nullptr;    // the op that produced this tensor; nullptr for leaves
  Arena* arena = nullptr;  // where a gradient buffer is allocated on demand
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TensorImpl* impl) : p_(impl) {}

  bool defined() const { return p_ != nullptr; }
  const Shape& shape() const { return p_->shape; }
  int64_t numel() const { return p_->shape.numel(); }
  int64_t dim(int i) const { return p_->shape[i]; }
  float* data() const { return p_->data; }
  float* grad() const {
    if (p_->grad_unset) zero_unset_grad();
    return p_->grad;
  }
  // The gradient buffer for an op's backward that writes every element of it: *overwrite is set
  // when it holds no contribution yet (write =, skipping the zeroing), else it must add (+=).
  float* grad_to_write(bool* overwrite) const {
    *overwrite = p_->grad_unset;
    p_->grad_unset = false;
    return p_->grad;
  }
  bool requires_grad() const { return p_->requires_grad; }
  Node* node() const { return p_->node; }
  TensorImpl* impl() const { return p_; }
  float item() const;  // the value of a one-element tensor

  // Reverse-mode differentiation from this scalar: seeds 1 and accumulates (+=) into the
  // gradient of every tensor that requires grad and that this one depends on.
  //   GradBuffers::keep:    every gradient stays readable afterwards (tests, learn-by-hand);
  //   GradBuffers::recycle: an op's output gradient is complete when its backward runs and dead
  //     after it; its buffer goes back to the arena, and a later gradient of the same size takes
  //     it (a training step: only the leaves' gradients are read afterwards). The gradients then
  //     live in the buffers the backward just used, still in cache, instead of as many fresh
  //     ones as there are activations. Intermediate gradients are unreadable (null) afterwards.
  enum class GradBuffers { keep, recycle };
  void backward(GradBuffers buffers = GradBuffers::keep) const;

 private:
  void zero_unset_grad() const;
  TensorImpl* p_ = nullptr;
};

// ---- Backward closures ------------------------------------------------------------------
// A type-erased callable stored inline (no heap): the lambda an op writes captures Tensor
// handles and sizes, which are trivially copyable.
class BackwardFn {
 public:
  BackwardFn() = default;
  template <class F>
  BackwardFn(F f) {  // NOLINT: implicit on purpose, ops pass lambdas
    static_assert(sizeof(F) <= sizeof(storage_), "backward closure captures too much");
    static_assert(std::is_trivially_copyable_v<F> && std::is_trivially_destructible_v<F>,
                  "backward closures must capture plain values (Tensor handles, sizes)");
    ::new (static_cast<void*>(storage_)) F(f);
    call_ = [](const void* self) { (*static_cast<const F*>(self))(); };
  }
  void operator()() const { call_(storage_); }
  explicit operator bool() const { return call_ != nullptr; }

 private:
  alignas(16) unsigned char storage_[112];
  void (*call_)(const void*) = nullptr;
};

struct Node {
  const char* op = "";  // "linear", "layernorm", ... (for debugging and docs)
  Tensor out;
  Tensor parents[kMaxParents];
  int n_parents = 0;
  BackwardFn backward;  // reads out.grad(), accumulates into the parents' grads
  uint32_t visit_mark = 0;
};

// ---- Arena --------------------------------------------------------------------------------
// Bump allocator in 64-byte-aligned chunks. reset() rewinds without freeing, so a loop that
// makes the same requests every iteration allocates from the heap only in its first one.
class Arena {
 public:
  explicit Arena(size_t first_chunk_bytes = 1 << 20);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* alloc_bytes(size_t n);  // 64-byte aligned, uninitialised
  float* alloc_floats(int64_t n) { return static_cast<float*>(alloc_bytes(size_t(n) * 4)); }
  float* alloc_zeros(int64_t n);
  template <class T>
  T* make() {
    static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
    return ::new (alloc_bytes(sizeof(T))) T();
  }

  Tensor tensor(const Shape& shape, bool requires_grad = false);  // uninitialised data
  Tensor zeros(const Shape& shape, bool requires_grad = false);
  Tensor from(const Shape& shape, const std::vector<float>& values, bool requires_grad = false);

  // Forget everything allocated and keep the memory. When the last pass spilled over several
  // chunks they are merged into one, so the next identical pass allocates nothing.
  void reset();
  // Makes sure the arena holds at least `bytes` in one chunk before its first use, so a pass
  // whose size is known in advance never spills (and never needs merging, i.e. memory never
  // grows after the first pass). No effect once memory is held.
  void reserve(size_t bytes);
  size_t bytes_used() const;        // since the last reset
  size_t bytes_reserved() const;    // total held from the heap
  uint64_t chunk_allocations() const { return chunk_allocations_; }

  // Scratch for Tensor::backward's traversal; kept here so it is reused, not reallocated.
  std::vector<Node*> topo_order;
  std::vector<std::pair<Node*, int>> dfs_stack;
  uint32_t visit_epoch = 0;
  // Gradient buffers that a recycling backward gave back (GradBuffers::recycle): (floats, buffer),
  // taken last-in first-out by the next gradient of exactly that size; emptied by reset().
  std::vector<std::pair<int64_t, float*>> free_grads;
  bool recycling_grads = false;  // while a GradBuffers::recycle backward runs (graph::take_output_grad)
  float* take_grad_buffer(int64_t n);  // a freed buffer of n floats, or a new one

 private:
  struct Chunk {
    unsigned char* base;
    size_t size;
  };
  void add_chunk(size_t size);
  std::vector<Chunk> chunks_;
  size_t current_ = 0;  // index of the chunk being filled
  size_t offset_ = 0;   // bytes used in chunks_[current_]
  size_t used_before_current_ = 0;
  size_t first_chunk_bytes_;
  uint64_t chunk_allocations_ = 0;
};

// ---- Grad mode ------------------------------------------------------------------------------
// Ops build graph nodes only while grad mode is on (the default). Inference turns it off:
//   { nn::GradMode no_grad(false); ... }   // nothing in this scope builds a graph
bool is_grad_enabled();
class GradMode {
 public:
  explicit GradMode(bool enabled);
  ~GradMode();
  GradMode(const GradMode&) = delete;
  GradMode& operator=(const GradMode&) = delete;

 private:
  bool previous_;
};

// True when an op should record a node for this input.
inline bool wants_grad(const Tensor& t) { return t.defined() && t.requires_grad() && is_grad_enabled(); }

}  // namespace tinygpt::nn
