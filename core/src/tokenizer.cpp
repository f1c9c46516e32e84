// tokenizer.cpp — byte-level BPE: the character classes and GPT-2's pre-tokenization rule by hand,
// the merge tables, encoding (with a cache of pieces) and decoding. Training: tokenizer_train.cpp;
// files: tokenizer_io.cpp; the token source: token_source.cpp.
#include "tinygpt/tokenizer.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <queue>

#include "tinygpt/error.h"
#include "tokenizer_impl.h"
#include "tokenizer_unicode.h"

namespace tinygpt::tok {

// ---- character classes -------------------------------------------------------------------------

namespace {

template <size_t N>
bool in_ranges(const uint32_t (&r)[N][2], uint32_t cp) {
  size_t lo = 0, hi = N;  // the first range whose end is >= cp
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (r[mid][1] < cp) lo = mid + 1;
    else hi = mid;
  }
  return lo < N && r[lo][0] <= cp;
}

CharClass lookup_class(uint32_t cp) {
  if (in_ranges(unicode::kLetters, cp)) return CharClass::letter;
  if (in_ranges(unicode::kNumbers, cp)) return CharClass::number;
  if (in_ranges(unicode::kSpaces, cp)) return CharClass::space;
  return CharClass::other;
}

// The Basic Multilingual Plane's classes in a table (64 KiB, built once); the rest by binary search.
const uint8_t* bmp_classes() {
  static const std::vector<uint8_t> table = [] {
    std::vector<uint8_t> t(65536);
    for (uint32_t cp = 0; cp < 65536; cp++) t[cp] = uint8_t(lookup_class(cp));
    return t;
  }();
  return table.data();
}

// One character of UTF-8 at s[0..n) (n >= 1): its class and length. Invalid UTF-8 is one "other"
// character per maximal subpart (the lead byte and the continuation bytes that could still have
// made a valid sequence), as the WHATWG decoder puts one U+FFFD there.
struct Char {
  CharClass cls;
  uint32_t len;
};

inline Char decode_char(const uint8_t* s, size_t n, const uint8_t* bmp) {
  const uint8_t b = s[0];
  if (b < 0x80) return {CharClass(bmp[b]), 1};
  int need;
  uint8_t lo = 0x80, hi = 0xBF;
  uint32_t cp;
  if (b >= 0xC2 && b <= 0xDF) need = 1, cp = b & 0x1F;
  else if (b >= 0xE0 && b <= 0xEF) {
    need = 2, cp = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;  // no overlongs
    if (b == 0xED) hi = 0x9F;  // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3, cp = b & 0x07;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {CharClass::other, 1};  // a continuation byte alone, C0, C1, F5..FF
  }
  uint32_t len = 1;
  for (int k = 0; k < need; k++) {
    if (len >= n || s[len] < lo || s[len] > hi) return {CharClass::other, len};  // cut short: one invalid subpart
    cp = (cp << 6) | (s[len] & 0x3F);
    lo = 0x80, hi = 0xBF;
    len++;
  }
  return {cp < 65536 ? CharClass(bmp[cp]) : lookup_class(cp), len};
}

}  // namespace

CharClass char_class(uint32_t cp) { return cp < 65536 ? CharClass(bmp_classes()[cp]) : lookup_class(cp); }

const char* unicode_version() { return unicode::kVersion; }

// ---- pre-tokenization ------------------------------------------------------------------------------

namespace {

// The end of a run of characters of class `cls` from `at`: at most kMaxPiece bytes from `start`.
inline size_t run_end(const uint8_t* s, size_t n, size_t at, size_t start, CharClass cls, const uint8_t* bmp) {
  const size_t limit = start + kMaxPiece;
  while (at < n) {
    if (s[at] < 0x80) {  // ASCII, the common case: one byte, one table lookup
      if (CharClass(bmp[s[at]]) != cls || at + 1 > limit) break;
      at++;
      continue;
    }
    const Char c = decode_char(s + at, n - at, bmp);
    if (c.cls != cls || at + c.len > limit) break;
    at += c.len;
  }
  return at;
}

}  // namespace

size_t piece_end(const uint8_t* s, size_t n, size_t at) {
  const uint8_t* bmp = bmp_classes();
  // 's|'t|'re|'ve|'m|'ll|'d
  if (s[at] == '\'' && at + 1 < n) {
    const uint8_t b1 = s[at + 1];
    if (b1 == 's' || b1 == 't' || b1 == 'm' || b1 == 'd') return at + 2;
    if (at + 2 < n) {
      const uint8_t b2 = s[at + 2];
      if ((b1 == 'r' && b2 == 'e') || (b1 == 'v' && b2 == 'e') || (b1 == 'l' && b2 == 'l')) return at + 3;
    }
  }
  const Char c = decode_char(s + at, n - at, bmp);
  //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+ : a space, then a run of one class
  if (s[at] == ' ' && at + 1 < n) {
    const Char d = decode_char(s + at + 1, n - at - 1, bmp);
    if (d.cls != CharClass::space) return run_end(s, n, at + 1, at, d.cls, bmp);
  }
  if (c.cls != CharClass::space) return run_end(s, n, at, at, c.cls, bmp);
  // \s+(?!\S) | \s+ : a run of white space; when a non-space follows, its last character is left
  // for the next piece (so " word" keeps its space), unless the run is that one character
  size_t last = at, i = at;
  const size_t limit = at + kMaxPiece;
  while (i < n) {
    const Char d = decode_char(s + i, n - i, bmp);
    if (d.cls != CharClass::space) break;
    if (i + d.len > limit) return i;  // cut
    last = i;
    i += d.len;
  }
  if (i == n || last == at) return i;
  return last;
}

std::vector<std::pair<size_t, size_t>> pretokenize(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> out;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  for_each_piece(s, text.size(), true, [&](size_t b, size_t e) { out.emplace_back(b, e); });
  return out;
}

// ---- encoding ----------------------------------------------------------------------------------------

namespace {
constexpr size_t kCacheMaxPiece = 64;       // longer pieces are encoded each time
constexpr size_t kCacheMaxEntries = 1 << 17;  // then the cache starts again (at most 16 MiB of entries)
constexpr size_t kShortPiece = 128;         // longer pieces merge through a heap
}  // namespace

Encoder::Encoder(const Tokenizer& tok) : im_(*tok.impl()) {}

void Encoder::to_file_ids(std::vector<int32_t>& out, size_t from) const {
  if (im_.identity) return;
  for (size_t i = from; i < out.size(); i++) out[i] = im_.to_file[size_t(out[i])];
}

// Short pieces: the ids and the rank of each adjacent pair in arrays; each merge takes the
// lowest rank (leftmost among equals) and updates the two ranks beside it.
void Encoder::bpe_short(const uint8_t* p, size_t n, std::vector<int32_t>& out) {
  work_.resize(n), ranks_.resize(n);
  int32_t* ids = work_.data();
  int32_t* ranks = ranks_.data();  // ranks[i]: the rank of the pair (ids[i], ids[i + 1]), or -1
  for (size_t i = 0; i < n; i++) ids[i] = p[i];
  for (size_t i = 0; i + 1 < n; i++) ranks[i] = im_.ranks.get(ids[i], ids[i + 1]);
  ranks[n - 1] = -1;
  size_t len = n;
  for (;;) {
    int32_t best = INT32_MAX;
    size_t at = 0;
    for (size_t i = 0; i + 1 < len; i++)
      if (uint32_t(ranks[i]) < uint32_t(best)) best = ranks[i], at = i;  // -1 is the largest unsigned
    if (best == INT32_MAX) break;
    ids[at] = 256 + best;
    for (size_t i = at + 1; i + 1 < len; i++) ids[i] = ids[i + 1], ranks[i] = ranks[i + 1];
    len--;
    ranks[at] = at + 1 < len ? im_.ranks.get(ids[at], ids[at + 1]) : -1;
    if (at > 0) ranks[at - 1] = im_.ranks.get(ids[at - 1], ids[at]);
  }
  out.insert(out.end(), ids, ids + len);
}

// Long pieces (a long run of spaces, letters without a break): the same merges in O(n log n), with
// a linked list of tokens and a heap of (rank, position) whose stale entries are skipped.
void Encoder::bpe_long(const uint8_t* p, size_t n, std::vector<int32_t>& out) {
  struct Node {
    int32_t id, rank, prev, next;  // rank: of the pair (this, next), -1 when none
  };
  std::vector<Node> node(n);
  for (size_t i = 0; i < n; i++) node[i] = Node{p[i], -1, int32_t(i) - 1, i + 1 < n ? int32_t(i + 1) : -1};
  using Item = std::pair<int32_t, int32_t>;  // (rank, position): the smallest first
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  const auto update = [&](int32_t i) {
    Node& a = node[size_t(i)];
    a.rank = a.next < 0 ? -1 : im_.ranks.get(a.id, node[size_t(a.next)].id);
    if (a.rank >= 0) heap.push({a.rank, i});
  };
  for (size_t i = 0; i < n; i++) update(int32_t(i));
  while (!heap.empty()) {
    const auto [r, i] = heap.top();
    heap.pop();
    Node& a = node[size_t(i)];
    if (a.id < 0 || a.rank != r) continue;  // merged away, or its pair changed
    Node& b = node[size_t(a.next)];
    a.id = 256 + r;
    b.id = -1;
    a.next = b.next;
    if (a.next >= 0) node[size_t(a.next)].prev = i;
    update(i);
    if (a.prev >= 0) update(a.prev);
  }
  for (int32_t i = 0; i >= 0; i = node[size_t(i)].next) out.push_back(node[size_t(i)].id);
}

void Encoder::piece(const uint8_t* p, size_t n, std::vector<int32_t>& out) {
  if (n == 1) {
    out.push_back(p[0]);
    return;
  }
  if (n == 2) {  // one lookup: cheaper than the cache's
    const int32_t r = im_.ranks.get(p[0], p[1]);
    if (r >= 0) out.push_back(256 + r);
    else out.push_back(p[0]), out.push_back(p[1]);
    return;
  }
  if (n > kCacheMaxPiece) {
    if (n > kShortPiece) bpe_long(p, n, out);
    else bpe_short(p, n, out);
    return;
  }
  const uint64_t h = hash_bytes(p, n);
  if (slots_.empty() || used_ * 2 >= slots_.size()) {
    if (slots_.empty() || used_ >= kCacheMaxEntries) cache_reset(slots_.empty() ? 4096 : slots_.size());
    else cache_grow();
  }
  const size_t mask = slots_.size() - 1;
  const uint32_t tag = uint32_t(h >> 32);
  size_t i = h & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    if (uint32_t(slots_[i] >> 32) != tag) continue;
    const uint32_t* r = rec_.data() + (uint32_t(slots_[i]) - 1);
    if ((r[0] & 255) != n || !equal_bytes(reinterpret_cast<const uint8_t*>(r + 1), p, n)) continue;
    const int32_t* ids = reinterpret_cast<const int32_t*>(r + 1 + (n + 3) / 4);
    out.insert(out.end(), ids, ids + (r[0] >> 8));
    return;
  }
  const size_t from = out.size();
  bpe_short(p, n, out);
  const size_t k = out.size() - from;
  const size_t at = rec_.size();
  rec_.resize(at + 1 + (n + 3) / 4 + k, 0);
  rec_[at] = uint32_t(n | k << 8);
  std::memcpy(rec_.data() + at + 1, p, n);
  std::memcpy(rec_.data() + at + 1 + (n + 3) / 4, out.data() + from, k * sizeof(int32_t));
  slots_[i] = uint64_t(tag) << 32 | uint64_t(at + 1);
  used_++;
}

void Encoder::piece_once(const uint8_t* p, size_t n, std::vector<int32_t>& out) {
  if (n > kShortPiece) bpe_long(p, n, out);
  else bpe_short(p, n, out);
}

void Encoder::cache_reset(size_t slots) {
  slots_.assign(slots, 0);
  rec_.clear(), used_ = 0;
}

// Twice the slots, the records placed again (their hashes computed again from their keys).
void Encoder::cache_grow() {
  slots_.assign(slots_.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (size_t at = 0; at < rec_.size();) {
    const size_t n = rec_[at] & 255, k = rec_[at] >> 8;
    const uint64_t h = hash_bytes(reinterpret_cast<const uint8_t*>(rec_.data() + at + 1), n);
    size_t i = h & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = uint64_t(uint32_t(h >> 32)) << 32 | uint64_t(at + 1);
    at += 1 + (n + 3) / 4 + k;
  }
}

void Encoder::text(const uint8_t* p, size_t n, std::vector<int32_t>& out) {
  const size_t from = out.size();
  for_each_piece(p, n, true, [&](size_t b, size_t e) { piece(p + b, e - b, out); });
  to_file_ids(out, from);
}

// ---- the tokenizer -------------------------------------------------------------------------------------

std::vector<SpecialToken> complete_specials(int vocab, std::vector<SpecialToken> given) {
  static const char* names[] = {"<|bos|>", "<|eos|>", "<|pad|>", "<|endoftext|>"};
  int32_t next = vocab;
  for (const SpecialToken& s : given) next = std::max(next, s.id + 1);
  for (const char* name : names) {
    const bool has = std::any_of(given.begin(), given.end(), [&](const SpecialToken& s) { return s.text == name; });
    if (!has) given.push_back({name, next++});
  }
  std::sort(given.begin(), given.end(), [](const SpecialToken& a, const SpecialToken& b) { return a.id < b.id; });
  return given;
}

Tokenizer make_tokenizer(std::vector<std::string> tokens, std::vector<Merge> merges, std::vector<SpecialToken> specials, Stats stats,
                         const std::string& name) {
  const auto bad = [&](const std::string& what) {
    return Error(coded("tokenizer.inconsistent", {{"name", name}, {"what", what}}, name + " is not a consistent tokenizer: " + what));
  };
  const size_t vocab = tokens.size();
  if (vocab < 256 || vocab > size_t(kMaxVocab) + 1024 * 1024) throw bad("it has " + std::to_string(vocab) + " tokens");
  if (merges.size() != vocab - 256) throw bad(std::to_string(vocab) + " tokens but " + std::to_string(merges.size()) + " merges");
  Tokenizer t;
  auto im = std::make_shared<Tokenizer::Impl>();
  im->to_file.assign(vocab, -1);
  im->to_canon.assign(vocab, -1);
  // the bytes: the tokens of one byte
  for (size_t id = 0; id < vocab; id++) {
    if (tokens[id].size() != 1) continue;
    const uint8_t b = uint8_t(tokens[id][0]);
    if (im->to_file[b] >= 0) throw bad("byte " + std::to_string(b) + " is two tokens");
    im->to_file[b] = int32_t(id), im->to_canon[id] = b;
  }
  for (int b = 0; b < 256; b++)
    if (im->to_file[size_t(b)] < 0) throw bad("byte " + std::to_string(b) + " has no token");
  im->ranks.reserve(merges.size());
  for (size_t r = 0; r < merges.size(); r++) {
    Merge& m = merges[r];
    const auto id_ok = [&](int32_t id) { return id >= 0 && size_t(id) < vocab; };
    if (!id_ok(m.left) || !id_ok(m.right) || !id_ok(m.id)) throw bad("merge " + std::to_string(r) + " names an id outside the vocabulary");
    const int32_t l = im->to_canon[size_t(m.left)], rr = im->to_canon[size_t(m.right)];
    if (l < 0 || rr < 0) throw bad("merge " + std::to_string(r) + " joins a token that no earlier merge made");
    if (im->to_canon[size_t(m.id)] >= 0) throw bad("merge " + std::to_string(r) + " makes a token made before");
    if (tokens[size_t(m.id)] != tokens[size_t(m.left)] + tokens[size_t(m.right)])
      throw bad("merge " + std::to_string(r) + " makes a token other than its two parts joined");
    if (im->ranks.get(l, rr) >= 0) throw bad("merge " + std::to_string(r) + " is listed twice");
    im->ranks.put(l, rr, int32_t(r));
    im->to_file[256 + r] = m.id, im->to_canon[size_t(m.id)] = int32_t(256 + r);
  }
  for (size_t c = 0; c < vocab; c++) im->identity = im->identity && im->to_file[c] == int32_t(c);
  specials = complete_specials(int(vocab), std::move(specials));
  for (size_t k = 0; k < specials.size(); k++) {
    if (specials[k].id != int32_t(vocab + k))
      throw bad("special token " + specials[k].text + " has id " + std::to_string(specials[k].id) + ": tinygpt expects the special tokens right after the " +
                std::to_string(vocab) + " text tokens");
    if (specials[k].text.empty()) throw bad("a special token has no text");
  }
  t.tokens_ = std::move(tokens);
  t.merges_ = std::move(merges);
  t.specials_ = std::move(specials);
  t.train_stats_ = stats;
  t.impl_ = std::move(im);
  return t;
}

Tokenizer::Tokenizer() {
  tokens_.resize(256);
  for (int b = 0; b < 256; b++) tokens_[size_t(b)] = std::string(1, char(b));
  specials_ = complete_specials(256, {});
  auto im = std::make_shared<Impl>();
  im->ranks.reserve(0);
  im->to_file.resize(256), im->to_canon.resize(256);
  for (int b = 0; b < 256; b++) im->to_file[size_t(b)] = im->to_canon[size_t(b)] = b;
  impl_ = std::move(im);
}

Tokenizer Tokenizer::from_merges(const std::vector<std::pair<int32_t, int32_t>>& pairs, std::vector<uint64_t> counts) {
  std::vector<std::string> tokens(256);
  for (int b = 0; b < 256; b++) tokens[size_t(b)] = std::string(1, char(b));
  std::vector<Merge> merges;
  for (size_t r = 0; r < pairs.size(); r++) {
    const auto [l, rr] = pairs[r];
    if (l < 0 || rr < 0 || size_t(l) >= tokens.size() || size_t(rr) >= tokens.size())
      throw Error(coded("tokenizer.inconsistent", {{"name", "the merges"}, {"what", "merge " + std::to_string(r) + " joins a token that no earlier merge made"}},
                        "the merges are not a consistent tokenizer: merge " + std::to_string(r) + " joins a token that no earlier merge made"));
    merges.push_back({l, rr, int32_t(256 + r), r < counts.size() ? counts[r] : 0});
    tokens.push_back(tokens[size_t(l)] + tokens[size_t(rr)]);
  }
  return make_tokenizer(std::move(tokens), std::move(merges), {}, {}, "the merges");
}

void Tokenizer::encode(const uint8_t* bytes, size_t n, std::vector<int32_t>& out) const {
  Encoder e(*this);
  e.text(bytes, n, out);
}

std::vector<int32_t> Tokenizer::encode(std::string_view bytes) const {
  std::vector<int32_t> out;
  out.reserve(bytes.size() / 3 + 1);
  encode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out);
  return out;
}

const std::string& Tokenizer::token_bytes(int32_t id) const {
  if (id >= 0 && id < vocab_size()) return tokens_[size_t(id)];
  if (is_special(id)) return specials_[size_t(id - vocab_size())].text;
  throw Error(coded("tokenizer.unknown_id", {{"id", std::to_string(id)}, {"count", std::to_string(id_count())}},
                    "token " + std::to_string(id) + " is not in this vocabulary of " + std::to_string(id_count()) + " ids"));
}

std::string Tokenizer::decode(const int32_t* ids, size_t n) const {
  std::string out;
  out.reserve(n * 4);
  for (size_t i = 0; i < n; i++) out += token_bytes(ids[i]);
  return out;
}

int32_t Tokenizer::special_id(Special s) const {
  static const char* names[] = {"<|bos|>", "<|eos|>", "<|pad|>", "<|endoftext|>"};
  for (const SpecialToken& t : specials_)
    if (t.text == names[int(s)]) return t.id;
  return -1;  // complete_specials gives every tokenizer all four
}

std::string Tokenizer::token_text(int32_t id) const {
  const std::string& b = token_bytes(id);
  if (is_special(id)) return b;
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  const auto* s = reinterpret_cast<const uint8_t*>(b.data());
  for (size_t i = 0; i < b.size();) {
    const uint8_t c = s[i];
    if (c == '\n') out += "\\n", i++;
    else if (c == '\t') out += "\\t", i++;
    else if (c == '\r') out += "\\r", i++;
    else if (c == '\\') out += "\\\\", i++;
    else if (c < 0x20 || c == 0x7F) out += std::string("\\x") + hex[c >> 4] + hex[c & 15], i++;
    else {
      const Char ch = decode_char(s + i, b.size() - i, bmp_classes());
      if (c < 0x80 || ch.len > 1) out.append(b, i, ch.len);  // a whole character
      else out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
      i += ch.len > 1 ? ch.len : 1;
    }
  }
  return out;
}

uint64_t Tokenizer::fingerprint() const {
  const std::vector<uint8_t> blob = serialize_blob(*this, false);
  uint64_t h = 14695981039346656037ull;
  for (uint8_t b : blob) h = (h ^ b) * 1099511628211ull;
  return h;
}

}  // namespace tinygpt::tok
