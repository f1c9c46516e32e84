// data.cpp — byte corpus, train/validation split, batch sampling.
#include "tinygpt/data.h"

#include <algorithm>
#include "tinygpt/error.h"
#include "tinygpt/io.h"

namespace tinygpt::data {

using tinygpt::Error;

uint64_t fingerprint(const uint8_t* bytes, size_t n) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (size_t i = 0; i < n; i++) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

ByteDataset::ByteDataset(std::vector<uint8_t> bytes, uint64_t seed, double val_fraction)
    : bytes_(std::move(bytes)), rng_(seed) {
  if (bytes_.empty()) throw Error(coded("corpus.empty", {}, "the corpus is empty: give a file with some text in it"));
  if (!(val_fraction >= 0.0 && val_fraction < 1.0)) throw Error("validation fraction must be in [0, 1)");
  // the last val_fraction of the bytes is validation; the rest is training
  const size_t n_val = size_t(double(bytes_.size()) * val_fraction);
  train_size_ = bytes_.size() - n_val;
  val_begin_ = train_size_;
  fingerprint_ = data::fingerprint(bytes_.data(), bytes_.size());
}

ByteDataset ByteDataset::from_file(const std::string& path, uint64_t seed) {
  std::vector<uint8_t> bytes = io::read_file(path);
  if (bytes.empty()) throw Error("'" + path + "' is empty: give a file with some text in it");
  return ByteDataset(std::move(bytes), seed);
}

void ByteDataset::check_context(int T) const {
  if (bytes_.size() < size_t(T) + 1)
    throw Error(coded("corpus.too_short", {{"bytes", std::to_string(bytes_.size())}, {"needed", std::to_string(T + 1)}},
                      "the corpus has " + std::to_string(bytes_.size()) + " bytes, fewer than context + 1 = " +
                          std::to_string(T + 1) + ": use a longer text or a shorter context"));
}

bool ByteDataset::val_overlaps_train(int T) const { return val_size() < size_t(T) + 1 || train_size_ < size_t(T) + 1; }

void ByteDataset::window(size_t start, int T, int32_t* x, int32_t* y) const {
  for (int t = 0; t < T; t++) {
    x[t] = bytes_[start + t];
    y[t] = bytes_[start + t + 1];
  }
}

void ByteDataset::sample_batch(int B, int T, Batch& batch) {
  check_context(T);
  batch.B = B;
  batch.T = T;
  batch.x.resize(size_t(B) * T);
  batch.y.resize(size_t(B) * T);
  // a window needs T + 1 bytes; short corpora train on all of it
  const size_t span = train_size_ >= size_t(T) + 1 ? train_size_ : bytes_.size();
  const uint64_t starts = span - size_t(T);  // valid starts: [0, span - T - 1]
  for (int b = 0; b < B; b++) window(size_t(rng_.below(starts)), T, &batch.x[size_t(b) * T], &batch.y[size_t(b) * T]);
}

Batch ByteDataset::sample_batch(int B, int T) {
  Batch batch;
  sample_batch(B, T, batch);
  return batch;
}

void ByteDataset::val_batch(int k, int B, int T, Batch& batch) const {
  check_context(T);
  batch.B = B;
  batch.T = T;
  batch.x.resize(size_t(B) * T);
  batch.y.resize(size_t(B) * T);
  // validation windows come from the last 10%; if that is shorter than T + 1, from the end
  size_t begin = val_begin_;
  if (bytes_.size() - begin < size_t(T) + 1) begin = bytes_.size() - size_t(T) - 1;
  const uint64_t starts = bytes_.size() - begin - size_t(T);
  Rng rng(0x5EEDull * 1000003ull + uint64_t(k));  // the k-th batch is the same every time
  for (int b = 0; b < B; b++)
    window(begin + size_t(rng.below(starts)), T, &batch.x[size_t(b) * T], &batch.y[size_t(b) * T]);
}

}  // namespace tinygpt::data
