// tokenizer_train.cpp — learning merges from a text (train_bpe).
//
// 1. Count: the text is streamed in chunks and cut into pieces (pretokenization); each distinct
//    piece is kept once with its count (a "word"). Memory grows with the distinct pieces, not the text.
// 2. Merge: every adjacent pair of tokens within the words is counted (weighted by the words'
//    counts) and indexed by the words it occurs in. The most frequent pair (ties: smaller left id,
//    then smaller right id) becomes the next token; only the words holding it are rewritten, the
//    counts of the pairs that touch an occurrence corrected, and the pairs with the new token
//    pushed on a heap. Heap entries are upper bounds of their pair's count (a count only falls,
//    except the new token's pairs, which are pushed when made): a stale entry popped is pushed
//    again with its true count.
#include <algorithm>
#include <queue>

#include "tinygpt/error.h"
#include "tinygpt/tokenizer.h"
#include "tokenizer_impl.h"

namespace tinygpt::tok {

namespace {

constexpr uint64_t kMinPairCount = 2;  // a pair seen once is not merged

// The distinct pieces of a text and their counts. Pieces of one and two bytes (a third of a
// text's pieces) are counted in arrays; the longer ones by open addressing over one-cache-line
// slots, a key of up to kInlineKey bytes inline (most words), a longer one in an arena.
class PieceCounter {
 public:
  PieceCounter() : one_(256), two_(65536) { slots_.resize(1 << 16); }
  void add(const uint8_t* p, size_t n) {
    if (n <= 2) {
      uint64_t& c = n == 1 ? one_[p[0]] : two_[size_t(p[0]) << 8 | p[1]];
      used_ += c == 0;
      c++;
      return;
    }
    if (2 * (hashed_ + 1) > slots_.size()) grow();
    const uint64_t h = hash_bytes(p, n);
    const size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    for (; slots_[i].count != 0; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.hash == h && s.len == n && equal_bytes(key(s), p, n)) {
        s.count++;
        return;
      }
    }
    Slot& s = slots_[i];
    s.hash = h, s.len = uint32_t(n), s.count = 1;
    if (n <= kInlineKey) {
      std::memcpy(s.key, p, n);
    } else {
      s.at = keys_.size();
      keys_.insert(keys_.end(), p, p + n);
    }
    hashed_++, used_++;
  }
  size_t size() const { return used_; }
  template <class F>
  void each(F&& f) const {
    uint8_t b[2];
    for (size_t k = 0; k < 256; k++)
      if (one_[k]) b[0] = uint8_t(k), f(b, size_t(1), one_[k]);
    for (size_t k = 0; k < 65536; k++)
      if (two_[k]) b[0] = uint8_t(k >> 8), b[1] = uint8_t(k), f(b, size_t(2), two_[k]);
    for (const Slot& s : slots_)
      if (s.count) f(key(s), size_t(s.len), s.count);
  }

 private:
  static constexpr size_t kInlineKey = 32;
  struct alignas(64) Slot {
    uint64_t hash;
    uint64_t count;  // 0: empty
    uint64_t at;     // in keys_, for a key longer than kInlineKey
    uint32_t len, unused;
    uint8_t key[kInlineKey];
  };
  static_assert(sizeof(Slot) == 64);
  const uint8_t* key(const Slot& s) const { return s.len <= kInlineKey ? s.key : keys_.data() + s.at; }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (!s.count) continue;
      size_t i = s.hash & mask;
      while (slots_[i].count) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  std::vector<uint64_t> one_, two_;  // (256), (65536): the counts of the pieces of one and two bytes
  std::vector<Slot> slots_;
  std::vector<uint8_t> keys_;
  size_t used_ = 0, hashed_ = 0;  // distinct pieces; of them in slots_
};

// (left, right) -> a dense pair index, growing.
class PairIndex {
 public:
  PairIndex() { keys_.assign(1 << 12, kEmpty), values_.assign(1 << 12, 0); }
  // The pair's index, made (as `next`) when new; `made` says which.
  uint32_t find_or_add(int32_t l, int32_t r, uint32_t next, bool& made) {
    if (2 * (used_ + 1) > keys_.size()) grow();
    const uint64_t k = uint64_t(uint32_t(l)) << 32 | uint32_t(r);
    const size_t mask = keys_.size() - 1;
    size_t i = mix64(k) & mask;
    for (; keys_[i] != kEmpty; i = (i + 1) & mask)
      if (keys_[i] == k) return made = false, values_[i];
    keys_[i] = k, values_[i] = next, used_++;
    made = true;
    return next;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  void grow() {
    std::vector<uint64_t> ok(keys_.size() * 2, kEmpty);
    std::vector<uint32_t> ov(values_.size() * 2, 0);
    ok.swap(keys_), ov.swap(values_);
    const size_t mask = keys_.size() - 1;
    for (size_t j = 0; j < ok.size(); j++) {
      if (ok[j] == kEmpty) continue;
      size_t i = mix64(ok[j]) & mask;
      while (keys_[i] != kEmpty) i = (i + 1) & mask;
      keys_[i] = ok[j], values_[i] = ov[j];
    }
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t used_ = 0;
};

// The merge phase's state: the words as tokens, the pairs with their counts and words.
class Merger {
 public:
  explicit Merger(const PieceCounter& pieces) {
    starts_.reserve(pieces.size() + 1);
    pieces.each([&](const uint8_t* p, size_t n, uint64_t count) {
      starts_.push_back(syms_.size());
      lens_.push_back(uint32_t(n));
      counts_.push_back(count);
      syms_.insert(syms_.end(), p, p + n);
    });
    stamp_.assign(lens_.size(), UINT32_MAX);
    for (uint32_t w = 0; w < lens_.size(); w++) {
      const int32_t* s = syms_.data() + starts_[w];
      for (uint32_t i = 0; i + 1 < lens_[w]; i++) {
        const uint32_t p = pair(s[i], s[i + 1]);
        pair_count_[p] += int64_t(counts_[w]);
        if (where_[p].empty() || where_[p].back() != w) where_[p].push_back(w);
      }
    }
    for (uint32_t p = 0; p < pair_left_.size(); p++) push(p);
  }

  // The next merge: (pair index, count); count 0 when no pair occurs kMinPairCount times.
  std::pair<uint32_t, int64_t> best() {
    while (!heap_.empty()) {
      const Entry e = heap_.top();
      heap_.pop();
      const int64_t now = pair_count_[e.pair];
      if (now == e.count) return {e.pair, now < int64_t(kMinPairCount) ? 0 : now};
      if (now > 0) heap_.push({now, pair_left_[e.pair], pair_right_[e.pair], e.pair});
    }
    return {0, 0};
  }

  // Joins pair p into token z in every word that holds it.
  void merge(uint32_t p, int32_t z) {
    const int32_t a = pair_left_[p], b = pair_right_[p];
    std::vector<uint32_t> words;
    words.swap(where_[p]);
    new_pairs_.clear();
    const uint32_t stamp = uint32_t(z);
    for (const uint32_t w : words) {
      if (stamp_[w] == stamp) continue;
      stamp_[w] = stamp;
      int32_t* s = syms_.data() + starts_[w];
      const uint32_t len = lens_[w];
      // the occurrences, left to right without overlap; only the pairs that touch them change:
      // the old ones lose this word's count, the new ones (those with z) gain it
      touched_.assign(len, 0);
      bool found = false;
      for (uint32_t i = 0; i + 1 < len;) {
        if (s[i] == a && s[i + 1] == b) touched_[i] = touched_[i + 1] = 1, found = true, i += 2;
        else i++;
      }
      if (!found) continue;
      const int64_t c = int64_t(counts_[w]);
      for (uint32_t i = 0; i + 1 < len; i++)
        if (touched_[i] || touched_[i + 1]) pair_count_[pair(s[i], s[i + 1])] -= c;
      uint32_t out = 0;
      for (uint32_t i = 0; i < len;) {
        if (touched_[i]) s[out++] = z, i += 2;
        else s[out++] = s[i++];
      }
      lens_[w] = out;
      for (uint32_t i = 0; i + 1 < out; i++) {
        if (s[i] != z && s[i + 1] != z) continue;
        const uint32_t q = pair(s[i], s[i + 1]);
        pair_count_[q] += c;
        if (where_[q].empty() || where_[q].back() != w) where_[q].push_back(w);
        new_pairs_.push_back(q);
      }
    }
    std::sort(new_pairs_.begin(), new_pairs_.end());
    new_pairs_.erase(std::unique(new_pairs_.begin(), new_pairs_.end()), new_pairs_.end());
    for (const uint32_t q : new_pairs_) push(q);
  }

  int32_t left(uint32_t p) const { return pair_left_[p]; }
  int32_t right(uint32_t p) const { return pair_right_[p]; }

 private:
  struct Entry {
    int64_t count;
    int32_t left, right;
    uint32_t pair;
  };
  struct Lower {  // the heap's top: the largest count, then the smallest (left, right)
    bool operator()(const Entry& x, const Entry& y) const {
      if (x.count != y.count) return x.count < y.count;
      if (x.left != y.left) return x.left > y.left;
      return x.right > y.right;
    }
  };
  uint32_t pair(int32_t l, int32_t r) {
    bool made = false;
    const uint32_t p = index_.find_or_add(l, r, uint32_t(pair_left_.size()), made);
    if (made) {
      pair_left_.push_back(l), pair_right_.push_back(r);
      pair_count_.push_back(0);
      where_.emplace_back();
    }
    return p;
  }
  void push(uint32_t p) {
    if (pair_count_[p] >= int64_t(kMinPairCount)) heap_.push({pair_count_[p], pair_left_[p], pair_right_[p], p});
  }

  std::vector<int32_t> syms_;  // every word's tokens, one after the other
  std::vector<size_t> starts_;
  std::vector<uint32_t> lens_;
  std::vector<uint64_t> counts_;
  std::vector<uint32_t> stamp_;  // the last merge that rewrote each word
  PairIndex index_;
  std::vector<int32_t> pair_left_, pair_right_;
  std::vector<int64_t> pair_count_;
  std::vector<std::vector<uint32_t>> where_;  // the words each pair occurs in (maybe no longer)
  std::vector<uint32_t> new_pairs_;
  std::vector<uint8_t> touched_;  // merge(): the positions of a word that an occurrence covers
  std::priority_queue<Entry, std::vector<Entry>, Lower> heap_;
};

// Pass 1: the pieces of the text and their counts. False when progress stopped it.
bool count_pieces(const data::ByteSource& text, PieceCounter& pieces, const std::function<bool(const TrainProgress&)>& progress,
                  size_t chunk = size_t(4) << 20) {
  const uint64_t total = text.size();
  std::vector<uint8_t> buf;
  size_t have = 0;  // bytes in buf not yet cut into pieces
  for (uint64_t at = 0; at < total;) {
    const size_t n = size_t(std::min<uint64_t>(chunk, total - at));
    buf.resize(have + n);
    text.read_bytes(at, n, buf.data() + have);
    at += n;
    have += n;
    const bool last = at == total;
    const size_t used = for_each_piece(buf.data(), have, last, [&](size_t b, size_t e) { pieces.add(buf.data() + b, e - b); });
    std::memmove(buf.data(), buf.data() + used, have - used);
    have -= used;
    if (progress && !progress(TrainProgress{TrainProgress::counting, at, total, pieces.size()})) return false;
  }
  return true;
}

}  // namespace

std::optional<Tokenizer> train_bpe(const data::ByteSource& text, int vocab_size, const std::function<bool(const TrainProgress&)>& progress) {
  if (vocab_size < kMinVocab || vocab_size > kMaxVocab)
    throw Error(coded("tokenizer.vocab_range", {{"vocab", std::to_string(vocab_size)}},
                      "a vocabulary of " + std::to_string(vocab_size) + " tokens: choose 256 (bytes) to 65,536"));
  if (text.size() == 0)
    throw Error(coded("tokenizer.empty_text", {}, "the text to learn a vocabulary from is empty"));
  PieceCounter pieces;
  if (!count_pieces(text, pieces, progress)) return std::nullopt;
  const int want = vocab_size - 256;
  if (want == 0) {  // the bytes: nothing to merge, a token per byte
    std::vector<std::string> bytes(256);
    for (int b = 0; b < 256; b++) bytes[size_t(b)] = std::string(1, char(b));
    return make_tokenizer(std::move(bytes), {}, {}, Stats{text.size(), text.size()}, "the bytes");
  }
  Merger m(pieces);
  std::vector<std::pair<int32_t, int32_t>> pairs;
  std::vector<uint64_t> counts;
  for (int r = 0; r < want; r++) {
    const auto [p, count] = m.best();
    if (count == 0)
      throw Error(coded("tokenizer.vocab_too_large",
                        {{"vocab", std::to_string(vocab_size)}, {"merges", std::to_string(r)}, {"possible", std::to_string(256 + r)}},
                        "this text supports only " + std::to_string(r) + " merges (a vocabulary of " + std::to_string(256 + r) +
                            "), not the " + std::to_string(want) + " a vocabulary of " + std::to_string(vocab_size) +
                            " needs: every other pair of tokens occurs once at most. Choose a smaller vocabulary or a longer text"));
    pairs.emplace_back(m.left(p), m.right(p));
    counts.push_back(uint64_t(count));
    m.merge(p, 256 + r);
    if (progress && (r % 64 == 63 || r + 1 == want) &&
        !progress(TrainProgress{TrainProgress::merging, uint64_t(r + 1), uint64_t(want), pieces.size()}))
      return std::nullopt;
  }
  Tokenizer t = Tokenizer::from_merges(pairs, counts);
  // the training text's tokens per byte under the vocabulary: each distinct piece encoded once
  Stats stats;
  Encoder enc(t);
  std::vector<int32_t> ids;
  pieces.each([&](const uint8_t* p, size_t n, uint64_t count) {
    ids.clear();
    enc.piece_once(p, n, ids);
    stats.bytes += uint64_t(n) * count;
    stats.tokens += uint64_t(ids.size()) * count;
  });
  std::vector<std::string> tokens;
  for (int id = 0; id < t.vocab_size(); id++) tokens.push_back(t.token_bytes(id));
  return make_tokenizer(std::move(tokens), t.merges(), t.specials(), stats, "the trained vocabulary");
}

std::optional<Tokenizer> train_on_training_split(const std::shared_ptr<const data::ByteSource>& text, int vocab_size,
                                                 const std::function<bool(const TrainProgress&)>& progress, double val_fraction) {
  const uint64_t n = text->size();
  const uint64_t train = n - uint64_t(double(n) * val_fraction);  // as data::Dataset cuts its positions
  if (train == n) return train_bpe(*text, vocab_size, progress);
  const data::CallbackSource head(
      train, [text](uint64_t at, size_t k, uint8_t* out) { text->read_bytes(at, k, out); }, text->describe());
  return train_bpe(head, vocab_size, progress);
}

}  // namespace tinygpt::tok
