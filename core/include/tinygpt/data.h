// data.h — a corpus as next-token training pairs.
//
// The corpus is a source of tokens (source.h): a text's bytes (V = 256, so any file works, UTF-8
// or not), or llm.c token shards. Without a separate validation source, the last 10% of the tokens
// by position are the validation split. A training window starts at a random offset s of the
// training split:  x_t = tokens[s + t],  y_t = tokens[s + t + 1]  for t = 0 .. T-1  (y is x shifted
// by one). Only the windows drawn are read: a corpus far larger than memory trains as a small one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/rng.h"
#include "tinygpt/source.h"

namespace tinygpt::data {

struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> x;  // (B, T) inputs
  std::vector<int32_t> y;  // (B, T) next-token targets
};

// 64-bit FNV-1a of bytes: how a corpus is identified in checkpoints and shared links.
uint64_t fingerprint(const uint8_t* bytes, size_t n);

// What a trainer trains on: the tokens, and the validation tokens when they come apart (shards).
struct Corpus {
  std::shared_ptr<const Source> train;
  std::shared_ptr<const Source> val;  // null: the last 10% of train, by position
  uint64_t size() const { return (train ? train->size() : 0) + (val ? val->size() : 0); }
  uint64_t fingerprint() const;
  // The bytes of an in-memory text (a MemorySource), or null.
  const std::vector<uint8_t>* memory_bytes() const;
};

// A corpus of bytes held in memory.
Corpus memory_corpus(std::vector<uint8_t> bytes, std::string name = "");

class Dataset {
 public:
  // Samples from `corpus`; seed starts the sampling generator. Throws on an empty corpus.
  explicit Dataset(Corpus corpus, uint64_t seed = 0, double val_fraction = 0.1);
  explicit Dataset(std::vector<uint8_t> bytes, uint64_t seed = 0, double val_fraction = 0.1)
      : Dataset(memory_corpus(std::move(bytes)), seed, val_fraction) {}
  static Dataset from_file(const std::string& path, uint64_t seed = 0);

  // Tokens in the dataset's positions: [0, train_size) training, [val_begin, size) validation.
  uint64_t size() const { return size_; }
  uint64_t train_size() const { return train_size_; }
  uint64_t val_size() const { return size_ - val_begin_; }
  uint64_t val_begin() const { return val_begin_; }
  const Corpus& corpus() const { return corpus_; }
  // Reads tokens [at, at + n) of the dataset's positions (a window never crosses train and val sources).
  void read(uint64_t at, size_t n, int32_t* out) const;
  // Bytes [at, at + n) of a byte corpus (a text; the history's probe, the entropy baselines).
  std::vector<uint8_t> read_bytes(uint64_t at, size_t n) const;
  // When the corpus is too short for a separate validation split of T + 1 tokens, validation
  // windows come from the end of the corpus and overlap training text.
  bool val_overlaps_train(int T) const;

  // Throws unless windows of T + 1 tokens fit (the corpus has at least T + 1 tokens).
  void check_context(int T) const;
  // The model's vocabulary (256 until set): throws unless the sources' tokens can be below it; every
  // window read is checked against it too (a shard's header does not say its largest token).
  void set_vocab(int vocab);

  // B random training windows: fills batch.x and batch.y (B, T). Reuses the batch's buffers.
  void sample_batch(int B, int T, Batch& batch);
  Batch sample_batch(int B, int T);

  // The k-th fixed validation batch (deterministic, independent of the sampling generator).
  void val_batch(int k, int B, int T, Batch& batch) const;

  Rng::State rng_state() const { return rng_.state(); }
  void set_rng_state(const Rng::State& s) { rng_.set_state(s); }

  // Identifies the corpus in checkpoints: FNV-1a 64 of a text's bytes (sampled above 64 MiB; source.h).
  uint64_t fingerprint() const { return fingerprint_; }

 private:
  void window(uint64_t start, int T, int32_t* x, int32_t* y) const;
  Error vocab_error(int64_t token, int vocab) const;
  Corpus corpus_;
  uint64_t size_ = 0;
  uint64_t train_size_ = 0;  // tokens [0, train_size_) are the training split
  uint64_t val_begin_ = 0;   // tokens [val_begin_, size) are the validation split
  Rng rng_;
  uint64_t fingerprint_ = 0;
  int vocab_ = 256;                      // tokens must be below this (set_vocab)
  mutable std::vector<int32_t> window_;  // T + 1 tokens
};

}  // namespace tinygpt::data
