// tokenizer_impl.h — what the tokenizer's files share (tokenizer.cpp, tokenizer_train.cpp,
// tokenizer_io.cpp, token_source.cpp): the pair table, the piece cache, the encoder, a bytes hash.
//
// "Canonical" ids are the algorithm's: byte b is b, merge r is 256 + r. A tokenizer read from a
// file may number its tokens otherwise (GPT-2 permutes the bytes); Impl maps between the two.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tinygpt/tokenizer.h"

namespace tinygpt::tok {

// 64-bit hash of a short byte string (8 bytes at a time, multiply-xorshift mixing). Fast, not
// cryptographic; the tables compare the bytes on a hash match.
inline uint64_t hash_bytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t(n) * 0xC2B2AE3D27D4EB4Full);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
    p += 8, n -= 8;
  }
  uint64_t w = 0;
  for (size_t i = 0; i < n; i++) w |= uint64_t(p[i]) << (8 * i);
  h = (h ^ w) * 0xFF51AFD7ED558CCDull;
  h ^= h >> 29;
  h *= 0xC4CEB9FE1A85EC53ull;
  return h ^ (h >> 32);
}

// a == b for n bytes, 8 at a time (wasm's memcmp goes a byte at a time)
inline bool equal_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  return x;
}

// (left, right) -> value, open addressing, for a fixed set of keys known up front. Key and value
// side by side: a lookup touches one cache line.
class PairTable {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    slots_.assign(cap, Slot{kEmpty, -1});
    mask_ = cap - 1;
  }
  void put(int32_t left, int32_t right, int32_t value) {
    const uint64_t k = key(left, right);
    size_t i = mix64(k) & mask_;
    while (slots_[i].key != kEmpty && slots_[i].key != k) i = (i + 1) & mask_;
    slots_[i] = Slot{k, value};
  }
  // The value, or -1.
  int32_t get(int32_t left, int32_t right) const {
    const uint64_t k = key(left, right);
    for (size_t i = mix64(k) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == k) return s.value;
      if (s.key == kEmpty) return -1;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  static uint64_t key(int32_t l, int32_t r) { return uint64_t(uint32_t(l)) << 32 | uint32_t(r); }
  struct Slot {
    uint64_t key;
    int32_t value;
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

struct Tokenizer::Impl {
  PairTable ranks;               // (left, right) canonical -> merge rank
  std::vector<int32_t> to_file;  // (256 + M) canonical -> the tokenizer's id
  std::vector<int32_t> to_canon; // (vocab) the tokenizer's id -> canonical
  bool identity = true;          // to_file[c] == c for every c
};

// Encodes pieces with a cache of the pieces seen (most text repeats its words), so that a text is
// one pass of pre-tokenization and a hash lookup per piece. Not thread-safe: one per thread.
class Encoder {
 public:
  explicit Encoder(const Tokenizer& tok);
  // Appends the canonical ids of one piece.
  void piece(const uint8_t* p, size_t n, std::vector<int32_t>& out);
  // The same without the cache (for pieces seen once: the trainer's statistics).
  void piece_once(const uint8_t* p, size_t n, std::vector<int32_t>& out);
  // Appends the tokenizer's ids of a whole text (pre-tokenized here).
  void text(const uint8_t* p, size_t n, std::vector<int32_t>& out);
  // Canonical ids [from, end) of out -> the tokenizer's ids.
  void to_file_ids(std::vector<int32_t>& out, size_t from) const;
  // The two ways of merging one piece (canonical ids appended): arrays, O(n^2), for short pieces;
  // a heap, O(n log n), for pieces over 128 bytes. They give the same ids (a test checks).
  void bpe_short(const uint8_t* p, size_t n, std::vector<int32_t>& out);
  void bpe_long(const uint8_t* p, size_t n, std::vector<int32_t>& out);

 private:
  const Tokenizer::Impl& im_;
  // the piece cache: a small open-addressing table of (32 bits of the hash, where the record is)
  // over records in one arena, in the order the pieces were first seen: the frequent pieces come
  // early and sit close together, so the hot part of the cache is small
  //   record: (key_len | ids_len << 8), the key's bytes in ceil(key_len / 4) words, the ids
  std::vector<uint64_t> slots_;  // 0: empty; else tag << 32 | (record's offset + 1)
  std::vector<uint32_t> rec_;
  size_t used_ = 0;
  void cache_reset(size_t slots);
  void cache_grow();
  std::vector<int32_t> work_, ranks_;  // bpe_short's state
};

// The pieces of [0, n) whose end is final when more input may follow `n` (final_input false): a
// piece must end kStreamMargin bytes before n for nothing after n to change it. Returns the offset
// up to which pieces were given to f(begin, end).
constexpr size_t kStreamMargin = 16;
template <class F>
size_t for_each_piece(const uint8_t* text, size_t n, bool final_input, F&& f) {
  size_t at = 0;
  while (at < n) {
    const size_t end = piece_end(text, n, at);
    if (!final_input && end + kStreamMargin > n) break;
    f(at, end);
    at = end;
  }
  return at;
}

// The GPT-2 byte <-> printable character map (bytes_to_unicode): the printable Latin-1 bytes stand
// for themselves, the others for U+0100 + k in byte order. Used by tokenizer.json and vocab.json.
const std::vector<uint32_t>& byte_to_unicode();
// A token's bytes as GPT-2's printable string (UTF-8), and back (false when a character is not one of the 256).
std::string bytes_to_gpt2(const std::string& bytes);
bool gpt2_to_bytes(std::string_view s, std::string& out);

// Builds a tokenizer from its parts (the loaders and the trainer): checks them and makes the tables.
// tokens: the bytes of each text id; merges with the tokenizer's ids; specials after the text ids.
Tokenizer make_tokenizer(std::vector<std::string> tokens, std::vector<Merge> merges, std::vector<SpecialToken> specials, Stats stats,
                         const std::string& name);
// The compact form (tokenizer_io.cpp); without the counts and the training statistics, it names
// what encoding depends on (Tokenizer::fingerprint).
std::vector<uint8_t> serialize_blob(const Tokenizer& t, bool with_counts);

// The special tokens of a tokenizer of `vocab` text ids that names none, or only some (GPT-2 has
// <|endoftext|>): the given ones keep their ids, the missing of bos, eos, pad, endoftext follow.
std::vector<SpecialToken> complete_specials(int vocab, std::vector<SpecialToken> given);

}  // namespace tinygpt::tok
