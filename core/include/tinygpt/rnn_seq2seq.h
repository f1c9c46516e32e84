// rnn_seq2seq.h — the LSTM encoder-decoder with attention (Luong et al. 2015, "general" scores):
// the recurrent rival of the seed's Transformer translator (seq2seq.h), on the same pairs,
// tokens (pairs.h: V = 259), loss, decoding and metrics (translate.h). docs/rnn.md.
//
// Dimensions: B batch, S source length, T target length (BOS + target), E embedding width
// (n_embd), H hidden units (n_hidden), Le / Ld encoder / decoder layers, V = 259.
//
// Forward (teacher forcing):
//   enc_0 = src_embed[src]                          (B, S, E)
//   enc_k = LSTM layer k of the encoder over enc_{k-1}   (B, S, H), cell states (B, S, H)
//   the decoder's layer k starts from the encoder's layer k at the source's last real byte
//   (position len_b - 1 of row b; padding comes after it), zeros for k >= Le
//   dec_0 = tgt_embed[tgt_in]; dec_k = LSTM layer k of the decoder   (B, T, H)
//   q     = dec_Ld @ attn.weight                    (B, T, H)     score(t, s) = q_t . enc_s / sqrt(H)
//   a     = softmax_s(score), padding keys masked   (B, 1, T, S)  the alignment the page draws
//   ctx   = sum_s a_ts enc_s                        (B, T, H)
//   h~    = tanh(ctx @ combine.context.weight + dec @ combine.hidden.weight + combine.bias)   (B, T, H)
//   logits = h~ @ proj.weight + proj.bias           (B, T, V)
// Luong's h~ = tanh(W_c [c_t; h_t]) is the same product with W_c split in its two halves. The
// scores are Luong's "general" h_t^T W_a h_s, scaled by 1/sqrt(H) as the Transformer's are (W_a
// absorbs the constant); there is no input feeding, so the decoder's LSTM runs over all T
// positions at once during training (one fused kernel per layer) and attention follows.
// The LSTM layers are nn::recurrent's (torch.nn.LSTM's equations, gate order and layout).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/ops.h"
#include "tinygpt/pairs.h"
#include "tinygpt/parameters.h"
#include "tinygpt/tensor.h"

namespace tinygpt::model {

struct LstmSeq2SeqDims {
  int vocab_size = data::kPairVocab;  // V: the text tokens (256 bytes, or BPE) + BOS, EOS, PAD (pairs.h: PairTokens)
  int n_enc_layer = 1;
  int n_dec_layer = 1;
  int n_embd = 32;
  int n_hidden = 128;
  int block_size = 32;   // the longest source, and the longest decoder input (BOS + target)
  uint64_t seed = 1337;
  data::PairTokens tokens() const { return data::PairTokens::of_model_vocab(vocab_size); }
  void validate() const;  // throws tinygpt::Error naming the bad field
  int64_t num_parameters() const;
  bool operator==(const LstmSeq2SeqDims&) const = default;
};

// Bytes a training step of B pairs at S = T = block_size uses in the arena (an upper bound).
int64_t lstm_seq2seq_activation_bytes(const LstmSeq2SeqDims& dims, int B);

// Incremental decoding: the encoder's outputs (as attention keys and values), each row's decoder
// state, and the attention weights of the last step. Sized by LstmSeq2Seq::start_decoding.
struct LstmSeq2SeqCache {
  int rows = 0, S = 0, length = 0;
  bool shared_source = false;
  std::vector<uint8_t> src_pad;   // (rows, S)
  std::vector<float> kv;          // (n_src, S, 2H): [enc | enc] of the last encoder layer
  std::vector<float> h, c;        // (Ld, rows, H) the decoder's state
  std::vector<float> cross_att;   // (rows, S) the last step's attention
  std::vector<float> x, xg, hs, cs, gates, q, ctx, mix, logits, reorder;  // one step's scratch
  nn::Arena arena;                // the encoder pass
};

class LstmSeq2Seq : public ModelParameters {
 public:
  explicit LstmSeq2Seq(const LstmSeq2SeqDims& dims);  // validates, then init_weights(seed)
  LstmSeq2Seq(const LstmSeq2Seq&) = delete;
  LstmSeq2Seq& operator=(const LstmSeq2Seq&) = delete;
  using Cache = LstmSeq2SeqCache;

  const LstmSeq2SeqDims& dims() const { return dims_; }
  // Embeddings N(0, 1); LSTM weights and biases U(-1/sqrt(H), 1/sqrt(H)) (torch's defaults); the
  // other matrices Xavier-uniform; their biases 0.
  void init_weights(uint64_t seed);

  // logits (B, T, V) for src (B, S) and tgt_in (B, T). Records the attention (last_attention).
  nn::Tensor forward_logits(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, int B, int S, int T);
  nn::Tensor loss(nn::Arena& arena, const int32_t* src, const int32_t* tgt_in, const int32_t* tgt_out, int B, int S,
                  int T);
  nn::Tensor loss(nn::Arena& arena, const data::PairBatch& batch) {
    return loss(arena, batch.src.data(), batch.tgt_in.data(), batch.tgt_out.data(), batch.B, batch.S, batch.T);
  }
  // The attention weights of the last forward_logits (B, 1, T, S), valid until its arena is reset.
  nn::Tensor last_attention() const { return last_att_; }
  // The source embeddings (V, E) (the page's embedding map).
  nn::Tensor source_embedding() const { return src_emb_; }

  // ---- incremental decoding (no graph) ----
  void start_decoding(Cache& cache, const int32_t* src, int S, int rows, bool shared_source) const;
  // Feeds one token per row; returns the logits (rows, V) for the next one.
  const float* decode_step(Cache& cache, const int32_t* tokens) const;
  // Row r continues the hypothesis of row parent[r] (beam search).
  void reorder_rows(Cache& cache, const int* parent) const;

 private:
  nn::Tensor encode(nn::Arena& arena, const int32_t* src, int B, int S, std::vector<nn::Tensor>* h_last,
                    std::vector<nn::Tensor>* c_last) const;
  LstmSeq2SeqDims dims_;
  nn::Tensor src_emb_, tgt_emb_;              // (V, E) each
  std::vector<nn::RecurrentWeights> enc_, dec_;
  nn::Tensor attn_w_;                         // (H, H)
  nn::Tensor mix_ctx_w_, mix_h_w_, mix_b_;    // (H, H), (H, H), (H)
  nn::Tensor proj_w_, proj_b_;                // (H, V), (V)
  nn::Tensor last_att_;                       // (B, 1, T, S)
  std::vector<nn::Tensor> enc_h_last_, enc_c_last_;  // forward_logits' scratch: (B, H) per encoder layer
};

}  // namespace tinygpt::model
