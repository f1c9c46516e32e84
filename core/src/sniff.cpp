// sniff.cpp — the rules of sniff.h. Order: empty, checkpoint magic, the *.ckpt name, UTF-16
// byte order mark, then counts over the bytes decide between UTF-8 text (and TSV pairs),
// Latin-1 / Windows-1252 text and binary.
#include "tinygpt/sniff.h"

#include "tinygpt/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tinygpt::io {

namespace {

constexpr char kMagic[] = "TGPTCKPT";   // core/include/tinygpt/checkpoint.h
// Invalid UTF-8 sequences above this share of characters make a file "not UTF-8"; below it
// a file is UTF-8 text with a few damaged bytes (the model reads them as bytes anyway).
constexpr double kInvalidShare = 0.02;

bool ends_with_ckpt(const std::string& name) {
  if (name.size() < 5) return false;
  std::string tail = name.substr(name.size() - 5);
  std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return tail == ".ckpt";
}

// Bytes 0x80..0x9F that Windows-1252 leaves undefined (in Latin-1 they are C1 controls).
bool undefined_in_1252(uint8_t b) { return b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D; }

bool is_control(uint8_t b) { return (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7F; }

// Continuation bytes needed after a lead byte, and the range of the first one (WHATWG rules:
// no overlong forms, no surrogates, nothing above U+10FFFF); need < 0: not a lead byte.
struct Lead { int need; uint8_t lo, hi; };
Lead lead_info(uint8_t b) {
  if (b < 0x80) return {0, 0, 0};
  if (b >= 0xC2 && b <= 0xDF) return {1, 0x80, 0xBF};
  if (b == 0xE0) return {2, 0xA0, 0xBF};
  if (b == 0xED) return {2, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {2, 0x80, 0xBF};
  if (b == 0xF0) return {3, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {3, 0x80, 0xBF};
  if (b == 0xF4) return {3, 0x80, 0x8F};
  return {-1, 0, 0};
}

// Invalid sequences (maximal subparts) and valid characters in p[0..n); a sequence cut by the
// end is invalid only when the file ends there (`complete`).
void count_utf8(const uint8_t* p, size_t n, bool complete, size_t& invalid, size_t& chars, size_t& multibyte) {
  size_t i = 0;
  while (i < n) {
    Lead l = lead_info(p[i]);
    if (l.need == 0) { chars++; i++; continue; }
    if (l.need < 0) { invalid++; i++; continue; }
    size_t j = i + 1;
    bool ok = true;
    for (int k = 0; k < l.need; k++, j++) {
      if (j >= n) { ok = false; break; }
      uint8_t lo = k == 0 ? l.lo : 0x80, hi = k == 0 ? l.hi : 0xBF;
      if (p[j] < lo || p[j] > hi) { ok = false; break; }
    }
    if (ok) {
      chars++;
      multibyte++;
    } else if (j < n || complete) invalid++;
    i = j;
  }
}

std::string quoted(const std::string& name) { return name.empty() ? std::string("This file") : name; }

}  // namespace

const char* file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::empty: return "empty";
    case FileKind::checkpoint: return "checkpoint";
    case FileKind::not_checkpoint: return "not_checkpoint";
    case FileKind::utf8_text: return "utf8_text";
    case FileKind::tsv_pairs: return "tsv_pairs";
    case FileKind::latin1_text: return "latin1_text";
    case FileKind::utf16_text: return "utf16_text";
    case FileKind::binary: return "binary";
  }
  return "binary";
}

Sniffed sniff(const uint8_t* head, size_t n, uint64_t total_size, const std::string& name) {
  Sniffed r;
  r.bytes_looked_at = n;
  total_size = std::max<uint64_t>(total_size, n);
  const std::string who = quoted(name);
  r.args = {{"name", name}};  // "" reads "this file"
  auto done = [&](FileKind k) {
    r.kind = k;
    r.kind_name = file_kind_name(k);
    if (r.code.empty()) r.code = "sniff." + r.kind_name;
    return r;
  };

  if (total_size == 0) {
    r.message = who + " is empty: there is nothing to learn from. Choose a file with some text in it.";
    return done(FileKind::empty);
  }
  if (n >= 8 && std::memcmp(head, kMagic, 8) == 0) {
    r.message = who + " is a tinygpt checkpoint.";
    return done(FileKind::checkpoint);
  }
  if (ends_with_ckpt(name)) {
    r.message = who + " is named like a checkpoint but is not one: it does not start with TGPTCKPT "
                "(a checkpoint from another program, or another file renamed). Nothing was loaded.";
    return done(FileKind::not_checkpoint);
  }
  if (n >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF))) {
    r.encoding = head[0] == 0xFF ? "utf-16le" : "utf-16be";
    r.args.push_back({"encoding", r.encoding});
    r.message = who + " is UTF-16 text (" + r.encoding + ", with a byte order mark). The model learns from bytes: "
                "convert it to UTF-8 (same characters, fewer bytes) or train on its bytes as they are.";
    return done(FileKind::utf16_text);
  }

  // counts over the bytes
  bool undefined_1252 = false, c1_range = false;
  size_t histogram[256] = {};
  for (size_t i = 0; i < n; i++) {
    uint8_t b = head[i];
    histogram[b]++;
    if (b == 0) r.nul_bytes++;
    else if (is_control(b)) r.control_bytes++;
    if (b >= 0x80) r.high_bytes++;
    if (undefined_in_1252(b)) undefined_1252 = true;
    if (b >= 0x80 && b <= 0x9F) c1_range = true;
  }
  // variety: distinct byte values and the entropy of their histogram, H = -sum p log2 p
  for (size_t c : histogram) {
    if (!c) continue;
    r.distinct_bytes++;
    const double p = double(c) / double(n);
    r.entropy_bits -= p * std::log2(p);
  }
  r.entropy_bits = std::max(0.0, r.entropy_bits);  // -0.0 for a single byte value
  r.low_variety = r.distinct_bytes < 2 || r.entropy_bits < kLowEntropyBits;
  size_t chars = 0, multibyte = 0;
  count_utf8(head, n, n >= total_size, r.invalid_utf8, chars, multibyte);
  // TSV: non-empty lines, those with exactly one tab between two non-empty fields, and the
  // numbers of the first few that are not
  size_t line_number = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    size_t tabs = 0, tab_at = 0;
    while (j < n && head[j] != '\n') {
      if (head[j] == '\t') { tabs++; tab_at = j; }
      j++;
    }
    line_number++;
    size_t end = j > i && head[j - 1] == '\r' ? j - 1 : j;
    bool last_cut = j >= n && n < total_size;   // the line goes on past the bytes looked at
    if (end > i && !last_cut) {
      r.lines++;
      if (tabs == 1 && tab_at > i && tab_at + 1 < end) r.tsv_lines++;
      else if (r.bad_line_numbers.size() < kReportedBadLines) r.bad_line_numbers.push_back(line_number);
    }
    i = j + 1;
  }
  r.bad_lines = r.lines - r.tsv_lines;

  const double controls = double(r.control_bytes) / double(n);
  const double invalid_share = double(r.invalid_utf8) / double(std::max<size_t>(1, chars + r.invalid_utf8));
  // Latin-1 / Windows-1252: not UTF-8, no NUL or control bytes, every high byte a defined
  // character, and mostly ASCII (accented letters in a Western European text)
  const bool latin1_like = r.nul_bytes == 0 && controls < 0.01 && !undefined_1252 && r.high_bytes * 4 < n;
  // Not one valid multi-byte UTF-8 character but invalid ones: a Latin-1 text, however few its
  // accented letters; with valid ones, a few invalid sequences are damage in a UTF-8 text.
  const bool utf8 = r.invalid_utf8 == 0 || (multibyte > 0 && invalid_share <= kInvalidShare) || (!latin1_like && invalid_share <= kInvalidShare);
  if (r.nul_bytes == 0 && controls < 0.01 && utf8) {
    r.encoding = "utf-8";
    if (r.lines >= 2 && double(r.tsv_lines) > kPairsShare * double(r.lines)) {
      r.args.push_back({"lines", std::to_string(r.tsv_lines)});
      r.args.push_back({"bytes", std::to_string(n)});
      if (r.bad_lines == 0) {
        r.message = who + " holds tab-separated pairs (" + std::to_string(r.tsv_lines) + " lines \"source<TAB>target\" in the first " +
                    std::to_string(n) + " bytes): input for a translation model. This model trains on it as plain text.";
        return done(FileKind::tsv_pairs);
      }
      // most lines are pairs: the others are named, as the translator's report names them
      std::string numbers;
      for (size_t k = 0; k < r.bad_line_numbers.size(); k++) numbers += (k ? ", " : "") + std::to_string(r.bad_line_numbers[k]);
      if (r.bad_lines > r.bad_line_numbers.size()) numbers += ", ...";
      r.code = "sniff.tsv_pairs_bad";
      r.args.push_back({"bad", std::to_string(r.bad_lines)});
      r.args.push_back({"bad_lines", numbers});
      r.args.push_back({"all", std::to_string(r.lines)});
      r.message = who + " holds tab-separated pairs, with " + std::to_string(r.bad_lines) + (r.bad_lines == 1 ? " bad line" : " bad lines") +
                  ": " + std::to_string(r.tsv_lines) + " of the " + std::to_string(r.lines) + " lines in the first " + std::to_string(n) +
                  " bytes are \"source<TAB>target\", the others are not (line" + (r.bad_lines == 1 ? " " : "s ") + numbers +
                  "). Input for a translation model, which skips the bad lines. This model trains on it as plain text.";
      return done(FileKind::tsv_pairs);
    }
    if (r.low_variety) {
      // one byte over and over (or nearly): a model learns to repeat it, nothing else
      char bits[32];
      std::snprintf(bits, sizeof bits, "%.2f", r.entropy_bits);
      r.code = "sniff.low_entropy";
      r.args.push_back({"distinct", std::to_string(r.distinct_bytes)});
      r.args.push_back({"bits", bits});
      r.message = who + " is text with almost no variety: " + std::to_string(r.distinct_bytes) +
                  (r.distinct_bytes == 1 ? " distinct byte value" : " distinct byte values") + ", " + bits +
                  " bits per byte (English prose has about 4.5). A model learns next to nothing from it.";
      return done(FileKind::utf8_text);
    }
    if (r.invalid_utf8) {
      r.code = "sniff.utf8_damaged";
      r.args.push_back({"invalid", std::to_string(r.invalid_utf8)});
    }
    r.message = r.invalid_utf8 ? who + " is UTF-8 text with " + std::to_string(r.invalid_utf8) +
                                     " invalid byte sequences; they are kept as bytes."
                               : who + " is UTF-8 text.";
    return done(FileKind::utf8_text);
  }
  if (latin1_like) {
    r.encoding = c1_range ? "windows-1252" : "iso-8859-1";
    r.args.push_back({"encoding", c1_range ? "Windows-1252" : "Latin-1 (ISO-8859-1)"});
    r.args.push_back({"high_bytes", std::to_string(r.high_bytes)});
    r.message = who + " is not UTF-8 but reads as " + std::string(c1_range ? "Windows-1252" : "Latin-1 (ISO-8859-1)") +
                " text (" + std::to_string(r.high_bytes) + " bytes are accented letters or symbols in that encoding). "
                "Convert it to UTF-8, or train on its bytes as they are.";
    return done(FileKind::latin1_text);
  }
  std::string why;
  if (r.nul_bytes) {
    why = std::to_string(r.nul_bytes) + " NUL byte" + (r.nul_bytes == 1 ? "" : "s");
    r.code = "sniff.binary_nul";
    r.args.push_back({"count", std::to_string(r.nul_bytes)});
  } else if (r.control_bytes) {
    why = std::to_string(r.control_bytes) + " control bytes";
    r.code = "sniff.binary_control";
    r.args.push_back({"count", std::to_string(r.control_bytes)});
  } else {
    why = std::to_string(int(invalid_share * 100 + 0.5)) + "% of it is not valid UTF-8, nor a Latin-1 text";
    r.code = "sniff.binary_invalid";
    r.args.push_back({"percent", std::to_string(int(invalid_share * 100 + 0.5))});
  }
  r.message = who + " looks like a binary file, not text (" + why + "). The model reads bytes, so it can still learn from it, "
              "but samples and previews will be mostly hex.";
  return done(FileKind::binary);
}

namespace {

void put_utf8(std::vector<uint8_t>& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(uint8_t(cp));
  } else if (cp < 0x800) {
    out.push_back(uint8_t(0xC0 | (cp >> 6)));
    out.push_back(uint8_t(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(uint8_t(0xE0 | (cp >> 12)));
    out.push_back(uint8_t(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(uint8_t(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(uint8_t(0xF0 | (cp >> 18)));
    out.push_back(uint8_t(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(uint8_t(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(uint8_t(0x80 | (cp & 0x3F)));
  }
}

// Windows-1252's characters for bytes 0x80..0x9F (0 where it defines none: those map like Latin-1).
constexpr uint16_t kCp1252High[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178};

}  // namespace

std::vector<uint8_t> to_utf8(const std::vector<uint8_t>& bytes, const std::string& encoding) {
  if (encoding.empty() || encoding == "utf-8") return bytes;
  std::vector<uint8_t> out;
  out.reserve(bytes.size() + bytes.size() / 4);
  if (encoding == "windows-1252" || encoding == "iso-8859-1") {
    const bool cp1252 = encoding == "windows-1252";
    for (uint8_t b : bytes) {
      uint32_t cp = b;
      if (cp1252 && b >= 0x80 && b < 0xA0 && kCp1252High[b - 0x80]) cp = kCp1252High[b - 0x80];
      put_utf8(out, cp);
    }
    return out;
  }
  if (encoding == "utf-16le" || encoding == "utf-16be") {
    const bool le = encoding == "utf-16le";
    size_t i = 0;
    auto unit = [&](size_t at) -> uint32_t {
      return le ? uint32_t(bytes[at]) | (uint32_t(bytes[at + 1]) << 8) : (uint32_t(bytes[at]) << 8) | uint32_t(bytes[at + 1]);
    };
    if (bytes.size() >= 2 && unit(0) == 0xFEFF) i = 2;  // the byte order mark
    for (; i + 1 < bytes.size(); i += 2) {
      uint32_t u = unit(i);
      if (u >= 0xD800 && u < 0xDC00 && i + 3 < bytes.size() && unit(i + 2) >= 0xDC00 && unit(i + 2) < 0xE000) {
        u = 0x10000 + ((u - 0xD800) << 10) + (unit(i + 2) - 0xDC00);
        i += 2;
      } else if (u >= 0xD800 && u < 0xE000) {
        u = 0xFFFD;
      }
      put_utf8(out, u);
    }
    return out;
  }
  throw Error("cannot convert from the encoding '" + encoding + "' (windows-1252, iso-8859-1, utf-16le, utf-16be)");
}

}  // namespace tinygpt::io

