// watch.h — the numbers behind the page's "watch it learn" views (docs/watch.md):
// what a good loss is for this data, and how the model got there.
//
//   entropy_baselines   unigram and bigram entropies of the training data (nats per byte): the
//                       loss of the best model that ignores context, and of the best one that
//                       sees only the previous byte; uniform = ln(distinct bytes)
//   pca_2d              a 2-D projection (PCA, Jacobi eigen-decomposition in double) of rows,
//                       with a sign convention that keeps frames from flipping
//   History, Snapshot   what the run records at each evaluation (Trainer::record_snapshot, from
//                       the run loop): attention maps of a fixed probe, quantised; the embedding
//                       map; the probe's per-token losses; the per-position loss curve. Kept
//                       within a byte budget, saved in checkpoints (history.* sections)
//   nearest_neighbours  the rows most alike (cosine) in the full embedding space, for the map's hover
//   BranchTree          step-through generation: the top-k next tokens at every node, any of
//                       them can be grown into a branch; KV caches reused along a branch
//
// Dimensions as in model.h / seq2seq.h: T probe length (gpt: bytes; seq2seq: decoder positions,
// BOS + target), S source length, L layers (seq2seq: decoder layers Ld), Le encoder layers,
// NH heads, C width, N bytes on the embedding map, P positions of the per-position loss curve,
// K snapshots, A quantised attention bytes per snapshot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/data.h"
#include "tinygpt/model.h"
#include "tinygpt/pairs.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/tensor.h"

namespace tinygpt::tok {
class Tokenizer;
}

namespace tinygpt::watch {

// ---- entropy baselines -------------------------------------------------------------------------

// Loss levels of simple models of the data, in nats per predicted token (bits = nats / ln 2).
//   unigram = H(X)          = -sum_a p(a) ln p(a)                 p(a): how often a occurs
//   bigram  = H(X' | X)     = -sum_ab p(a, b) ln p(b | a)         over the consecutive pairs (a, b)
//   uniform = ln(distinct)                                        a guess over the tokens seen
struct Baselines {
  double unigram = 0.0, bigram = 0.0, uniform = 0.0;
  int distinct = 0;     // different tokens seen
  uint64_t tokens = 0;  // tokens counted
  // Tokens per byte of the run's text (train::Trainer::tokens_per_byte; 1 for bytes): a baseline in
  // bits per byte is its nats per token x tokens_per_byte / ln 2. 0: not known.
  double tokens_per_byte = 1.0;
};
constexpr double kLn2 = 0.69314718055994530942;

// Of a byte text (gpt: the training split). Empty input gives zeros.
Baselines entropy_baselines(const uint8_t* bytes, size_t n);
// The baselines and the distinct bytes of a corpus are of at most its first kBaselineTokens: exact
// for a text up to 64 MiB, an estimate from its beginning for a larger one (read in 1 MiB pieces).
constexpr uint64_t kBaselineTokens = uint64_t(64) << 20;
// Of a corpus read where it lies (a file, shards), of its first kSourceBaselineTokens: its reads
// stay a few MiB (the page reads them from a File); the page's and the CLI's statistics pass give
// the whole text's.
constexpr uint64_t kSourceBaselineTokens = uint64_t(8) << 20;
// How many of a dataset's tokens the baselines and the distinct bytes count.
uint64_t baseline_tokens(const data::Dataset& data);
// Of the training split's first `most` tokens, read from the dataset (bytes, or BPE tokens: their
// pairs counted in a hash table, a vocabulary of 65,536 has no room for a dense one).
Baselines entropy_baselines(const data::Dataset& data, uint64_t most = kBaselineTokens);
// Of a sequence of tokens of any vocabulary (sparse counts).
Baselines token_baselines(const int32_t* tokens, size_t n);
// Of a whole text, from its statistics pass (data::scan).
Baselines entropy_baselines(const data::TextStats& stats);
// Of the targets of the training pairs (seq2seq): each target's tokens followed by EOS, the bigram's
// first context being BOS: the loss of a decoder that ignores the source.
Baselines target_baselines(const data::PairDataset& pairs);

// ---- PCA -----------------------------------------------------------------------------------------

// Eigen-decomposition of a symmetric matrix a (n, n) (overwritten) by cyclic Jacobi rotations:
// values (n) in descending order (ties: lower index first), vectors (n, n) with eigenvector k in
// column k. Deterministic; converges for any symmetric input.
void symmetric_eigen(std::vector<double>& a, int n, std::vector<double>& values, std::vector<double>& vectors);

struct Projection {
  std::vector<float> xy;      // (N, 2) coordinates on the first two principal axes (rows centred)
  double variance[2] = {};    // variance along each axis
  double total_variance = 0;  // summed over all axes: variance[k] / total is "explained"
};
// The rows x (N, C) projected on their two principal axes. Signs: with `previous` (N, 2), each
// axis is flipped to agree with it (positive correlation of coordinates), so an animation does
// not jump; without, the coordinates' third moment is made positive (then the first non-zero
// coordinate). Computed on the smaller of the Gram matrix (N, N) and the covariance (C, C).
Projection pca_2d(const float* x, int N, int C, const float* previous = nullptr);

// ---- nearest neighbours in the embedding space -------------------------------------------------

// For each row i of x (N, C), the k other rows most alike by cosine similarity
//   cos(i, j) = x_i . x_j / (|x_i| |x_j|)        (0 where either row is all zeros)
// measured in the full C-dimensional space (the 2-D map distorts distances: its two axes keep
// only part of the variance). Cosine, not Euclidean: an embedding's direction is what the first
// layer's dot products read, and its length grows with how often a byte was trained.
struct Neighbours {
  int k = 0;                       // per row: min(k asked, N - 1)
  std::vector<int32_t> index;      // (N, k) row indices, most alike first (ties: lower index first)
  std::vector<float> similarity;   // (N, k) their cosines
};
Neighbours nearest_neighbours(const float* x, int N, int C, int k);

// The rows of the history's embedding map (History::map_tokens) in the table its snapshots project:
// gpt wte, seq2seq src_embed (the source bytes), at the model's current weights.
Neighbours embedding_neighbours(const model::TinyGPT& model, const std::vector<int32_t>& tokens, int k);
Neighbours embedding_neighbours(const model::Seq2Seq& model, const std::vector<int32_t>& tokens, int k);
// rnn, gru, lstm: wte; lstm_seq2seq: src_embed
Neighbours embedding_neighbours(const model::Recurrent& model, const std::vector<int32_t>& tokens, int k);
Neighbours embedding_neighbours(const model::LstmSeq2Seq& model, const std::vector<int32_t>& tokens, int k);

// ---- snapshots and the history -----------------------------------------------------------------

// Attention weights are stored as round(255 sqrt(p)) in one byte, read back as (q / 255)^2: the
// page's heatmaps colour by sqrt(p) on a 256-step scale, so nothing visible is lost, and small
// weights keep their resolution (p = 0.01 is q = 26).
uint8_t quantise_weight(float p);
float dequantise_weight(uint8_t q);

// The most probe bytes (gpt): a 64-byte window keeps a snapshot of model M at 75 kB.
constexpr int kMaxProbe = 64;
// Validation windows behind the per-position loss curve.
constexpr int kPositionWindows = 8;

// What every snapshot of a run holds; fixed when the history starts (History::start).
// Attention layout of one snapshot (A bytes):
//   gpt      (L, NH, T(T+1)/2)          the causal rows, packed: row q holds keys 0..q
//   seq2seq  cross (L, NH, T, S), then decoder self (L, NH, T(T+1)/2), then encoder self (Le, NH, S, S)
//   rnn, gru, lstm   none (NH = 0): the probe's losses, the position curve and the embedding map
//   lstm_seq2seq     cross (1, 1, T, S): the decoder's attention on the source
struct Layout {
  ModelKind kind = ModelKind::gpt;
  int L = 0, NH = 0, Le = 0;  // Le: seq2seq only
  int S = 0, T = 0;           // S: seq2seq only
  int N = 0, P = 0;
  int64_t attention_bytes() const;  // A
  int64_t snapshot_bytes() const;   // what one snapshot adds to a checkpoint
  bool operator==(const Layout&) const = default;
};

// The kind, layers and heads of a config's history (T, S, N, P are the probe's and the data's).
Layout layout_of(const Config& config);

struct Snapshot {
  int64_t step = 0;
  std::vector<uint8_t> attention;    // (A) quantised, Layout's order
  std::vector<float> embedding;      // (N, 2) pca_2d of the token embeddings of History::bytes()
  std::vector<float> probe_loss;     // (T) -ln p(token t | what came before); gpt: NaN at t = 0
  std::vector<float> position_loss;  // (P) mean loss at each position of the window, over validation windows; NaN where none
};

class History {
 public:
  // Total bytes the snapshots may take (checkpoint sections): a 5,000-step run's history stays
  // under 5 MB whatever its shape or evaluation interval.
  static constexpr int64_t kBudgetBytes = int64_t(4) << 20;

  bool enabled() const { return layout_.T > 0; }
  const Layout& layout() const { return layout_; }
  // gpt: the probe text (T bytes); seq2seq: the target bytes (T - 1), the source in probe_source()
  const std::vector<uint8_t>& probe() const { return probe_; }
  const std::vector<uint8_t>& probe_source() const { return probe_source_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }  // (N) the byte values on the embedding map (a byte history)
  // A BPE language model's history (format 2): the probe's tokens (T), then the tokens on the
  // embedding map (N); empty for a byte history, whose probe and map are its bytes.
  const std::vector<int32_t>& tokens() const { return tokens_; }
  std::vector<int32_t> probe_tokens() const;  // (T) what the model reads: the probe's bytes or tokens
  std::vector<int32_t> map_tokens() const;    // (N) the embedding map's rows
  const std::vector<Snapshot>& snapshots() const { return snapshots_; }
  const Baselines& baselines() const { return baselines_; }
  int64_t size_bytes() const;  // of all snapshots

  // Starts (or restarts, forgetting every snapshot) a history with this layout and probe. A token
  // history (tokens: T probe tokens then N map tokens; a language model's) keeps the probe's text
  // in `probe` (any length) and no bytes.
  void start(const Layout& layout, std::vector<uint8_t> probe, std::vector<uint8_t> probe_source, std::vector<uint8_t> bytes,
             std::vector<int32_t> tokens = {});
  void set_baselines(const Baselines& b) { baselines_ = b; }
  // Appends a snapshot (shapes checked against the layout; its step after the last one's). Over
  // the budget, every second snapshot is dropped (the first and the newest stay): the time-lapse
  // loses resolution, never its ends.
  void add(Snapshot s);
  // After a rollback of the NaN guard: snapshots later than `step` go.
  void drop_after(int64_t step);
  void clear() { *this = History(); }

  // ---- as checkpoint sections (checkpoint.h: history.*) ----
  // history.meta (i64): format version (1 bytes, 2 tokens), kind, L, NH, Le, S, T, N, P
  // history.probe (u8): probe source then probe (format 2: the probe's text); history.bytes (u8) (N)
  // (format 2: none); history.tokens (i64) (format 2: T probe tokens, then the N mapped tokens)
  // history.baselines (f32): unigram, bigram, uniform (nats), distinct, tokens
  // history.steps (i64) (K); history.attention (u8) (K, A); history.embedding (f32) (K, N, 2);
  // history.probe_loss (f32) (K, T); history.position_loss (f32) (K, P)
  struct Packed {
    std::vector<int64_t> meta;
    std::vector<uint8_t> probe, bytes;
    std::vector<int64_t> tokens;
    std::vector<float> baselines;
    std::vector<int64_t> steps;
    std::vector<uint8_t> attention;
    std::vector<float> embedding, probe_loss, position_loss;
  };
  // snapshots = false leaves steps in but the snapshots' arrays out (pieces() gives them in place)
  Packed pack(bool snapshots = true) const;
  // The snapshots' arrays where they are, in order: the packed sections' bytes without a copy
  // (the checkpoint writes them so: ckpt::serialize_to).
  struct Piece {
    const void* data;
    size_t bytes;
  };
  struct Pieces {
    std::vector<Piece> attention, embedding, probe_loss, position_loss;
  };
  Pieces pieces() const;
  // Checks everything (sizes against the layout, steps increasing and <= last_step, values) and
  // throws tinygpt::Error saying what is wrong.
  static History unpack(const Packed& p, int64_t last_step);

 private:
  Layout layout_;
  std::vector<uint8_t> probe_, probe_source_, bytes_;
  std::vector<int32_t> tokens_;
  Baselines baselines_;
  std::vector<Snapshot> snapshots_;
};

// The probe a run takes when none is given: the first line start of the validation split (gpt),
// min(kMaxProbe, block_size) bytes from there, starting on a character; the first held-out pair
// (seq2seq).
std::vector<uint8_t> choose_probe(const data::Dataset& data, int block_size);
void choose_probe(const data::PairDataset& pairs, std::vector<uint8_t>& source, std::vector<uint8_t>& target);

// A BPE language model's probe: min(kMaxProbe, block_size) tokens of the validation split, from
// the first token after one that ends a line (within a few hundred tokens), else from its start.
std::vector<int32_t> choose_probe_tokens(const data::Dataset& data, int block_size, const tok::Tokenizer& tokenizer);
// The embedding map of a BPE run: the `most` most frequent of its `vocab` tokens among the training
// split's first `count` tokens (ties: the lower id), in ascending id order.
constexpr int kMapTokens = 256;
std::vector<int32_t> frequent_tokens(const data::Dataset& data, int vocab, int most = kMapTokens, uint64_t count = kBaselineTokens);

// The distinct byte values of a text (ascending); of a corpus, of its first `most` bytes.
std::vector<uint8_t> distinct_bytes(const uint8_t* bytes, size_t n);
std::vector<uint8_t> distinct_bytes(const data::Dataset& data, uint64_t most = kBaselineTokens);

// -ln softmax(logits)[target] for each row of logits (rows, V); NaN where target < 0.
void token_losses(float* out, const float* logits, const int32_t* targets, int rows, int V);

// Snapshots of a model at its current weights (called by train::Trainer::record_snapshot with
// its arena; no graph is built). The embedding map's signs follow the history's last snapshot.
Snapshot take_snapshot(model::TinyGPT& model, const data::Dataset& data, nn::Arena& arena, const History& history);
Snapshot take_snapshot(model::Seq2Seq& model, const data::PairDataset& pairs, nn::Arena& arena, const History& history);
Snapshot take_snapshot(model::Recurrent& model, const data::Dataset& data, nn::Arena& arena, const History& history);
Snapshot take_snapshot(model::LstmSeq2Seq& model, const data::PairDataset& pairs, nn::Arena& arena, const History& history);

// ---- step-through generation -------------------------------------------------------------------

// A tree of continuations of a prompt (gpt) or of translations of a source (seq2seq). Node 0 is
// the prompt (gpt) or BOS (seq2seq); every other node appends one token to its parent. Each node
// holds the model's top-k next tokens with their probabilities (temperature 1; seq2seq: over the
// bytes and EOS), so any of them can be grown into a branch (extend).
// KV caches: a few are kept, each at the tip of a branch. Extending the tip of a cache costs one
// position; extending a node inside a cached branch copies that cache and cuts it back to the
// node (keys and values of a prefix do not depend on what follows); otherwise the context is
// decoded anew. gpt's window follows sample::Generator: once block_size bytes fill it, it is
// rebuilt from the last window_keep, so a node's distribution equals the Generator's after the
// same text.
class BranchTree {
 public:
  struct Node {
    int parent = -1;
    int32_t token = -1;       // the token this node appends (-1 for the root)
    float prob = 1.0f;        // p(token | parent's text)
    int depth = 0;            // gpt: bytes of text (prompt included); seq2seq: target tokens
    int window_start = 0;     // gpt: the first text byte in the model's window after this node
    std::vector<float> probs;         // (V) p(next token | this node's text); empty after EOS
    std::vector<int32_t> top_tokens;  // (k) most likely first (ties: lower token first)
    std::vector<float> top_probs;     // (k)
    std::vector<int> children;        // in the order they were grown
  };

  // A byte model's prompt or source as bytes, or any model's as tokens (a BPE run's: encoded by its tokenizer).
  BranchTree(const model::TinyGPT& model, const uint8_t* prompt, size_t n, int top_k = 8, int window_keep = 0);
  BranchTree(const model::TinyGPT& model, std::vector<int32_t> prompt, int top_k = 8, int window_keep = 0);
  BranchTree(const model::Seq2Seq& model, const uint8_t* source, size_t n, int top_k = 8);
  BranchTree(const model::Seq2Seq& model, std::vector<int32_t> source, int top_k = 8);
  // The recurrent models: no window; every node keeps its state, so any node grows in one step.
  BranchTree(const model::Recurrent& model, const uint8_t* prompt, size_t n, int top_k = 8);
  BranchTree(const model::Recurrent& model, std::vector<int32_t> prompt, int top_k = 8);
  BranchTree(const model::LstmSeq2Seq& model, const uint8_t* source, size_t n, int top_k = 8);
  BranchTree(const model::LstmSeq2Seq& model, std::vector<int32_t> source, int top_k = 8);
  ~BranchTree();

  ModelKind kind() const;
  int size() const { return int(nodes_.size()); }
  const Node& node(int id) const;
  // The child of node that appends token (grown now unless it exists). Throws for a bad node or
  // token, after EOS, and past the longest output (seq2seq: block_size - 1 bytes).
  int extend(int node, int32_t token);
  // gpt: the prompt and the tokens of the path to node; seq2seq: the target tokens so far (no EOS).
  std::vector<int32_t> tokens(int node) const;
  // The same as bytes, for a byte model (its tokens are bytes).
  std::vector<uint8_t> text(int node) const;
  std::vector<int> path(int node) const;  // root .. node
  // Positions the model has computed (one per token fed): how much the caches saved.
  int64_t positions_computed() const { return positions_; }
  static constexpr int kMaxCaches = 8;
  struct Impl;  // the model kind's caches (watch.cpp)

 private:
  std::unique_ptr<Impl> impl_;
  std::vector<Node> nodes_;
  std::vector<int32_t> prompt_;  // gpt: the prompt bytes (all of them); seq2seq: the source
  int64_t positions_ = 0;
  int top_k_ = 8;
  int keep_ = 0;  // gpt: bytes kept when the window is rebuilt
  void set_top(Node& n, const float* logits);
};

}  // namespace tinygpt::watch
