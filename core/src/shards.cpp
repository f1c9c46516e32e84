// shards.cpp — llm.c's token shards: the header checked against the file, a folder of shards as
// one corpus (its _train_ and _val_ files), and shards written from any source of tokens.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tinygpt/error.h"
#include "tinygpt/source.h"

namespace tinygpt::data {

using tinygpt::Error;
namespace fs = std::filesystem;

namespace {

int32_t le32(const uint8_t* p) { return int32_t(uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24); }

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ShardInfo parse_shard_header(const uint8_t* h, size_t n, uint64_t file_bytes, const std::string& name) {
  const uint64_t header_bytes = uint64_t(kShardHeaderInts) * 4;
  if (n < header_bytes || file_bytes < header_bytes)
    throw Error(coded("shard.bad_magic", {{"name", name}}, name + " is not a token shard: it is shorter than the 1,024-byte header"));
  if (le32(h) != kShardMagic)
    throw Error(coded("shard.bad_magic", {{"name", name}}, name + " is not a token shard: its header does not start with 20240520"));
  ShardInfo s;
  s.path = name;
  s.version = le32(h + 4);
  if (s.version != 1 && s.version != 2)
    throw Error(coded("shard.bad_version", {{"name", name}, {"version", std::to_string(s.version)}},
                      name + " is a token shard of version " + std::to_string(s.version) + ", which this tinygpt does not read (1: uint16 tokens, 2: uint32)"));
  const int32_t count = le32(h + 8);
  const uint64_t width = s.version == 1 ? 2 : 4;
  s.tokens = uint64_t(uint32_t(count));
  s.file_bytes = file_bytes;
  if (count < 0 || header_bytes + s.tokens * width != file_bytes)
    throw Error(coded("shard.bad_count", {{"name", name}, {"tokens", std::to_string(count)}, {"bytes", std::to_string(file_bytes)}},
                      name + "'s header says " + std::to_string(count) + " tokens, but the file holds " +
                          std::to_string((file_bytes - header_bytes) / width) + " (" + std::to_string(file_bytes) + " bytes)"));
  return s;
}

ShardInfo read_shard_header(const std::string& path) {
  FileSource f(path);
  std::vector<uint8_t> h(size_t(std::min<uint64_t>(f.size(), uint64_t(kShardHeaderInts) * 4)));
  f.read_bytes(0, h.size(), h.data());
  ShardInfo s = parse_shard_header(h.data(), h.size(), f.size(), base_name(path));
  s.path = path;
  return s;
}

namespace {

std::vector<std::shared_ptr<const ByteSource>> open_files(const std::vector<ShardInfo>& shards) {
  std::vector<std::shared_ptr<const ByteSource>> files;
  for (const ShardInfo& s : shards) files.push_back(std::make_shared<const FileSource>(s.path));
  return files;
}

}  // namespace

ShardSource::ShardSource(std::vector<ShardInfo> shards) : ShardSource(shards, open_files(shards)) {}

ShardSource::ShardSource(std::vector<ShardInfo> shards, std::vector<std::shared_ptr<const ByteSource>> files)
    : shards_(std::move(shards)), files_(std::move(files)) {
  if (shards_.empty()) throw Error(coded("shard.none", {}, "no token shards"));
  if (files_.size() != shards_.size()) throw Error("ShardSource: one source per shard");
  uint64_t h = 14695981039346656037ull;
  for (size_t k = 0; k < shards_.size(); k++) {
    const ShardInfo& s = shards_[k];
    if (s.version != shards_[0].version)
      throw Error(coded("shard.mixed", {{"a", base_name(shards_[0].path)}, {"b", base_name(s.path)}},
                        "the shards mix two tokenizers: " + base_name(shards_[0].path) + " holds " +
                            (shards_[0].version == 1 ? "uint16" : "uint32") + " tokens, " + base_name(s.path) + " " +
                            (s.version == 1 ? "uint16" : "uint32")));
    if (files_[k]->size() != s.file_bytes)
      throw Error(coded("corpus.file_changed", {{"path", s.path}}, "the data file " + s.path + " changed while training: training paused, nothing was lost"));
    starts_.push_back(total_);
    total_ += s.tokens;
    // the corpus is named by its shards' own fingerprints, in order
    const uint64_t f = files_[k]->fingerprint();
    for (int i = 0; i < 8; i++) h = (h ^ uint8_t(f >> (8 * i))) * 1099511628211ull;
  }
  fingerprint_ = h;
}

void ShardSource::check() const {
  for (const auto& f : files_) f->check();
}

std::string ShardSource::describe() const {
  return shards_.size() == 1 ? base_name(shards_[0].path)
                             : std::to_string(shards_.size()) + " shards (" + base_name(shards_.front().path) + " … " +
                                   base_name(shards_.back().path) + ")";
}

void ShardSource::read(uint64_t at, size_t n, int32_t* out) const {
  if (at > total_ || n > total_ - at) throw Error("read past the end of the shards");
  const int width = token_bytes();
  std::vector<uint8_t> buf;
  while (n > 0) {
    // the shard holding token `at`, and how much of the request it has
    const size_t k = size_t(std::upper_bound(starts_.begin(), starts_.end(), at) - starts_.begin()) - 1;
    const uint64_t local = at - starts_[k];
    const size_t m = size_t(std::min<uint64_t>(n, shards_[k].tokens - local));
    buf.resize(m * size_t(width));
    files_[k]->read_bytes(uint64_t(kShardHeaderInts) * 4 + local * uint64_t(width), buf.size(), buf.data());
    for (size_t i = 0; i < m; i++) {
      const uint8_t* p = buf.data() + i * size_t(width);
      out[i] = width == 2 ? int32_t(uint32_t(p[0]) | uint32_t(p[1]) << 8) : le32(p);
      // a uint32 token past 2^31 would read as a negative id: no vocabulary holds it (65,536 at most)
      if (out[i] < 0)
        throw Error(coded("corpus.vocab", {{"token", std::to_string(uint32_t(out[i]))}, {"vocab", "65536"}},
                          "the corpus holds token " + std::to_string(uint32_t(out[i])) +
                              ", outside the model's vocabulary of 65536: these shards were made with another tokenizer"));
    }
    out += m, at += m, n -= m;
  }
}

ShardCorpus shard_corpus(std::vector<std::pair<std::string, std::shared_ptr<const ByteSource>>> files) {
  using Named = std::pair<std::string, std::shared_ptr<const ByteSource>>;
  std::vector<Named> train, val;
  for (Named& f : files) {
    const std::string name = base_name(f.first);
    if (name.find("_train_") != std::string::npos) train.push_back(std::move(f));
    else if (name.find("_val_") != std::string::npos) val.push_back(std::move(f));
  }
  if (train.empty() && val.empty())
    throw Error(coded("shard.none", {}, "no token shards: llm.c's shards are named *_train_*.bin and *_val_*.bin"));
  const auto by_name = [](const Named& a, const Named& b) { return a.first < b.first; };
  std::sort(train.begin(), train.end(), by_name);
  std::sort(val.begin(), val.end(), by_name);
  const auto open = [](const std::vector<Named>& part) -> std::shared_ptr<const ShardSource> {
    if (part.empty()) return nullptr;
    std::vector<ShardInfo> infos;
    std::vector<std::shared_ptr<const ByteSource>> sources;
    for (const Named& f : part) {
      std::vector<uint8_t> h(size_t(std::min<uint64_t>(f.second->size(), uint64_t(kShardHeaderInts) * 4)));
      f.second->read_bytes(0, h.size(), h.data());
      infos.push_back(parse_shard_header(h.data(), h.size(), f.second->size(), base_name(f.first)));
      infos.back().path = f.first;
      sources.push_back(f.second);
    }
    return std::make_shared<const ShardSource>(std::move(infos), std::move(sources));
  };
  ShardCorpus c{open(train), open(val)};
  if (c.train && c.val && c.train->shards()[0].version != c.val->shards()[0].version)
    throw Error(coded("shard.mixed", {{"a", base_name(train[0].first)}, {"b", base_name(val[0].first)}},
                      "the shards mix two tokenizers: " + base_name(train[0].first) + " holds " +
                          (c.train->token_bytes() == 2 ? "uint16" : "uint32") + " tokens, " + base_name(val[0].first) + " " +
                          (c.val->token_bytes() == 2 ? "uint16" : "uint32")));
  return c;
}

ShardCorpus open_shard_dir(const std::string& dir) {
  std::vector<std::pair<std::string, std::shared_ptr<const ByteSource>>> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".bin") != 0) continue;
    if (name.find("_train_") == std::string::npos && name.find("_val_") == std::string::npos) continue;
    files.emplace_back(e.path().string(), std::make_shared<const FileSource>(e.path().string()));
  }
  if (ec) throw Error(coded("corpus.cannot_open", {{"path", dir}}, "cannot open '" + dir + "': " + ec.message()));
  if (files.empty())
    throw Error(coded("shard.none", {{"path", dir}}, dir + " holds no token shards (files named *_train_*.bin or *_val_*.bin)"));
  return shard_corpus(std::move(files));
}

namespace {

void write_shard(const std::string& path, const Source& tokens, uint64_t from, uint64_t n, int version) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error("cannot write '" + path + "'");
  std::vector<uint8_t> out(size_t(kShardHeaderInts) * 4, 0);
  const auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) out[at + size_t(i)] = uint8_t(v >> (8 * i));
  };
  put32(0, uint32_t(kShardMagic));
  put32(4, uint32_t(version));
  put32(8, uint32_t(n));
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  // the tokens in pieces of a million: the writer holds a few MB whatever the corpus
  const size_t width = version == 1 ? 2 : 4;
  std::vector<int32_t> buf;
  for (uint64_t at = 0; ok && at < n; at += uint64_t(1) << 20) {
    const size_t m = size_t(std::min<uint64_t>(uint64_t(1) << 20, n - at));
    buf.resize(m);
    tokens.read(from + at, m, buf.data());
    out.assign(m * width, 0);
    for (size_t i = 0; i < m; i++)
      for (size_t b = 0; b < width; b++) out[i * width + b] = uint8_t(uint32_t(buf[i]) >> (8 * b));
    ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  }
  if (std::fclose(f) != 0 || !ok) throw Error("cannot write '" + path + "' (is the disk full?)");
}

}  // namespace

std::vector<std::string> write_shards(const Source& tokens, const std::string& dir, const std::string& name, uint64_t per_shard,
                                      double val_fraction) {
  if (per_shard == 0 || per_shard > uint64_t(INT32_MAX)) throw Error("a shard holds 1 to 2,147,483,647 tokens");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create '" + dir + "': " + ec.message());
  const int version = tokens.vocab() > 0 && tokens.vocab() <= 65536 ? 1 : 2;
  const uint64_t n = tokens.size(), n_val = uint64_t(double(n) * val_fraction), n_train = n - n_val;
  std::vector<std::string> paths;
  const auto split = [&](const char* kind, uint64_t from, uint64_t count) {
    for (uint64_t k = 0, at = 0; at < count; k++, at += per_shard) {
      char file[64];
      std::snprintf(file, sizeof file, "_%s_%06llu.bin", kind, (unsigned long long)k);
      paths.push_back(dir + "/" + name + file);
      write_shard(paths.back(), tokens, from + at, std::min(per_shard, count - at), version);
    }
  };
  split("train", 0, n_train);
  split("val", n_train, n_val);
  return paths;
}

}  // namespace tinygpt::data
