// sniff.h — "what is this file?": one set of rules for the page and the CLI, so a file is
// called the same thing everywhere and gets the message a person needs.
//
// It looks at the first bytes of a file (a few hundred KiB is plenty; pass the whole file when
// it is small), the file's name and its total size. It never refuses readable text as binary:
// valid UTF-8, UTF-16 with a byte order mark and Latin-1 / Windows-1252 text are all text, and
// the last two can be converted to UTF-8 by the caller (the page offers it; the bytes as they
// are stay a choice too, since the model reads bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/error.h"

namespace tinygpt::io {

enum class FileKind {
  empty,           // no bytes at all
  checkpoint,      // starts with the checkpoint magic "TGPTCKPT"
  not_checkpoint,  // named *.ckpt but without the magic: refused like a damaged checkpoint
  utf8_text,       // valid UTF-8 (a few invalid sequences allowed), ASCII included
  tsv_pairs,       // UTF-8 lines "source<TAB>target" (the translation mode's input), most of them
                   // well formed: `bad_lines` says how many are not (code sniff.tsv_pairs_bad)
  latin1_text,     // not UTF-8, but every byte is a printable Latin-1 / Windows-1252 character
  utf16_text,      // starts with a UTF-16 byte order mark
  binary,          // none of the above (NUL bytes, control bytes, ...)
};

struct Sniffed {
  FileKind kind = FileKind::binary;
  std::string kind_name;   // "utf8_text", ... (the enum as text, for JS and logs)
  std::string encoding;    // "utf-8", "windows-1252", "iso-8859-1", "utf-16le", "utf-16be" or ""
  std::string message;     // one or two sentences for the person who chose the file
  std::string code;        // message's code and args for the page (error.h): "sniff.<kind_name>" or a variant
  MessageArgs args;
  size_t bytes_looked_at = 0;
  size_t invalid_utf8 = 0; // invalid UTF-8 sequences in those bytes
  size_t nul_bytes = 0;
  size_t control_bytes = 0;  // C0 controls other than tab, newline, carriage return, form feed
  size_t high_bytes = 0;     // bytes >= 0x80
  size_t tsv_lines = 0;      // non-empty lines with exactly one tab and text on both sides
  size_t lines = 0;          // non-empty lines
  // tsv_pairs: the non-empty lines that are not "source<TAB>target" (lines - tsv_lines), and the
  // 1-based numbers of the first kReportedBadLines of them (blank lines count in the numbering)
  size_t bad_lines = 0;
  std::vector<size_t> bad_line_numbers;
  // How varied the bytes are: a text of one repeated byte (or nearly) teaches the model nothing.
  // low_variety: fewer than 2 distinct byte values, or entropy_bits below kLowEntropyBits
  // (utf8_text then carries the code sniff.low_entropy and says so).
  size_t distinct_bytes = 0;  // distinct byte values in the bytes looked at
  double entropy_bits = 0;    // Shannon entropy of their histogram, bits per byte (0 .. 8)
  bool low_variety = false;
};

// A file is pairs when at least this share of its non-empty lines are "source<TAB>target" ...
constexpr double kPairsShare = 0.5;   // (strictly more than half: a majority)
// ... and the first few of the others are named by line number.
constexpr size_t kReportedBadLines = 5;
// Below this many bits per byte a text is "very low entropy" (English prose has about 4.5; a
// text that is 95% one byte about 0.4).
constexpr double kLowEntropyBits = 0.5;

// `head`: the first n bytes of the file; `total_size`: the file's size (>= n; a multi-byte
// character cut by the end of `head` is then not counted as invalid); `name`: for the *.ckpt rule
// and the messages.
Sniffed sniff(const uint8_t* head, size_t n, uint64_t total_size, const std::string& name);

const char* file_kind_name(FileKind kind);

// The bytes as UTF-8, from the encoding sniff() named: "windows-1252" and "iso-8859-1" (one byte
// per character), "utf-16le" and "utf-16be" (a leading byte order mark is dropped; an unpaired
// surrogate becomes U+FFFD). "utf-8" or "" returns the bytes unchanged; another name throws.
// The CLI uses it for --encoding auto; the page decodes with the browser's TextDecoder.
std::vector<uint8_t> to_utf8(const std::vector<uint8_t>& bytes, const std::string& encoding);

}  // namespace tinygpt::io
