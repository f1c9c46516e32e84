// token_source.cpp — a text's BPE tokens as a data::Source: encoded once, in chunks, and kept for
// random access (in memory, or in a token cache file).
//
// The cache file is an llm.c shard (header of 256 int32: magic 20240520, version 1 = uint16 or
// 2 = uint32 tokens, the token count) whose unused header ints also say what it caches:
//   int 3       0x4E4B4F54 ("TOKN")
//   ints 4-5    the text's fingerprint (data::Source::fingerprint)
//   ints 6-7    the tokenizer's fingerprint (Tokenizer::fingerprint)
//   ints 8-9    the text's size in bytes
//   ints 10-11  the token count (int 2 holds it too, up to 2^31 - 1, as llm.c reads it)
// A cache of the same text and tokenizer is read again instead of encoded; any other is rewritten.
#include <cstdio>
#include <cstring>

#include "tinygpt/error.h"
#include "tinygpt/tokenizer.h"
#include "tokenizer_impl.h"

namespace tinygpt::tok {

namespace {

constexpr uint32_t kCacheTag = 0x4E4B4F54;
constexpr size_t kHeaderBytes = size_t(data::kShardHeaderInts) * 4;

uint64_t fnv_u64(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; i++) h = (h ^ uint8_t(v >> (8 * i))) * 1099511628211ull;
  return h;
}

void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (8 * i));
}
uint32_t get32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint64_t get64(const uint8_t* p) { return uint64_t(get32(p)) | uint64_t(get32(p + 4)) << 32; }

void store(uint8_t* out, const int32_t* ids, size_t n, int width) {
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < width; b++) out[i * size_t(width) + size_t(b)] = uint8_t(uint32_t(ids[i]) >> (8 * b));
}

}  // namespace

bool encode_source(const Tokenizer& tok, const data::ByteSource& text, const std::function<void(const int32_t*, size_t)>& sink,
                   const std::function<bool(uint64_t, uint64_t)>& progress, size_t chunk) {
  Encoder enc(tok);
  const uint64_t total = text.size();
  std::vector<uint8_t> buf;
  std::vector<int32_t> ids;
  size_t have = 0;  // bytes in buf not cut into pieces yet (a piece that may go on in the next chunk)
  if (progress && !progress(0, total)) return false;
  for (uint64_t at = 0; at < total;) {
    const size_t n = size_t(std::min<uint64_t>(chunk, total - at));
    buf.resize(have + n);
    text.read_bytes(at, n, buf.data() + have);
    at += n, have += n;
    ids.clear();
    const size_t used = for_each_piece(buf.data(), have, at == total, [&](size_t b, size_t e) { enc.piece(buf.data() + b, e - b, ids); });
    enc.to_file_ids(ids, 0);
    if (!ids.empty()) sink(ids.data(), ids.size());
    std::memmove(buf.data(), buf.data() + used, have - used);
    have -= used;
    if (progress && !progress(at, total)) return false;
  }
  return true;
}

TokenSource::TokenSource(std::shared_ptr<const Tokenizer> tok, std::shared_ptr<const data::ByteSource> text)
    : tok_(std::move(tok)), text_(std::move(text)) {
  width_ = tok_->id_count() > 65536 ? 4 : 2;
  fingerprint_ = fnv_u64(fnv_u64(14695981039346656037ull, text_->fingerprint()), tok_->fingerprint());
}

std::shared_ptr<TokenSource> TokenSource::in_memory(std::shared_ptr<const Tokenizer> tok, std::shared_ptr<const data::ByteSource> text,
                                                    const std::function<bool(uint64_t, uint64_t)>& progress) {
  std::shared_ptr<TokenSource> s(new TokenSource(std::move(tok), std::move(text)));
  std::vector<uint8_t>& mem = s->memory_;
  const int w = s->width_;
  const bool done = encode_source(*s->tok_, *s->text_, [&](const int32_t* ids, size_t n) {
    const size_t at = mem.size();
    mem.resize(at + n * size_t(w));
    store(mem.data() + at, ids, n, w);
  }, progress);
  if (!done) return nullptr;
  mem.shrink_to_fit();
  s->size_ = mem.size() / size_t(w);
  return s;
}

std::shared_ptr<TokenSource> TokenSource::cached(std::shared_ptr<const Tokenizer> tok, std::shared_ptr<const data::ByteSource> text,
                                                 const std::string& path, const std::function<bool(uint64_t, uint64_t)>& progress) {
  std::shared_ptr<TokenSource> s(new TokenSource(std::move(tok), std::move(text)));
  const int w = s->width_;
  const uint64_t text_fp = s->text_->fingerprint(), tok_fp = s->tok_->fingerprint(), text_size = s->text_->size();
  // a cache of this text and tokenizer: read it again
  try {
    auto f = std::make_unique<data::FileSource>(path);
    if (f->size() >= kHeaderBytes) {
      uint8_t h[kHeaderBytes];
      f->read_bytes(0, kHeaderBytes, h);
      const uint64_t count = get64(h + 40);
      if (int32_t(get32(h)) == data::kShardMagic && get32(h + 4) == uint32_t(w == 2 ? 1 : 2) && get32(h + 12) == kCacheTag &&
          get64(h + 16) == text_fp && get64(h + 24) == tok_fp && get64(h + 32) == text_size &&
          f->size() == kHeaderBytes + count * uint64_t(w)) {
        s->size_ = count;
        s->file_ = std::move(f);
        s->reused_ = true;
        return s;
      }
    }
  } catch (const Error&) {
    // no cache yet (or not readable): write one
  }
  const std::string tmp = path + ".tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (!out) throw Error(coded("corpus.cannot_open", {{"path", tmp}}, "cannot write the token cache '" + tmp + "'"));
  std::vector<uint8_t> header(kHeaderBytes, 0), buf;
  bool ok = std::fwrite(header.data(), 1, header.size(), out) == header.size();
  uint64_t count = 0;
  const bool done = encode_source(*s->tok_, *s->text_, [&](const int32_t* ids, size_t n) {
    buf.resize(n * size_t(w));
    store(buf.data(), ids, n, w);
    ok = ok && std::fwrite(buf.data(), 1, buf.size(), out) == buf.size();
    count += n;
  }, progress);
  put32(header.data(), uint32_t(data::kShardMagic));
  put32(header.data() + 4, w == 2 ? 1 : 2);
  put32(header.data() + 8, uint32_t(std::min<uint64_t>(count, INT32_MAX)));
  put32(header.data() + 12, kCacheTag);
  for (int i = 0; i < 2; i++) {
    put32(header.data() + 16 + 4 * i, uint32_t(text_fp >> (32 * i)));
    put32(header.data() + 24 + 4 * i, uint32_t(tok_fp >> (32 * i)));
    put32(header.data() + 32 + 4 * i, uint32_t(text_size >> (32 * i)));
    put32(header.data() + 40 + 4 * i, uint32_t(count >> (32 * i)));
  }
  ok = ok && std::fseek(out, 0, SEEK_SET) == 0 && std::fwrite(header.data(), 1, header.size(), out) == header.size();
  ok = std::fclose(out) == 0 && ok;
  if (!done) {
    std::remove(tmp.c_str());
    return nullptr;
  }
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(coded("corpus.cannot_open", {{"path", path}}, "cannot write the token cache '" + path + "' (is the disk full?)"));
  }
  s->file_ = std::make_unique<data::FileSource>(path);
  s->size_ = count;
  return s;
}

void TokenSource::read(uint64_t at, size_t n, int32_t* out) const {
  if (at > size_ || n > size_ - at) throw Error("read past the end of the tokens");
  const size_t w = size_t(width_);
  const uint8_t* p;
  std::vector<uint8_t> buf;
  if (file_) {
    buf.resize(n * w);
    file_->read_bytes(kHeaderBytes + at * w, buf.size(), buf.data());
    p = buf.data();
  } else {
    p = memory_.data() + at * w;
  }
  for (size_t i = 0; i < n; i++) out[i] = w == 2 ? int32_t(uint32_t(p[2 * i]) | uint32_t(p[2 * i + 1]) << 8) : int32_t(get32(p + 4 * i));
}

std::string TokenSource::describe() const {
  return text_->describe() + " (BPE, " + std::to_string(tok_->vocab_size()) + " tokens)";
}

void TokenSource::check() const {
  text_->check();  // the text changed: its tokens are stale
  if (file_) file_->check();
}

}  // namespace tinygpt::tok
