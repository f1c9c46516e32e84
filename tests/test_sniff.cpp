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

TEST_CASE("the sniffer calls tab-separated text with a majority of good lines pairs, naming the bad ones", "[sniff]") {
  // 10 lines, 3 of them malformed (30%): no tab, an empty target, two tabs
  std::string tsv;
  for (int i = 1; i <= 10; i++) {
    if (i == 2) tsv += "a line without a tab\n";
    else if (i == 5) tsv += "source only\t\n";
    else if (i == 9) tsv += "one\ttwo\tthree\n";
    else tsv += "hello " + std::to_string(i) + "\tbonjour " + std::to_string(i) + "\n";
  }
  io::Sniffed s = sniff_text(tsv, "pairs-30pc-bad.tsv");
  CHECK(s.kind == io::FileKind::tsv_pairs);
  CHECK(s.code == "sniff.tsv_pairs_bad");
  CHECK(s.lines == 10);
  CHECK(s.tsv_lines == 7);
  CHECK(s.bad_lines == 3);
  CHECK(s.bad_line_numbers == std::vector<size_t>{2, 5, 9});
  CHECK(s.message == "pairs-30pc-bad.tsv holds tab-separated pairs, with 3 bad lines: 7 of the 10 lines in the first " +
                         std::to_string(tsv.size()) + " bytes are \"source<TAB>target\", the others are not (lines 2, 5, 9). "
                         "Input for a translation model, which skips the bad lines. This model trains on it as plain text.");
  // the page words it from the args
  auto arg = [&](const char* k) {
    for (const auto& [key, v] : s.args)
      if (key == k) return v;
    return std::string("?");
  };
  CHECK(arg("bad") == "3");
  CHECK(arg("bad_lines") == "2, 5, 9");
  CHECK(arg("lines") == "7");
  CHECK(arg("all") == "10");
  // clean pairs keep their code; blank lines count in the numbering but are not lines
  io::Sniffed clean = sniff_text("a\tb\n\nc\td\n");
  CHECK(clean.code == "sniff.tsv_pairs");
  CHECK(clean.bad_lines == 0);
  io::Sniffed blank = sniff_text("a\tb\n\nno tab here\nc\td\ne\tf\n");
  CHECK(blank.bad_line_numbers == std::vector<size_t>{3});
  // only the first kReportedBadLines are numbered; "..." says there are more
  std::string many;
  for (int i = 0; i < 30; i++) many += i % 3 == 0 ? "bad line\n" : "x\ty\n";
  io::Sniffed m = sniff_text(many);
  CHECK(m.bad_lines == 10);
  CHECK(m.bad_line_numbers == std::vector<size_t>{1, 4, 7, 10, 13});
  CHECK(m.message.find("(lines 1, 4, 7, 10, 13, ...)") != std::string::npos);
}

TEST_CASE("half the lines pairs is not a majority: the file is text", "[sniff]") {
  auto mix = [](int good, int bad) {
    std::string s;
    for (int i = 0; i < good; i++) s += "src\ttgt\n";
    for (int i = 0; i < bad; i++) s += "plain prose\n";
    return sniff_text(s);
  };
  CHECK(mix(5, 5).kind == io::FileKind::utf8_text);
  CHECK(mix(51, 49).kind == io::FileKind::tsv_pairs);
  CHECK(mix(49, 51).kind == io::FileKind::utf8_text);
  CHECK(mix(9, 1).code == "sniff.tsv_pairs_bad");   // 90%: pairs, and the one bad line is named
}

TEST_CASE("the sniffer warns of a text with almost no variety", "[sniff]") {
  // 100,000 identical bytes: one distinct value, no information at all
  io::Sniffed same = sniff_text(std::string(100000, 'a'), "aaaa.txt");
  CHECK(same.kind == io::FileKind::utf8_text);
  CHECK(same.code == "sniff.low_entropy");
  CHECK(same.low_variety);
  CHECK(same.distinct_bytes == 1);
  CHECK(same.entropy_bits == 0.0);
  CHECK(same.message == "aaaa.txt is text with almost no variety: 1 distinct byte value, 0.00 bits per byte "
                        "(English prose has about 4.5). A model learns next to nothing from it.");
  // by hand: 99 'a' and one 'b' per 100 bytes: H = -(0.99 log2 0.99 + 0.01 log2 0.01) = 0.0808 bits
  std::string rare;
  for (int i = 0; i < 1000; i++) rare += std::string(99, 'a') + "b";
  io::Sniffed r = sniff_text(rare);
  CHECK(r.distinct_bytes == 2);
  CHECK(r.entropy_bits == Approx(0.080793).epsilon(1e-4));
  CHECK(r.code == "sniff.low_entropy");
  // "aaab" over and over: H = -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.8113 bits: above the line
  std::string aaab;
  for (int i = 0; i < 1000; i++) aaab += "aaab";
  io::Sniffed a = sniff_text(aaab);
  CHECK(a.entropy_bits == Approx(0.811278).epsilon(1e-4));
  CHECK_FALSE(a.low_variety);
  CHECK(a.code == "sniff.utf8_text");
  // "ab": exactly 1 bit
  CHECK(sniff_text(std::string("abababab")).entropy_bits == Approx(1.0));
  // English prose: about 4 to 5 bits per byte
  io::Sniffed prose = sniff_text("It was the best of times, it was the worst of times, it was the age of wisdom, "
                                 "it was the age of foolishness, it was the epoch of belief.\n");
  CHECK(prose.entropy_bits > 3.5);
  CHECK(prose.entropy_bits < 5.0);
  CHECK_FALSE(prose.low_variety);
}
