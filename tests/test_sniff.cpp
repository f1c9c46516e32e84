// "What is this file?" — the sniffer's rules, on small files made here.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tinygpt/sniff.h"

using namespace tinygpt;

namespace {
io::Sniffed sniff_bytes(const std::vector<uint8_t>& b, const std::string& name, uint64_t total = 0) {
  return io::sniff(b.data(), b.size(), total ? total : b.size(), name);
}
io::Sniffed sniff_text(const std::string& s, const std::string& name = "a.txt") {
  return sniff_bytes(std::vector<uint8_t>(s.begin(), s.end()), name);
}
}  // namespace

TEST_CASE("the sniffer tells checkpoints, empty files and renamed files apart", "[sniff]") {
  CHECK(sniff_text("", "e.txt").kind == io::FileKind::empty);
  CHECK(sniff_text("TGPTCKPT\x01\x00\x00\x00 and the rest", "x.bin").kind == io::FileKind::checkpoint);
  // a text renamed .ckpt is refused as a checkpoint, whatever its bytes
  io::Sniffed renamed = sniff_text("It was the best of times.\n", "notes.CKPT");
  CHECK(renamed.kind == io::FileKind::not_checkpoint);
  CHECK(renamed.kind_name == "not_checkpoint");
  CHECK(renamed.message.find("does not start with TGPTCKPT") != std::string::npos);
}

TEST_CASE("the sniffer calls UTF-8 text text, and finds tab-separated pairs", "[sniff]") {
  io::Sniffed en = sniff_text("It was the best of times,\nit was the worst of times.\n");
  CHECK(en.kind == io::FileKind::utf8_text);
  CHECK(en.encoding == "utf-8");
  CHECK(en.lines == 2);
  io::Sniffed zh = sniff_text("床前明月光，疑是地上霜。\n");
  CHECK(zh.kind == io::FileKind::utf8_text);
  CHECK(zh.invalid_utf8 == 0);
  CHECK(zh.high_bytes == 36);   // 12 characters of 3 bytes
  io::Sniffed tsv = sniff_text("hello\tbonjour\ncat\tchat\r\nthank you\tmerci\n");
  CHECK(tsv.kind == io::FileKind::tsv_pairs);
  CHECK(tsv.tsv_lines == 3);
  // one line of pairs in a prose text is not a pairs file
  CHECK(sniff_text("a\tb\nplain prose here\nmore prose\n").kind == io::FileKind::utf8_text);
  // a character cut by the end of the bytes looked at is not invalid when the file goes on
  std::string s = "caf\xC3\xA9 ";
  std::vector<uint8_t> head(s.begin(), s.end());
  head.push_back(0xC3);   // first byte of the next é
  CHECK(sniff_bytes(head, "a.txt", head.size() + 100).invalid_utf8 == 0);
  CHECK(sniff_bytes(head, "a.txt").invalid_utf8 == 1);
}

TEST_CASE("the sniffer reads Latin-1 and Windows-1252 text as text, never as binary", "[sniff]") {
  // "café crème, naïve façade" in Latin-1: é = E9, è = E8, ï = EF, ç = E7
  io::Sniffed latin1 = sniff_text("caf\xE9 cr\xE8me, na\xEFve fa\xE7" "ade.\nD\xE9j\xE0 vu.\n");
  CHECK(latin1.kind == io::FileKind::latin1_text);
  CHECK(latin1.encoding == "iso-8859-1");
  CHECK(latin1.high_bytes == 6);
  CHECK(latin1.invalid_utf8 == 6);
  // Windows-1252's curly quotes (93, 94) and euro sign (80) live in 0x80..0x9F
  io::Sniffed w1252 = sniff_text("\x93Quoted,\x94 she said: 5 \x80.\n");
  CHECK(w1252.kind == io::FileKind::latin1_text);
  CHECK(w1252.encoding == "windows-1252");
  CHECK(w1252.message.find("Windows-1252") != std::string::npos);
  // 0x81 is undefined in Windows-1252: not this encoding
  CHECK(sniff_text("abc\x81" "def\xE9").kind == io::FileKind::binary);
  // a single accented letter in a long ASCII text: Latin-1, however few (no valid UTF-8 character)
  std::string one = std::string(1000, 'a') + "\xE9" + std::string(1000, 'b');
  CHECK(sniff_text(one).kind == io::FileKind::latin1_text);
  // but a stray byte in a text with valid UTF-8 characters is damage in a UTF-8 text
  std::string utf8 = "na\xC3\xAFve " + std::string(1000, 'a') + "\xE9" + std::string(1000, 'b');
  io::Sniffed damaged = sniff_text(utf8);
  CHECK(damaged.kind == io::FileKind::utf8_text);
  CHECK(damaged.invalid_utf8 == 1);
}

TEST_CASE("the sniffer finds UTF-16 by its byte order mark and calls the rest binary", "[sniff]") {
  io::Sniffed le = sniff_bytes({0xFF, 0xFE, 'h', 0, 'i', 0}, "u.txt");
  CHECK(le.kind == io::FileKind::utf16_text);
  CHECK(le.encoding == "utf-16le");
  CHECK(sniff_bytes({0xFE, 0xFF, 0, 'h', 0, 'i'}, "u.txt").encoding == "utf-16be");
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 'I', 'H', 'D', 'R'};
  io::Sniffed bin = sniff_bytes(png, "image.png");
  CHECK(bin.kind == io::FileKind::binary);
  CHECK(bin.nul_bytes == 3);
  CHECK(bin.message.find("3 NUL bytes") != std::string::npos);
  // mostly high bytes (random data without NULs) is not Latin-1 prose
  std::vector<uint8_t> noise;
  for (int i = 0; i < 400; i++) noise.push_back(uint8_t(0xA0 + (i * 37) % 96));
  CHECK(sniff_bytes(noise, "noise.dat").kind == io::FileKind::binary);
}

TEST_CASE("to_utf8 converts the encodings the sniffer names", "[sniff]") {
  auto u8 = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  // Latin-1: é is 0xE9; Windows-1252 adds the euro sign and curly quotes at 0x80..0x9F
  CHECK(io::to_utf8({'C', 'a', 'f', 0xE9}, "iso-8859-1") == u8("Caf\xC3\xA9"));
  CHECK(io::to_utf8({0x80, 0x93, 'x', 0x94}, "windows-1252") == u8("\xE2\x82\xAC\xE2\x80\x9Cx\xE2\x80\x9D"));
  CHECK(io::to_utf8({0x80}, "iso-8859-1") == u8("\xC2\x80"));  // a C1 control in Latin-1
  // UTF-16 with a byte order mark, a character outside the BMP (U+1F600) and a lone surrogate
  CHECK(io::to_utf8({0xFF, 0xFE, 'h', 0, 0x3D, 0xD8, 0x00, 0xDE}, "utf-16le") == u8("h\xF0\x9F\x98\x80"));
  CHECK(io::to_utf8({0xFE, 0xFF, 0, 'h', 0xD8, 0x3D}, "utf-16be") == u8("h\xEF\xBF\xBD"));
  CHECK(io::to_utf8(u8("plain"), "utf-8") == u8("plain"));
  CHECK_THROWS_WITH(io::to_utf8(u8("x"), "ebcdic"), Catch::Contains("cannot convert from the encoding 'ebcdic'"));
}
