// train_bench — training tokens/s of config S or M at a fixed thread count or with the
// ThreadTuner choosing it (what `--threads auto` will do), for bench/cpu_vs_pytorch.mjs
// --contended.
//
//   train_bench --config S|M [--threads N|auto] [--seconds 10] [--json]
//
// Trains for about `seconds` after 3 warm-up steps and reports tokens/s over all of that time,
// the tuner's measurements and re-checks included, plus the thread count it ended on and why.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "tinygpt/config.h"
#include "tinygpt/io.h"
#include "tinygpt/runtime.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

int main(int argc, char** argv) {
  std::string config = "S", threads_arg = "auto";
  double seconds = 10;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) config = argv[++i];
    else if (a == "--threads" && i + 1 < argc) threads_arg = argv[++i];
    else if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--json") json = true;
    else {
      std::fprintf(stderr, "usage: train_bench --config S|M [--threads N|auto] [--seconds 10] [--json]\n");
      return 2;
    }
  }
  if (config != "S" && config != "M") {
    std::fprintf(stderr, "train_bench: --config must be S or M\n");
    return 2;
  }
  Config c = preset_config(config);
  c.max_iters = 1000000;
  c.warmup_iters = 1;
  const bool tuned = threads_arg == "auto";
  ThreadTuner tuner;
  set_num_threads(tuned ? tuner.threads() : std::atoi(threads_arg.c_str()));
  train::Trainer t(c);
  t.set_corpus(io::read_file(std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt"));
  for (int i = 0; i < 3; i++) t.step();

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  int steps = 0;
  double elapsed = 0;
  while (elapsed < seconds) {
    const auto t0 = Clock::now();
    t.step();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (tuned) {
      const int next = tuner.record(dt);
      if (next != num_threads()) set_num_threads(next);
    }
    steps++;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  const double tok_s = double(steps) * double(t.tokens_per_step()) / elapsed;
  const std::string why = tuned ? tuner.reason() : "fixed";
  if (json) {
    std::printf("{\"config\":\"%s\",\"threads\":\"%s\",\"tok_s\":%.1f,\"steps\":%d,\"final_threads\":%d,\"reason\":\"%s\"}\n",
                config.c_str(), threads_arg.c_str(), tok_s, steps, num_threads(), why.c_str());
  } else {
    std::printf("config %s, threads %s: %.0f tok/s over %d steps; ended on %d thread(s): %s\n", config.c_str(),
                threads_arg.c_str(), tok_s, steps, num_threads(), why.c_str());
  }
  return 0;
}
