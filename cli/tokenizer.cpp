// tokenizer.cpp (cli) — `tinygpt tokenizer train | encode`, and the BPE tokens of `data pack --tokenizer`.
#include "tokenizer.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <iterator>

#include "tinygpt/error.h"
#include "tinygpt/io.h"

namespace tinygpt::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// One progress line, rewritten in place on a terminal (every percent), or a line per 10% elsewhere.
class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(fileno(stdout))) {}
  void show(const std::string& what, double fraction, const std::string& rate) {
    if (fraction - shown_ < (tty_ ? 0.01 : 0.1) && fraction < 1.0) return;
    if (fraction >= 1.0 && shown_ >= 1.0) return;
    std::printf("%s%s %5.1f%%%s%s", tty_ ? "\r" : "", what.c_str(), 100.0 * fraction, rate.c_str(), tty_ ? "" : "\n");
    std::fflush(stdout);
    shown_ = fraction;
  }
  void restart() { shown_ = -1; }
  void end() {
    if (tty_) std::printf("\n");
  }

 private:
  bool tty_;
  double shown_ = -1;
};

// The progress of training: the reading (MB/s, distinct pieces), then the merges.
class TrainingProgress {
 public:
  bool operator()(const tok::TrainProgress& p) {
    if (int(p.phase) != phase_) {
      if (phase_ >= 0) line_.end();
      phase_ = int(p.phase);
      line_.restart();
    }
    const double f = p.total ? double(p.done) / double(p.total) : 1.0;
    char rate[96];
    if (p.phase == tok::TrainProgress::counting)
      std::snprintf(rate, sizeof rate, " (%.1f MB/s, %llu distinct pieces)", double(p.done) / 1e6 / std::max(1e-9, seconds_since(t0_)),
                    (unsigned long long)p.pieces);
    else
      std::snprintf(rate, sizeof rate, " (%llu of %llu merges)", (unsigned long long)p.done, (unsigned long long)p.total);
    line_.show(p.phase == tok::TrainProgress::counting ? "reading the text" : "merging", f, rate);
    return true;
  }
  void end() { line_.end(); }
  double seconds() const { return seconds_since(t0_); }

 private:
  ProgressLine line_;
  int phase_ = -1;
  Clock::time_point t0_ = Clock::now();
};

}  // namespace

std::shared_ptr<const tok::Tokenizer> tokenizer_for_run(const std::shared_ptr<const data::ByteSource>& text, int vocab) {
  TrainingProgress progress;
  std::optional<tok::Tokenizer> t = tok::train_on_training_split(text, vocab, std::ref(progress));
  progress.end();
  const tok::Stats& st = t->training_stats();
  std::printf("tokenizer: %d merges learned from the training split in %.2f s: %.3f bytes per token (%.3f tokens per byte)\n",
              t->merge_count(), progress.seconds(), st.bytes_per_token(), st.tokens_per_byte());
  return std::make_shared<const tok::Tokenizer>(std::move(*t));
}

std::shared_ptr<const tok::Tokenizer> tokenizer_for_pairs(const std::shared_ptr<const data::ByteSource>& tsv, int vocab) {
  TrainingProgress progress;
  std::optional<tok::Tokenizer> t = tok::train_bpe(*tsv, vocab, std::ref(progress));
  progress.end();
  std::printf("tokenizer: %d merges learned from the pairs (sources and targets share them) in %.2f s\n", t->merge_count(),
              progress.seconds());
  return std::make_shared<const tok::Tokenizer>(std::move(*t));
}

int tokenizer_train(const std::string& text_path, int vocab, const std::string& out) {
  const data::FileSource text(text_path);
  TrainingProgress progress;
  const std::optional<tok::Tokenizer> t = tok::train_bpe(text, vocab, std::ref(progress));
  progress.end();
  const double s = progress.seconds();
  const tok::Stats& st = t->training_stats();
  if (ends_with(out, ".json")) {
    const std::string json = t->to_hf_json();
    io::write_file(out, std::vector<uint8_t>(json.begin(), json.end()));
  } else {
    io::write_file(out, t->serialize());
  }
  std::printf("learned %d merges from %s in %.2f s (%.1f MB/s): %.3f bytes per token (%.3f tokens per byte) on this text\n",
              t->merge_count(), text_path.c_str(), s, double(text.size()) / 1e6 / std::max(1e-9, s), st.bytes_per_token(),
              st.tokens_per_byte());
  std::printf("wrote %s (%s, %d text tokens + %zu special)\n", out.c_str(), ends_with(out, ".json") ? "tokenizer.json" : "tinygpt tokenizer",
              t->vocab_size(), t->specials().size());
  return 0;
}

int tokenizer_encode(const std::string& tokenizer_path, const std::string& text_path, const std::string* literal) {
  const tok::Tokenizer t = tok::Tokenizer::load(tokenizer_path);
  std::string text;
  if (literal) text = *literal;
  else if (text_path == "-") text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  else {
    const std::vector<uint8_t> b = io::read_file(text_path);
    text.assign(b.begin(), b.end());
  }
  const std::vector<int32_t> ids = t.encode(text);
  std::string out;
  out.reserve(ids.size() * 6);
  for (size_t i = 0; i < ids.size(); i++) {
    if (i) out += ' ';
    out += std::to_string(ids[i]);
  }
  std::printf("%s\n", out.c_str());
  const tok::Stats st{text.size(), ids.size()};
  std::fprintf(stderr, "%zu bytes, %zu tokens: %.4f tokens per byte (%.3f bytes per token)\n", text.size(), ids.size(), st.tokens_per_byte(),
               st.bytes_per_token());
  return 0;
}

std::shared_ptr<const data::Source> bpe_tokens(const std::string& tokenizer_path, std::shared_ptr<const data::ByteSource> text,
                                               const std::string& cache_path) {
  auto t = std::make_shared<const tok::Tokenizer>(tok::Tokenizer::load(tokenizer_path));
  ProgressLine line;
  const auto t0 = Clock::now();
  const auto src = tok::TokenSource::cached(t, text, cache_path, [&](uint64_t done, uint64_t total) {
    if (done == 0) return true;
    char rate[48];
    std::snprintf(rate, sizeof rate, " (%.1f MB/s)", double(done) / 1e6 / std::max(1e-9, seconds_since(t0)));
    line.show("encoding", total ? double(done) / double(total) : 1.0, rate);
    return true;
  });
  line.end();
  return src;
}

}  // namespace tinygpt::cli
