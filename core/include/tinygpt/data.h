// data.h — a corpus of bytes as next-token training pairs.
//
// Bytes are tokens (V = 256), so any file works, UTF-8 or not. The last 10% of the bytes
// are the validation split. A training window starts at a random offset s of the training
// split:  x_t = bytes[s + t],  y_t = bytes[s + t + 1]  for t = 0 .. T-1  (y is x shifted by one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/rng.h"

namespace tinygpt::data {

struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> x;  // (B, T) inputs
  std::vector<int32_t> y;  // (B, T) next-byte targets
};

// 64-bit FNV-1a of bytes: how a corpus is identified in checkpoints and shared links.
uint64_t fingerprint(const uint8_t* bytes, size_t n);

class ByteDataset {
 public:
  // Takes the corpus; seed starts the sampling generator. Throws on an empty corpus.
  explicit ByteDataset(std::vector<uint8_t> bytes, uint64_t seed = 0, double val_fraction = 0.1);
  static ByteDataset from_file(const std::string& path, uint64_t seed = 0);

  size_t size() const { return bytes_.size(); }
  size_t train_size() const { return train_size_; }
  size_t val_size() const { return bytes_.size() - val_begin_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  // Gives the bytes back (the dataset is empty afterwards): a corpus moves to another trainer.
  std::vector<uint8_t> release() { return std::move(bytes_); }
  // When the corpus is too short for a separate validation split of T + 1 bytes, validation
  // windows come from the end of the corpus and overlap training text.
  bool val_overlaps_train(int T) const;

  // Throws unless windows of T + 1 bytes fit (the corpus has at least T + 1 bytes).
  void check_context(int T) const;

  // B random training windows: fills batch.x and batch.y (B, T). Reuses the batch's buffers.
  void sample_batch(int B, int T, Batch& batch);
  Batch sample_batch(int B, int T);

  // The k-th fixed validation batch (deterministic, independent of the sampling generator).
  void val_batch(int k, int B, int T, Batch& batch) const;

  Rng::State rng_state() const { return rng_.state(); }
  void set_rng_state(const Rng::State& s) { rng_.set_state(s); }

  // 64-bit FNV-1a of the bytes: identifies a corpus in checkpoints.
  uint64_t fingerprint() const { return fingerprint_; }

 private:
  void window(size_t start, int T, int32_t* x, int32_t* y) const;
  std::vector<uint8_t> bytes_;
  size_t train_size_ = 0;  // bytes [0, train_size_) are the training split
  size_t val_begin_ = 0;   // bytes [val_begin_, size) are the validation split
  Rng rng_;
  uint64_t fingerprint_ = 0;
};

}  // namespace tinygpt::data
