// parameters.cpp — the parameter and gradient blocks of a model and their named views.
#include "tinygpt/parameters.h"

#include <cstring>
#include <new>

#include "tinygpt/error.h"

namespace tinygpt::model {

void ParameterBlock::add(const std::string& name, nn::Shape shape, bool decay) {
  if (!views_.empty()) throw Error("internal: parameter '" + name + "' added after the blocks were allocated");
  const int64_t offset = table_.empty() ? 0 : table_.back().offset + table_.back().shape.numel();
  table_.push_back({name, shape, offset, decay});
}

void ParameterBlock::allocate(int64_t expected) {
  const int64_t n = table_.empty() ? 0 : table_.back().offset + table_.back().shape.numel();
  if (n != expected)
    throw Error("internal: the parameter table holds " + std::to_string(n) + " numbers, num_parameters() says " +
                std::to_string(expected));
  try {
    params_.assign(size_t(n), 0.0f);
    grads_.assign(size_t(n), 0.0f);
  } catch (const std::bad_alloc&) {
    throw Error("out of memory: the model needs " + std::to_string(n * 8 >> 20) + " MiB for parameters and gradients");
  }
  views_.resize(table_.size());
  for (size_t i = 0; i < table_.size(); i++) {
    nn::TensorImpl& v = views_[i];
    v.data = params_.data() + table_[i].offset;
    v.grad = grads_.data() + table_[i].offset;
    v.shape = table_[i].shape;
    v.requires_grad = true;
  }
}

const ParamInfo& ParameterBlock::info(const std::string& name) const {
  for (const ParamInfo& p : table_)
    if (p.name == name) return p;
  throw Error("no parameter named '" + name + "'");
}

nn::Tensor ParameterBlock::tensor(const std::string& name) const {
  for (size_t i = 0; i < table_.size(); i++)
    if (table_[i].name == name) return tensor(i);
  throw Error("no parameter named '" + name + "'");
}

nn::Tensor ParameterBlock::tensor(size_t index) const {
  // a Tensor is a handle that autograd writes gradients through; the block owns the storage
  return nn::Tensor(const_cast<nn::TensorImpl*>(&views_.at(index)));
}

void ParameterBlock::zero_grad() {
  for (nn::TensorImpl& v : views_) v.grad_unset = true;
}

void ParameterBlock::settle_grads() const {
  for (nn::TensorImpl& v : views_)
    if (v.grad_unset) {
      std::memset(v.grad, 0, size_t(v.shape.numel()) * sizeof(float));
      v.grad_unset = false;
    }
}

std::vector<optim::DecaySegment> ParameterBlock::decay_segments() const {
  std::vector<optim::DecaySegment> segments;
  for (const ParamInfo& p : table_) {
    if (!segments.empty() && segments.back().decay == p.decay)
      segments.back().count += p.shape.numel();  // merge runs: fewer, longer loops
    else
      segments.push_back({p.offset, p.shape.numel(), p.decay});
  }
  return segments;
}

}  // namespace tinygpt::model
