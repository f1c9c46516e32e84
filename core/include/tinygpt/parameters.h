// parameters.h — where a model's parameters live: one contiguous float block for all of them,
// one for their gradients (same layout), and a named view (an nn::TensorImpl) into both per
// entry of the table. Both models (model::TinyGPT, model::Seq2Seq) keep theirs here, so AdamW,
// clipping, checkpoints and safetensors see every model as one block plus a table of names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/optim.h"
#include "tinygpt/tensor.h"

namespace tinygpt::model {

struct ParamInfo {
  std::string name;   // GPT-2 / nanoGPT naming: "h.0.attn.c_attn.weight"
  nn::Shape shape;
  int64_t offset;     // into the parameter (and gradient) block
  bool decay;         // matrices and embeddings (dim >= 2) get weight decay
};

class ParameterBlock {
 public:
  ParameterBlock() = default;
  ParameterBlock(const ParameterBlock&) = delete;  // the views point into this object's blocks
  ParameterBlock& operator=(const ParameterBlock&) = delete;

  // Appends an entry; offsets follow in the order of the calls. Only before allocate().
  void add(const std::string& name, nn::Shape shape, bool decay);
  // Allocates both blocks (zeros) and the views. `expected` is the model's closed-form parameter
  // count: a table that disagrees is an internal error. Too big: "out of memory" (tinygpt::Error).
  void allocate(int64_t expected);

  int64_t size() const { return int64_t(params_.size()); }
  float* params() { return params_.data(); }
  const float* params() const { return params_.data(); }
  // The gradient block, every view's share of it settled (settle_grads)
  float* grads() {
    settle_grads();
    return grads_.data();
  }
  const float* grads() const {
    settle_grads();
    return grads_.data();
  }
  const std::vector<ParamInfo>& table() const { return table_; }
  const ParamInfo& info(const std::string& name) const;  // throws if unknown
  nn::Tensor tensor(const std::string& name) const;      // throws if unknown
  nn::Tensor tensor(size_t index) const;                 // the index-th entry of the table
  // Zero gradients, lazily: each view's gradient is marked unset (nn::TensorImpl::grad_unset), not
  // cleared. A backward's first writer of a whole view (a weight's x^T @ dy) writes it instead of
  // adding to zeros, any other first reader zeroes it (nn::Tensor::grad), and grads() zeroes what no
  // op touched: the same values as a memset first, without that pass over the block.
  void zero_grad();
  // Zeroes the views still unset (no gradient reached them since zero_grad).
  void settle_grads() const;
  // Runs of the block with one weight-decay setting, in order (for optim::AdamW).
  std::vector<optim::DecaySegment> decay_segments() const;

 private:
  std::vector<float> params_;          // all parameters, one block
  std::vector<float> grads_;           // their gradients, same layout
  std::vector<ParamInfo> table_;
  mutable std::vector<nn::TensorImpl> views_;  // one per table entry; never resized after allocate()
};

// What every model shows of its parameters (TinyGPT and Seq2Seq derive from it): the blocks
// and the table of named views into them.
class ModelParameters {
 public:
  int64_t num_parameters() const { return block_.size(); }
  float* params() { return block_.params(); }
  const float* params() const { return block_.params(); }
  float* grads() { return block_.grads(); }
  const float* grads() const { return block_.grads(); }
  const std::vector<ParamInfo>& param_table() const { return block_.table(); }
  const ParamInfo& param_info(const std::string& name) const { return block_.info(name); }  // throws if unknown
  nn::Tensor param(const std::string& name) const { return block_.tensor(name); }         // throws if unknown
  void zero_grad() { block_.zero_grad(); }

 protected:
  ParameterBlock block_;  // every parameter and gradient, and their named views
};

}  // namespace tinygpt::model
