// rnn.h — recurrent language models: a tanh RNN, a GRU and an LSTM on the same tensors, autograd,
// optimizer and run loop as TinyGPT (docs/rnn.md).
//
// Dimensions (shape comments): B batch, T time (the window, <= block_size), V = vocab_size (256 bytes, or BPE),
// E embedding width (n_embd), H hidden units (n_hidden), L layers (n_layer), G gate blocks
// (rnn 1, gru 3, lstm 4).
//
// Forward:
//   x_0 = wte[tokens]                                              (B, T, E)
//   x_l = recurrent layer l over x_{l-1}, from the state h_0 (c_0)  (B, T, H)   (nn::recurrent)
//   logits = x_L @ lm_head.weight + lm_head.bias                   (B, T, V)
// Each layer is torch.nn.RNN / GRU / LSTM's (kernel_list.h: rnn_forward): the same gate order
// (GRU r z n, LSTM i f g o), both bias vectors, and its weights stored as torch stores them,
// weight_ih (G*H, in) and weight_hh (G*H, H), under torch's names ("rnn.weight_ih_l0", ...), so a
// torch.nn.LSTM loads the file's tensors as they are. The embedding is TinyGPT's "wte" (V, E) and
// the head is stored (in, out) like TinyGPT's ("lm_head.weight" (H, V)).
//
// Backpropagation through time runs over the window. A stateless run starts every window from
// zeros; a stateful one (Config::stateful) continues the text of the previous window from its
// last hidden state, and the gradient stops at the window's start (truncated BPTT, as char-rnn).
#pragma once

#include <cstdint>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/ops.h"
#include "tinygpt/parameters.h"
#include "tinygpt/tensor.h"

namespace tinygpt::model {

// The cell of a recurrent kind: 0 rnn, 1 gru, 2 lstm (the numbering of nn::recurrent and the kernels).
int cell_of(ModelKind kind);
constexpr int cell_gates(int cell) { return cell == 0 ? 1 : cell == 1 ? 3 : 4; }

// Parameters of an embedding (V, E), L layers of H units with `cell`, and a head (H, V) + (V).
int64_t recurrent_num_parameters(int cell, int V, int E, int H, int L);
// Bytes a training step of batch B at T = block_size uses in the arena (activations, their
// gradients and the backward pass's buffers): an upper bound, reserved before the first step.
int64_t recurrent_activation_bytes(const Config& c, int B);

// The hidden state of every layer after some text: h (L, B, H), and c (L, B, H) for the LSTM.
// Also the scratch of Recurrent::decode (sized on first use).
struct RecurrentState {
  int B = 0;
  std::vector<float> h, c;
  std::vector<float> x, xg, hs, cs, gates, logits;  // decode's scratch
};

class Recurrent : public ModelParameters {  // params(), grads(), param_table(), param(name), ...
 public:
  explicit Recurrent(const Config& config);  // validates (a recurrent kind), then init_weights(seed)
  Recurrent(const Recurrent&) = delete;
  Recurrent& operator=(const Recurrent&) = delete;

  const Config& config() const { return config_; }
  int cell() const { return cell_; }
  int hidden() const { return config_.n_hidden; }
  int layers() const { return config_.n_layer; }

  // torch's defaults: wte N(0, 1) (nn.Embedding); every weight and bias of the layers
  // U(-1/sqrt(H), 1/sqrt(H)) (nn.RNN / GRU / LSTM); the head U(-1/sqrt(H), 1/sqrt(H)) (nn.Linear).
  void init_weights(uint64_t seed);

  // logits (B, T, V) for tokens (B, T), starting from `start` (nullptr: zeros; else start->B == B)
  // and, if `end` is given, leaving the state after the last token there (end may be start).
  // Builds a graph when grad mode is on; the gradient never flows into `start` (it is a constant).
  nn::Tensor forward_logits(nn::Arena& arena, const int32_t* tokens, int B, int T, const RecurrentState* start = nullptr,
                            RecurrentState* end = nullptr);
  // Mean cross-entropy of predicting targets (B, T) from tokens (B, T).
  nn::Tensor loss(nn::Arena& arena, const int32_t* tokens, const int32_t* targets, int B, int T,
                  const RecurrentState* start = nullptr, RecurrentState* end = nullptr);

  // What the last forward_logits computed in layer l (valid until its arena is reset):
  // the hidden states (B, T, H); the LSTM's cell states (B, T, H); the gates (B, T, 4H):
  // gru r z n (and W_hn h + b_hn), lstm i f g o; undefined where the cell has none.
  nn::Tensor last_hidden(int layer) const { return last_h_.at(size_t(layer)); }
  nn::Tensor last_cell(int layer) const { return last_c_.at(size_t(layer)); }
  nn::Tensor last_gates(int layer) const { return last_gates_.at(size_t(layer)); }
  // The token embeddings (V, E).
  nn::Tensor embedding() const { return wte_; }

  // ---- generation (no graph, no arena): one sequence ----
  void reset_state(RecurrentState& state) const;  // zeros for B = 1 (sizes the buffers)
  // Feeds n >= 1 tokens; returns the logits (V) after the last. There is no window: the state
  // carries the whole text so far.
  const float* decode(RecurrentState& state, const int32_t* tokens, int n) const;

 private:
  struct Layer {
    nn::RecurrentWeights w;  // w_ih (G*H, in), w_hh (G*H, H), b_ih, b_hh (G*H)
  };
  Config config_;
  int cell_ = 2;
  nn::Tensor wte_;            // (V, E)
  std::vector<Layer> layers_;
  nn::Tensor lm_w_, lm_b_;    // (H, V), (V)
  std::vector<nn::Tensor> last_h_, last_c_, last_gates_;
};

}  // namespace tinygpt::model
