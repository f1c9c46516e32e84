// source.cpp — corpora as sources of tokens: in memory, a file read where it lies, a JS reader;
// their fingerprints; and the one streaming pass that says what a text is made of.
#include "tinygpt/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tinygpt/error.h"

namespace tinygpt::data {

using tinygpt::Error;

namespace {

constexpr uint64_t kFnvBasis = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t fnv(uint64_t h, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * kFnvPrime;
  return h;
}

int64_t mtime_ns(const struct stat& st) { return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec; }

}  // namespace

void ByteSource::read(uint64_t at, size_t n, int32_t* out) const {
  // widened in place from the end: the bytes land in the first quarter of `out`
  uint8_t* bytes = reinterpret_cast<uint8_t*>(out);
  read_bytes(at, n, bytes);
  for (size_t i = n; i-- > 0;) out[i] = bytes[i];
}

uint64_t sampled_fingerprint(const ByteSource& s) {
  const uint64_t size = s.size();
  uint8_t le[8];
  for (int i = 0; i < 8; i++) le[i] = uint8_t(size >> (8 * i));
  uint64_t h = fnv(kFnvBasis, le, 8);
  const uint64_t block = std::min(size, kFingerprintBlockBytes);
  std::vector<uint8_t> buf(size_t(block), 0);
  for (int i = 0; i < kFingerprintBlocks; i++) {
    const uint64_t at = (size - block) * uint64_t(i) / uint64_t(kFingerprintBlocks - 1);
    s.read_bytes(at, size_t(block), buf.data());
    h = fnv(h, buf.data(), buf.size());
  }
  return h;
}

uint64_t source_fingerprint(const ByteSource& s) {
  if (s.size() > kFullFingerprintBytes) return sampled_fingerprint(s);
  uint64_t h = kFnvBasis;
  std::vector<uint8_t> buf(size_t(std::min<uint64_t>(s.size(), uint64_t(1) << 20)));
  for (uint64_t at = 0; at < s.size(); at += buf.size()) {
    const size_t n = size_t(std::min<uint64_t>(buf.size(), s.size() - at));
    s.read_bytes(at, n, buf.data());
    h = fnv(h, buf.data(), n);
  }
  return h;
}

// ---- memory ----------------------------------------------------------------------------------------

MemorySource::MemorySource(std::vector<uint8_t> bytes, std::string name)
    : bytes_(std::move(bytes)), name_(std::move(name)) {
  fingerprint_ = source_fingerprint(*this);  // the rule of every source: a text names itself the same way from a file
}

void MemorySource::read_bytes(uint64_t at, size_t n, uint8_t* out) const {
  if (at > bytes_.size() || n > bytes_.size() - at) throw Error("read past the end of the corpus");
  if (n) std::memcpy(out, bytes_.data() + at, n);  // an empty source's data() may be null
}

// ---- a file where it lies ------------------------------------------------------------------------

FileSource::FileSource(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(coded("corpus.cannot_open", {{"path", path}}, "cannot open '" + path + "': " + std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(coded("corpus.cannot_open", {{"path", path}}, "cannot open '" + path + "': not a regular file"));
  }
  size_ = uint64_t(st.st_size);
  mtime_ns_ = mtime_ns(st);
  fingerprint_ = source_fingerprint(*this);
  bytes_read_ = 0;  // the fingerprint's reads are not the batcher's
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::check() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0)
    throw Error(coded("corpus.file_gone", {{"path", path_}}, "the data file " + path_ + " is gone: training paused, nothing was lost"));
  if (uint64_t(st.st_size) != size_ || mtime_ns(st) != mtime_ns_)
    throw Error(coded("corpus.file_changed", {{"path", path_}},
                      "the data file " + path_ + " changed while training: training paused, nothing was lost"));
}

void FileSource::read_bytes(uint64_t at, size_t n, uint8_t* out) const {
  if (at > size_ || n > size_ - at) throw Error("read past the end of the corpus");
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd_, out + done, n - done, off_t(at + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      check();  // throws when the file changed; otherwise a plain read error
      throw Error(coded("corpus.file_unreadable", {{"path", path_}},
                        "cannot read the data file " + path_ + (r < 0 ? std::string(": ") + std::strerror(errno) : ": it ended early")));
    }
    done += size_t(r);
  }
  bytes_read_ += n;
}

// ---- a reader --------------------------------------------------------------------------------------

CallbackSource::CallbackSource(uint64_t size, Reader read, std::string name)
    : size_(size), read_(std::move(read)), name_(std::move(name)) {
  fingerprint_ = source_fingerprint(*this);
}

// ---- what a text is made of ---------------------------------------------------------------------

int TextStats::distinct() const {
  return int(std::count_if(counts.begin(), counts.end(), [](uint64_t c) { return c > 0; }));
}

void Scanner::feed(const uint8_t* bytes, size_t n) {
  if (n == 0) return;
  TextStats& s = s_;
  s.bytes += n;
  uint64_t* pairs = s.pairs.data();
  if (last_ >= 0) pairs[size_t(last_) * 256 + bytes[0]]++;
  for (size_t i = 0; i + 1 < n; i++) pairs[size_t(bytes[i]) * 256 + bytes[i + 1]]++;
  for (size_t i = 0; i < n; i++) {
    const uint8_t b = bytes[i];
    s.counts[b]++;
    if (need_ > 0) {
      if (b >= lo_ && b <= hi_) {
        lo_ = 0x80, hi_ = 0xBF;
        if (--need_ == 0) s.chars++, s.multibyte++;
        continue;
      }
      s.invalid++;  // the sequence broke off: b is looked at again as a lead byte
      need_ = 0;
    }
    if (b < 0x80) {
      s.chars++;
      continue;
    }
    // the lead byte's length and the range of its first continuation byte (Unicode table 3-7)
    if (b >= 0xC2 && b <= 0xDF) need_ = 1, lo_ = 0x80, hi_ = 0xBF;
    else if (b == 0xE0) need_ = 2, lo_ = 0xA0, hi_ = 0xBF;
    else if (b == 0xED) need_ = 2, lo_ = 0x80, hi_ = 0x9F;
    else if (b >= 0xE1 && b <= 0xEF) need_ = 2, lo_ = 0x80, hi_ = 0xBF;
    else if (b == 0xF0) need_ = 3, lo_ = 0x90, hi_ = 0xBF;
    else if (b >= 0xF1 && b <= 0xF3) need_ = 3, lo_ = 0x80, hi_ = 0xBF;
    else if (b == 0xF4) need_ = 3, lo_ = 0x80, hi_ = 0x8F;
    else s.invalid++;
  }
  last_ = bytes[n - 1];
}

const TextStats& Scanner::finish() {
  if (need_ > 0) s_.invalid++;
  need_ = 0;
  s_.nul = s_.counts[0];
  s_.lines = s_.bytes == 0 ? 0 : s_.counts['\n'] + (last_ == '\n' ? 0 : 1);
  return s_;
}

bool scan(const ByteSource& s, Scanner& scanner, const std::function<bool(uint64_t, uint64_t)>& progress, size_t chunk) {
  std::vector<uint8_t> buf(std::max<size_t>(1, std::min<uint64_t>(chunk, s.size())));
  for (uint64_t at = 0; at < s.size(); at += buf.size()) {
    const size_t n = size_t(std::min<uint64_t>(buf.size(), s.size() - at));
    s.read_bytes(at, n, buf.data());
    scanner.feed(buf.data(), n);
    if (progress && !progress(at + n, s.size())) return false;
  }
  scanner.finish();
  return true;
}

}  // namespace tinygpt::data
