// protobuf.h — the protocol buffers wire format, as much as an ONNX file needs: a writer for the
// exporter (export_onnx.cpp) and a reader of one message's fields, for the tests and for telling an
// ONNX file apart from the files a run can load.
//
// Why not libprotobuf: the core builds unchanged to WebAssembly with no dependency, and an ONNX
// file needs four wire types and a dozen messages; generated code for onnx.proto would bring a
// runtime of its own (~1 MB of wasm) to write what 150 lines write. The encoding is the reference's
// ("Encoding", protobuf.dev): a field is a tag varint (number << 3 | wire type) then its value:
//   wire 0  varint         int32/int64/enum/bool, 7 bits a byte, low bits first, high bit = more
//   wire 1  fixed 64 bits  little-endian (double)
//   wire 2  length-delimited: a varint byte count, then the bytes (string, bytes, a message, a
//           packed repeated scalar)
//   wire 5  fixed 32 bits  little-endian (float)
// Negative int64 values are 10-byte varints (two's complement), as the reference writes them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tinygpt/error.h"

namespace tinygpt::pb {

enum Wire : int { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

class Writer {
 public:
  void varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(uint8_t(v) | 0x80);
      v >>= 7;
    }
    buf_.push_back(uint8_t(v));
  }
  void tag(int field, Wire wire) { varint(uint64_t(field) << 3 | uint64_t(wire)); }
  void int64(int field, int64_t v) {
    tag(field, kVarint);
    varint(uint64_t(v));
  }
  void float32(int field, float f) {
    tag(field, kFixed32);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++) buf_.push_back(uint8_t(u >> (8 * i)));
  }
  void bytes(int field, const void* data, size_t n) {
    tag(field, kLen);
    varint(n);
    const auto* p = static_cast<const uint8_t*>(data);
    buf_.insert(buf_.end(), p, p + n);
  }
  void string(int field, std::string_view s) { bytes(field, s.data(), s.size()); }
  void message(int field, const Writer& m) { bytes(field, m.buf_.data(), m.buf_.size()); }
  // A packed repeated int64 (proto3's default for repeated scalars; proto2 readers accept it too).
  void packed_int64(int field, const std::vector<int64_t>& values) {
    Writer inner;
    for (int64_t v : values) inner.varint(uint64_t(v));
    message(field, inner);
  }
  // Appends another writer's bytes as they are (fields of the same message).
  void append(const Writer& other) { buf_.insert(buf_.end(), other.buf_.begin(), other.buf_.end()); }

  const std::vector<uint8_t>& data() const { return buf_; }
  std::vector<uint8_t> take() { return std::move(buf_); }
  size_t size() const { return buf_.size(); }

 private:
  std::vector<uint8_t> buf_;
};

// One field of a message as read: its number and wire type, the value of a varint or fixed field,
// and the bytes of a length-delimited one (a view into the caller's buffer).
struct Field {
  int number = 0;
  Wire wire = kVarint;
  uint64_t value = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string_view text() const { return {reinterpret_cast<const char*>(data), size}; }
};

// The fields of the message in [p, p + n), in order. Throws tinygpt::Error for bytes that are not a
// message: a varint longer than 10 bytes, a field past the end, a wire type other than 0, 1, 2, 5,
// or field number 0. With `prefix`, the bytes may be the start of a longer message: reading stops
// (without an error) at the first field that runs past the end.
inline std::vector<Field> read_fields(const uint8_t* p, size_t n, bool prefix = false) {
  std::vector<Field> out;
  size_t at = 0;
  struct Short {};  // the bytes end inside a field
  const auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at >= n) throw Short{};
      const uint8_t b = p[at++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw Error("protobuf: a varint longer than 10 bytes");
  };
  while (at < n) {
    try {
      const uint64_t key = varint();
      Field f;
      f.number = int(key >> 3);
      f.wire = Wire(key & 7);
      if (f.number == 0) throw Error("protobuf: field number 0");
      if (f.wire == kVarint) {
        f.value = varint();
      } else if (f.wire == kFixed64 || f.wire == kFixed32) {
        const size_t w = f.wire == kFixed64 ? 8 : 4;
        if (n - at < w) throw Short{};
        for (size_t i = 0; i < w; i++) f.value |= uint64_t(p[at + i]) << (8 * i);
        at += w;
      } else if (f.wire == kLen) {
        const uint64_t len = varint();
        if (len > n - at) throw Short{};
        f.data = p + at;
        f.size = size_t(len);
        at += size_t(len);
      } else {
        throw Error("protobuf: wire type " + std::to_string(int(f.wire)) + " is not one this reader knows");
      }
      out.push_back(f);
    } catch (const Short&) {
      if (prefix) break;
      throw Error("protobuf: a field runs past the end");
    }
  }
  return out;
}

}  // namespace tinygpt::pb
