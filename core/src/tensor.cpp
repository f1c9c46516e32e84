// tensor.cpp — Shape, Arena, grad mode and the backward pass.
#include "tinygpt/tensor.h"

#include <algorithm>
#include <cstring>

namespace tinygpt::nn {

// ---- Shape --------------------------------------------------------------------------------

Shape::Shape(std::initializer_list<int64_t> d) {
  if (d.size() > size_t(kMaxDims)) throw tinygpt::Error("tensors have at most 4 dimensions");
  for (int64_t x : d) {
    if (x < 0) throw tinygpt::Error("tensor dimensions must be >= 0");
    dims[ndim++] = x;
  }
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= dims[i];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (ndim != o.ndim) return false;
  for (int i = 0; i < ndim; i++)
    if (dims[i] != o.dims[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::string s = "(";
  for (int i = 0; i < ndim; i++) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + ")";
}

float Tensor::item() const {
  if (numel() != 1) throw tinygpt::Error("item() needs a one-element tensor, got shape " + shape().str());
  return p_->data[0];
}

// ---- Arena --------------------------------------------------------------------------------

static constexpr size_t kAlign = 64;

Arena::Arena(size_t first_chunk_bytes) : first_chunk_bytes_(std::max<size_t>(first_chunk_bytes, 4096)) {
  topo_order.reserve(256);
  dfs_stack.reserve(256);
}

Arena::~Arena() {
  for (Chunk& c : chunks_) ::operator delete(c.base, std::align_val_t(kAlign));
}

void* Arena::alloc_bytes(size_t n) {
  n = n == 0 ? kAlign : (n + kAlign - 1) & ~(kAlign - 1);
  // Use the current chunk, else the next one that exists (after a reset), else a new one.
  while (current_ < chunks_.size()) {
    Chunk& c = chunks_[current_];
    if (offset_ + n <= c.size) {
      void* p = c.base + offset_;
      offset_ += n;
      return p;
    }
    used_before_current_ += offset_;
    current_++;
    offset_ = 0;
  }
  add_chunk(std::max({n, first_chunk_bytes_, chunks_.empty() ? size_t(0) : chunks_.back().size * 2}));
  offset_ = n;
  return chunks_[current_].base;
}

void Arena::add_chunk(size_t size) {
  size = (size + kAlign - 1) & ~(kAlign - 1);
  void* base = ::operator new(size, std::align_val_t(kAlign), std::nothrow);
  if (!base)
    throw tinygpt::Error("out of memory: could not allocate " + std::to_string(size >> 20) + " MiB of working memory");
  chunk_allocations_++;
  chunks_.push_back({static_cast<unsigned char*>(base), size});
  current_ = chunks_.size() - 1;
  offset_ = 0;
}

float* Arena::alloc_zeros(int64_t n) {
  float* p = alloc_floats(n);
  std::memset(p, 0, size_t(n) * sizeof(float));
  return p;
}

Tensor Arena::tensor(const Shape& shape, bool requires_grad) {
  TensorImpl* t = make<TensorImpl>();
  t->shape = shape;
  t->data = alloc_floats(shape.numel());
  t->requires_grad = requires_grad;
  t->arena = this;
  return Tensor(t);
}

Tensor Arena::zeros(const Shape& shape, bool requires_grad) {
  Tensor t = tensor(shape, requires_grad);
  std::memset(t.data(), 0, size_t(t.numel()) * sizeof(float));
  return t;
}

Tensor Arena::from(const Shape& shape, const std::vector<float>& values, bool requires_grad) {
  if (int64_t(values.size()) != shape.numel())
    throw tinygpt::Error("Arena::from: " + std::to_string(values.size()) + " values for shape " + shape.str());
  Tensor t = tensor(shape, requires_grad);
  std::copy(values.begin(), values.end(), t.data());
  return t;
}

void Arena::reset() {
  // If the last pass needed several chunks, replace them by one chunk that holds all of it,
  // so later passes making the same requests never touch the heap again.
  size_t used = bytes_used();
  if (chunks_.size() > 1) {
    for (Chunk& c : chunks_) ::operator delete(c.base, std::align_val_t(kAlign));
    chunks_.clear();
    add_chunk(used + used / 8);
  }
  current_ = 0;
  offset_ = 0;
  used_before_current_ = 0;
  free_grads.clear();
}

void Arena::reserve(size_t bytes) {
  if (chunks_.empty() && bytes > 0) {
    add_chunk(bytes);
    current_ = 0;
  }
}

size_t Arena::bytes_used() const { return used_before_current_ + offset_; }

size_t Arena::bytes_reserved() const {
  size_t s = 0;
  for (const Chunk& c : chunks_) s += c.size;
  return s;
}

// ---- Grad mode ------------------------------------------------------------------------------

static thread_local bool g_grad_enabled = true;

bool is_grad_enabled() { return g_grad_enabled; }
GradMode::GradMode(bool enabled) : previous_(g_grad_enabled) { g_grad_enabled = enabled; }
GradMode::~GradMode() { g_grad_enabled = previous_; }

// ---- Backward -----------------------------------------------------------------------------

static void ensure_grad(const Tensor& t) {
  TensorImpl* p = t.impl();
  if (p->grad) return;
  if (!p->arena) throw tinygpt::Error("backward: a tensor that requires grad has no gradient buffer");
  p->grad = p->arena->take_grad_buffer(p->shape.numel());
  p->grad_unset = true;  // zeroed by the first reader, or overwritten by the first writer
}

void Tensor::zero_unset_grad() const {
  std::memset(p_->grad, 0, size_t(numel()) * sizeof(float));
  p_->grad_unset = false;
}

float* Arena::take_grad_buffer(int64_t n) {
  for (size_t i = free_grads.size(); i-- > 0;)
    if (free_grads[i].first == n) {
      float* p = free_grads[i].second;
      free_grads.erase(free_grads.begin() + std::ptrdiff_t(i));
      return p;
    }
  return alloc_floats(n);
}

void Tensor::backward(GradBuffers buffers) const {
  if (!p_) throw tinygpt::Error("backward() on an undefined tensor");
  if (numel() != 1) throw tinygpt::Error("backward() needs a scalar (one-element) tensor, got shape " + shape().str());
  if (!p_->requires_grad) throw tinygpt::Error("backward() on a tensor that does not require grad");
  if (!p_->arena) throw tinygpt::Error("backward() on a tensor that is not an op's output");
  Arena& arena = *p_->arena;

  // Topological order by iterative depth-first search: a node is appended after all of
  // its parents' nodes, so parents come before children.
  std::vector<Node*>& order = arena.topo_order;
  std::vector<std::pair<Node*, int>>& stack = arena.dfs_stack;
  order.clear();
  stack.clear();
  const uint32_t mark = ++arena.visit_epoch;
  if (p_->node) {
    p_->node->visit_mark = mark;
    stack.push_back({p_->node, 0});
  }
  while (!stack.empty()) {
    auto& [node, next_parent] = stack.back();
    if (next_parent < node->n_parents) {
      Node* parent = node->parents[next_parent++].node();
      if (parent && parent->visit_mark != mark) {
        parent->visit_mark = mark;
        stack.push_back({parent, 0});
      }
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }

  // Seed: d(loss)/d(loss) = 1, then run the nodes children-first.
  struct Recycling {  // arena.recycling_grads for this pass, whichever way it ends
    Arena& arena;
    ~Recycling() { arena.recycling_grads = false; }
  } recycling{arena};
  arena.recycling_grads = buffers == GradBuffers::recycle;
  ensure_grad(*this);
  grad()[0] += 1.0f;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    for (int i = 0; i < node->n_parents; i++)
      if (node->parents[i].requires_grad()) ensure_grad(node->parents[i]);
    node->backward();
    // every reader of node->out ran before it (children first): its gradient is dead now
    TensorImpl* out = node->out.impl();
    if (buffers == GradBuffers::recycle && out != p_ && out->arena && out->grad) {
      out->arena->free_grads.push_back({out->shape.numel(), out->grad});
      out->grad = nullptr;
    }
  }
}

}  // namespace tinygpt::nn
