// data.cpp (cli) — opening --data, the statistics pass, `tinygpt data stats` and `data pack`.
#include "data.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "tinygpt/error.h"
#include "tinygpt/sniff.h"
#include "tinygpt/watch.h"
#include "tokenizer.h"

namespace tinygpt::cli {

namespace {

namespace fs = std::filesystem;

std::string with_commas(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); i++) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string gib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", double(bytes) / double(uint64_t(1) << 30));
  return b;
}

// The bytes of a file, read whole.
std::vector<uint8_t> read_all_bytes(const data::FileSource& f) {
  std::vector<uint8_t> bytes(size_t(f.size()));
  f.read_bytes(0, bytes.size(), bytes.data());
  return bytes;
}

Data in_memory_text(std::vector<uint8_t> bytes, std::string name) {
  auto text = std::make_shared<const data::MemorySource>(std::move(bytes), name);
  return Data{data::Corpus{text, nullptr}, std::move(name), text};
}

}  // namespace

std::string text_encoding(const io::Sniffed& s, const std::string& path, const std::string& encoding, bool pairs) {
  switch (s.kind) {
    case io::FileKind::empty:
    case io::FileKind::not_checkpoint:
      throw Error(s.message);
    case io::FileKind::checkpoint:
      throw Error("'" + path + "' is a tinygpt checkpoint, not training data: continue it with --resume " + path);
    case io::FileKind::binary:
      if (encoding != "bytes") throw Error(s.message + " (--encoding bytes trains on it as it is)");
      return "";
    case io::FileKind::latin1_text:
    case io::FileKind::utf16_text:
      if (encoding == "bytes") return "";
      std::printf("note: %s is %s text: converted to UTF-8 (--encoding bytes trains on the bytes as they are)\n", path.c_str(),
                  s.encoding.c_str());
      return s.encoding;
    case io::FileKind::tsv_pairs:
      if (!pairs)
        std::printf("note: %s holds source<TAB>target pairs%s: --model seq2seq trains a translator on them; training a language model on the text\n",
                    path.c_str(), s.bad_lines ? (", with " + std::to_string(s.bad_lines) + " bad lines").c_str() : "");
      return "";
    case io::FileKind::utf8_text:
      if (s.low_variety) std::printf("warning: %s\n", s.message.c_str());  // trained on all the same, as asked
      return "";
  }
  return "";
}

Data open_text(const std::string& path, const std::string& encoding, bool in_memory) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return open_shards(path);
  auto file = std::make_shared<const data::FileSource>(path);
  // what the file is: the page's rules (tinygpt/sniff.h) on its first 256 KiB, with the same messages
  std::vector<uint8_t> head(size_t(std::min<uint64_t>(file->size(), uint64_t(256) << 10)));
  file->read_bytes(0, head.size(), head.data());
  const auto convert = [&](const std::string& from) {
    if (file->size() > kConvertBytes)
      throw Error("'" + path + "' is " + from + " text of " + gib(file->size()) + ", too large to convert in memory: convert it " +
                  "first (iconv -f " + from + " -t utf-8 " + path + " > out.txt) or train on its bytes as they are with --encoding bytes");
    return in_memory_text(io::to_utf8(read_all_bytes(*file), from), path + " (" + from + " converted to UTF-8)");
  };
  if (encoding != "auto" && encoding != "bytes") {
    if (file->size() == 0) throw Error("'" + path + "' is empty");
    return convert(encoding);
  }
  const std::string from = text_encoding(io::sniff(head.data(), head.size(), file->size(), path), path, encoding, /*pairs=*/false);
  if (!from.empty()) return convert(from);
  if (in_memory) return in_memory_text(read_all_bytes(*file), path);
  // the statistics pass reads through a source of its own: its reads are not the batcher's
  return Data{data::Corpus{file, nullptr}, path, std::make_shared<const data::FileSource>(path)};
}

Data open_shards(const std::string& dir) {
  const data::ShardCorpus c = data::open_shard_dir(dir);
  if (!c.train)
    throw Error(coded("shard.none", {{"path", dir}}, dir + " holds validation shards only: a corpus needs *_train_*.bin shards to train on"));
  std::string name = dir + ": " + c.train->describe() + " for training";
  if (c.val) name += ", " + c.val->describe() + " for validation";
  return Data{data::Corpus{c.train, c.val}, name, nullptr};
}

// ---- the statistics pass ---------------------------------------------------------------------------

StatsPass::StatsPass(std::shared_ptr<const data::ByteSource> text) : text_(std::move(text)), total_(text_->size()) {
  thread_ = std::thread([this] {
    try {
      data::Scanner scanner;
      data::scan(*text_, scanner, [this](uint64_t done, uint64_t) {
        done_bytes_ = done;
        return !stop_.load();
      });
      stats_ = scanner.stats();
    } catch (const std::exception& e) {
      error_ = e.what();
    }
    done_ = true;
  });
}

StatsPass::~StatsPass() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string stats_summary(const data::TextStats& s) {
  const watch::Baselines b = watch::entropy_baselines(s);
  char entropy[96];
  std::snprintf(entropy, sizeof entropy, "; unigram %.3f bits/byte, bigram %.3f", b.unigram / watch::kLn2, b.bigram / watch::kLn2);
  std::string chars = with_commas(s.chars) + " characters";
  if (s.multibyte == 0) chars += " (all one byte)";
  else chars += " (" + with_commas(s.multibyte) + " of several bytes)";
  std::string out = with_commas(s.bytes) + " bytes, " + std::to_string(s.distinct()) + " distinct, " + chars + ", " +
                    with_commas(s.lines) + " lines";
  if (s.invalid) out += ", " + with_commas(s.invalid) + " invalid UTF-8";
  if (s.nul) out += ", " + with_commas(s.nul) + " NUL bytes";
  return out + entropy;
}

// ---- tinygpt data ----------------------------------------------------------------------------------

int data_stats(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const data::ShardCorpus c = data::open_shard_dir(path);
    for (const auto& part : {c.train, c.val}) {
      if (!part) continue;
      for (const data::ShardInfo& s : part->shards())
        std::printf("%s: version %d (%s tokens), %s tokens\n", s.path.c_str(), s.version, s.version == 1 ? "uint16" : "uint32",
                    with_commas(s.tokens).c_str());
    }
    std::printf("training: %s tokens; validation: %s tokens\n", with_commas(c.train ? c.train->size() : 0).c_str(),
                with_commas(c.val ? c.val->size() : 0).c_str());
    return 0;
  }
  const data::FileSource file(path);
  char fp[17];
  std::snprintf(fp, sizeof fp, "%016llx", (unsigned long long)file.fingerprint());
  std::printf("%s: fingerprint %s (%s)\n", path.c_str(), fp,
              file.size() > data::kFullFingerprintBytes ? "of a sample: the size and 64 blocks of 64 KiB" : "of every byte");
  const bool tty = isatty(fileno(stdout));
  const auto t0 = std::chrono::steady_clock::now();
  double shown = -1;
  data::Scanner scanner;
  data::scan(file, scanner, [&](uint64_t done, uint64_t total) {
    const double f = double(done) / double(std::max<uint64_t>(1, total));
    if (f - shown >= (tty ? 0.01 : 0.1) || done == total) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%sreading %5.1f%% (%.0f MB/s)%s", tty ? "\r" : "", 100.0 * f, s > 0 ? double(done) / 1e6 / s : 0.0, tty ? "" : "\n");
      std::fflush(stdout);
      shown = f;
    }
    return true;
  });
  if (tty) std::printf("\n");
  std::printf("%s\n", stats_summary(scanner.stats()).c_str());
  return 0;
}

int data_pack(const std::string& text, const std::string& out, const std::string& name, uint64_t per_shard, const std::string& tokenizer) {
  if (!tokenizer.empty()) {
    // the text encoded once into a token cache in the output folder, then split into shards as bytes are
    auto file = std::make_shared<const data::FileSource>(text);
    if (file->size() == 0) throw Error("'" + text + "' is empty");
    std::error_code ec;
    fs::create_directories(out, ec);
    const std::string cache = out + "/." + name + ".tokens";
    const auto tokens = bpe_tokens(tokenizer, file, cache);
    const std::vector<std::string> paths = data::write_shards(*tokens, out, name, per_shard);
    fs::remove(cache, ec);
    for (const std::string& p : paths) std::printf("wrote %s\n", p.c_str());
    std::printf("%s bytes as %s BPE tokens (%.3f bytes per token, a vocabulary of %d) in %zu shard(s) (version %d, %s): train with --data %s\n",
                with_commas(file->size()).c_str(), with_commas(tokens->size()).c_str(), double(file->size()) / double(std::max<uint64_t>(1, tokens->size())),
                tokens->vocab(), paths.size(), tokens->vocab() <= 65536 ? 1 : 2, tokens->vocab() <= 65536 ? "uint16" : "uint32", out.c_str());
    return 0;
  }
  const data::FileSource file(text);
  if (file.size() == 0) throw Error("'" + text + "' is empty");
  const std::vector<std::string> paths = data::write_shards(file, out, name, per_shard);
  for (const std::string& p : paths) std::printf("wrote %s\n", p.c_str());
  std::printf("%s bytes as %zu shard(s) of byte tokens (version 1, uint16): train with --data %s\n",
              with_commas(file.size()).c_str(), paths.size(), out.c_str());
  return 0;
}

}  // namespace tinygpt::cli
