// seq2seq.h — the encoder-decoder Transformer of the seed document (translation:
// "我 爱 吃 火锅 -> I like to eat hot pot"), on the same tensors, kernels and optimizer as TinyGPT.
//
// Dimensions (shape comments):
//   B   batch                      S   source length (<= block_size)   T   target length (<= block_size)
//   C   channels (n_embd)          F   feed-forward width (d_ff)        V   vocabulary = 259 (pairs.h)
//   Le  encoder layers             Ld  decoder layers                   NH  heads, HS = C / NH
//
// Forward, as the seed writes it (post-norm: LayerNorm after each residual add):
//   x   = src_embed[src] + PE[0:S]                                (B, S, C)
//   encoder layer:   y = LN1(self_attn(x, src padding) + x)
//                    x = LN2(FF(y) + y),   FF(y) = ReLU(y W1 + b1) W2 + b2      hidden (B, S, F)
//   enc = x                                                       (B, S, C)   (no LayerNorm after the stack)
//   z   = tgt_embed[tgt_in] + PE[0:T]                             (B, T, C)
//   decoder layer:   y = LN1(self_attn(z, causal + tgt padding) + z)
//                    u = LN2(cross_attn(q = y, k = v = enc, src padding) + y)
//                    z = LN3(FF(u) + u)
//   logits = LN_f(z) W_p + b_p                                    (B, T, V)
// PE is the standard sinusoidal encoding, pe[pos, 2k] = sin(pos / 10000^(2k/C)),
// pe[pos, 2k+1] = cos(pos / 10000^(2k/C)), computed once, not learned. The attention projections
// are plain matrix products (no biases), as in the seed and the original paper: q = x W_q,
// [k | v] = x W_kv, out = attn W_o. The feed-forward layers and the output projection have biases.
//
// Parameters and gradients each live in one contiguous float block described by param_table(),
// like TinyGPT (model.h), so AdamW, clipping and checkpoints work on it unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/model.h"
#include "tinygpt/ops.h"
#include "tinygpt/optim.h"
#include "tinygpt/pairs.h"
#include "tinygpt/tensor.h"

namespace tinygpt::model {

struct Seq2SeqDims {
  int vocab_size = data::kPairVocab;  // V: the text tokens (256 bytes, or BPE) + BOS, EOS, PAD (pairs.h: PairTokens)
  int n_enc_layer = 2;
  int n_dec_layer = 2;
  int n_head = 4;
  int n_embd = 64;
  int d_ff = 256;
  int block_size = 32;   // the longest source, and the longest decoder input (BOS + target), in tokens
  uint64_t seed = 1337;  // weight initialisation

  data::PairTokens tokens() const { return data::PairTokens::of_model_vocab(vocab_size); }
  void validate() const;  // throws tinygpt::Error naming the bad field
  int64_t num_parameters() const;
  bool operator==(const Seq2SeqDims&) const = default;
};

// Bytes a training step of a batch of B pairs at the largest shapes (S = T = block_size) uses
// in the arena: activations and their gradients. An upper bound: reserve it (nn::Arena::reserve)
// before the first step and the arena never grows.
int64_t seq2seq_activation_bytes(const Seq2SeqDims& dims, int B);

// pe (T, C): pe[pos, 2k] = sin(pos / 10000^(2k/C)), pe[pos, 2k+1] = cos(pos / 10000^(2k/C)),
// computed in double and rounded once.
void sinusoidal_encoding(float* pe, int T, int C);

enum class AttentionKind { encoder_self, decoder_self, cross };

// Incremental decoding state: the decoder's self-attention keys/values of the tokens fed so far
// (one row per hypothesis), and the cross-attention keys/values of the encoder output, computed
// once per source. Reused across calls; sized by Seq2Seq::start_decoding.
struct Seq2SeqCache {
  int rows = 0;         // hypotheses decoded side by side (batch or beam)
  int S = 0;            // source length (padded)
  int length = 0;       // target positions fed so far
  bool shared_source = false;  // one source for every row (beam search) instead of one per row
  std::vector<uint8_t> src_pad;   // (rows, S) 1 = padding
  std::vector<float> cross_kv;    // (Ld, n_src, S, 2C): [k | v] of the encoder output per decoder layer
  std::vector<float> self_k, self_v;  // (Ld, rows, block_size, C)
  std::vector<float> cross_att;   // (Ld, rows, NH, S): cross-attention weights of the last step
  // scratch for one step
  std::vector<float> x, h, qkv, y, ff, logits, stats, att, reorder;
  nn::Arena arena;  // the encoder pass
};

class Seq2Seq : public ModelParameters {  // params(), grads(), param_table(), param(name), ...
 public:
  explicit Seq2Seq(const Seq2SeqDims& dims);  // validates, then initialises (init_weights)
  Seq2Seq(const Seq2Seq&) = delete;
  Seq2Seq& operator=(const Seq2Seq&) = delete;
  using Cache = Seq2SeqCache;  // what translate.cpp decodes with

  const Seq2SeqDims& dims() const { return dims_; }

  // Embeddings N(0, 1) (like torch.nn.Embedding); every other matrix Xavier-uniform (like
  // torch.nn.Transformer's reset); biases 0; LayerNorm gains 1.
  void init_weights(uint64_t seed);
  // Runs of the parameter block with one weight-decay setting, in order (for optim::AdamW).
  std::vector<optim::DecaySegment> decay_segments() const { return block_.decay_segments(); }

  // The sinusoidal table (block_size, C).
  const float* positional_encoding() const { return pe_.data(); }

  // enc (B, S, C) for src (B, S); PAD tokens are masked as keys. No attention maps recorded.
  nn::Tensor encode(nn::Arena& arena, const int32_t* src, int B, int S) const;
  // logits (B, T, V) for src (B, S) and tgt_in (B, T) (teacher forcing). Records the attention maps.
  nn::Tensor forward_logits(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, int B, int S, int T);
  // Mean cross-entropy over the positions whose tgt_out is not -1.
  nn::Tensor loss(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, const int32_t* tgt_out, int B, int S,
                  int T);
  nn::Tensor loss(nn::Arena& arena, const data::PairBatch& batch) {
    return loss(arena, batch.src.data(), batch.tgt_in.data(), batch.tgt_out.data(), batch.B, batch.S, batch.T);
  }

  // Attention weights of the last forward_logits, (B, NH, Tq, Tk) per layer: encoder self
  // (Tq = Tk = S), decoder self (T, T), cross (T, S). They live in that call's arena.
  nn::Tensor last_attention(AttentionKind kind, int layer) const;

  // ---- incremental decoding (no graph; KV cache) ----
  // Runs the encoder on src (n_src, S) and prepares `rows` hypotheses that start empty.
  // shared_source: n_src = 1 and every row decodes that source (beam search); else n_src = rows.
  void start_decoding(Seq2SeqCache& cache, const int32_t* src, int S, int rows, bool shared_source) const;
  // Feeds one token per row at position cache.length; returns the logits (rows, V) for the next one.
  const float* decode_step(Seq2SeqCache& cache, const int32_t* tokens) const;
  // Row r continues the hypothesis of row parent[r] (beam search): the decoder's keys and values
  // (and the source, when not shared) are copied accordingly.
  void reorder_rows(Seq2SeqCache& cache, const int* parent) const;

 private:
  struct EncoderLayer {
    nn::Tensor qkv_w, out_w;          // (C, 3C), (C, C)
    nn::Tensor ln1_g, ln1_b;          // (C), (C)
    nn::Tensor fc1_w, fc1_b;          // (C, F), (F)
    nn::Tensor fc2_w, fc2_b;          // (F, C), (C)
    nn::Tensor ln2_g, ln2_b;          // (C), (C)
  };
  struct DecoderLayer {
    nn::Tensor qkv_w, out_w;          // (C, 3C), (C, C)   self-attention
    nn::Tensor ln1_g, ln1_b;          // (C), (C)
    nn::Tensor q_w, kv_w, cross_out_w;  // (C, C), (C, 2C), (C, C)   cross-attention
    nn::Tensor ln2_g, ln2_b;          // (C), (C)
    nn::Tensor fc1_w, fc1_b;          // (C, F), (F)
    nn::Tensor fc2_w, fc2_b;          // (F, C), (C)
    nn::Tensor ln3_g, ln3_b;          // (C), (C)
  };
  nn::Tensor embed(nn::Arena& arena, const nn::Tensor& table, const int32_t* tokens, int B, int T) const;
  // FF(x) + x: the feed-forward block and its residual connection
  nn::Tensor feed_forward_residual(nn::Arena& arena, const nn::Tensor& x, const nn::Tensor& w1, const nn::Tensor& b1,
                                   const nn::Tensor& w2, const nn::Tensor& b2) const;
  nn::Tensor encode_layers(nn::Arena& arena, const int32_t* src, const uint8_t* src_pad, int B, int S,
                           std::vector<nn::Tensor>* att) const;

  Seq2SeqDims dims_;
  std::vector<float> pe_;              // (block_size, C), not a parameter
  nn::TensorImpl pe_view_;
  nn::Tensor src_emb_, tgt_emb_;  // (V, C) each
  std::vector<EncoderLayer> enc_;
  std::vector<DecoderLayer> dec_;
  nn::Tensor lnf_g_, lnf_b_;      // (C), (C)
  nn::Tensor proj_w_, proj_b_;    // (C, V), (V)
  std::vector<nn::Tensor> enc_att_, dec_att_, cross_att_;  // last forward_logits' maps, per layer
};

}  // namespace tinygpt::model
