// tokenizer_bench.cpp — the tokenizer's speed on one native core, for bench/tokenizer.mjs:
//   tokenizer_bench TEXT VOCAB[,VOCAB...] GPT2_MERGES_DIR REPEATS
// prints one JSON object: for each vocabulary, training MB/s (the whole of train_bpe: counting the
// pieces, then the merges) and encoding MB/s of TEXT with it; and encoding MB/s with GPT-2's
// vocabulary (vocab.json + merges.txt in GPT2_DIR). Each figure is the median of REPEATS runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <ctime>
#include <vector>

#include "tinygpt/io.h"
#include "tinygpt/tokenizer.h"

using namespace tinygpt;
using Clock = std::chrono::steady_clock;

namespace {

// This thread's CPU seconds: on a loaded machine (other processes on the cores) the speed of one
// core when it runs, next to the wall clock's.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Seconds {
  double wall, cpu;  // medians
};

template <class F>
Seconds median_seconds(int repeats, F&& f) {
  std::vector<double> t, c;
  for (int i = 0; i < repeats; i++) {
    const auto t0 = Clock::now();
    const double c0 = cpu_now();
    f();
    c.push_back(cpu_now() - c0);
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  std::sort(c.begin(), c.end());
  return {t[t.size() / 2], c[c.size() / 2]};
}

std::string read(const std::string& path) {
  const std::vector<uint8_t> b = io::read_file(path);
  return std::string(b.begin(), b.end());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: tokenizer_bench TEXT VOCAB[,VOCAB...] GPT2_DIR REPEATS\n");
    return 2;
  }
  try {
    const std::vector<uint8_t> bytes = io::read_file(argv[1]);
    const std::string text(bytes.begin(), bytes.end());
    const data::MemorySource src(bytes, "bench text");
    const int repeats = std::max(1, std::atoi(argv[4]));
    const double mb = double(bytes.size()) / 1e6;
    std::printf("{\"bytes\": %zu, \"repeats\": %d, \"vocabularies\": [", bytes.size(), repeats);
    std::string list = argv[2];
    bool first = true;
    for (size_t at = 0; at < list.size();) {
      size_t comma = list.find(',', at);
      if (comma == std::string::npos) comma = list.size();
      const int vocab = std::stoi(list.substr(at, comma - at));
      at = comma + 1;
      std::optional<tok::Tokenizer> t;
      const Seconds train = median_seconds(repeats, [&] { t = tok::train_bpe(src, vocab); });
      size_t n = 0;
      const Seconds enc = median_seconds(repeats, [&] { n = t->encode(text).size(); });
      std::printf("%s{\"vocab\": %d, \"train_s\": %.4f, \"train_mb_s\": %.2f, \"train_cpu_mb_s\": %.2f, \"encode_s\": %.4f, "
                  "\"encode_mb_s\": %.2f, \"encode_cpu_mb_s\": %.2f, \"tokens\": %zu, \"bytes_per_token\": %.4f}",
                  first ? "" : ", ", vocab, train.wall, mb / train.wall, mb / train.cpu, enc.wall, mb / enc.wall, mb / enc.cpu, n,
                  double(bytes.size()) / double(n));
      first = false;
    }
    const std::string dir = argv[3];
    const tok::Tokenizer g = tok::Tokenizer::from_gpt2(read(dir + "/vocab.json"), read(dir + "/merges.txt"));
    size_t n = 0;
    const Seconds enc = median_seconds(repeats, [&] { n = g.encode(text).size(); });
    std::printf("], \"gpt2\": {\"encode_s\": %.4f, \"encode_mb_s\": %.2f, \"encode_cpu_mb_s\": %.2f, \"tokens\": %zu}}\n", enc.wall,
                mb / enc.wall, mb / enc.cpu, n);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenizer_bench: %s\n", e.what());
    return 1;
  }
}
