// data.cpp — a corpus as training windows: the train/validation split and batch sampling, reading
// only the windows drawn.
#include "tinygpt/data.h"

#include <algorithm>

#include "tinygpt/error.h"

namespace tinygpt::data {

using tinygpt::Error;

uint64_t fingerprint(const uint8_t* bytes, size_t n) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (size_t i = 0; i < n; i++) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

uint64_t Corpus::fingerprint() const {
  if (!train) return 0;
  if (!val) return train->fingerprint();
  // both splits: FNV-1a 64 of the two fingerprints (little-endian), train first
  uint8_t le[16];
  for (int i = 0; i < 8; i++) le[i] = uint8_t(train->fingerprint() >> (8 * i)), le[8 + i] = uint8_t(val->fingerprint() >> (8 * i));
  return data::fingerprint(le, sizeof le);
}

const std::vector<uint8_t>* Corpus::memory_bytes() const {
  const auto* m = dynamic_cast<const MemorySource*>(train.get());
  return m && !val ? &m->bytes() : nullptr;
}

Corpus memory_corpus(std::vector<uint8_t> bytes, std::string name) {
  return Corpus{std::make_shared<const MemorySource>(std::move(bytes), std::move(name)), nullptr};
}

Dataset::Dataset(Corpus corpus, uint64_t seed, double val_fraction) : corpus_(std::move(corpus)), rng_(seed) {
  if (!corpus_.train || corpus_.size() == 0)
    throw Error(coded("corpus.empty", {}, "the corpus is empty: give a file with some text in it"));
  if (!(val_fraction >= 0.0 && val_fraction < 1.0)) throw Error("validation fraction must be in [0, 1)");
  size_ = corpus_.size();
  if (corpus_.val) {
    train_size_ = val_begin_ = corpus_.train->size();  // the positions: the training source, then the validation source
  } else {
    // the last val_fraction of the tokens is validation; the rest is training
    const uint64_t n_val = uint64_t(double(size_) * val_fraction);
    train_size_ = val_begin_ = size_ - n_val;
  }
  fingerprint_ = corpus_.fingerprint();
}

Dataset Dataset::from_file(const std::string& path, uint64_t seed) {
  auto file = std::make_shared<const FileSource>(path);
  if (file->size() == 0) throw Error("'" + path + "' is empty: give a file with some text in it");
  return Dataset(Corpus{std::move(file), nullptr}, seed);
}

void Dataset::read(uint64_t at, size_t n, int32_t* out) const {
  if (at > size_ || n > size_ - at) throw Error("read past the end of the corpus");
  if (!corpus_.val) return corpus_.train->read(at, n, out);
  // a window at the seam of two sources (a validation split shorter than a window) reads from both
  const uint64_t seam = corpus_.train->size();
  const size_t first = at < seam ? size_t(std::min<uint64_t>(n, seam - at)) : 0;
  if (first) corpus_.train->read(at, first, out);
  if (first < n) corpus_.val->read(at + first - seam, n - first, out + first);
}

std::vector<uint8_t> Dataset::read_bytes(uint64_t at, size_t n) const {
  std::vector<int32_t> tokens(n);
  read(at, n, tokens.data());
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; i++) {
    if (tokens[i] < 0 || tokens[i] > 255) throw Error("the corpus's tokens are not bytes");
    out[i] = uint8_t(tokens[i]);
  }
  return out;
}

void Dataset::check_context(int T) const {
  if (size_ < uint64_t(T) + 1)
    throw Error(coded("corpus.too_short", {{"bytes", std::to_string(size_)}, {"needed", std::to_string(T + 1)}},
                      "the corpus has " + std::to_string(size_) + " bytes, fewer than context + 1 = " +
                          std::to_string(T + 1) + ": use a longer text or a shorter context"));
}

void Dataset::set_vocab(int vocab) {
  const int v = std::max(corpus_.train->vocab(), corpus_.val ? corpus_.val->vocab() : 0);
  if (v > vocab) throw vocab_error(v - 1, vocab);
  // a source that does not know its vocabulary (shards) shows it in its first tokens: another
  // tokenizer's shards are refused now rather than at the first batch
  if (v == 0) {
    std::vector<int32_t> head(size_t(std::min<uint64_t>(size_, 1 << 16)));
    read(0, head.size(), head.data());
    for (const int32_t t : head)
      if (uint32_t(t) >= uint32_t(vocab)) throw vocab_error(uint32_t(t), vocab);  // a uint32 token read as int32
  }
  vocab_ = vocab;
}

Error Dataset::vocab_error(int64_t token, int vocab) const {
  return Error(coded("corpus.vocab", {{"token", std::to_string(token)}, {"vocab", std::to_string(vocab)}},
                     "the corpus holds token " + std::to_string(token) + ", outside the model's vocabulary of " +
                         std::to_string(vocab) + ": these shards were made with another tokenizer"));
}

bool Dataset::val_overlaps_train(int T) const { return val_size() < uint64_t(T) + 1 || train_size_ < uint64_t(T) + 1; }

void Dataset::window(uint64_t start, int T, int32_t* x, int32_t* y) const {
  // T + 1 tokens: x is the first T, y the last T (x shifted by one)
  window_.resize(size_t(T) + 1);
  read(start, size_t(T) + 1, window_.data());
  for (int t = 0; t <= T; t++)
    if (uint32_t(window_[size_t(t)]) >= uint32_t(vocab_)) throw vocab_error(uint32_t(window_[size_t(t)]), vocab_);
  std::copy(window_.begin(), window_.end() - 1, x);
  std::copy(window_.begin() + 1, window_.end(), y);
}

void Dataset::sample_batch(int B, int T, Batch& batch) {
  check_context(T);
  batch.B = B;
  batch.T = T;
  batch.x.resize(size_t(B) * T);
  batch.y.resize(size_t(B) * T);
  // a window needs T + 1 tokens; short corpora train on all of it
  const uint64_t span = train_size_ >= uint64_t(T) + 1 ? train_size_ : size_;
  const uint64_t starts = span - uint64_t(T);  // valid starts: [0, span - T - 1]
  // a read that fails (the file changed) leaves the generator where it was: the step can be retried
  const Rng::State before = rng_.state();
  corpus_.train->check();
  if (corpus_.val) corpus_.val->check();
  try {
    for (int b = 0; b < B; b++) window(rng_.below(starts), T, &batch.x[size_t(b) * T], &batch.y[size_t(b) * T]);
  } catch (...) {
    rng_.set_state(before);
    throw;
  }
}

Batch Dataset::sample_batch(int B, int T) {
  Batch batch;
  sample_batch(B, T, batch);
  return batch;
}

void Dataset::val_batch(int k, int B, int T, Batch& batch) const {
  check_context(T);
  batch.B = B;
  batch.T = T;
  batch.x.resize(size_t(B) * T);
  batch.y.resize(size_t(B) * T);
  // validation windows come from the validation split; if that is shorter than T + 1, from the end
  uint64_t begin = val_begin_;
  if (size_ - begin < uint64_t(T) + 1) begin = size_ - uint64_t(T) - 1;
  const uint64_t starts = size_ - begin - uint64_t(T);
  Rng rng(0x5EEDull * 1000003ull + uint64_t(k));  // the k-th batch is the same every time
  for (int b = 0; b < B; b++) window(begin + rng.below(starts), T, &batch.x[size_t(b) * T], &batch.y[size_t(b) * T]);
}

}  // namespace tinygpt::data
