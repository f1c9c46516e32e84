// source.h — a corpus as a random-access source of tokens of known length, read a window at a
// time, so that a file far bigger than memory trains with the memory of the model.
//
//   MemorySource   bytes held in memory (a text given as bytes, a built-in task, the page's small files)
//   FileSource     a file read with pread(2): only the windows the batcher samples are read
//   ShardSource    llm.c's token shards (a 256 x int32 header, then uint16 or uint32 tokens), one or several
//   (wasm)         a JS reader (wasm/data.cpp): the page's File, read by FileReaderSync in the worker
//
// A byte source's tokens are its bytes (V = 256). Every source has a fingerprint that names it in
// checkpoints and share links: FNV-1a 64 of all its bytes up to kFullFingerprintBytes, above that
// of a fixed sample (sampled_fingerprint: the size and 64 blocks of 64 KiB spread evenly, first and
// last included), so a 20 GB file is named without reading it whole.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tinygpt::data {

// Files up to this size are fingerprinted whole (FNV-1a 64 of every byte, as always); larger ones by a sample.
constexpr uint64_t kFullFingerprintBytes = uint64_t(64) << 20;
constexpr int kFingerprintBlocks = 64;
constexpr uint64_t kFingerprintBlockBytes = uint64_t(64) << 10;

class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;  // tokens
  // Tokens [at, at + n) into out (each < vocab()); throws Error when they can't be read (a file
  // that changed or went away): the caller keeps its state and says so.
  virtual void read(uint64_t at, size_t n, int32_t* out) const = 0;
  // What names this corpus in checkpoints and share links (see above).
  virtual uint64_t fingerprint() const = 0;
  // The size of the vocabulary its tokens come from: 256 for bytes; 0 when unknown (a shard's header
  // does not say: its tokens are checked as they are read).
  virtual int vocab() const { return 256; }
  // For a person: "x.txt", "3 shards (…_train_000001.bin …)".
  virtual std::string describe() const = 0;
  // Throws Error when what it reads from changed or went away since it was opened (a file whose
  // size or modification time moved): the batcher asks once per batch, so a run never trains on
  // a file that changed under it.
  virtual void check() const {}
};

// A source whose tokens are bytes: a text of any kind.
class ByteSource : public Source {
 public:
  void read(uint64_t at, size_t n, int32_t* out) const override;
  // Bytes [at, at + n) into out; throws Error when they can't be read.
  virtual void read_bytes(uint64_t at, size_t n, uint8_t* out) const = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::vector<uint8_t> bytes, std::string name = "");
  uint64_t size() const override { return bytes_.size(); }
  void read_bytes(uint64_t at, size_t n, uint8_t* out) const override;
  uint64_t fingerprint() const override { return fingerprint_; }
  std::string describe() const override { return name_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  std::string name_;
  uint64_t fingerprint_;
};

// A file read where it lies (pread): the process holds no copy of it. A read that finds the file
// shorter, or changed since it was opened (size or modification time), is refused with that.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  uint64_t size() const override { return size_; }
  void read_bytes(uint64_t at, size_t n, uint8_t* out) const override;
  uint64_t fingerprint() const override { return fingerprint_; }
  std::string describe() const override { return path_; }
  uint64_t bytes_read() const { return bytes_read_; }  // what the reads fetched so far (bench:data)
  void check() const override;
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  int64_t mtime_ns_ = 0;
  uint64_t fingerprint_ = 0;
  mutable std::atomic<uint64_t> bytes_read_{0};
};

// A byte source read through a function (the page's File in the worker, a generated text in the tests).
class CallbackSource final : public ByteSource {
 public:
  using Reader = std::function<void(uint64_t at, size_t n, uint8_t* out)>;
  CallbackSource(uint64_t size, Reader read, std::string name);
  uint64_t size() const override { return size_; }
  void read_bytes(uint64_t at, size_t n, uint8_t* out) const override { read_(at, n, out); }
  uint64_t fingerprint() const override { return fingerprint_; }
  std::string describe() const override { return name_; }

 private:
  uint64_t size_;
  Reader read_;
  std::string name_;
  uint64_t fingerprint_;
};

// FNV-1a 64 of the bytes, streamed: whole up to kFullFingerprintBytes, else of the sample.
uint64_t source_fingerprint(const ByteSource& s);
// The sample's fingerprint: FNV-1a 64 of the size (8 bytes, little-endian) and then of
// kFingerprintBlocks blocks of kFingerprintBlockBytes at offsets i * (size - block) / (blocks - 1).
uint64_t sampled_fingerprint(const ByteSource& s);

// ---- llm.c token shards ----------------------------------------------------------------------
// A shard: a header of 256 little-endian int32 (magic 20240520, version, token count; the rest
// zero), then the tokens: version 1 uint16, version 2 uint32. A directory of shards is one corpus:
// the files whose names hold "_train_" are the training tokens, "_val_" the validation tokens,
// each in name order.
constexpr int32_t kShardMagic = 20240520;
constexpr int kShardHeaderInts = 256;

struct ShardInfo {
  std::string path;
  int version = 0;        // 1: uint16 tokens, 2: uint32 tokens
  uint64_t tokens = 0;
  uint64_t file_bytes = 0;
};

// Reads and checks a shard's header against its size; throws Error saying what is wrong.
ShardInfo read_shard_header(const std::string& path);
// The same for a header already in memory (the page reads it from a File).
ShardInfo parse_shard_header(const uint8_t* header, size_t n, uint64_t file_bytes, const std::string& name);

class ShardSource final : public Source {
 public:
  // The shards and the bytes of each (its file, or the page's reader); all of one version (one
  // token width): shards of two tokenizers are refused.
  ShardSource(std::vector<ShardInfo> shards, std::vector<std::shared_ptr<const ByteSource>> files);
  // Shards on disk (read_shard_header's infos).
  explicit ShardSource(std::vector<ShardInfo> shards);
  uint64_t size() const override { return total_; }
  void read(uint64_t at, size_t n, int32_t* out) const override;
  uint64_t fingerprint() const override { return fingerprint_; }
  int vocab() const override { return 0; }
  int token_bytes() const { return shards_[0].version == 1 ? 2 : 4; }
  std::string describe() const override;
  const std::vector<ShardInfo>& shards() const { return shards_; }
  void check() const override;

 private:
  std::vector<ShardInfo> shards_;
  std::vector<uint64_t> starts_;  // first token of each shard
  std::vector<std::shared_ptr<const ByteSource>> files_;
  uint64_t total_ = 0;
  uint64_t fingerprint_ = 0;
};

// A corpus of shards: its training and validation splits (either may be null when there are no
// shards of that kind).
struct ShardCorpus {
  std::shared_ptr<const ShardSource> train, val;
};
// Shards given by name with their bytes (a folder, or files dropped on the page): the names that
// hold "_train_" are the training tokens, "_val_" the validation tokens, each in name order; other
// names are left out. Throws Error when none is a shard, or for a bad or mixed shard.
ShardCorpus shard_corpus(std::vector<std::pair<std::string, std::shared_ptr<const ByteSource>>> files);
// The shards of a directory (its *_train_*.bin and *_val_*.bin files).
ShardCorpus open_shard_dir(const std::string& dir);

// Writes tokens as shards of at most `per_shard` tokens: DIR/NAME_train_000000.bin, ...; the last
// 10% of the tokens (by position) go to NAME_val_000000.bin. Version 1 (uint16) when the source's
// vocabulary is known and at most 65,536, else 2. Returns the paths written.
std::vector<std::string> write_shards(const Source& tokens, const std::string& dir, const std::string& name,
                                      uint64_t per_shard = 100'000'000, double val_fraction = 0.1);

// ---- what a text is made of, in one streaming pass ------------------------------------------------
struct TextStats {
  uint64_t bytes = 0;
  uint64_t lines = 0;       // newlines, and a last line without one
  uint64_t chars = 0;       // valid UTF-8 characters
  uint64_t multibyte = 0;   // of which longer than one byte
  uint64_t invalid = 0;     // invalid or cut-off UTF-8 sequences
  uint64_t nul = 0;         // NUL bytes
  std::array<uint64_t, 256> counts{};   // occurrences of each byte
  std::vector<uint64_t> pairs = std::vector<uint64_t>(size_t(256) * 256);  // (256, 256): byte a followed by byte b
  int distinct() const;
};

// Fed the bytes of a text in order, in pieces of any size: the same TextStats as one piece. UTF-8
// as the Unicode standard defines it (no overlongs, no surrogates, nothing above U+10FFFF); an
// invalid sequence counts once per maximal subpart (the page's Utf8Counter, web/src/lib/utf8.ts).
class Scanner {
 public:
  void feed(const uint8_t* bytes, size_t n);
  // The text ended: a sequence it ends inside of is invalid.
  const TextStats& finish();
  const TextStats& stats() const { return s_; }

 private:
  TextStats s_;
  int need_ = 0;          // continuation bytes the current sequence still needs
  uint8_t lo_ = 0x80, hi_ = 0xBF;  // the range its next continuation byte must be in
  int last_ = -1;  // the byte before the next piece
};

// Scans a byte source in chunks, calling progress(done, total) after each; stops early (returning
// false) when progress returns false.
bool scan(const ByteSource& s, Scanner& scanner, const std::function<bool(uint64_t, uint64_t)>& progress = {},
          size_t chunk = size_t(4) << 20);

}  // namespace tinygpt::data
