// learn.h — one training step of a GPT small enough to follow by hand, with every number named.
//
// The learn-by-hand mode of the page (docs/walkthrough.md, docs/learn.md) shows one step
// of docs/walkthrough.md's tiny model: its tokens [2, 1, 3, 0] -> x, y, its embedding tables, a
// one-block GPT (pre-norm, like model::TinyGPT) and one AdamW update. trace_step() runs that
// step with the project's own code — data::Dataset, the nn:: ops and their autograd,
// kernels:: for the statistics the fused ops keep to themselves, optim::clip_grad_norm and
// optim::AdamW — and returns every intermediate it sees, in order, with its name, shape,
// equation and the function that computed it. Nothing here recomputes the model's arithmetic.
//
// Shapes: B = 1 batch, T time, C channels, V vocab, NH heads, HS = C / NH head size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/optim.h"
#include "tinygpt/tensor.h"

namespace tinygpt::learn {

// One named parameter of the tiny model; names and order are model::TinyGPT's ("wte",
// "h.0.attn.c_attn.weight", ...), so the page and the docs can use the same words.
struct Param {
  std::string name;
  nn::Shape shape;
  std::vector<float> values;  // (shape.numel()) row-major
  bool decay;                 // matrices and embeddings get weight decay, like TinyGPT
};

// A one-block GPT with its batch and its optimiser settings.
struct Model {
  std::string name;             // "walkthrough" or "two-heads"
  int V = 4, C = 2, NH = 1, T = 3;
  std::vector<int32_t> tokens;  // (T + 1): x = tokens[0:T], y = tokens[1:T+1]
  std::vector<Param> params;
  float lr = 0.1f;              // the walkthrough's AdamW example: alpha 0.1, betas (0.9, 0.99), decay 0.1
  optim::AdamWConfig adamw{0.9f, 0.99f, 1e-8f, 0.1f};
  float grad_clip = 1.0f;       // the config's default max gradient norm
};

// docs/walkthrough.md's model: B = 1, T = 3, C = 2, V = 4, one head, tokens [2, 1, 3, 0]; its
// W_te and W_pe tables; Q = K = V = LN(X) (c_attn = [I I I]); c_proj = I with bias [0.1, -0.1];
// small fixed MLP weights; an LM head that turns LN_f(x) = [-1, +1] into the logits [2, 1, 0, -1].
Model walkthrough_model();
// The same step with two heads and a larger vocabulary: T = 3, C = 4, NH = 2 (HS = 2), V = 8.
Model two_head_model();
// "walkthrough" or "two-heads"; anything else throws tinygpt::Error naming the choices.
Model model_named(const std::string& name);

// Edits; bad input throws tinygpt::Error with a message and leaves the model unchanged.
void set_token(Model& model, int position, int token);  // position in [0, T], token in [0, V)
void set_weight(Model& model, const std::string& param, int64_t index, float value);  // finite value

// One named number or tensor of the step.
struct Entry {
  std::string name;      // "ln_1.mean", "dqkv", "m[wte]", ...
  std::string phase;     // "data", "forward", "backward" or "update"
  std::string node;      // the box of the step's graph it belongs to: "embedding", "ln_1", "attention", ...
  nn::Shape shape;
  std::vector<float> values;  // (shape.numel()); masked scores hold -infinity
  std::string equation;  // plain text with Unicode symbols
  std::string function;  // the core function that computed it, as docs/ names it ("nn::layernorm_lastdim")
  std::string doc;       // the docs/ page and section: "walkthrough.md#3-layernorm"
};

struct Trace {
  std::vector<Entry> entries;  // data, forward in execution order, backward in the order autograd
                               // visits the nodes, then the update
  float loss = 0.0f;
  float grad_norm = 0.0f;      // before clipping
};

// Runs one training step of `model` (which is not modified) and records it.
Trace trace_step(const Model& model);

}  // namespace tinygpt::learn
