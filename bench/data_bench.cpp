// data_bench — the cost of reading a text where it lies, measured inside one training process:
// config S trains on the same text read from its file (data::FileSource, pread a window at a time)
// and held in memory (data::MemorySource), switching source every `--steps` steps for `--rounds`
// rounds, so that both see the same machine load. For bench/data.mjs (issue 22's "within 5%").
//
//   data_bench FILE [--rounds 8] [--steps 10] [--threads 2] [--json]
//
// The in-memory side holds the whole text, so texts up to 8 GiB; the sampler's generator carries
// across switches (Trainer::set_corpus), so the batches are the run's own.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/data.h"
#include "tinygpt/runtime.h"
#include "tinygpt/source.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: data_bench FILE [--rounds 8] [--steps 10] [--threads 2] [--json]\n");
    return 2;
  }
  const std::string path = argv[1];
  int rounds = 8, steps = 10, threads = 2;
  bool json = false;
  for (int i = 2; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--json") json = true;
    else {
      std::fprintf(stderr, "data_bench: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    set_num_threads(threads);
    auto file = std::make_shared<const data::FileSource>(path);
    if (file->size() > (uint64_t(8) << 30)) {
      std::fprintf(stderr, "data_bench: %s is larger than 8 GiB: give a smaller text (the in-memory side holds it whole)\n", path.c_str());
      return 2;
    }
    std::vector<uint8_t> bytes(size_t(file->size()));
    file->read_bytes(0, bytes.size(), bytes.data());
    const data::Corpus from_file{file, nullptr};
    const data::Corpus in_memory = data::memory_corpus(std::move(bytes));
    // the read path alone: config S's batches (12 windows of 65 tokens) drawn from each source, many
    // times over, alternating blocks (the part of a step that differs between the two)
    Config c = preset_config("S");
    std::vector<double> file_us, memory_us;
    {
      data::Dataset df(from_file, 7), dm(in_memory, 7);
      data::Batch batch;
      for (int r = 0; r < 2 * rounds; r++)
        for (int side = 0; side < 2; side++) {
          data::Dataset& d = side == 0 ? df : dm;
          const auto t0 = Clock::now();
          for (int i = 0; i < 200; i++) d.sample_batch(c.batch_size, c.block_size, batch);
          (side == 0 ? file_us : memory_us).push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / 200);
        }
    }
    c.eval_interval = 0;
    c.max_iters = std::max(rounds * steps * 2 + 10, c.warmup_iters + 1);
    train::Trainer t(c);
    t.set_corpus(from_file);
    for (int i = 0; i < 3; i++) t.step();  // warm-up: the arena, the kernels
    std::vector<double> file_ms, memory_ms;  // per step, one figure a round
    for (int r = 0; r < rounds; r++)
      for (int side = 0; side < 2; side++) {
        // alternate which side goes first, so neither always follows the switch
        const bool file_side = (side == 0) == (r % 2 == 0);
        t.set_corpus(file_side ? from_file : in_memory);
        const auto t0 = Clock::now();
        for (int s = 0; s < steps; s++) t.step();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / steps;
        (file_side ? file_ms : memory_ms).push_back(ms);
      }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::vector<double> ratios;  // memory / file step time per round: the file path's tokens/s relative to memory's
    for (int r = 0; r < rounds; r++) ratios.push_back(memory_ms[size_t(r)] / file_ms[size_t(r)]);
    const double tokens = double(c.batch_size) * c.block_size;
    const double f = median(file_ms), m = median(memory_ms), ratio = median(ratios);
    const double fb = median(file_us), mb = median(memory_us);
    if (json)
      std::printf("{\"bytes\":%llu,\"rounds\":%d,\"steps\":%d,\"threads\":%d,\"fileMsPerStep\":%.2f,\"memoryMsPerStep\":%.2f,"
                  "\"fileTokensPerSec\":%.0f,\"memoryTokensPerSec\":%.0f,\"tokensPerSecRatio\":%.4f,\"ratioMin\":%.4f,\"ratioMax\":%.4f,"
                  "\"fileUsPerBatch\":%.2f,\"memoryUsPerBatch\":%.2f,\"readShareOfStep\":%.6f}\n",
                  (unsigned long long)file->size(), rounds, steps, threads, f, m, tokens * 1000 / f, tokens * 1000 / m, ratio,
                  *std::min_element(ratios.begin(), ratios.end()), *std::max_element(ratios.begin(), ratios.end()), fb, mb,
                  (fb - mb) / (1000 * m));
    else
      std::printf("%s: read where it lies %.2f ms a step, in memory %.2f ms: tokens/s x%.3f (rounds from x%.3f to x%.3f); "
                  "a batch drawn in %.1f us from the file, %.1f us from memory: %.4f%% of a step\n",
                  path.c_str(), f, m, ratio, *std::min_element(ratios.begin(), ratios.end()),
                  *std::max_element(ratios.begin(), ratios.end()), fb, mb, 100 * (fb - mb) / (1000 * m));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "data_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
