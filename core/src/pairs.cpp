// pairs.cpp — TSV pairs: parsing with a report of every skipped line, the held-out split,
// padded batches, and the exact-match / character-error-rate metrics.
#include "tinygpt/pairs.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::data {

using tinygpt::Error;

namespace {

uint64_t fnv1a(const uint8_t* p, size_t n, uint64_t h = 14695981039346656037ull) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::string line_list(const std::vector<int64_t>& lines, int64_t count) {
  std::string s = count == 1 ? " (line " : " (lines ";
  for (size_t i = 0; i < lines.size(); i++) s += (i ? ", " : "") + std::to_string(lines[i]);
  if (count > int64_t(lines.size())) s += ", ...";
  return s + ")";
}

}  // namespace

std::string TsvReport::summary() const {
  std::string s = std::to_string(pairs) + (pairs == 1 ? " pair" : " pairs") + " from " + std::to_string(lines) +
                  (lines == 1 ? " line" : " lines");
  std::vector<std::string> skipped;
  if (no_tab) skipped.push_back(std::to_string(no_tab) + " without a tab" + line_list(no_tab_lines, no_tab));
  if (empty_side)
    skipped.push_back(std::to_string(empty_side) + " with an empty source or target" +
                      line_list(empty_side_lines, empty_side));
  if (too_long)
    skipped.push_back(std::to_string(too_long) + " longer than the model's " + std::to_string(block_size) +
                      "-byte source / " + std::to_string(block_size - 1) + "-byte target limit" +
                      line_list(too_long_lines, too_long));
  if (blank) skipped.push_back(std::to_string(blank) + (blank == 1 ? " blank line" : " blank lines"));
  if (!skipped.empty()) {
    s += "; skipped: ";
    for (size_t i = 0; i < skipped.size(); i++) s += (i ? ", " : "") + skipped[i];
  }
  if (extra_columns)
    s += "; " + std::to_string(extra_columns) + " with more than two columns (only the first two are used)" +
         line_list(extra_column_lines, extra_columns);
  return s;
}

// The summary's numbers for the page's wording (code pairs.report): counts, and the first line
// numbers of each kind as "3, 7, ..." ("" when there are none).
MessageArgs TsvReport::args() const {
  auto lines_of = [](const std::vector<int64_t>& l, int64_t count) {
    std::string s;
    for (size_t i = 0; i < l.size(); i++) s += (i ? ", " : "") + std::to_string(l[i]);
    return count > int64_t(l.size()) ? s + ", ..." : s;
  };
  return {{"pairs", std::to_string(pairs)},
          {"lines", std::to_string(lines)},
          {"blank", std::to_string(blank)},
          {"no_tab", std::to_string(no_tab)},
          {"no_tab_lines", lines_of(no_tab_lines, no_tab)},
          {"empty_side", std::to_string(empty_side)},
          {"empty_side_lines", lines_of(empty_side_lines, empty_side)},
          {"too_long", std::to_string(too_long)},
          {"too_long_lines", lines_of(too_long_lines, too_long)},
          {"source_limit", std::to_string(block_size)},
          {"target_limit", std::to_string(block_size - 1)},
          {"extra_columns", std::to_string(extra_columns)},
          {"extra_column_lines", lines_of(extra_column_lines, extra_columns)}};
}

std::vector<int32_t> text_tokens(const std::string& text, const tok::Tokenizer* tokenizer) {
  if (tokenizer) return tokenizer->encode(text);
  std::vector<int32_t> ids(text.size());
  for (size_t i = 0; i < text.size(); i++) ids[i] = uint8_t(text[i]);
  return ids;
}

PairDataset::PairDataset(const std::vector<uint8_t>& tsv, int block_size, uint64_t seed, double val_fraction,
                         const tok::Tokenizer* tokenizer)
    : rng_(seed) {
  if (tokenizer) tokens_ = PairTokens{tokenizer->vocab_size()};
  if (block_size < 2) throw Error(coded("config.seq2seq_block_min", {}, "the maximum length (block_size) must be at least 2 to hold a target and its end"));
  if (!(val_fraction >= 0.0 && val_fraction < 1.0)) throw Error("validation fraction must be in [0, 1)");
  TsvReport& r = report_;
  r.block_size = block_size;
  fingerprint_ = fnv1a(tsv.data(), tsv.size());

  auto note = [](std::vector<int64_t>& lines, int64_t& count, int64_t line) {
    if (count++ < kReportedLines) lines.push_back(line);
  };
  size_t pos = 0;
  if (tsv.size() >= 3 && tsv[0] == 0xEF && tsv[1] == 0xBB && tsv[2] == 0xBF) pos = 3;  // UTF-8 byte-order mark
  while (pos < tsv.size()) {
    size_t end = pos;
    while (end < tsv.size() && tsv[end] != '\n') end++;
    const size_t next = end + 1;
    if (end > pos && tsv[end - 1] == '\r') end--;  // CRLF
    const int64_t line = ++r.lines;
    const char* text = reinterpret_cast<const char*>(tsv.data());
    if (end == pos) {
      r.blank++;
    } else {
      size_t tab = pos;
      while (tab < end && tsv[tab] != '\t') tab++;
      if (tab == end) {
        note(r.no_tab_lines, r.no_tab, line);
      } else {
        size_t tgt_end = tab + 1;
        while (tgt_end < end && tsv[tgt_end] != '\t') tgt_end++;
        const std::string src(text + pos, tab - pos), tgt(text + tab + 1, tgt_end - (tab + 1));
        // lengths in tokens: bytes, or the tokenizer's tokens
        std::vector<int32_t> src_ids = text_tokens(src, tokenizer), tgt_ids = text_tokens(tgt, tokenizer);
        const size_t src_len = src_ids.size(), tgt_len = tgt_ids.size();
        if (src_len == 0 || tgt_len == 0) {
          note(r.empty_side_lines, r.empty_side, line);
        } else if (src_len > size_t(block_size) || tgt_len > size_t(block_size - 1)) {
          note(r.too_long_lines, r.too_long, line);
        } else {
          if (tgt_end < end) note(r.extra_column_lines, r.extra_columns, line);
          src_.push_back(src);
          tgt_.push_back(tgt);
          src_ids_.push_back(std::move(src_ids));
          tgt_ids_.push_back(std::move(tgt_ids));
          max_src_ = std::max(max_src_, int(src_len));
          max_tgt_ = std::max(max_tgt_, int(tgt_len));
        }
      }
    }
    pos = next;
  }
  r.pairs = int64_t(src_.size());
  if (src_.empty()) {
    if (r.lines == 0 || r.lines == r.blank) throw Error(coded("pairs.empty", {}, "the pair file is empty: give lines of source<TAB>target"));
    throw Error(coded("pairs.none_usable", r.args(),
                      "no usable source<TAB>target pair: " + r.summary() +
                          ". Each line must be the source text, one tab, then the target text."));
  }

  // Held-out split: order the pairs by a hash of their bytes and hold out the first ones.
  const size_t n = src_.size();
  const size_t n_val = n >= 2 ? std::max<size_t>(1, size_t(std::llround(double(n) * val_fraction))) : 0;
  std::vector<std::pair<uint64_t, size_t>> order(n);
  for (size_t i = 0; i < n; i++) {
    uint64_t h = fnv1a(reinterpret_cast<const uint8_t*>(src_[i].data()), src_[i].size());
    h = fnv1a(reinterpret_cast<const uint8_t*>("\t"), 1, h);
    h = fnv1a(reinterpret_cast<const uint8_t*>(tgt_[i].data()), tgt_[i].size(), h);
    order[i] = {h, i};
  }
  std::sort(order.begin(), order.end());
  std::vector<bool> held_out(n, false);
  for (size_t k = 0; k < n_val; k++) held_out[order[k].second] = true;
  for (size_t i = 0; i < n; i++) (held_out[i] ? val_ : train_).push_back(i);
  if (val_.empty() || train_.empty()) {  // one pair (or val_fraction 0): validate on the training pairs
    val_is_train_ = true;
    train_.resize(n);
    std::iota(train_.begin(), train_.end(), size_t(0));
    val_ = train_;
  }
}

PairDataset PairDataset::from_file(const std::string& path, int block_size, uint64_t seed) {
  std::vector<uint8_t> bytes = io::read_file(path);
  try {
    return PairDataset(bytes, block_size, seed);
  } catch (const Error& e) {
    throw Error("'" + path + "': " + e.what());
  }
}

namespace {
// Fills batch (B, S) / (B, T) with the pairs pick(0) .. pick(B-1), each (source, target) token
// sequences (a string's bytes, or token ids). assign() keeps the buffers' capacity, so a
// steady-state loop allocates nothing.
template <class Pick>
void fill_batch(PairBatch& batch, int B, int S, int T, PairTokens tokens, Pick pick) {
  batch.B = B, batch.S = S, batch.T = T;
  batch.src.assign(size_t(B) * S, tokens.pad());
  batch.tgt_in.assign(size_t(B) * T, tokens.pad());
  batch.tgt_out.assign(size_t(B) * T, kIgnore);
  auto id = [](auto v) { return int32_t(std::is_same_v<decltype(v), char> ? int32_t(uint8_t(v)) : int32_t(v)); };
  for (int b = 0; b < B; b++) {
    const auto [s, t] = pick(b);  // const std::string* or const std::vector<int32_t>* each
    if (s->size() > size_t(S) || t->size() + 1 > size_t(T))
      throw Error("a pair does not fit in a batch of S = " + std::to_string(S) + ", T = " + std::to_string(T));
    int32_t* src = &batch.src[size_t(b) * S];
    int32_t* in = &batch.tgt_in[size_t(b) * T];
    int32_t* out = &batch.tgt_out[size_t(b) * T];
    for (size_t i = 0; i < s->size(); i++) src[i] = id((*s)[i]);
    in[0] = tokens.bos();
    for (size_t i = 0; i < t->size(); i++) {
      in[i + 1] = id((*t)[i]);
      out[i] = id((*t)[i]);
    }
    out[t->size()] = tokens.eos();
  }
}
}  // namespace

void make_pair_batch(PairBatch& batch, const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                     int S, int T) {
  if (targets.size() != sources.size()) throw Error("make_pair_batch: as many targets as sources are needed");
  fill_batch(batch, int(sources.size()), S, T, PairTokens{},
             [&](int b) { return std::pair{&sources[size_t(b)], &targets[size_t(b)]}; });
}

void make_pair_batch(PairBatch& batch, const std::vector<std::vector<int32_t>>& sources,
                     const std::vector<std::vector<int32_t>>& targets, int S, int T, PairTokens tokens) {
  if (targets.size() != sources.size()) throw Error("make_pair_batch: as many targets as sources are needed");
  fill_batch(batch, int(sources.size()), S, T, tokens,
             [&](int b) { return std::pair{&sources[size_t(b)], &targets[size_t(b)]}; });
}

void PairDataset::sample_batch(int B, PairBatch& batch) {
  if (B < 1 || B > 65536) throw Error("batch size must be between 1 and 65536");
  fill_batch(batch, B, max_src_, max_tgt_ + 1, tokens_, [&](int) {
    const size_t i = train_[size_t(rng_.below(train_.size()))];
    return std::pair{&src_ids_[i], &tgt_ids_[i]};
  });
}

void PairDataset::val_batch(int k, int B, PairBatch& batch) const {
  if (B < 1 || B > 65536) throw Error("batch size must be between 1 and 65536");
  if (k < 0) throw Error("validation batch index must be >= 0");
  fill_batch(batch, B, max_src_, max_tgt_ + 1, tokens_, [&](int b) {
    const size_t i = val_[(size_t(k) * B + size_t(b)) % val_.size()];
    return std::pair{&src_ids_[i], &tgt_ids_[i]};
  });
}

int PairDataset::val_batches(int B) const { return int((val_.size() + size_t(B) - 1) / size_t(B)); }

// ---- metrics -------------------------------------------------------------------------------

std::vector<uint32_t> utf8_characters(const std::string& bytes) {
  std::vector<uint32_t> out;
  out.reserve(bytes.size());
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = p[i];
    int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + size_t(len) <= n;
    for (int k = 1; ok && k < len; k++) ok = (p[i + size_t(k)] & 0xC0) == 0x80;
    if (!ok) {
      out.push_back(0x80000000u | b);  // a stray byte: one character, distinct from every code point
      i++;
      continue;
    }
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < len; k++) cp = (cp << 6) | (p[i + size_t(k)] & 0x3F);
    out.push_back(cp);
    i += size_t(len);
  }
  return out;
}

int64_t edit_distance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  // one row of the dynamic programme: row[j] = distance(a[0..i), b[0..j))
  std::vector<int64_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), int64_t(0));
  for (size_t i = 1; i <= a.size(); i++) {
    int64_t diag = row[0];  // distance(a[0..i-1), b[0..j-1))
    row[0] = int64_t(i);
    for (size_t j = 1; j <= b.size(); j++) {
      const int64_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

void TranslationScore::add(const std::string& hypothesis, const std::string& reference) {
  pairs++;
  exact += hypothesis == reference;
  const std::vector<uint32_t> ref = utf8_characters(reference);
  edits += edit_distance(utf8_characters(hypothesis), ref);
  ref_chars += int64_t(ref.size());
}

}  // namespace tinygpt::data
