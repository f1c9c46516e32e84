// tokenizer.h — byte-level BPE, GPT-2 style: a text's bytes are the base alphabet, so every byte
// sequence (invalid UTF-8 included) encodes and decodes back exactly; merges learned from a text
// join frequent neighbours into tokens of several bytes. docs/tokenizer.md maps it to the code.
//
//   pretokenize   the text is cut into pieces by GPT-2's rule (below); merges never cross pieces
//   train_bpe     merges learned from a byte source (streamed: a corpus of any size)
//   Tokenizer     encode / decode / token_bytes / token_text / merges; its compact blob (serialize)
//                 for checkpoints; HF tokenizer.json both ways; GPT-2's vocab.json + merges.txt read
//   TokenSource   a data::Source of a byte source's tokens, encoded once and kept for random access
//
// Ids. Text tokens have ids [0, vocab_size()); special tokens follow, [vocab_size(), id_count()).
// A tokenizer trained here has the 256 bytes as ids 0..255 (id = byte value, so vocabulary 256 is
// the byte model as it was) and merge r as id 256 + r; its special tokens are <|bos|>, <|eos|>,
// <|pad|> (the translator's; at vocabulary 256 they are 256, 257, 258 as in pairs.h) and
// <|endoftext|>. A loaded GPT-2 vocabulary keeps GPT-2's ids (its bytes are permuted:
// bytes_to_unicode order) and its one special token, <|endoftext|> = 50256; BOS/EOS/PAD are then
// reserved after it.
//
// Pre-tokenization (GPT-2's regex, as JavaScript and so gpt-tokenizer reads it):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// implemented by hand over UTF-8 (pretokenize.cpp). \p{L}, \p{N} and \s come from the tables in
// core/src/tokenizer_unicode.h, generated from Node's RegExp by scripts/unicode-tables.mjs. An
// invalid UTF-8 sequence counts as one character of its own per maximal subpart (as the
// WHATWG decoder would put one U+FFFD there), neither letter, number nor space. A piece longer than
// kMaxPiece bytes is cut there (at a character boundary), so a stream is encoded with bounded memory.
//
// Encoding a piece (bpe): a piece is its bytes' ids; then, repeatedly, the adjacent pair with the
// lowest merge rank is joined (the leftmost among equals), until no adjacent pair is a merge.
//
// Training (train_bpe): the pieces of the text are counted; then, repeatedly, the adjacent pair of
// tokens seen most often within pieces becomes the next merge, ties broken by the smaller left id,
// then the smaller right id. A pair is merged only when it occurs at least twice: a vocabulary the
// text cannot fill is refused (tokenizer.vocab_too_large) with the number of merges it allowed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tinygpt/source.h"

namespace tinygpt::tok {

constexpr int kMinVocab = 256;      // the bytes: no merges
constexpr int kMaxVocab = 65536;    // ids fit in uint16 (llm.c shards of version 1)
constexpr size_t kMaxPiece = 65536; // longer pieces are cut (bytes)

// ---- characters and pieces ------------------------------------------------------------------------

enum class CharClass : uint8_t { other = 0, letter = 1, number = 2, space = 3 };

// The class of a code point under the tables (\p{L}, \p{N}, \s; everything else is other).
CharClass char_class(uint32_t cp);
// The Unicode version of the tables ("17.0").
const char* unicode_version();

// The end of the piece that starts at `at` (at < n), by the rule above, the text ending at n.
size_t piece_end(const uint8_t* text, size_t n, size_t at);
// The pieces of a text: [begin, end) offsets.
std::vector<std::pair<size_t, size_t>> pretokenize(std::string_view text);

// ---- the tokenizer ----------------------------------------------------------------------------------

struct Merge {
  int32_t left = 0, right = 0;  // the ids joined (left then right)
  int32_t id = 0;               // the token they make
  uint64_t count = 0;           // how often the pair occurred in the training text when it was merged (0: not known)
};

enum class Special { bos = 0, eos = 1, pad = 2, endoftext = 3 };
struct SpecialToken {
  std::string text;  // "<|endoftext|>"
  int32_t id = 0;
};

// Bytes and tokens of a text encoded: tokens per byte, the measure of a vocabulary.
struct Stats {
  uint64_t bytes = 0, tokens = 0;
  double bytes_per_token() const { return tokens ? double(bytes) / double(tokens) : 0.0; }
  double tokens_per_byte() const { return bytes ? double(tokens) / double(bytes) : 0.0; }
};

class Tokenizer {
 public:
  // Bytes only: 256 tokens, no merges, and the special tokens after them.
  Tokenizer();
  // The merges given as (left id, right id) in rank order, under our ids (bytes 0..255, merge r = 256 + r).
  // Throws Error (tokenizer.inconsistent) for a pair that names an id not made yet.
  static Tokenizer from_merges(const std::vector<std::pair<int32_t, int32_t>>& merges, std::vector<uint64_t> counts = {});

  int vocab_size() const { return int(tokens_.size()); }  // text tokens: bytes + merges
  int id_count() const { return vocab_size() + int(specials_.size()); }
  int merge_count() const { return int(merges_.size()); }

  // Appends the ids of `bytes` to `out` (text only: special tokens' text is encoded as text).
  void encode(const uint8_t* bytes, size_t n, std::vector<int32_t>& out) const;
  std::vector<int32_t> encode(std::string_view bytes) const;
  // The bytes of the ids (a special token gives its text); throws Error (tokenizer.unknown_id) for an id outside [0, id_count()).
  std::string decode(const int32_t* ids, size_t n) const;
  std::string decode(const std::vector<int32_t>& ids) const { return decode(ids.data(), ids.size()); }
  // The bytes of one token (a special token: its text).
  const std::string& token_bytes(int32_t id) const;
  // A label for a person: the token's text where it is valid UTF-8 and printable; newline, tab,
  // carriage return and backslash as \n \t \r \\ (escaped), other control bytes and invalid UTF-8 as
  // \xNN; a special token as its name.
  std::string token_text(int32_t id) const;
  // Whether an id is a special token.
  bool is_special(int32_t id) const { return id >= vocab_size() && id < id_count(); }
  int32_t special_id(Special s) const;
  const std::vector<SpecialToken>& specials() const { return specials_; }
  // The merges in the order they were learned (rank order), with their counts.
  const std::vector<Merge>& merges() const { return merges_; }
  // Statistics of the training text under this vocabulary (zero for a loaded one).
  const Stats& training_stats() const { return train_stats_; }
  // Names the vocabulary in checkpoints and token caches: FNV-1a 64 of the compact form without the
  // counts and the training statistics (what encoding depends on: the same from tokenizer.json).
  uint64_t fingerprint() const;

  // ---- files ----
  // The compact form (for a checkpoint section): versioned, checksummed. docs/tokenizer.md: "The compact form".
  std::vector<uint8_t> serialize() const;
  // Throws Error (tokenizer.not_tokenizer, .truncated, .corrupt, .version, .inconsistent), naming `name`.
  static Tokenizer deserialize(const uint8_t* data, size_t n, const std::string& name = "the tokenizer");
  static bool has_magic(const uint8_t* data, size_t n);
  // Hugging Face's tokenizer.json (a ByteLevel BPE model), indented by 2.
  std::string to_hf_json() const;
  // Reads a ByteLevel BPE tokenizer.json (GPT-2's, or one to_hf_json wrote); throws Error
  // (tokenizer.bad_json, tokenizer.unsupported, tokenizer.inconsistent) naming `name`.
  static Tokenizer from_hf_json(std::string_view json, const std::string& name = "tokenizer.json");
  // GPT-2's vocab.json + merges.txt.
  static Tokenizer from_gpt2(std::string_view vocab_json, std::string_view merges_txt, const std::string& vocab_name = "vocab.json",
                             const std::string& merges_name = "merges.txt");
  // A file in any of the forms above, told apart by its content: the compact blob, tokenizer.json,
  // or vocab.json with merges.txt beside it (or a folder holding them). Throws Error.
  static Tokenizer load(const std::string& path);

  // internal, for the encoder: our ids <-> the file's ids, the pair table
  struct Impl;
  std::shared_ptr<const Impl> impl() const { return impl_; }

 private:
  std::vector<std::string> tokens_;          // (vocab_size) the bytes of each text token, by id
  std::vector<Merge> merges_;                // in rank order
  std::vector<SpecialToken> specials_;       // ids vocab_size() .. id_count() - 1, in id order
  Stats train_stats_;
  std::shared_ptr<const Impl> impl_;
  friend Tokenizer make_tokenizer(std::vector<std::string> tokens, std::vector<Merge> merges, std::vector<SpecialToken> specials,
                                  Stats stats, const std::string& name);
};

// ---- training -----------------------------------------------------------------------------------------

struct TrainProgress {
  enum Phase { counting = 0, merging = 1 } phase = counting;
  uint64_t done = 0, total = 0;  // counting: bytes read of total; merging: merges made of total
  uint64_t pieces = 0;           // distinct pieces so far
};

// Learns vocab_size - 256 merges from the text (streamed from `text` in chunks: any size). progress,
// when given, is called now and then; returning false stops training, and train_bpe returns nothing.
// Throws Error: tokenizer.vocab_range (vocab_size outside [256, 65536]), tokenizer.empty_text,
// tokenizer.vocab_too_large (the text supports fewer merges: the message says how many).
std::optional<Tokenizer> train_bpe(const data::ByteSource& text, int vocab_size,
                                   const std::function<bool(const TrainProgress&)>& progress = {});

// A run's tokenizer: learned from the training split of a text only, the bytes before its last
// val_fraction (data::Dataset's split), so the validation text stays unseen. Throws as train_bpe.
std::optional<Tokenizer> train_on_training_split(const std::shared_ptr<const data::ByteSource>& text, int vocab_size,
                                                 const std::function<bool(const TrainProgress&)>& progress = {},
                                                 double val_fraction = 0.1);

// ---- encoding a stream ---------------------------------------------------------------------------------

// Encodes a byte source piece by piece in chunks (bounded memory), giving the ids to `sink` in order;
// the ids are exactly encode() of the whole text. progress(bytes done, total) may return false to
// stop (then the function returns false).
bool encode_source(const Tokenizer& tok, const data::ByteSource& text, const std::function<void(const int32_t*, size_t)>& sink,
                   const std::function<bool(uint64_t, uint64_t)>& progress = {}, size_t chunk = size_t(1) << 20);

// A byte source's tokens as a data::Source: the text is encoded once (encode_source), and the ids
// are kept for random access, 2 bytes each (4 above 65,536 ids): in memory, or in a token cache
// file, an llm.c shard whose header also records the text's and the tokenizer's fingerprints, so
// that a cache of the same text and tokenizer is read again instead of encoded. Batches drawn from
// it are as deterministic as from the text: the same text and tokenizer give the same tokens.
class TokenSource final : public data::Source {
 public:
  // nullptr when progress stopped it.
  static std::shared_ptr<TokenSource> in_memory(std::shared_ptr<const Tokenizer> tok, std::shared_ptr<const data::ByteSource> text,
                                                const std::function<bool(uint64_t, uint64_t)>& progress = {});
  static std::shared_ptr<TokenSource> cached(std::shared_ptr<const Tokenizer> tok, std::shared_ptr<const data::ByteSource> text,
                                             const std::string& cache_path, const std::function<bool(uint64_t, uint64_t)>& progress = {});

  uint64_t size() const override { return size_; }
  void read(uint64_t at, size_t n, int32_t* out) const override;
  uint64_t fingerprint() const override { return fingerprint_; }
  int vocab() const override { return tok_->vocab_size(); }
  std::string describe() const override;
  void check() const override;
  const Tokenizer& tokenizer() const { return *tok_; }
  const data::ByteSource& text() const { return *text_; }
  bool reused_cache() const { return reused_; }  // cached(): the cache file was already there
  Stats stats() const { return {text_->size(), size_}; }

 private:
  TokenSource(std::shared_ptr<const Tokenizer> tok, std::shared_ptr<const data::ByteSource> text);
  std::shared_ptr<const Tokenizer> tok_;
  std::shared_ptr<const data::ByteSource> text_;
  uint64_t size_ = 0, fingerprint_ = 0;
  int width_ = 2;                       // bytes per token
  std::vector<uint8_t> memory_;         // in memory: the ids, width_ bytes each, little-endian
  std::unique_ptr<data::FileSource> file_;  // or the cache file (header, then the ids)
  bool reused_ = false;
};

}  // namespace tinygpt::tok
