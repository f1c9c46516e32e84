// fuzz_readers.cpp — libFuzzer on every reader of outside bytes: one binary, one reader per run,
// picked by the environment variable TINYGPT_FUZZ_READER (tests/fuzz/run.sh sets it). Every input
// must give either a result that keeps the reader's promises (below, per reader) or a
// tinygpt::Error; AddressSanitizer and UBSan catch the rest (out-of-bounds reads, overflows).
//
// Adding a reader's fuzzer is one line in kReaders: its name and a function of the bytes. CMake
// reads the names from this table (tests/fuzz/CMakeLists.txt) and registers a CTest entry for each,
// fuzz_<name>, run for about 20 s from the seeds in tests/fuzz/corpus/<name>/ (make that folder
// with a few small valid inputs).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"
#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/pairs.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/share.h"
#include "tinygpt/source.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/sniff.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {

// A broken promise: abort, so libFuzzer keeps the input as a crash.
#define PROMISE(cond)                                                               \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "fuzz_readers: promise broken: %s (line %d)\n", #cond, __LINE__); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

// A checkpoint: read (describe, then deserialize under a small memory limit) as it is, and again
// with its CRC-32 made right, so the fuzzer gets past the checksum to the config, the sections and
// the floats. What loads writes back to bytes that load to the same step and parameter count.
void checkpoint(const uint8_t* data, size_t size) {
  std::vector<uint8_t> fixed(data, data + size);
  if (size >= 4) {
    const uint32_t crc = ckpt::crc32(fixed.data(), size - 4);
    std::memcpy(fixed.data() + size - 4, &crc, 4);  // little-endian, as the file stores it
  }
  for (const uint8_t* p : {data, static_cast<const uint8_t*>(fixed.data())}) {
    try {
      const ckpt::Summary s = ckpt::describe(p, size);
      PROMISE(s.step >= 0 && s.num_parameters > 0);
    } catch (const Error&) {
    }
    try {
      const auto t = ckpt::deserialize(p, size, int64_t(64) << 20);
      const std::vector<uint8_t> again = ckpt::serialize(*t);
      const auto u = ckpt::deserialize(again.data(), again.size(), int64_t(64) << 20);
      PROMISE(u->steps_done() == t->steps_done());
    } catch (const Error&) {
    }
  }
}

// The strict safetensors reader: every view lies inside the input and the views tile the data
// section; what was read writes back to a file that reads the same.
void safetensors_file(const uint8_t* data, size_t size) {
  try {
    const safetensors::File file = safetensors::parse(data, size);
    uint64_t covered = 0;
    for (const safetensors::TensorView& t : file.tensors) {
      PROMISE(t.begin == covered && t.data >= data + 8 + file.header_bytes && t.data + t.nbytes <= data + size);
      covered = t.end;
    }
    PROMISE(8 + file.header_bytes + covered == size);
    std::vector<safetensors::TensorData> again;
    for (const auto& t : file.tensors) again.push_back({t.name, t.dtype, t.shape, t.data, t.nbytes});
    const auto bytes = safetensors::serialize(again, file.metadata);
    PROMISE(safetensors::parse(bytes.data(), bytes.size()).tensors.size() == file.tensors.size());
  } catch (const Error&) {
  }
}

// Source<TAB>target pairs at two block sizes: every line is a pair or counted under one reason,
// every pair fits the block, and the split covers the pairs.
void pairs(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> tsv(data, data + size);
  for (const int block : {4, 64}) {
    try {
      const data::PairDataset d(tsv, block);
      const data::TsvReport& r = d.report();
      PROMISE(r.pairs == int64_t(d.size()) && r.pairs >= 1);
      PROMISE(r.pairs + r.blank + r.no_tab + r.empty_side + r.too_long == r.lines);
      PROMISE(d.train_size() + d.val_size() == d.size() || d.val_overlaps_train());
      for (size_t i = 0; i < d.size(); i++) PROMISE(int(d.source(i).size()) <= block && int(d.target(i).size()) <= block - 1);
    } catch (const Error&) {
    }
  }
}

// "What is this file?": never throws; its counts stay within the bytes; a text it says can be
// converted converts to valid UTF-8.
void sniff(const uint8_t* data, size_t size) {
  for (const uint64_t total : {uint64_t(size), uint64_t(size) + 100}) {
    const io::Sniffed s = io::sniff(data, size, total, total == size ? "x.txt" : "x.ckpt");
    PROMISE(s.nul_bytes + s.control_bytes <= size && s.high_bytes <= size && s.invalid_utf8 <= size);
    PROMISE(s.tsv_lines <= s.lines && s.bad_lines == (s.kind == io::FileKind::tsv_pairs ? s.lines - s.tsv_lines : s.bad_lines));
    PROMISE(s.entropy_bits >= 0 && s.entropy_bits <= 8.0 + 1e-9 && s.distinct_bytes <= 256);
    PROMISE(!s.message.empty() && !s.code.empty());
    if (total == size && (s.kind == io::FileKind::latin1_text || s.kind == io::FileKind::utf16_text)) {
      const std::vector<uint8_t> utf8 = io::to_utf8(std::vector<uint8_t>(data, data + size), s.encoding);
      PROMISE(io::sniff(utf8.data(), utf8.size(), utf8.size(), "u.txt").invalid_utf8 == 0);
    }
  }
}

// A run link: what parses makes a link that parses to the same run.
void share_link(const uint8_t* data, size_t size) {
  try {
    const share::Link link = share::parse_link(std::string_view(reinterpret_cast<const char*>(data), size));
    const share::Link again = share::parse_link(share::make_link(link, "http://localhost/"));
    PROMISE(again.config == link.config && again.variant == link.variant && again.losses.size() == link.losses.size());
    PROMISE(again.corpus.builtin == link.corpus.builtin && again.corpus.fingerprint == link.corpus.fingerprint);
  } catch (const Error&) {
  }
}

// JSON (the config files, the safetensors header): a parsed value writes back and parses to itself.
void json_text(const uint8_t* data, size_t size) {
  try {
    const json::Value v = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
    PROMISE(json::parse(json::write(v)) == v);
  } catch (const Error&) {
  }
}

// An llm.c token shard (the page's dropped files, the CLI's --data DIR): what its header says holds
// for every token read; a header that does not fit the bytes is an Error before any read. (A version
// 2 token is a uint32 carried as int32: the Dataset refuses it above the vocabulary, compared unsigned.)
void shard(const uint8_t* data, size_t size) {
  try {
    auto file = std::make_shared<const data::MemorySource>(std::vector<uint8_t>(data, data + size), "x_train_000000.bin");
    const data::ShardCorpus c = data::shard_corpus({{"x_train_000000.bin", file}});
    PROMISE(c.train && !c.val);
    const data::ShardInfo& info = c.train->shards().at(0);
    PROMISE(info.file_bytes == size && c.train->size() == info.tokens);
    PROMISE(uint64_t(data::kShardHeaderInts) * 4 + info.tokens * uint64_t(c.train->token_bytes()) == size);
    std::vector<int32_t> tokens(size_t(std::min<uint64_t>(c.train->size(), 4096)));
    c.train->read(0, tokens.size(), tokens.data());
    if (c.train->token_bytes() == 2)
      for (const int32_t t : tokens) PROMISE(t >= 0 && t < 65536);
  } catch (const Error&) {
  }
}

// A tokenizer loaded from outside bytes: it encodes any text to ids it decodes back to that text,
// and writes a form that reads to the same vocabulary.
void tokenizer_promises(const tok::Tokenizer& t, const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 512));
  const std::vector<int32_t> ids = t.encode(text);
  PROMISE(ids.size() <= text.size() && t.decode(ids) == text);
  const std::vector<uint8_t> blob = t.serialize();
  PROMISE(tok::Tokenizer::deserialize(blob.data(), blob.size()).fingerprint() == t.fingerprint());
}

// The compact form (a checkpoint's tokenizer section, a token cache's header).
void tokenizer_blob(const uint8_t* data, size_t size) {
  try {
    tokenizer_promises(tok::Tokenizer::deserialize(data, size), data, size);
  } catch (const Error&) {
  }
}

// Hugging Face's tokenizer.json (dropped on the page, given to the CLI).
void tokenizer_json(const uint8_t* data, size_t size) {
  try {
    const tok::Tokenizer t = tok::Tokenizer::from_hf_json(std::string_view(reinterpret_cast<const char*>(data), size));
    tokenizer_promises(t, data, size);
    PROMISE(tok::Tokenizer::from_hf_json(t.to_hf_json()).fingerprint() == t.fingerprint());
  } catch (const Error&) {
  }
}

struct Reader {
  const char* name;
  size_t max_len;  // the longest input worth trying (libFuzzer's -max_len)
  void (*read)(const uint8_t*, size_t);
};

// One line per reader (see the top of this file).
constexpr Reader kReaders[] = {
    {"checkpoint", 1 << 17, checkpoint},
    {"safetensors", 4096, safetensors_file},
    {"pairs", 4096, pairs},
    {"sniff", 4096, sniff},
    {"share_link", 4096, share_link},
    {"json", 4096, json_text},
    {"shard", 1 << 16, shard},
    {"tokenizer", 1 << 14, tokenizer_blob},
    {"tokenizer_json", 1 << 14, tokenizer_json},
};

const Reader* g_reader = nullptr;

}  // namespace

// Picks the reader, and gives libFuzzer its -max_len unless the command line has one.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const char* want = std::getenv("TINYGPT_FUZZ_READER");
  for (const Reader& r : kReaders)
    if (want && std::string_view(want) == r.name) g_reader = &r;
  if (!g_reader) {
    std::fprintf(stderr, "fuzz_readers: set TINYGPT_FUZZ_READER to one of:");
    for (const Reader& r : kReaders) std::fprintf(stderr, " %s", r.name);
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  for (int i = 1; i < *argc; i++)
    if (std::strncmp((*argv)[i], "-max_len=", 9) == 0) return 0;
  static std::vector<char*> args;  // lives as long as libFuzzer reads it
  static std::string max_len;
  max_len = "-max_len=" + std::to_string(g_reader->max_len);
  args.assign(*argv, *argv + *argc);
  args.insert(args.begin() + 1, max_len.data());
  args.push_back(nullptr);
  *argc += 1;
  *argv = args.data();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_reader->read(data, size);
  return 0;
}
