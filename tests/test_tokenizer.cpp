// test_tokenizer.cpp — byte-level BPE (tokenizer.h): the worked example of docs/tokenizer.md,
// GPT-2's pre-tokenization rule on hand-made texts, round trips of arbitrary bytes, a stream
// encoded in chunks of every size, GPT-2's vocabulary against gpt-tokenizer's ids (golden files of
// tests/ref/make_gpt2_ref.mjs), the file forms and their damage, a vocabulary too large for its
// text, and the token source a batcher trains on.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/rng.h"
#include "tinygpt/tokenizer.h"
#include "test_util.h"
#include "tokenizer_impl.h"  // bytes_to_gpt2

using namespace tinygpt;
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  const std::vector<uint8_t> b = io::read_file(path);
  return std::string(b.begin(), b.end());
}

std::string shakespeare(size_t n = SIZE_MAX) {
  std::string s = read_text(std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt");
  return s.substr(0, std::min(n, s.size()));
}

data::MemorySource memory(const std::string& s) { return data::MemorySource(std::vector<uint8_t>(s.begin(), s.end()), "text"); }

tok::Tokenizer train(const std::string& text, int vocab) {
  const data::MemorySource src = memory(text);
  return *tok::train_bpe(src, vocab);
}

std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [b, e] : tok::pretokenize(text)) out.push_back(text.substr(b, e - b));
  return out;
}

// The Error's code, or "" when f does not throw one.
template <class F>
std::string code_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code().empty() ? "(uncoded) " + std::string(e.what()) : e.code();
  }
  return "";
}

std::string arg(const Error& e, const std::string& name) {
  for (const auto& [k, v] : e.args())
    if (k == name) return v;
  return "";
}

// A fresh directory, removed at the end of the test.
struct TempDir : testutil::TempDir {
  TempDir() : testutil::TempDir("tinygpt-tokenizer") {}
};

void write(const std::string& path, const std::string& s) { io::write_file(path, std::vector<uint8_t>(s.begin(), s.end())); }

// ---- GPT-2 (tests/ref/gpt2.mjs builds the same text and files) ----------------------------------

uint32_t mulberry32(uint32_t& a) {
  a += 0x6D2B79F5u;
  uint32_t t = (a ^ (a >> 15)) * (1u | a);
  t = (t + ((t ^ (t >> 7)) * (61u | t))) ^ t;
  return t ^ (t >> 14);
}

void utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) out += char(cp);
  else if (cp < 0x800) out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 63));
  else if (cp < 0x10000) out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 63)), out += char(0x80 | (cp & 63));
  else out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 63)), out += char(0x80 | ((cp >> 6) & 63)), out += char(0x80 | (cp & 63));
}

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

// The compatibility test's text: testText() of tests/ref/gpt2.mjs, byte for byte.
std::string gpt2_test_text(size_t target = 1'000'000, uint32_t seed = 0x7A11CE) {
  const std::string sh = shakespeare();
  const std::vector<Ranges> letters = {
      {{0x41, 0x5A}, {0x61, 0x7A}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0x100, 0x17F}}, {{0x61, 0x7A}}, {{0x3B1, 0x3C9}, {0x391, 0x3A1}},
      {{0x410, 0x44F}}, {{0x627, 0x63A}, {0x641, 0x64A}}, {{0x905, 0x939}, {0x93E, 0x94C}}, {{0x3041, 0x3096}, {0x30A1, 0x30FA}},
      {{0xAC00, 0xD7A3}}, {{0x4E00, 0x9FA5}}, {{0x10400, 0x1044F}, {0x20000, 0x2A6D6}, {0x1D400, 0x1D454}}};
  const Ranges numbers = {{0x30, 0x39}, {0x30, 0x39}, {0x660, 0x669}, {0xFF10, 0xFF19}, {0xB2, 0xB3}, {0xBC, 0xBE}, {0x2160, 0x2182},
                          {0x2460, 0x2473}, {0x1D7CE, 0x1D7FF}};
  const Ranges symbols = {{0x21, 0x2F}, {0x3A, 0x40}, {0x5B, 0x60}, {0x7B, 0x7E}, {0xA1, 0xBF}, {0x2010, 0x2027}, {0x3001, 0x3003},
                          {0xFF01, 0xFF0F}, {0x20A0, 0x20B5}, {0x2190, 0x21FF}, {0x300, 0x36F}};
  const Ranges emoji = {{0x1F600, 0x1F64F}, {0x1F300, 0x1F5FF}, {0x1F680, 0x1F6C5}, {0x2600, 0x26FF}};
  const uint32_t spaces[] = {0x20, 0x20, 0x20, 0x20, 0x0A, 0x0A, 0x0A, 0x09, 0x0D, 0x0B, 0x0C, 0xA0, 0x3000, 0x2028, 0xFEFF, 0x85, 0x200B, 0x1680,
                             0x2003, 0x202F};
  const char* contractions[] = {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'x", "'"};
  const uint8_t controls[] = {0x00, 0x01, 0x1B, 0x1C, 0x1F, 0x7F};
  const std::vector<std::vector<uint8_t>> invalid = {{0x80}, {0xBF}, {0xC0, 0xAF}, {0xC1}, {0xE0, 0x80, 0x80}, {0xED, 0xA0, 0x80},
                                                     {0xF4, 0x90, 0x80, 0x80}, {0xF5}, {0xFF}, {0xE4, 0xB8}, {0xF0, 0x9F, 0x98}, {0xC3}, {0xE2, 0x82}};
  uint32_t state = seed;
  const auto next = [&] { return mulberry32(state); };
  std::string out;
  const auto from = [&](const Ranges& r) {
    const auto [lo, hi] = r[next() % r.size()];
    return lo + next() % (hi - lo + 1);
  };
  const auto word = [&](const Ranges& r, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) utf8(out, from(r));
  };
  size_t sp = 0;
  while (out.size() < target) {
    if (next() % 10 < 5) {
      const size_t n = 64 + next() % 960;
      if (sp + n > sh.size()) sp = 0;
      out.append(sh, sp, n);
      sp += n;
      continue;
    }
    for (uint32_t k = 1 + next() % 24; k > 0; k--) {
      const uint32_t atom = next() % 16;
      if (atom <= 4) {
        const Ranges& pool = letters[next() % letters.size()];
        word(pool, 1 + next() % 8);
      } else if (atom == 5) word(numbers, 1 + next() % 5);
      else if (atom == 6) word(symbols, 1 + next() % 4);
      else if (atom == 7) {
        word(emoji, 1 + next() % 3);
        if (next() % 4 == 0) utf8(out, 0x1F3FB + next() % 5);
        if (next() % 4 == 0) utf8(out, 0x200D), word(emoji, 1);
        if (next() % 4 == 0) {
          utf8(out, 0x1F1E6 + next() % 26);
          utf8(out, 0x1F1E6 + next() % 26);
        }
      } else if (atom <= 9) {
        for (uint32_t n = 1 + next() % 12; n > 0; n--) utf8(out, spaces[next() % 20]);
      } else if (atom == 10) out += ' ';
      else if (atom == 11) out += contractions[next() % 11];
      else if (atom == 12) out += char(controls[next() % 6]);
      else if (atom == 13) {
        const auto& b = invalid[next() % invalid.size()];
        out.append(b.begin(), b.end());
      } else if (atom == 14) {
        word({{0x4E00, 0x9FA5}}, 2 + next() % 20);
        if (next() % 2) utf8(out, next() % 2 ? 0xFF0C : 0x3002);
      } else {
        out += ' ';
        for (uint32_t n = 1 + next() % 10; n > 0; n--) out += char((next() % 2 ? 0x41 : 0x61) + next() % 26);
      }
    }
  }
  return out;
}

// GPT-2's vocab.json from its merges: the bytes in bytes_to_unicode order are ids 0..255, merge r
// is id 256 + r, <|endoftext|> is 50256 (tiktoken checks the same of GPT-2's files).
std::string gpt2_vocab_json(const std::string& merges_txt) {
  std::vector<std::string> tokens;
  const auto printable = [](uint32_t b) {
    const bool p = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    return p;
  };
  for (uint32_t b = 0; b < 256; b++)
    if (printable(b)) tokens.emplace_back(), utf8(tokens.back(), b);
  for (uint32_t b = 0, k = 0; b < 256; b++)
    if (!printable(b)) tokens.emplace_back(), utf8(tokens.back(), 256 + k++);
  size_t at = merges_txt.find('\n') + 1;
  while (at < merges_txt.size()) {
    const size_t nl = merges_txt.find('\n', at);
    const std::string line = merges_txt.substr(at, nl - at);
    at = nl + 1;
    tokens.push_back(line.substr(0, line.find(' ')) + line.substr(line.find(' ') + 1));
  }
  tokens.push_back("<|endoftext|>");
  std::string json = "{";
  for (size_t i = 0; i < tokens.size(); i++) {
    json += i ? ",\"" : "\"";
    for (char c : tokens[i]) json += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    json += "\":" + std::to_string(i);
  }
  return json + "}";
}

const tok::Tokenizer& gpt2() {
  static const tok::Tokenizer t = [] {
    const std::string merges = read_text(std::string(TINYGPT_REF_DIR) + "/gpt2/merges.txt");
    return tok::Tokenizer::from_gpt2(gpt2_vocab_json(merges), merges);
  }();
  return t;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The worked example of docs/tokenizer.md.
const char* kWorkedText = "low lower lowest low";

}  // namespace

// ---- the worked example ------------------------------------------------------------------------

TEST_CASE("the worked example learns the merges worked out by hand, ties to the smaller left id", "[tokenizer]") {
  // pieces: "low" " lower" " lowest" " low"; pairs seen twice or more: (l,o) 4, (o,w) 4, (' ',l) 3, (w,e) 2
  REQUIRE(pieces(kWorkedText) == std::vector<std::string>{"low", " lower", " lowest", " low"});
  const tok::Tokenizer t = train(kWorkedText, 260);
  const auto& m = t.merges();
  REQUIRE(m.size() == 4);
  // 1. (l,o) and (o,w) both occur 4 times: the smaller left id, 'l' = 108, wins
  CHECK((m[0].left == 'l' && m[0].right == 'o' && m[0].id == 256 && m[0].count == 4));
  // 2. lo + w, 4 times
  CHECK((m[1].left == 256 && m[1].right == 'w' && m[1].id == 257 && m[1].count == 4));
  // 3. ' ' + low in " lower", " lowest", " low"
  CHECK((m[2].left == ' ' && m[2].right == 257 && m[2].id == 258 && m[2].count == 3));
  // 4. " low" + e in " lower" and " lowest"; every other pair occurs once
  CHECK((m[3].left == 258 && m[3].right == 'e' && m[3].id == 259 && m[3].count == 2));
  CHECK(t.token_bytes(259) == " lowe");
  // encoding: "lowest" has no " low", so it stops at low + e s t; " low" is one token
  CHECK(t.encode("lowest low") == std::vector<int32_t>{257, 'e', 's', 't', 258});
  // training statistics: 20 bytes as low | " lowe" r | " lowe" s t | " low" = 1 + 2 + 3 + 1 tokens
  CHECK(t.training_stats().bytes == 20);
  CHECK(t.training_stats().tokens == 7);
  CHECK(t.encode(kWorkedText).size() == 7);
}

TEST_CASE("training learns the merges of the plain algorithm, recounting every pair at every step", "[tokenizer]") {
  // the plain algorithm: every pair of every word counted again before each merge
  const std::string text = shakespeare(30'000) + gpt2_test_text(15'000);
  std::map<std::string, uint64_t> counts;
  for (const std::string& p : pieces(text)) counts[p]++;
  std::vector<std::pair<std::vector<int32_t>, uint64_t>> words;
  for (const auto& [p, c] : counts) words.push_back({std::vector<int32_t>(p.begin(), p.end()), c});
  for (auto& [w, c] : words)
    for (int32_t& x : w) x &= 0xFF;
  std::vector<tok::Merge> want;
  for (int32_t z = 256; z < 700; z++) {
    std::map<std::pair<int32_t, int32_t>, uint64_t> pairs;  // ordered: the first of the largest count is the smallest pair
    for (const auto& [w, c] : words)
      for (size_t i = 0; i + 1 < w.size(); i++) pairs[{w[i], w[i + 1]}] += c;
    std::pair<int32_t, int32_t> best{-1, -1};
    uint64_t n = 0;
    for (const auto& [p, c] : pairs)
      if (c > n) best = p, n = c;
    if (n < 2) break;
    want.push_back({best.first, best.second, z, n});
    for (auto& [w, c] : words) {
      std::vector<int32_t> out;
      for (size_t i = 0; i < w.size();) {
        if (i + 1 < w.size() && w[i] == best.first && w[i + 1] == best.second) out.push_back(z), i += 2;
        else out.push_back(w[i++]);
      }
      w = out;
    }
  }
  REQUIRE(want.size() == 444);
  const tok::Tokenizer t = train(text, 700);
  REQUIRE(t.merges().size() == want.size());
  for (size_t r = 0; r < want.size(); r++) {
    INFO("merge " << r);
    CHECK(t.merges()[r].left == want[r].left);
    CHECK(t.merges()[r].right == want[r].right);
    CHECK(t.merges()[r].count == want[r].count);
  }
}

TEST_CASE("a vocabulary larger than the text supports is refused with the number of merges it allowed", "[tokenizer]") {
  const data::MemorySource src = memory(kWorkedText);
  try {
    tok::train_bpe(src, 261);
    FAIL("a vocabulary of 261 on the worked example was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == "tokenizer.vocab_too_large");
    CHECK(arg(e, "merges") == "4");
    CHECK(arg(e, "possible") == "260");
    CHECK(std::string(e.what()).find("supports only 4 merges (a vocabulary of 260)") != std::string::npos);
  }
  CHECK(code_of([&] { tok::train_bpe(src, 255); }) == "tokenizer.vocab_range");
  CHECK(code_of([&] { tok::train_bpe(src, 65537); }) == "tokenizer.vocab_range");
  const data::MemorySource empty = memory("");
  CHECK(code_of([&] { tok::train_bpe(empty, 300); }) == "tokenizer.empty_text");
  // 256 is the byte vocabulary: no merges, one token per byte
  const tok::Tokenizer bytes = train(kWorkedText, 256);
  CHECK(bytes.merge_count() == 0);
  CHECK(bytes.encode("héllo").size() == 6);
}

TEST_CASE("training is deterministic, reports progress, and stops when asked", "[tokenizer]") {
  const std::string text = shakespeare(200'000);
  const data::MemorySource src = memory(text);
  int calls = 0;
  uint64_t last_merges = 0;
  const auto a = tok::train_bpe(src, 600, [&](const tok::TrainProgress& p) {
    calls++;
    if (p.phase == tok::TrainProgress::merging) last_merges = p.done;
    return true;
  });
  const auto b = tok::train_bpe(src, 600);
  REQUIRE((a && b));
  CHECK(a->serialize() == b->serialize());
  CHECK(calls > 1);
  CHECK(last_merges == 344);
  // the counts fall (never rise) in the order learned, and the stats are the text's own encoding
  for (size_t r = 1; r < a->merges().size(); r++) CHECK(a->merges()[r].count <= a->merges()[r - 1].count);
  CHECK(a->training_stats().bytes == text.size());
  CHECK(a->training_stats().tokens == a->encode(text).size());
  CHECK(a->training_stats().bytes_per_token() > 2.0);
  // the first merge of Shakespeare with GPT-2's rule (GPT-2's own first merge too): a space joins the word that follows
  CHECK(a->token_text(a->merges()[0].id) == " t");
  const auto stopped = tok::train_bpe(src, 600, [](const tok::TrainProgress& p) { return p.phase == tok::TrainProgress::counting; });
  CHECK(!stopped);
}

// ---- pre-tokenization ------------------------------------------------------------------------------

TEST_CASE("pre-tokenization cuts text where GPT-2's regex does", "[tokenizer]") {
  using V = std::vector<std::string>;
  // the expected pieces are JavaScript's (text.matchAll of the regex in tokenizer.h)
  CHECK(pieces("Hello world's end!!") == V{"Hello", " world", "'s", " end", "!!"});
  CHECK(pieces("I'll  go\n\n  now") == V{"I", "'ll", " ", " go", "\n\n ", " now"});
  CHECK(pieces("x   \n") == V{"x", "   \n"});
  CHECK(pieces("don't 'LL 'x") == V{"don", "'t", " '", "LL", " '", "x"});
  CHECK(pieces("abc123 \xC2\xBD\xE2\x85\xAB") == V{"abc", "123", " \xC2\xBD\xE2\x85\xAB"});          // ½Ⅻ are numbers
  CHECK(pieces("你好，世界。 中文") == V{"你好", "，", "世界", "。", " 中文"});
  CHECK(pieces("a\xC2\xA0" "b\xE3\x80\x80" "c") == V{"a", "\xC2\xA0", "b", "\xE3\x80\x80", "c"});  // NBSP, ideographic space
  CHECK(pieces("end  ") == V{"end", "  "});
  CHECK(pieces("\tx") == V{"\t", "x"});
  CHECK(pieces(" \xC2\x85x") == V{" \xC2\x85", "x"});  // U+0085 is not white space in JavaScript
  CHECK(pieces("a\xCC\x81" "b") == V{"a", "\xCC\x81", "b"});  // a combining mark is neither letter nor number
  CHECK(pieces("\xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD ok") == V{"\xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", " ok"});
  // invalid UTF-8: one "other" character per maximal subpart, as U+FFFD would be
  CHECK(pieces("ab\xFF" "cd") == V{"ab", "\xFF", "cd"});
  CHECK(pieces(" \xE4\xB8" "x") == V{" \xE4\xB8", "x"});      // a cut-off 3-byte sequence
  CHECK(pieces("\xED\xA0\x80z") == V{"\xED\xA0\x80", "z"});   // an encoded surrogate: three subparts, all "other"
  CHECK(pieces("") == V{});
}

TEST_CASE("the character classes come from the generated tables", "[tokenizer]") {
  using C = tok::CharClass;
  CHECK(tok::char_class('a') == C::letter);
  CHECK(tok::char_class(0x4E2D) == C::letter);   // 中
  CHECK(tok::char_class(0x1D400) == C::letter);  // mathematical bold A
  CHECK(tok::char_class('7') == C::number);
  CHECK(tok::char_class(0x0663) == C::number);   // Arabic-Indic three
  CHECK(tok::char_class(0x216B) == C::number);   // Roman numeral twelve (Nl)
  CHECK(tok::char_class(0x00B2) == C::number);   // superscript two (No)
  CHECK(tok::char_class(' ') == C::space);
  CHECK(tok::char_class(0x3000) == C::space);
  CHECK(tok::char_class(0xFEFF) == C::space);    // JavaScript's \s has it; Unicode's White_Space does not
  CHECK(tok::char_class(0x0085) == C::other);    // ... and the other way round
  CHECK(tok::char_class(0x0301) == C::other);    // a combining mark
  CHECK(tok::char_class(0x1F600) == C::other);   // 😀
  CHECK(tok::char_class('!') == C::other);
  CHECK(std::string(tok::unicode_version()).size() >= 3);
}

// ---- encoding -------------------------------------------------------------------------------------

TEST_CASE("any bytes encode and decode back exactly (fuzz)", "[tokenizer]") {
  const tok::Tokenizer t = train(shakespeare(300'000), 700);
  data::Rng rng(42);
  const char* alphabet = "ab \n\t'e\xC3\xA9\xE4\xB8\xAD\xFF\x80";
  for (int round = 0; round < 400; round++) {
    const size_t n = size_t(rng.below(round < 380 ? 64 : 5000));
    std::string s(n, '\0');
    const int kind = round % 3;
    for (char& c : s)
      c = kind == 0 ? char(rng.below(256))                     // any bytes
          : kind == 1 ? alphabet[rng.below(std::strlen(alphabet))]  // pieces of UTF-8, spaces and invalid bytes
                      : char(" etaoinshrdlu\n"[rng.below(14)]);  // text-like
    for (const tok::Tokenizer* k : {&t, &gpt2()}) {
      const std::vector<int32_t> ids = k->encode(s);
      REQUIRE(k->decode(ids) == s);
      for (int32_t id : ids) REQUIRE((id >= 0 && id < k->vocab_size()));
    }
  }
  // a long run without a break goes through the heap merge, and a run over kMaxPiece is cut
  const std::string spaces(200'000, ' '), letters(150'000, 'e');
  for (const std::string& s : {spaces, letters, spaces + "x" + letters}) {
    CHECK(t.decode(t.encode(s)) == s);
    CHECK(gpt2().decode(gpt2().encode(s)) == s);
  }
  // a piece over 128 bytes merges (heap) as a short one does (arrays): the same ids as its halves' rule
  const std::string word = "e" + std::string(300, 'e');
  std::vector<int32_t> a = t.encode(word);
  CHECK(t.decode(a) == word);
}

TEST_CASE("a long piece merges the same through the heap as through the arrays", "[tokenizer]") {
  const tok::Tokenizer t = train(shakespeare(300'000), 1000);
  data::Rng rng(7);
  for (const tok::Tokenizer* k : {&t, &gpt2()}) {
    tok::Encoder enc(*k);
    for (int round = 0; round < 300; round++) {
      // pieces of 2 to 400 bytes of a small alphabet, so that merges chain and overlap
      const char* alphabet = round % 2 ? "etaoin " : "ee ";
      std::string w;
      for (size_t i = 0, n = 2 + size_t(rng.below(399)); i < n; i++) w += alphabet[rng.below(std::strlen(alphabet))];
      std::vector<int32_t> a, b;
      const auto* p = reinterpret_cast<const uint8_t*>(w.data());
      enc.bpe_short(p, w.size(), a);
      enc.bpe_long(p, w.size(), b);
      REQUIRE(a == b);
    }
  }
}

TEST_CASE("the piece cache gives the ids of the uncached merge, through its growth and its restarts", "[tokenizer]") {
  const tok::Tokenizer t = train(shakespeare(300'000), 1000);
  // 300,000 distinct words of 3 to 40 bytes (over the cache's 131,072 entries: it grows, then
  // starts again), each seen twice at distances that cross the restarts, some longer than the
  // entries' inline keys
  data::Rng rng(11);
  std::vector<std::string> words;
  for (int i = 0; i < 300'000; i++) {
    std::string w = " ";
    for (int k = i; k > 0 || w.size() < 3; k /= 7) w += "etaoinsh"[k % 7 + (k & 1)];
    for (size_t n = rng.below(8) == 0 ? size_t(rng.below(30)) : 0; n > 0; n--) w += "etaoin"[rng.below(6)];
    words.push_back(w);
  }
  std::string text;
  for (int i = 0; i < 600'000; i++) text += words[size_t(i < 300'000 ? i : rng.below(300'000))];
  tok::Encoder enc(t);
  std::vector<int32_t> cached, plain;
  enc.text(reinterpret_cast<const uint8_t*>(text.data()), text.size(), cached);
  for (const auto& [b, e] : tok::pretokenize(text)) enc.piece_once(reinterpret_cast<const uint8_t*>(text.data()) + b, e - b, plain);
  REQUIRE(cached.size() == plain.size());
  CHECK(cached == plain);
  CHECK(t.decode(cached) == text);
}

TEST_CASE("a stream encoded in chunks of any size gives the ids of the whole text", "[tokenizer]") {
  const tok::Tokenizer t = train(shakespeare(100'000), 400);
  std::string text = gpt2_test_text(30'000) + std::string(300, ' ') + "x" + std::string(70'000, 'z') + "\n\n  ";
  const std::vector<int32_t> whole = t.encode(text);
  const data::MemorySource src = memory(text);
  for (size_t chunk : {size_t(1), size_t(7), size_t(16), size_t(17), size_t(1000), size_t(65536), size_t(1) << 20}) {
    std::vector<int32_t> got;
    const bool done = tok::encode_source(t, src, [&](const int32_t* ids, size_t n) { got.insert(got.end(), ids, ids + n); }, {}, chunk);
    CHECK(done);
    INFO("chunk " << chunk);
    CHECK(got == whole);
  }
  std::vector<int32_t> got;
  CHECK(!tok::encode_source(t, src, [&](const int32_t*, size_t) {}, [](uint64_t done, uint64_t) { return done == 0; }, 4096));
}

TEST_CASE("tokens have labels, special tokens have ids after the text tokens, unknown ids are refused", "[tokenizer]") {
  const tok::Tokenizer bytes;
  CHECK(bytes.vocab_size() == 256);
  // at vocabulary 256 the translator's ids are pairs.h's: BOS 256, EOS 257, PAD 258
  CHECK(bytes.special_id(tok::Special::bos) == 256);
  CHECK(bytes.special_id(tok::Special::eos) == 257);
  CHECK(bytes.special_id(tok::Special::pad) == 258);
  CHECK(bytes.special_id(tok::Special::endoftext) == 259);
  CHECK(bytes.id_count() == 260);
  CHECK(bytes.token_text('\n') == "\\n");
  CHECK(bytes.token_text(0xFF) == "\\xFF");
  CHECK(bytes.token_text('\\') == "\\\\");
  CHECK(bytes.token_text(257) == "<|eos|>");
  CHECK(bytes.decode({'h', 'i', 259}) == "hi<|endoftext|>");
  CHECK(code_of([&] { bytes.decode({260}); }) == "tokenizer.unknown_id");
  CHECK(code_of([&] { bytes.token_bytes(-1); }) == "tokenizer.unknown_id");
  // GPT-2's one special token keeps its id; the translator's come after it
  CHECK(gpt2().special_id(tok::Special::endoftext) == 50256);
  CHECK(gpt2().special_id(tok::Special::bos) == 50257);
  std::string labels;  // GPT-2 cuts these characters into tokens of parts of their bytes
  for (int32_t id : gpt2().encode("你好")) labels += gpt2().token_text(id);
  CHECK(labels.find("\\x") != std::string::npos);
  CHECK(gpt2().token_text(gpt2().encode(" hello")[0]) == " hello");
}

// ---- GPT-2 ---------------------------------------------------------------------------------------------

TEST_CASE("GPT-2's vocabulary encodes the 1 MB test text exactly as gpt-tokenizer does", "[tokenizer][gpt2]") {
  const std::string dir = std::string(TINYGPT_REF_DIR) + "/gpt2";
  const std::string text = gpt2_test_text();
  const std::string meta = read_text(dir + "/text.json");
  char fp[17];
  std::snprintf(fp, sizeof fp, "%016llx", (unsigned long long)fnv1a(text));
  INFO("the text built here and tests/ref/gpt2.mjs's testText() differ: change both together");
  REQUIRE(meta.find("\"bytes\": " + std::to_string(text.size())) != std::string::npos);
  REQUIRE(meta.find(fp) != std::string::npos);
  const std::vector<uint8_t> raw = io::read_file(dir + "/text_ids.bin");
  std::vector<int32_t> want(raw.size() / 2);
  for (size_t i = 0; i < want.size(); i++) want[i] = int32_t(raw[2 * i] | raw[2 * i + 1] << 8);
  const tok::Tokenizer& g = gpt2();
  CHECK(g.vocab_size() == 50256);
  const std::vector<int32_t> got = g.encode(text);
  size_t first = 0;
  while (first < std::min(got.size(), want.size()) && got[first] == want[first]) first++;
  if (first < std::max(got.size(), want.size())) {
    std::string ours, theirs;
    for (size_t i = first; i < std::min(first + 6, got.size()); i++) ours += g.token_text(got[i]) + " | ";
    for (size_t i = first; i < std::min(first + 6, want.size()); i++) theirs += g.token_text(want[i]) + " | ";
    FAIL("first difference at token " << first << " of " << want.size() << ": ours " << ours << " gpt-tokenizer " << theirs);
  }
  CHECK(got.size() == 386747);
  CHECK(g.decode(got) == text);
}

TEST_CASE("every GPT-2 token's bytes encode to that one token", "[tokenizer][gpt2]") {
  // so merging by pairs (GPT-2's and Hugging Face's rule) gives tiktoken's ids (which looks the
  // joined bytes up instead) on GPT-2's vocabulary
  const tok::Tokenizer& g = gpt2();
  int bad = 0, one_piece = 0;
  for (int32_t id = 0; id < g.vocab_size(); id++) {
    const std::string& b = g.token_bytes(id);
    if (tok::pretokenize(b).size() != 1) continue;  // the rule would cut these bytes: encode() never sees them whole
    one_piece++;
    const std::vector<int32_t> ids = g.encode(b);
    if (ids.size() != 1 || ids[0] != id) bad++;
  }
  CHECK(one_piece > 49000);
  CHECK(bad == 0);
}

TEST_CASE("a tokenizer goes through its compact form, tokenizer.json and GPT-2's files unchanged", "[tokenizer]") {
  const tok::Tokenizer t = train(shakespeare(200'000), 500);
  const std::string sample = gpt2_test_text(20'000);
  const std::vector<int32_t> ids = t.encode(sample);
  const std::vector<uint8_t> blob = t.serialize();
  CHECK(tok::Tokenizer::has_magic(blob.data(), blob.size()));
  const tok::Tokenizer c = tok::Tokenizer::deserialize(blob.data(), blob.size());
  CHECK(c.serialize() == blob);
  CHECK(c.encode(sample) == ids);
  CHECK(c.merges()[7].count == t.merges()[7].count);
  CHECK(c.training_stats().tokens == t.training_stats().tokens);
  const tok::Tokenizer h = tok::Tokenizer::from_hf_json(t.to_hf_json());
  CHECK(h.encode(sample) == ids);
  CHECK(h.to_hf_json() == t.to_hf_json());
  CHECK(h.specials().size() == 4);
  // GPT-2's: compact (uint16 ids, permuted bytes) and tokenizer.json both ways
  const std::vector<uint8_t> g = gpt2().serialize();
  CHECK(g.size() < 300'000);
  const tok::Tokenizer g2 = tok::Tokenizer::deserialize(g.data(), g.size());
  const tok::Tokenizer g3 = tok::Tokenizer::from_hf_json(gpt2().to_hf_json());
  CHECK(g2.encode(sample) == gpt2().encode(sample));
  CHECK(g3.encode(sample) == gpt2().encode(sample));
  CHECK(g3.special_id(tok::Special::endoftext) == 50256);
  CHECK(gpt2().fingerprint() == g2.fingerprint());
  CHECK(gpt2().fingerprint() != t.fingerprint());
}

TEST_CASE("Tokenizer::load tells the forms apart by their content", "[tokenizer]") {
  TempDir d;
  const tok::Tokenizer t = train(shakespeare(50'000), 300);
  const std::vector<uint8_t> blob = t.serialize();
  io::write_file(d.file("t.tok"), blob);
  write(d.file("t.json"), t.to_hf_json());
  CHECK(tok::Tokenizer::load(d.file("t.tok")).serialize() == blob);
  const tok::Tokenizer from_json = tok::Tokenizer::load(d.file("t.json"));
  CHECK(from_json.fingerprint() == t.fingerprint());  // the same merges: the counts are not in tokenizer.json
  CHECK(from_json.merges()[0].count == 0);
  fs::create_directories(d.path / "gpt2");
  const std::string merges = read_text(std::string(TINYGPT_REF_DIR) + "/gpt2/merges.txt");
  write(d.file("gpt2/merges.txt"), merges);
  write(d.file("gpt2/vocab.json"), gpt2_vocab_json(merges));
  CHECK(tok::Tokenizer::load(d.file("gpt2")).fingerprint() == gpt2().fingerprint());
  CHECK(tok::Tokenizer::load(d.file("gpt2/vocab.json")).fingerprint() == gpt2().fingerprint());
  CHECK(tok::Tokenizer::load(d.file("gpt2/merges.txt")).fingerprint() == gpt2().fingerprint());
  fs::remove(d.path / "gpt2/merges.txt");
  CHECK(code_of([&] { tok::Tokenizer::load(d.file("gpt2/vocab.json")); }) == "tokenizer.no_files");
  CHECK(code_of([&] { tok::Tokenizer::load(d.file("nothing-here")); }) != "");
}

// ---- damaged files ------------------------------------------------------------------------------------

TEST_CASE("a damaged compact tokenizer is refused with what is wrong", "[tokenizer]") {
  const tok::Tokenizer t = train(kWorkedText, 260);
  const std::vector<uint8_t> blob = t.serialize();
  const auto load = [](std::vector<uint8_t> b) { return code_of([&] { tok::Tokenizer::deserialize(b.data(), b.size(), "t.tok"); }); };
  CHECK(load(blob) == "");
  for (size_t cut = 0; cut < blob.size(); cut++) {
    const std::string c = load(std::vector<uint8_t>(blob.begin(), blob.begin() + ptrdiff_t(cut)));
    INFO("cut at " << cut);
    CHECK((c == (cut < 8 ? "tokenizer.not_tokenizer" : "tokenizer.truncated")));
  }
  for (size_t at = 16; at < blob.size(); at++) {  // every byte after the version and length flipped
    std::vector<uint8_t> b = blob;
    b[at] ^= 0x40;
    INFO("byte " << at);
    CHECK(load(b) == "tokenizer.corrupt");
  }
  std::vector<uint8_t> newer = blob;
  newer[8] = 2;
  CHECK(load(newer) == "tokenizer.version");
  std::vector<uint8_t> longer = blob;
  longer.push_back(0);
  CHECK(load(longer) == "tokenizer.corrupt");
  std::vector<uint8_t> other = blob;
  other[0] = 'X';
  CHECK(load(other) == "tokenizer.not_tokenizer");
}

TEST_CASE("a damaged tokenizer.json, vocab.json or merges.txt is refused with what is wrong", "[tokenizer]") {
  const tok::Tokenizer t = train(kWorkedText, 260);
  const std::string good = t.to_hf_json();
  const auto hf = [](const std::string& s) { return code_of([&] { tok::Tokenizer::from_hf_json(s); }); };
  const auto edit = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  CHECK(hf(good) == "");
  CHECK(hf(good.substr(0, good.size() / 2)) == "tokenizer.bad_json");
  CHECK(hf("[1, 2]") == "tokenizer.bad_json");
  CHECK(hf("{\"model\": {\"type\": \"WordPiece\"}}") == "tokenizer.unsupported");
  CHECK(hf(edit("\"type\": \"BPE\"", "\"type\": \"Unigram\"")) == "tokenizer.unsupported");
  CHECK(hf(edit("\"byte_fallback\": false", "\"byte_fallback\": true")) == "tokenizer.unsupported");
  CHECK(hf(edit("\"add_prefix_space\": false", "\"add_prefix_space\": true")) == "tokenizer.unsupported");
  CHECK(hf(edit("\"normalizer\": null", "\"normalizer\": {\"type\": \"NFC\"}")) == "tokenizer.unsupported");
  CHECK(hf(edit("\"lo w\"", "\"lo x\"")) == "tokenizer.inconsistent");        // lox is not in the vocabulary
  CHECK(hf(edit("\"lo w\"", "\"low\"")) == "tokenizer.bad_merges");           // not two tokens
  CHECK(hf(edit("\"lo w\"", "7")) == "tokenizer.bad_json");
  CHECK(hf(edit("\"merges\": [", "\"merges\": [\"l o\", ")) == "tokenizer.inconsistent");  // a merge listed twice
  CHECK(hf(edit("\"low\": 257", "\"low\": 400")) == "tokenizer.inconsistent");  // ids with a gap
  CHECK(hf(edit("\"a\": 97,", "")) == "tokenizer.inconsistent");               // a byte missing
  // GPT-2's pair of files
  const std::string merges = "#version: 0.2\nl o\nlo w\n";
  std::string vocab = "{";
  for (int b = 0; b < 256; b++) {
    const std::string key = tok::bytes_to_gpt2(std::string(1, char(b)));
    vocab.append("\"").append(key == "\"" || key == "\\" ? "\\" : "").append(key).append("\": ").append(std::to_string(b)).append(", ");
  }
  const std::string ok_vocab = vocab + "\"lo\": 256, \"low\": 257}";
  CHECK(tok::Tokenizer::from_gpt2(ok_vocab, merges).encode("low") == std::vector<int32_t>{257});
  try {
    tok::Tokenizer::from_gpt2(ok_vocab, "#version: 0.2\nl o\nlo  w\n", "vocab.json", "merges.txt");
    FAIL("a bad merges.txt line was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == "tokenizer.bad_merges");
    CHECK(arg(e, "line") == "3");
  }
  CHECK(code_of([&] { tok::Tokenizer::from_gpt2(ok_vocab, "#version: 0.2\nl o\nlo q\n"); }) == "tokenizer.inconsistent");
  CHECK(code_of([&] { tok::Tokenizer::from_gpt2("{\"a\": 1", merges); }) == "tokenizer.bad_json");
  CHECK(code_of([&] { tok::Tokenizer::from_gpt2(vocab + "\"lo\": \"x\", \"low\": 257}", merges); }) == "tokenizer.bad_json");
}

// ---- the token source ----------------------------------------------------------------------------------

TEST_CASE("a token source gives the text's encoding, in memory or from its cache file, and batches as any source", "[tokenizer]") {
  TempDir d;
  const std::string text = shakespeare(120'000);
  write(d.file("text.txt"), text);
  auto tokz = std::make_shared<const tok::Tokenizer>(train(text, 400));
  const std::vector<int32_t> want = tokz->encode(text);
  auto file = std::make_shared<const data::FileSource>(d.file("text.txt"));
  const auto mem = tok::TokenSource::in_memory(tokz, file);
  REQUIRE(mem);
  CHECK(mem->size() == want.size());
  CHECK(mem->vocab() == 400);
  std::vector<int32_t> got(want.size());
  mem->read(0, got.size(), got.data());
  CHECK(got == want);
  const auto cached = tok::TokenSource::cached(tokz, file, d.file("text.tokens"));
  CHECK(!cached->reused_cache());
  std::fill(got.begin(), got.end(), -1);
  cached->read(0, got.size(), got.data());
  CHECK(got == want);
  // the cache is an llm.c shard (version 1: uint16 tokens) of the same tokens
  const data::ShardInfo info = data::read_shard_header(d.file("text.tokens"));
  CHECK((info.version == 1 && info.tokens == want.size()));
  const auto again = tok::TokenSource::cached(tokz, file, d.file("text.tokens"));
  CHECK(again->reused_cache());
  CHECK(again->fingerprint() == mem->fingerprint());
  // the batcher reads it as any source: the same seed draws the same batches
  data::Dataset a(data::Corpus{mem, nullptr}, 3), b(data::Corpus{again, nullptr}, 3);
  a.set_vocab(400), b.set_vocab(400);
  const data::Batch x = a.sample_batch(4, 32), y = b.sample_batch(4, 32);
  CHECK(x.x == y.x);
  CHECK(x.y == y.y);
  for (int32_t v : x.x) CHECK((v >= 0 && v < 400));
  // another tokenizer's cache is rewritten
  auto other = std::make_shared<const tok::Tokenizer>(train(text, 300));
  const auto rewritten = tok::TokenSource::cached(other, file, d.file("text.tokens"));
  CHECK(!rewritten->reused_cache());
  CHECK(rewritten->size() == other->encode(text).size());
  CHECK(rewritten->fingerprint() != mem->fingerprint());
  CHECK(code_of([&] { again->check(); }) == "corpus.file_changed");  // its cache file was replaced
  // a text that changes under it is noticed
  write(d.file("text.txt"), text + "more");
  CHECK(code_of([&] { rewritten->check(); }) == "corpus.file_changed");
  // stopped while encoding: nothing
  CHECK(!tok::TokenSource::in_memory(tokz, std::make_shared<const data::MemorySource>(std::vector<uint8_t>(100, 'a')),
                                     [](uint64_t, uint64_t) { return false; }));
}
