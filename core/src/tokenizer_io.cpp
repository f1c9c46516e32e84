// tokenizer_io.cpp — a tokenizer in files: its compact blob (checkpoints), Hugging Face's
// tokenizer.json both ways, GPT-2's vocab.json + merges.txt, and load() that tells them apart.
//
// The compact form, little-endian (docs/tokenizer.md, "The compact form"):
//   0   8   magic "TGPTTOKN"
//   8   4   version (1)
//   12  4   the blob's length in bytes, checksum included
//   16  4   flags: 1 = ids are uint32 (else uint16), 2 = each merge names the id it makes (else 256 + rank)
//   20  4   V, text tokens (256 + merges)
//   24  4   S, special tokens (ids V .. V + S - 1)
//   28  8   bytes of the training text      } training_stats(): 0 for a loaded vocabulary
//   36  8   its tokens under this vocabulary }
//   44      the id of each byte value 0..255 (256 ids)
//           each merge: left id, right id (and the id it makes, with flag 2)
//           each merge's count, LEB128
//           each special token: its id, its length (uint8), its text
//   end     CRC-32 of everything before it (uint32)
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "json.h"
#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/tokenizer.h"
#include "tokenizer_impl.h"

namespace tinygpt::tok {

namespace {

constexpr char kMagic[8] = {'T', 'G', 'P', 'T', 'T', 'O', 'K', 'N'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 44;

Error inconsistent(const std::string& name, const std::string& what) {
  return Error(coded("tokenizer.inconsistent", {{"name", name}, {"what", what}}, name + " is not a consistent tokenizer: " + what));
}

Error bad_json(const std::string& name, const std::string& what) {
  return Error(coded("tokenizer.bad_json", {{"name", name}, {"what", what}}, name + " is not a tokenizer file tinygpt can read: " + what));
}

Error unsupported(const std::string& name, const std::string& what) {
  return Error(coded("tokenizer.unsupported", {{"name", name}, {"what", what}},
                     name + " is a kind of tokenizer tinygpt does not read (it reads byte-level BPE, as GPT-2's): " + what));
}

}  // namespace

// ---- GPT-2's byte alphabet -------------------------------------------------------------------------

const std::vector<uint32_t>& byte_to_unicode() {
  static const std::vector<uint32_t> map = [] {
    std::vector<uint32_t> m(256);
    uint32_t k = 0;
    for (uint32_t b = 0; b < 256; b++) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      m[b] = printable ? b : 256 + k++;
    }
    return m;
  }();
  return map;
}

std::string bytes_to_gpt2(const std::string& bytes) {
  const auto& map = byte_to_unicode();
  std::string out;
  for (const unsigned char b : bytes) {
    const uint32_t cp = map[b];  // below U+0800: one or two bytes of UTF-8
    if (cp < 0x80) out += char(cp);
    else out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
  }
  return out;
}

bool gpt2_to_bytes(std::string_view s, std::string& out) {
  static const std::vector<int> back = [] {
    std::vector<int> b(0x200, -1);
    const auto& map = byte_to_unicode();
    for (int i = 0; i < 256; i++) b[map[size_t(i)]] = i;
    return b;
  }();
  out.clear();
  for (size_t i = 0; i < s.size();) {
    const auto c = uint8_t(s[i]);
    uint32_t cp;
    if (c < 0x80) cp = c, i++;
    else if ((c & 0xE0) == 0xC0 && i + 1 < s.size() && (uint8_t(s[i + 1]) & 0xC0) == 0x80) cp = (c & 0x1Fu) << 6 | (uint8_t(s[i + 1]) & 0x3Fu), i += 2;
    else return false;
    if (cp >= back.size() || back[cp] < 0) return false;
    out += char(back[cp]);
  }
  return true;
}

// ---- the compact form ------------------------------------------------------------------------------

bool Tokenizer::has_magic(const uint8_t* data, size_t n) { return n >= 8 && std::memcmp(data, kMagic, 8) == 0; }

std::vector<uint8_t> Tokenizer::serialize() const { return serialize_blob(*this, true); }

std::vector<uint8_t> serialize_blob(const Tokenizer& t, bool with_counts) {
  const auto& merges_ = t.merges();
  const auto& specials_ = t.specials();
  const Stats train_stats_ = with_counts ? t.training_stats() : Stats{};
  const auto vocab_size = [&] { return t.vocab_size(); };
  const auto id_count = [&] { return t.id_count(); };
  std::vector<uint8_t> out(kMagic, kMagic + 8);
  const auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * i)));
  };
  const auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; i++) out.push_back(uint8_t(v >> (8 * i)));
  };
  const bool wide = id_count() > 65536;
  bool explicit_ids = false;
  for (size_t r = 0; r < merges_.size(); r++) explicit_ids = explicit_ids || merges_[r].id != int32_t(256 + r);
  const auto id = [&](int32_t v) {
    if (wide) u32(uint32_t(v));
    else out.push_back(uint8_t(v)), out.push_back(uint8_t(v >> 8));
  };
  u32(kVersion);
  u32(0);  // the length, set below
  u32((wide ? 1u : 0u) | (explicit_ids ? 2u : 0u));
  u32(uint32_t(vocab_size()));
  u32(uint32_t(specials_.size()));
  u64(train_stats_.bytes);
  u64(train_stats_.tokens);
  for (int b = 0; b < 256; b++) id(t.impl()->to_file[size_t(b)]);
  for (const Merge& m : merges_) {
    id(m.left), id(m.right);
    if (explicit_ids) id(m.id);
  }
  for (const Merge& m : merges_) {
    uint64_t v = with_counts ? m.count : 0;
    do {
      out.push_back(uint8_t((v & 0x7F) | (v >= 0x80 ? 0x80 : 0)));
      v >>= 7;
    } while (v);
  }
  for (const SpecialToken& s : specials_) {
    id(s.id);
    out.push_back(uint8_t(std::min<size_t>(s.text.size(), 255)));
    out.insert(out.end(), s.text.begin(), s.text.begin() + ptrdiff_t(std::min<size_t>(s.text.size(), 255)));
  }
  const uint32_t length = uint32_t(out.size() + 4);
  for (int i = 0; i < 4; i++) out[12 + size_t(i)] = uint8_t(length >> (8 * i));
  u32(ckpt::crc32(out.data(), out.size()));
  return out;
}

Tokenizer Tokenizer::deserialize(const uint8_t* data, size_t n, const std::string& name) {
  if (!has_magic(data, n))
    throw Error(coded("tokenizer.not_tokenizer", {{"name", name}}, name + " is not a tinygpt tokenizer (it does not start with TGPTTOKN)"));
  const auto truncated = [&] {
    return Error(coded("tokenizer.truncated", {{"name", name}, {"bytes", std::to_string(n)}},
                       name + " ends early (" + std::to_string(n) + " bytes): the tokenizer was cut off"));
  };
  size_t at = 8;
  const auto need = [&](size_t k) {
    if (k > n - at) throw truncated();
  };
  const auto u32 = [&] {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= uint32_t(data[at + size_t(i)]) << (8 * i);
    at += 4;
    return v;
  };
  const auto u64 = [&] {
    const uint64_t lo = u32();
    return lo | uint64_t(u32()) << 32;
  };
  const uint32_t version = u32();
  if (version == 0 || version > kVersion)
    throw Error(coded("tokenizer.version", {{"name", name}, {"version", std::to_string(version)}},
                      name + " is a tokenizer of format version " + std::to_string(version) + ": this tinygpt reads version " +
                          std::to_string(kVersion) + " (a newer tinygpt wrote it?)"));
  // the length and the checksum first: a damaged file is named as damaged (or cut off), not as
  // whatever its bytes now say
  const uint32_t length = u32();
  if (length > n) throw truncated();
  if (length < n) throw Error(coded("tokenizer.corrupt", {{"name", name}}, name + " is damaged: bytes follow the tokenizer"));
  if (n < kHeaderBytes + 4) throw Error(coded("tokenizer.corrupt", {{"name", name}}, name + " is damaged: its header does not describe a tokenizer"));
  const uint32_t crc = uint32_t(data[n - 4]) | uint32_t(data[n - 3]) << 8 | uint32_t(data[n - 2]) << 16 | uint32_t(data[n - 1]) << 24;
  if (ckpt::crc32(data, n - 4) != crc)
    throw Error(coded("tokenizer.corrupt", {{"name", name}}, name + " is damaged: its checksum does not match its contents"));
  const uint32_t flags = u32();
  const uint32_t vocab = u32(), n_special = u32();
  Stats stats;
  stats.bytes = u64();
  stats.tokens = u64();
  const bool wide = flags & 1, explicit_ids = flags & 2;
  if (vocab < 256 || vocab > uint32_t(kMaxVocab) * 16 || n_special > 1024 || (flags & ~3u))
    throw Error(coded("tokenizer.corrupt", {{"name", name}}, name + " is damaged: its header does not describe a tokenizer"));
  const size_t w = wide ? 4 : 2, merges = vocab - 256;
  const size_t end = n - 4;
  const auto id = [&]() -> int32_t {
    if (w > end - at) throw truncated();
    uint32_t v = data[at] | uint32_t(data[at + 1]) << 8;
    if (w == 4) v |= uint32_t(data[at + 2]) << 16 | uint32_t(data[at + 3]) << 24;
    at += w;
    return int32_t(v);
  };
  std::vector<std::string> tokens(vocab);
  for (int b = 0; b < 256; b++) {
    const int32_t i = id();
    if (i < 0 || uint32_t(i) >= vocab || !tokens[size_t(i)].empty()) throw inconsistent(name, "the byte ids are not 256 distinct ids");
    tokens[size_t(i)] = std::string(1, char(b));
  }
  std::vector<Merge> ms(merges);
  for (size_t r = 0; r < merges; r++) {
    Merge& m = ms[r];
    m.left = id(), m.right = id();
    m.id = explicit_ids ? id() : int32_t(256 + r);
    const auto ok = [&](int32_t i) { return i >= 0 && uint32_t(i) < vocab; };
    if (!ok(m.left) || !ok(m.right) || !ok(m.id) || tokens[size_t(m.left)].empty() || tokens[size_t(m.right)].empty() ||
        !tokens[size_t(m.id)].empty())
      throw inconsistent(name, "merge " + std::to_string(r) + " joins a token that no earlier merge made");
    tokens[size_t(m.id)] = tokens[size_t(m.left)] + tokens[size_t(m.right)];
  }
  for (Merge& m : ms) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= end || shift > 63) throw truncated();
      const uint8_t b = data[at++];
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) break;
    }
    m.count = v;
  }
  std::vector<SpecialToken> specials;
  for (uint32_t k = 0; k < n_special; k++) {
    SpecialToken s;
    s.id = id();
    if (at >= end) throw truncated();
    const size_t len = data[at++];
    if (len > end - at) throw truncated();
    s.text.assign(reinterpret_cast<const char*>(data + at), len);
    at += len;
    specials.push_back(std::move(s));
  }
  if (at != end) throw Error(coded("tokenizer.corrupt", {{"name", name}}, name + " is damaged: bytes follow the tokenizer"));
  return make_tokenizer(std::move(tokens), std::move(ms), std::move(specials), stats, name);
}

// ---- tokenizer.json and vocab.json + merges.txt ------------------------------------------------------

namespace {

// From a vocabulary (printable string -> id), merges (pairs of printable strings) and named special
// tokens: the tokenizer, ids as given. Entries of the vocabulary that are neither a byte nor made by
// a merge must be special tokens after the text tokens (GPT-2's vocab.json lists <|endoftext|>).
Tokenizer assemble(const json::Object& vocab, const std::vector<std::pair<std::string, std::string>>& merge_strings,
                   std::vector<SpecialToken> specials, const std::string& name) {
  std::unordered_map<std::string, int32_t> ids;
  ids.reserve(vocab.size() * 2);
  int64_t max_id = -1;
  for (const auto& [key, value] : vocab) {
    if (!value.is_number()) throw bad_json(name, "the vocabulary's entry \"" + key + "\" is not a number");
    int64_t v;
    try {
      v = value.as_int64();
    } catch (const Error&) {
      throw bad_json(name, "the vocabulary's entry \"" + key + "\" is not a whole number");
    }
    if (v < 0 || v >= int64_t(kMaxVocab) * 16) throw bad_json(name, "the vocabulary's entry \"" + key + "\" has id " + std::to_string(v));
    if (!ids.emplace(key, int32_t(v)).second) throw inconsistent(name, "the vocabulary lists \"" + key + "\" twice");
    max_id = std::max(max_id, v);
  }
  const int64_t V = 256 + int64_t(merge_strings.size());
  std::vector<std::string> tokens(static_cast<size_t>(V));
  std::vector<bool> is_text(size_t(std::max<int64_t>(max_id + 1, V)), false);
  std::string bytes;
  // the bytes: the vocabulary's one-character strings of the alphabet
  int n_bytes = 0;
  for (const auto& [key, id] : ids) {
    if (!gpt2_to_bytes(key, bytes) || bytes.size() != 1) continue;
    if (id >= V) throw inconsistent(name, "byte token \"" + key + "\" has id " + std::to_string(id) + ", after the merged tokens");
    tokens[size_t(id)] = bytes, is_text[size_t(id)] = true, n_bytes++;
  }
  if (n_bytes != 256) throw inconsistent(name, "the vocabulary has " + std::to_string(n_bytes) + " of the 256 byte tokens");
  std::vector<Merge> merges;
  for (size_t r = 0; r < merge_strings.size(); r++) {
    const std::string& l = merge_strings[r].first;
    const std::string& rr = merge_strings[r].second;
    const auto id_of = [&](const std::string& s) {
      const auto it = ids.find(s);
      if (it == ids.end()) throw inconsistent(name, "merge " + std::to_string(r + 1) + " (\"" + l + " " + rr + "\"): \"" + s + "\" is not in the vocabulary");
      return it->second;
    };
    Merge m{id_of(l), id_of(rr), id_of(l + rr), 0};
    if (m.id >= V || is_text[size_t(m.id)])
      throw inconsistent(name, "merge " + std::to_string(r + 1) + " (\"" + l + " " + rr + "\") makes a token with id " + std::to_string(m.id) +
                                   (m.id >= V ? ", after the merged tokens" : ", which is made twice"));
    if (!gpt2_to_bytes(l + rr, bytes)) throw inconsistent(name, "merge " + std::to_string(r + 1) + " is not written in GPT-2's byte alphabet");
    tokens[size_t(m.id)] = bytes, is_text[size_t(m.id)] = true;
    merges.push_back(m);
  }
  // the rest of the vocabulary: special tokens, after the text tokens
  for (const auto& entry : ids) {
    const std::string& key = entry.first;
    const int32_t id = entry.second;
    if (id < V && is_text[size_t(id)]) continue;
    if (id < V) throw inconsistent(name, "\"" + key + "\" (id " + std::to_string(id) + ") is neither a byte nor made by a merge");
    if (std::none_of(specials.begin(), specials.end(), [&](const SpecialToken& s) { return s.id == id; })) specials.push_back({key, id});
  }
  return make_tokenizer(std::move(tokens), std::move(merges), std::move(specials), {}, name);
}

std::pair<std::string, std::string> split_merge(const std::string& line, size_t number, const std::string& name) {
  const size_t sp = line.find(' ');
  if (sp == std::string::npos || sp == 0 || sp + 1 >= line.size() || line.find(' ', sp + 1) != std::string::npos)
    throw Error(coded("tokenizer.bad_merges", {{"name", name}, {"line", std::to_string(number)}},
                      name + ", line " + std::to_string(number) + ": a merge is two tokens separated by one space, not \"" +
                          line.substr(0, 80) + "\""));
  return {line.substr(0, sp), line.substr(sp + 1)};
}

json::Value parse_json(std::string_view text, const std::string& name) {
  try {
    json::ParseOptions o;
    o.allow_duplicate_keys = true;  // checked in assemble(): the parser's check is quadratic
    return json::parse(text, o);
  } catch (const Error& e) {
    throw bad_json(name, e.what());
  }
}

}  // namespace

Tokenizer Tokenizer::from_gpt2(std::string_view vocab_json, std::string_view merges_txt, const std::string& vocab_name,
                               const std::string& merges_name) {
  const json::Value vocab = parse_json(vocab_json, vocab_name);
  if (!vocab.is_object()) throw bad_json(vocab_name, "a vocab.json is one object of token -> id");
  std::vector<std::pair<std::string, std::string>> merges;
  size_t number = 0;
  for (size_t at = 0; at < merges_txt.size();) {
    size_t nl = merges_txt.find('\n', at);
    if (nl == std::string_view::npos) nl = merges_txt.size();
    std::string line(merges_txt.substr(at, nl - at));
    at = nl + 1, number++;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (number == 1 && line.rfind("#version", 0) == 0)) continue;
    merges.push_back(split_merge(line, number, merges_name));
  }
  return assemble(vocab.as_object(), merges, {}, vocab_name + " + " + merges_name);
}

Tokenizer Tokenizer::from_hf_json(std::string_view text, const std::string& name) {
  const json::Value root = parse_json(text, name);
  if (!root.is_object()) throw bad_json(name, "a tokenizer.json is one object");
  const json::Value* model = root.find("model");
  if (!model || !model->is_object()) throw bad_json(name, "it has no \"model\"");
  const auto str = [](const json::Value* v) { return v && v->is_string() ? v->as_string() : std::string(); };
  const auto is_off = [](const json::Value* v) {
    return !v || v->is_null() || (v->is_bool() && !v->as_bool()) || (v->is_string() && v->as_string().empty());
  };
  if (const json::Value* t = model->find("type"); t && str(t) != "BPE") throw unsupported(name, "its model is " + str(t) + ", not BPE");
  for (const char* field : {"continuing_subword_prefix", "end_of_word_suffix", "dropout"})
    if (!is_off(model->find(field))) throw unsupported(name, std::string("its BPE sets ") + field);
  if (const json::Value* b = model->find("byte_fallback"); b && b->is_bool() && b->as_bool()) throw unsupported(name, "its BPE sets byte_fallback");
  if (!is_off(root.find("normalizer"))) throw unsupported(name, "it changes the text first (a normalizer)");
  const json::Value* pre = root.find("pre_tokenizer");
  if (!pre || !pre->is_object() || str(pre->find("type")) != "ByteLevel")
    throw unsupported(name, "its pre-tokenizer is " + (pre && pre->is_object() ? str(pre->find("type")) : std::string("missing")) + ", not ByteLevel");
  if (const json::Value* a = pre->find("add_prefix_space"); a && a->is_bool() && a->as_bool())
    throw unsupported(name, "it adds a space before the text (add_prefix_space)");
  if (const json::Value* u = pre->find("use_regex"); u && u->is_bool() && !u->as_bool())
    throw unsupported(name, "it does not cut the text into pieces by GPT-2's rule (use_regex false)");
  const json::Value* vocab = model->find("vocab");
  const json::Value* merges = model->find("merges");
  if (!vocab || !vocab->is_object()) throw bad_json(name, "its model has no vocab object");
  if (!merges || !merges->is_array()) throw bad_json(name, "its model has no merges list");
  std::vector<std::pair<std::string, std::string>> pairs;
  size_t k = 0;
  for (const json::Value& m : merges->as_array()) {
    k++;
    if (m.is_string()) pairs.push_back(split_merge(m.as_string(), k, name + " (merges)"));
    else if (m.is_array() && m.as_array().size() == 2 && m.as_array()[0].is_string() && m.as_array()[1].is_string())
      pairs.emplace_back(m.as_array()[0].as_string(), m.as_array()[1].as_string());
    else throw bad_json(name, "merge " + std::to_string(k) + " is neither \"a b\" nor [\"a\", \"b\"]");
  }
  std::vector<SpecialToken> specials;
  if (const json::Value* added = root.find("added_tokens"); added && added->is_array()) {
    for (const json::Value& a : added->as_array()) {
      if (!a.is_object() || !a.find("id") || !a.find("id")->is_number() || str(a.find("content")).empty())
        throw bad_json(name, "an added token has no id or content");
      specials.push_back({str(a.find("content")), int32_t(a.find("id")->as_int64())});
    }
  }
  return assemble(vocab->as_object(), pairs, std::move(specials), name);
}

std::string Tokenizer::to_hf_json() const {
  using json::Value;
  json::Array added;
  for (const SpecialToken& s : specials_)
    added.push_back(json::Object{{"id", Value(s.id)}, {"content", Value(s.text)}, {"single_word", Value(false)}, {"lstrip", Value(false)},
                                 {"rstrip", Value(false)}, {"normalized", Value(false)}, {"special", Value(true)}});
  json::Object vocab;
  vocab.reserve(size_t(vocab_size()));
  for (int32_t id = 0; id < vocab_size(); id++) vocab.emplace_back(bytes_to_gpt2(tokens_[size_t(id)]), Value(id));
  json::Array merges;
  for (const Merge& m : merges_) merges.push_back(Value(bytes_to_gpt2(tokens_[size_t(m.left)]) + " " + bytes_to_gpt2(tokens_[size_t(m.right)])));
  const auto byte_level = [](bool prefix, bool trim) {
    return Value(json::Object{{"type", Value("ByteLevel")}, {"add_prefix_space", Value(prefix)}, {"trim_offsets", Value(trim)},
                              {"use_regex", Value(true)}});
  };
  const Value root(json::Object{
      {"version", Value("1.0")},
      {"truncation", Value()},
      {"padding", Value()},
      {"added_tokens", Value(std::move(added))},
      {"normalizer", Value()},
      {"pre_tokenizer", byte_level(false, true)},
      {"post_processor", byte_level(false, false)},
      {"decoder", byte_level(false, true)},
      {"model", Value(json::Object{{"type", Value("BPE")},
                                   {"dropout", Value()},
                                   {"unk_token", Value()},
                                   {"continuing_subword_prefix", Value("")},
                                   {"end_of_word_suffix", Value("")},
                                   {"fuse_unk", Value(false)},
                                   {"byte_fallback", Value(false)},
                                   {"vocab", Value(std::move(vocab))},
                                   {"merges", Value(std::move(merges))}})},
  });
  return json::write(root, 2) + "\n";
}

// ---- a file of any of these kinds ------------------------------------------------------------------------

Tokenizer Tokenizer::load(const std::string& path) {
  struct stat st {};
  const auto exists = [&](const std::string& p) { return ::stat(p.c_str(), &st) == 0; };
  const auto text_of = [](const std::string& p) {
    const std::vector<uint8_t> b = io::read_file(p);
    return std::string(b.begin(), b.end());
  };
  if (exists(path) && S_ISDIR(st.st_mode)) {
    if (exists(path + "/tokenizer.json")) return load(path + "/tokenizer.json");
    if (exists(path + "/vocab.json") && exists(path + "/merges.txt")) return load(path + "/vocab.json");
    throw Error(coded("tokenizer.no_files", {{"path", path}}, path + " holds no tokenizer.json, nor vocab.json with merges.txt"));
  }
  const std::vector<uint8_t> bytes = io::read_file(path);
  if (has_magic(bytes.data(), bytes.size())) return deserialize(bytes.data(), bytes.size(), path);
  const std::string text(bytes.begin(), bytes.end());
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.find_last_of('/'));
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    // tokenizer.json has a "model" object; vocab.json is token -> id, with merges.txt beside it
    const json::Value root = parse_json(text, path);
    const json::Value* model = root.is_object() ? root.find("model") : nullptr;
    if (model && model->is_object()) return from_hf_json(text, path);
    if (!exists(dir + "/merges.txt"))
      throw Error(coded("tokenizer.no_files", {{"path", path}}, path + " looks like GPT-2's vocab.json, but no merges.txt is beside it"));
    return from_gpt2(text, text_of(dir + "/merges.txt"), path, dir + "/merges.txt");
  }
  if (!exists(dir + "/vocab.json"))
    throw Error(coded("tokenizer.no_files", {{"path", path}},
                      path + " is not a tokenizer (tokenizer.json, a tinygpt tokenizer, or vocab.json with merges.txt beside it)"));
  return from_gpt2(text_of(dir + "/vocab.json"), text, dir + "/vocab.json", path);
}

}  // namespace tinygpt::tok
