// test_source.cpp — corpora as sources: a file read where it lies gives the batches of the same
// bytes in memory, fingerprints (whole and sampled), llm.c shards against hand-made files, the
// shard reader under mutation, files that change under a run, the statistics pass.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/run.h"
#include "tinygpt/source.h"
#include "tinygpt/trainer.h"
#include "tinygpt/watch.h"
#include "test_util.h"

using namespace tinygpt;
namespace fs = std::filesystem;

namespace {

// A fresh directory, removed at the end of the test.
struct TempDir : testutil::TempDir {
  TempDir() : testutil::TempDir("tinygpt-source") {}
};

std::vector<uint8_t> text_bytes(size_t n, uint32_t seed = 1) {
  std::vector<uint8_t> b(n);
  uint32_t x = seed;
  for (size_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    b[i] = uint8_t('a' + (x >> 24) % 26);
    if ((x >> 8) % 13 == 0) b[i] = '\n';
  }
  return b;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) { io::write_file(path, b); }

void le32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * i)));
}

// An llm.c shard made by hand: 256 int32 (magic, version, count, zeros), then the tokens.
std::vector<uint8_t> hand_shard(const std::vector<uint32_t>& tokens, int version, int32_t count = -1) {
  std::vector<uint8_t> b;
  le32(b, 20240520);
  le32(b, uint32_t(version));
  le32(b, uint32_t(count < 0 ? int32_t(tokens.size()) : count));
  b.resize(1024, 0);
  for (uint32_t t : tokens) {
    b.push_back(uint8_t(t));
    b.push_back(uint8_t(t >> 8));
    if (version == 2) b.push_back(uint8_t(t >> 16)), b.push_back(uint8_t(t >> 24));
  }
  return b;
}

// Sets a file's times and says whether its modification time reads back as asked. Emscripten 3.1.6's
// utimensat under NODERAWFS hands Node milliseconds where Node takes seconds (the file lands in the
// far future): then it is asked again with the seconds spelled so that its milliseconds are them.
bool set_times(const std::string& path, struct timespec atime, struct timespec mtime) {
  auto reads_back = [&] {
    struct stat now {};
    return ::stat(path.c_str(), &now) == 0 && now.st_mtim.tv_sec == mtime.tv_sec && now.st_mtim.tv_nsec == mtime.tv_nsec;
  };
  const struct timespec asked[2] = {atime, mtime};
  if (::utimensat(AT_FDCWD, path.c_str(), asked, 0) != 0) return false;
  if (reads_back()) return true;
  auto as_ms = [](struct timespec t) { return timespec{t.tv_sec / 1000, long(t.tv_sec % 1000) * 1000000}; };
  const struct timespec spelled[2] = {as_ms(atime), as_ms(mtime)};
  return ::utimensat(AT_FDCWD, path.c_str(), spelled, 0) == 0 && reads_back();
}

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a file read where it lies gives the batches of the same bytes in memory, bit for bit", "[data][source]") {
  TempDir dir;
  const std::vector<uint8_t> bytes = text_bytes(50'000);
  write_bytes(dir.file("t.txt"), bytes);
  data::Dataset memory(bytes, 7);
  data::Dataset file(data::Corpus{std::make_shared<const data::FileSource>(dir.file("t.txt")), nullptr}, 7);
  CHECK(file.size() == memory.size());
  CHECK(file.train_size() == memory.train_size());
  CHECK(file.fingerprint() == memory.fingerprint());
  CHECK(file.fingerprint() == data::fingerprint(bytes.data(), bytes.size()));  // whole-file FNV-1a below 64 MiB
  data::Batch a, b;
  for (int i = 0; i < 20; i++) {
    memory.sample_batch(8, 64, a);
    file.sample_batch(8, 64, b);
    REQUIRE(a.x == b.x);
    REQUIRE(a.y == b.y);
  }
  CHECK(memory.rng_state() == file.rng_state());
  for (int k = 0; k < 3; k++) {
    memory.val_batch(k, 4, 64, a);
    file.val_batch(k, 4, 64, b);
    CHECK(a.x == b.x);
    CHECK(a.y == b.y);
  }
  // the windows themselves: x = bytes[s .. s+T), y = bytes[s+1 .. s+T]
  file.sample_batch(1, 32, b);
  const auto at = std::search(bytes.begin(), bytes.end(), b.x.begin(), b.x.end());
  REQUIRE(at != bytes.end());
  CHECK(std::equal(b.y.begin(), b.y.end(), at + 1));
}

TEST_CASE("a trainer on a file trains exactly as on the same bytes in memory", "[data][source][train]") {
  TempDir dir;
  const std::vector<uint8_t> bytes = text_bytes(20'000, 3);
  write_bytes(dir.file("t.txt"), bytes);
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.batch_size = 4, c.max_iters = 6, c.warmup_iters = 1;
  train::Trainer a(c), b(c);
  a.set_corpus(bytes);
  b.set_corpus(data::Corpus{std::make_shared<const data::FileSource>(dir.file("t.txt")), nullptr});
  for (int i = 0; i < 6; i++) CHECK(a.step() == b.step());
  CHECK(a.evaluate().loss == b.evaluate().loss);
  CHECK(a.corpus_fingerprint() == b.corpus_fingerprint());
  const watch::Baselines ba = a.baselines(), bb = b.baselines();
  CHECK(ba.unigram == bb.unigram);
  CHECK(ba.bigram == bb.bigram);
}

TEST_CASE("a large source is fingerprinted by its size and 64 blocks of 64 KiB", "[data][source]") {
  const uint64_t size = (uint64_t(64) << 20) + 12345;  // just over the whole-file limit
  const auto byte_at = [](uint64_t i) { return uint8_t((i * 2654435761u) >> 13); };
  size_t reads = 0;
  const data::CallbackSource s(size, [&](uint64_t at, size_t n, uint8_t* out) {
    reads += n;
    for (size_t i = 0; i < n; i++) out[i] = byte_at(at + i);
  }, "generated");
  // the documented sample, computed here from its definition
  std::vector<uint8_t> sample;
  for (int i = 0; i < 8; i++) sample.push_back(uint8_t(size >> (8 * i)));
  const uint64_t block = uint64_t(64) << 10;
  for (int i = 0; i < 64; i++) {
    const uint64_t at = (size - block) * uint64_t(i) / 63;
    for (uint64_t j = 0; j < block; j++) sample.push_back(byte_at(at + j));
  }
  CHECK(s.fingerprint() == data::fingerprint(sample.data(), sample.size()));
  CHECK(reads == 64 * block);  // no more than the sample was read
  // the first and the last block are in it: a change at either end changes the name
  const data::CallbackSource changed(size, [&](uint64_t at, size_t n, uint8_t* out) {
    for (size_t i = 0; i < n; i++) out[i] = at + i == size - 1 ? uint8_t(byte_at(size - 1) ^ 1) : byte_at(at + i);
  }, "changed");
  CHECK(changed.fingerprint() != s.fingerprint());
  // up to the limit, every byte counts: a memory source and a reader agree with data::fingerprint
  const std::vector<uint8_t> small = text_bytes(1000);
  const data::CallbackSource reader(small.size(), [&](uint64_t at, size_t n, uint8_t* out) { std::copy_n(small.begin() + int64_t(at), n, out); }, "s");
  CHECK(reader.fingerprint() == data::fingerprint(small.data(), small.size()));
  CHECK(data::MemorySource(small).fingerprint() == reader.fingerprint());
}

TEST_CASE("a corpus far larger than what is read trains from the windows it samples", "[data][source]") {
  // 16 GiB of generated text: only the sampled windows (and the fingerprint's sample) are ever read
  const uint64_t size = uint64_t(16) << 30;
  uint64_t read = 0;
  auto text = std::make_shared<const data::CallbackSource>(size, [&](uint64_t at, size_t n, uint8_t* out) {
    read += n;
    for (size_t i = 0; i < n; i++) out[i] = uint8_t('a' + (at + i) % 23);
  }, "16 GiB");
  const uint64_t after_fingerprint = read;
  data::Dataset d(data::Corpus{text, nullptr}, 1);
  CHECK(d.train_size() == size - size / 10);
  data::Batch b;
  d.sample_batch(16, 64, b);
  CHECK(read - after_fingerprint == 16 * 65);  // B windows of T + 1 bytes
  for (int i = 0; i < 16 * 64; i++) CHECK(b.y[size_t(i)] == (b.x[size_t(i)] - 'a' + 1) % 23 + 'a');
}

TEST_CASE("llm.c shards: the reader reads hand-made files, the writer writes them byte for byte", "[data][shards]") {
  TempDir dir;
  const std::vector<uint32_t> t1 = {1, 2, 300, 65535, 0}, t2 = {7, 8, 9};
  write_bytes(dir.file("x_train_000000.bin"), hand_shard(t1, 1));
  write_bytes(dir.file("x_train_000001.bin"), hand_shard(t2, 1));
  write_bytes(dir.file("x_val_000000.bin"), hand_shard({42, 43}, 1));
  write_bytes(dir.file("notes.txt"), {'h', 'i'});  // not a shard: left alone
  const data::ShardInfo h = data::read_shard_header(dir.file("x_train_000000.bin"));
  CHECK(h.version == 1);
  CHECK(h.tokens == 5);
  CHECK(h.file_bytes == 1024 + 10);
  const data::ShardCorpus c = data::open_shard_dir(dir.path.string());
  REQUIRE(c.train);
  REQUIRE(c.val);
  CHECK(c.train->size() == 8);
  CHECK(c.val->size() == 2);
  std::vector<int32_t> got(8);
  c.train->read(0, 8, got.data());  // across the two training shards, in name order
  CHECK(got == std::vector<int32_t>{1, 2, 300, 65535, 0, 7, 8, 9});
  c.train->read(4, 2, got.data());
  CHECK(got[0] == 0);
  CHECK(got[1] == 7);
  // version 2: uint32 tokens
  write_bytes(dir.file("big.bin"), hand_shard({100000, 5}, 2));
  const data::ShardInfo h2 = data::read_shard_header(dir.file("big.bin"));
  CHECK(h2.version == 2);
  data::ShardSource big({h2});
  big.read(0, 2, got.data());
  CHECK(got[0] == 100000);
  CHECK(got[1] == 5);
  // a uint32 token past 2^31 is no vocabulary's: refused as itself, never read as a negative id
  write_bytes(dir.file("huge.bin"), hand_shard({5, 0xFF000000u}, 2));
  data::ShardSource huge({data::read_shard_header(dir.file("huge.bin"))});
  CHECK(code_of([&] { huge.read(0, 2, got.data()); }) == "corpus.vocab");
  CHECK_THROWS_WITH(huge.read(1, 1, got.data()), Catch::Contains("token 4278190080"));

  // the writer: a text's bytes as shards of at most 4 tokens, the last 10% for validation
  const std::vector<uint8_t> text = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't'};
  const data::MemorySource src(text);
  TempDir out;
  const std::vector<std::string> paths = data::write_shards(src, out.path.string(), "t", 4);
  REQUIRE(paths.size() == 6);  // 18 training tokens in 5 shards, 2 validation tokens in 1
  CHECK(io::read_file(out.file("t_train_000000.bin")) == hand_shard({'a', 'b', 'c', 'd'}, 1));
  CHECK(io::read_file(out.file("t_train_000004.bin")) == hand_shard({'q', 'r'}, 1));
  CHECK(io::read_file(out.file("t_val_000000.bin")) == hand_shard({'s', 't'}, 1));
  // and what it wrote reads back as the same corpus: the split falls where the text's does
  const data::ShardCorpus back = data::open_shard_dir(out.path.string());
  data::Dataset from_shards(data::Corpus{back.train, back.val}, 3), from_text(text, 3);
  CHECK(from_shards.train_size() == from_text.train_size());
  CHECK(from_shards.val_begin() == from_text.val_begin());
  data::Batch a, b;
  from_shards.sample_batch(4, 2, a);
  from_text.sample_batch(4, 2, b);
  CHECK(a.x == b.x);
  from_shards.val_batch(0, 2, 1, a);
  from_text.val_batch(0, 2, 1, b);
  CHECK(a.x == b.x);
}

TEST_CASE("a bad shard is refused with what is wrong with it", "[data][shards][errors]") {
  TempDir dir;
  std::vector<uint8_t> bad = hand_shard({1, 2, 3}, 1);
  bad[0] ^= 1;
  write_bytes(dir.file("magic.bin"), bad);
  CHECK(code_of([&] { data::read_shard_header(dir.file("magic.bin")); }) == "shard.bad_magic");
  write_bytes(dir.file("version.bin"), hand_shard({1, 2, 3}, 3));
  CHECK_THROWS_WITH(data::read_shard_header(dir.file("version.bin")), Catch::Contains("version 3"));
  write_bytes(dir.file("count.bin"), hand_shard({1, 2, 3}, 1, 4));
  CHECK_THROWS_WITH(data::read_shard_header(dir.file("count.bin")), Catch::Contains("header says 4 tokens, but the file holds 3"));
  write_bytes(dir.file("short.bin"), std::vector<uint8_t>(100, 0));
  CHECK(code_of([&] { data::read_shard_header(dir.file("short.bin")); }) == "shard.bad_magic");
  // one corpus of two tokenizers
  TempDir mixed;
  write_bytes(mixed.file("a_train_000000.bin"), hand_shard({1, 2}, 1));
  write_bytes(mixed.file("a_train_000001.bin"), hand_shard({1, 2}, 2));
  CHECK(code_of([&] { data::open_shard_dir(mixed.path.string()); }) == "shard.mixed");
  TempDir none;
  CHECK(code_of([&] { data::open_shard_dir(none.path.string()); }) == "shard.none");
  // tokens outside the model's vocabulary: refused when the corpus is set, with the token
  TempDir gpt2;
  write_bytes(gpt2.file("g_train_000000.bin"), hand_shard(std::vector<uint32_t>(100, 50256), 1));
  const data::ShardCorpus g = data::open_shard_dir(gpt2.path.string());
  Config c;
  c.n_layer = 1, c.n_head = 1, c.n_embd = 8, c.block_size = 8, c.batch_size = 2;
  train::Trainer t(c);
  CHECK_THROWS_WITH(t.set_corpus(data::Corpus{g.train, nullptr}), Catch::Contains("token 50256") && Catch::Contains("vocabulary of 256"));
  CHECK_FALSE(t.has_corpus());
  // a version 2 token of 2^31 or more (an int32 below zero once read) is outside too, named as it is
  TempDir huge;
  write_bytes(huge.file("h_train_000000.bin"), hand_shard(std::vector<uint32_t>(100, 3000000000u), 2));
  CHECK_THROWS_WITH(t.set_corpus(data::Corpus{data::open_shard_dir(huge.path.string()).train, nullptr}),
                    Catch::Contains("token 3000000000"));
  CHECK_FALSE(t.has_corpus());
}

TEST_CASE("the shard reader survives any header: it reads it or says what is wrong", "[data][shards][fuzz]") {
  // mutations of a valid shard's bytes and of its length: every outcome is a header consistent
  // with the size, or a tinygpt::Error; never a crash or another exception
  const std::vector<uint8_t> good = hand_shard({1, 2, 3, 4, 5, 6, 7, 8}, 1);
  uint64_t x = 0x1234567;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull, uint32_t(x >> 33); };
  int accepted = 0, refused = 0;
  for (int i = 0; i < 20000; i++) {
    std::vector<uint8_t> b = good;
    const int edits = 1 + int(next() % 4);
    for (int e = 0; e < edits; e++) {
      const uint32_t kind = next() % 4;
      if (kind == 0 && b.size() >= 12) b[next() % 12] = uint8_t(next());  // the header's three fields
      else if (kind == 1 && !b.empty()) b[next() % b.size()] ^= uint8_t(1 << (next() % 8));
      else if (kind == 2) b.resize(next() % (b.size() + 1));        // cut short
      else b.resize(b.size() + next() % 9, uint8_t(next()));        // longer
    }
    try {
      const data::ShardInfo s = data::parse_shard_header(b.data(), b.size(), b.size(), "fuzz.bin");
      CHECK(1024 + s.tokens * (s.version == 1 ? 2 : 4) == b.size());
      accepted++;
    } catch (const Error&) {
      refused++;
    }
  }
  CHECK(accepted > 0);
  CHECK(refused > 0);
}

TEST_CASE("a file that changes under a run stops the batch without losing the sampler's place", "[data][source][errors]") {
  TempDir dir;
  const std::string path = dir.file("t.txt");
  const std::vector<uint8_t> bytes = text_bytes(10'000);
  write_bytes(path, bytes);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  // a whole-second modification time, so that putting it back below restores it exactly (stat under
  // Emscripten reports whole seconds)
  st.st_mtim.tv_nsec = 0;
  REQUIRE(set_times(path, st.st_atim, st.st_mtim));
  data::Dataset d(data::Corpus{std::make_shared<const data::FileSource>(path), nullptr}, 9);
  data::Dataset twin(bytes, 9);
  data::Batch a, b;
  d.sample_batch(4, 16, a);
  twin.sample_batch(4, 16, b);
  CHECK(a.x == b.x);
  // another program rewrites the file (same size, new time): refused, and the generator kept
  std::vector<uint8_t> edited = bytes;
  edited[5000] = '!';
  write_bytes(path, edited);
  struct timespec later = st.st_mtim;
  later.tv_sec += 5;
  REQUIRE(set_times(path, st.st_atim, later));
  const data::Rng::State before = d.rng_state();
  CHECK(code_of([&] { d.sample_batch(4, 16, a); }) == "corpus.file_changed");
  CHECK(d.rng_state() == before);
#ifndef __EMSCRIPTEN__
  // put back as it was: the run goes on exactly as one that never stopped (not under Node:
  // Emscripten 3.1.6's utimensat does not give back the nanoseconds its stat reported)
  write_bytes(path, bytes);
  REQUIRE(set_times(path, st.st_atim, st.st_mtim));
  d.sample_batch(4, 16, a);
  twin.sample_batch(4, 16, b);
  CHECK(a.x == b.x);
#endif
  // the file goes away
  fs::remove(path);
  CHECK(code_of([&] { d.sample_batch(4, 16, a); }) == "corpus.file_gone");
  CHECK(code_of([&] { data::FileSource missing(path); }) == "corpus.cannot_open");
}

TEST_CASE("the statistics pass gives the same numbers in any pieces, and the baselines of the bytes", "[data][source]") {
  std::vector<uint8_t> text = text_bytes(5000);
  static const char lit[] = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 bad \xC3 \xFF\x00" "end";
  const std::string extra(lit, sizeof lit - 1);
  text.insert(text.end(), extra.begin(), extra.end());
  data::Scanner whole;
  whole.feed(text.data(), text.size());
  const data::TextStats& s = whole.finish();
  CHECK(s.bytes == text.size());
  CHECK(s.multibyte == 3);  // é, €, 😀
  CHECK(s.invalid == 2);    // a cut-off C3, a lone FF
  CHECK(s.nul == 1);
  for (size_t piece : {size_t(1), size_t(3), size_t(1000)}) {
    data::Scanner parts;
    const data::MemorySource src(text);
    data::scan(src, parts, {}, piece);
    const data::TextStats& p = parts.stats();
    CHECK(p.chars == s.chars);
    CHECK(p.multibyte == s.multibyte);
    CHECK(p.invalid == s.invalid);
    CHECK(p.lines == s.lines);
    CHECK(p.counts == s.counts);
    CHECK(p.pairs == s.pairs);
  }
  const watch::Baselines a = watch::entropy_baselines(s), b = watch::entropy_baselines(text.data(), text.size());
  CHECK(a.unigram == Approx(b.unigram).epsilon(1e-12));
  CHECK(a.bigram == Approx(b.bigram).epsilon(1e-12));
}

TEST_CASE("a run whose data file goes away pauses with the reason and keeps every step it took", "[data][source][run]") {
  TempDir dir;
  const std::string path = dir.file("t.txt");
  write_bytes(path, text_bytes(20'000, 5));
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.batch_size = 4, c.max_iters = 50, c.warmup_iters = 1;
  c.eval_interval = 1000;
  train::Trainer t(c);
  t.set_corpus(data::Corpus{std::make_shared<const data::FileSource>(path), nullptr});
  Run run(t);
  const Slice first = run.advance(3);
  CHECK(first.error.empty());
  CHECK(t.steps_done() == 3);
  fs::remove(path);
  const Slice s = run.advance(5);
  CHECK(s.error_code == "corpus.file_gone");
  CHECK_THAT(s.error, Catch::Contains("t.txt"));
  CHECK(t.steps_done() == 3);  // the step that could not read its batch did not happen
  CHECK(s.losses.empty());
}
