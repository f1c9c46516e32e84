// data.h (cli) — what `train --data` opens, its statistics pass, and `tinygpt data`.
//
// A text is read where it lies (data::FileSource, pread): the process holds the windows it samples,
// never the file, so a 20 GB text trains in the memory of the model. Its statistics come from one
// streaming pass on a thread of its own while training starts (StatsPass). A folder is a corpus of
// llm.c token shards. A text that must change to be read (Latin-1 or UTF-16 converted to UTF-8)
// and a translator's pairs are read into memory.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "tinygpt/data.h"
#include "tinygpt/sniff.h"
#include "tinygpt/source.h"

namespace tinygpt::cli {

// The largest text converted to UTF-8 in memory; a larger one is refused with the command that converts it.
constexpr uint64_t kConvertBytes = uint64_t(1) << 30;

struct Data {
  data::Corpus corpus;
  std::string name;                              // for the log and the share link
  std::shared_ptr<const data::ByteSource> text;  // a text read where it lies (its statistics pass), or null
};

// What a sniffed file is to train on (the page's rules, tinygpt/sniff.h, with the same messages):
// throws for what cannot be trained on (empty, a checkpoint, binary unless encoding is "bytes");
// returns the encoding to convert from (Latin-1 / UTF-16 text, unless encoding is "bytes"), else "".
// Prints a note on a conversion, and on pairs given to a language model (pairs: false).
std::string text_encoding(const io::Sniffed& s, const std::string& path, const std::string& encoding, bool pairs);

// --data PATH for a language model: a folder of shards, or a file sniffed as the page does
// (tinygpt/sniff.h): text is read where it lies; Latin-1 / UTF-16 text is converted unless
// encoding is "bytes"; binary is refused unless encoding is "bytes". Prints a note on what it did.
// in_memory: read it whole instead (as tinygpt did before; a little faster where the disk is slow).
Data open_text(const std::string& path, const std::string& encoding, bool in_memory = false);
// A folder of llm.c shards (*_train_*.bin, *_val_*.bin).
Data open_shards(const std::string& dir);

// The statistics of a text in one streaming pass, on its own thread: started at once, stopped
// (and joined) when destroyed.
class StatsPass {
 public:
  explicit StatsPass(std::shared_ptr<const data::ByteSource> text);
  ~StatsPass();
  StatsPass(const StatsPass&) = delete;
  StatsPass& operator=(const StatsPass&) = delete;
  double fraction() const { return done_bytes_.load() / double(std::max<uint64_t>(1, total_)); }
  bool done() const { return done_.load(); }
  // After done(): the statistics, or the error that stopped the pass ("" if none).
  const data::TextStats& stats() const { return stats_; }
  const std::string& error() const { return error_; }

 private:
  std::shared_ptr<const data::ByteSource> text_;
  uint64_t total_ = 0;
  std::atomic<uint64_t> done_bytes_{0};
  std::atomic<bool> done_{false}, stop_{false};
  data::TextStats stats_;
  std::string error_;
  std::thread thread_;
};

// "1,115,394 bytes, 65 distinct, 1,115,394 characters (all one byte), 40,000 lines; unigram 3.27
// bits/byte, bigram 2.50" — what a text is made of, for a person.
std::string stats_summary(const data::TextStats& s);

// `tinygpt data stats PATH`: the statistics of a text (a progress line while it reads), or the
// shards of a folder.
int data_stats(const std::string& path);
// `tinygpt data pack TEXT --out DIR [--tokenizer FILE]`: the text's tokens (bytes, or its BPE tokens
// under the tokenizer: version 1 shards while the vocabulary fits uint16) as llm.c shards.
int data_pack(const std::string& text, const std::string& out, const std::string& name, uint64_t per_shard,
              const std::string& tokenizer = "");

}  // namespace tinygpt::cli
