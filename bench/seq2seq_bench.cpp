// seq2seq_bench — the encoder-decoder's training speed, and a learning check on a built-in task.
//
//   seq2seq_bench [--threads N] [--steps N] [--json]
//       tokens/s of a training step of config S2S (2 encoder + 2 decoder layers, 4 heads, width
//       128, d_ff 512, source and target of 32 tokens, batch 16) with 1 and 2 threads (or N),
//       GFLOP/s and % of the one-thread multiply-add peak times the threads.
//   seq2seq_bench --padded ...
//       the same step on a batch of pairs of varied lengths, as real pairs come (sources of 9 to 32
//       bytes, targets of 8 to 31 + EOS, padded to the block): ms a step and real (not padding)
//       tokens/s; GFLOP/s and % of peak still count the dense products.
//   seq2seq_bench [--backend NAME] ...
//       runs with another compiled-in kernel backend (avx2, sse2) than the best the CPU has.
//   seq2seq_bench [--cpu-time] ...
//       times by this process's CPU time instead of the wall clock (one thread only: on a machine
//       shared with other busy processes it measures the program, not the share of the CPU it got;
//       in wasm, Node's process.cpuUsage()).
//   seq2seq_bench --profile [--threads N] [--steps N] [--cpu-time]
//       where a step's time goes: the wall time of each kernel (kernels::set_profiling), summed
//       over the steps, and the rest (graph, arena, gradient zeroing, batch) as "outside kernels";
//       with 2 or more threads, the pool's counters too (tinygpt::pool_stats: split jobs, the
//       wait at their ends, wake-up latency, each thread's busy time).
//       With --cpu-time, each kernel's thread CPU time (natively only: wasm has no per-thread CPU
//       clock, and says so).
//   seq2seq_bench --learn TASK [--steps N] [--batch B] [--lr X] [--enc L] [--dec L] [--heads H]
//                 [--embd C] [--ff F] [--block T] [--threads N] [--eval-every N] [--seed S]
//       trains on a built-in task (data::builtin_task) and reports, at each evaluation, the
//       training loss, exact match and character error rate of greedy translations of the
//       held-out pairs, and the time so far.
//
// A training step here is what the trainer will do: sample a batch, zero the gradients, loss,
// backward, clip to norm 1, AdamW (warmup + cosine), with the arena reserved up front.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_clock.h"
#include "kernels.h"
#include "peak.h"
#include "tinygpt/optim.h"
#include "tinygpt/pairs.h"
#include "tinygpt/runtime.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/translate.h"

using namespace tinygpt;
using bench::Clock;
using bench::seconds_since;

namespace {

// Multiply-adds x 2 of one training step (forward + backward = 3 x forward), counting every
// product densely (the causal and padding blocks the kernels skip included): the work a plain
// implementation does.
double step_flops(const model::Seq2SeqDims& d, int B, int S, int T) {
  const double C = d.n_embd, F = d.d_ff, V = d.vocab_size;
  const double enc = 2.0 * B * S * (4 * C * C + 2 * C * F) + 4.0 * B * S * S * C;
  const double dec = 2.0 * B * T * (4 * C * C) + 4.0 * B * T * T * C       // self-attention
                     + 2.0 * B * T * 2 * C * C + 2.0 * B * S * 2 * C * C + 4.0 * B * T * S * C  // cross
                     + 2.0 * B * T * 2 * C * F;                             // feed-forward
  const double head = 2.0 * B * T * C * V;
  return 3.0 * (d.n_enc_layer * enc + d.n_dec_layer * dec + head);
}

struct Run {
  model::Seq2Seq model;
  optim::AdamW opt;
  optim::Schedule schedule;
  nn::Arena arena;
  Run(const model::Seq2SeqDims& d, int B, float lr, int steps)
      : model(d), opt(model.num_parameters(), {0.9f, 0.99f, 1e-8f, 0.1f}, model.decay_segments()),
        schedule{lr, lr / 10, std::min(100, steps / 10), steps} {
    arena.reserve(size_t(model::seq2seq_activation_bytes(d, B)));
  }
  float step(const data::PairBatch& batch) {
    arena.reset();
    model.zero_grad();
    nn::Tensor loss = model.loss(arena, batch);
    loss.backward(nn::Tensor::GradBuffers::recycle);  // as the trainer does
    const float norm = optim::grad_norm(model.grads(), model.num_parameters());  // clipped by AdamW, as the trainer does
    opt.step(model.params(), model.grads(), schedule.lr_at(opt.t()), optim::clip_factor(norm, 1.0f));
    kernels::share_scratch_sizes();
    return loss.item();
  }
};

// Where the threads of a profiled run waited (tinygpt::pool_stats, summed over the steps): the
// split jobs, the caller's wait for the other threads at their ends, the workers' wake-up from a
// job's publication to their first claim, and each thread's time inside tasks.
void print_pool(const tinygpt::PoolStats& p, int steps) {
  if (p.threads < 2) return;
  std::printf("    pool, per step: %.1f split jobs (%.1f run inline), %.0f chunks; %.3f ms in split jobs, of which "
              "%.3f ms waiting at their ends; wake-up %.1f us on average (%.1f sleeps)\n",
              double(p.jobs) / steps, double(p.inline_jobs) / steps, double(p.chunks) / steps, p.parallel_ms / steps,
              p.barrier_ms / steps, p.joined ? p.wake_ms * 1e3 / double(p.joined) : 0.0, double(p.sleeps) / steps);
  std::printf("    busy in tasks, per step:");
  for (int t = 0; t < std::min(p.threads, 8); t++) std::printf(" thread %d %.3f ms%s", t, p.busy_ms[t] / steps,
                                                                t + 1 < std::min(p.threads, 8) ? "," : "\n");
}

int speed(int argc, char** argv) {
  int steps = 20, only_threads = 0;
  bool json = false, profile = false, cpu_time = false, padded = false;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--padded")) padded = true;
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) only_threads = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--json")) json = true;
    if (!std::strcmp(argv[i], "--profile")) profile = true;
    if (!std::strcmp(argv[i], "--cpu-time")) cpu_time = true;
    if (!std::strcmp(argv[i], "--backend") && i + 1 < argc && !kernels::use_backend(argv[++i])) {
      std::fprintf(stderr, "seq2seq_bench: no backend '%s' here (%s)\n", argv[i], kernels::available_backends().c_str());
      return 2;
    }
  }
  if (cpu_time && only_threads != 1) {
    std::fprintf(stderr, "seq2seq_bench: --cpu-time needs --threads 1\n");
    return 2;
  }
  if (cpu_time && profile && !kernels::has_thread_cpu_clock()) {
    std::fprintf(stderr, "seq2seq_bench: --profile times each kernel by its thread's CPU time, and this build (wasm) "
                         "has no per-thread CPU clock: run --profile without --cpu-time\n");
    return 2;
  }
  auto now = [&] {
    if (!cpu_time) return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
    return bench::cpu_seconds(bench::CpuClock::process);
  };
  model::Seq2SeqDims d;
  d.n_enc_layer = 2, d.n_dec_layer = 2, d.n_head = 4, d.n_embd = 128, d.d_ff = 512, d.block_size = 32;
  const int B = 16, S = 32, T = 32;
  // every pair fills the block: source 32 bytes, target 31 bytes + EOS; or (--padded) sources of
  // 9..32 and targets of 8..31 bytes, spread over the batch
  std::vector<std::string> src, tgt;
  data::Rng rng(1);
  double real_tokens = 0;
  for (int b = 0; b < B; b++) {
    const int sl = padded ? 9 + (b * 7) % 24 : 32, tl = padded ? 8 + (b * 11) % 24 : 31;
    real_tokens += sl + tl + 1;
    std::string s(size_t(sl), 'a'), t(size_t(tl), 'a');
    for (char& c : s) c = char('a' + rng.below(26));
    for (char& c : t) c = char('a' + rng.below(26));
    src.push_back(s), tgt.push_back(t);
  }
  data::PairBatch batch;
  data::make_pair_batch(batch, src, tgt, S, T);
  const double flops = step_flops(d, B, S, T);
  const std::string backend = kernels::simd_backend();
  const double peak = bench::peak_for(backend);
  std::vector<int> thread_counts = only_threads ? std::vector<int>{only_threads} : std::vector<int>{1, 2};
  if (json)
    std::printf("{\"config\":\"S2S\",\"padded\":%s,\"backend\":\"%s\",\"peak_gflops\":%.2f,\"runs\":[",
                padded ? "true" : "false", backend.c_str(), peak);
  else
    std::printf("seq2seq_bench: config S2S (enc 2, dec 2, heads 4, width 128, d_ff 512, S = T = 32, batch 16%s): "
                "%.2f M parameters, %.1f MFLOP per token; %s kernels, peak %.1f GFLOP/s per thread\n",
                padded ? ", pairs of varied lengths" : "", double(d.num_parameters()) / 1e6, flops / (B * (S + T)) / 1e6,
                backend.c_str(), peak);
  for (size_t k = 0; k < thread_counts.size(); k++) {
    const int threads = thread_counts[k];
    tinygpt::set_num_threads(threads);
    Run run(d, B, 1e-3f, 1000);
    for (int i = 0; i < 3; i++) run.step(batch);  // warm-up: arena, scratch, caches
    if (profile) {
      kernels::kernel_times();  // reset
      kernels::set_profiling(true, cpu_time);
      tinygpt::set_pool_profiling(true);
      tinygpt::reset_pool_stats();
      const double t0 = now();
      for (int i = 0; i < steps; i++) run.step(batch);
      const double total = now() - t0;
      const tinygpt::PoolStats pool = tinygpt::pool_stats();
      tinygpt::set_pool_profiling(false);
      kernels::set_profiling(false);
      std::vector<kernels::KernelTime> times = kernels::kernel_times();
      std::sort(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
      std::printf("  %d thread(s): %.2f ms/step; per step:\n", threads, total / steps * 1e3);
      double in_kernels = 0;
      for (const kernels::KernelTime& t : times) {
        if (!t.calls) continue;
        in_kernels += t.seconds;
        std::printf("    %-30s %5.1f calls %8.3f ms %5.1f%%\n", t.name, double(t.calls) / steps, t.seconds / steps * 1e3,
                    100 * t.seconds / total);
      }
      std::printf("    %-30s %5s       %8.3f ms %5.1f%%\n", "outside kernels", "", (total - in_kernels) / steps * 1e3,
                  100 * (total - in_kernels) / total);
      print_pool(pool, steps);
      continue;
    }
    // The peak is measured again right before and right after the timed rounds, and the run is
    // compared with their mean: this host's clock moves between minutes (the one-thread peak has
    // read from 262 to 276 GFLOP/s in one hour), and a peak read a while before would carry that.
    const double peak_before = k ? bench::peak_for(backend) : peak;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
      const double t0 = now();
      for (int i = 0; i < steps; i++) run.step(batch);
      best = std::min(best, (now() - t0) / steps);
    }
    const double peak_after = bench::peak_for(backend), run_peak = 0.5 * (peak_before + peak_after);
    const double tokens = real_tokens / best, gflops = flops / best / 1e9;
    if (json)
      std::printf("%s{\"threads\":%d,\"step_ms\":%.3f,\"tokens_per_s\":%.0f,\"gflops\":%.2f,\"peak_before\":%.2f,"
                  "\"peak_after\":%.2f,\"percent_of_peak\":%.1f}",
                  k ? "," : "", threads, best * 1e3, tokens, gflops, peak_before, peak_after,
                  100.0 * gflops / (run_peak * threads));
    else
      std::printf("  %d thread(s): %.2f ms/step, %.0f tokens/s (source + target), %.1f GFLOP/s, %.1f%% of peak "
                  "(the peak's mean of %.1f before and %.1f after)\n",
                  threads, best * 1e3, tokens, gflops, 100.0 * gflops / (run_peak * threads), peak_before, peak_after);
  }
  if (json) std::printf("]}\n");
  return 0;
}

// Cross-attention of the last decoder layer, averaged over heads, summed over the bytes of each
// source word and averaged over the bytes of each target word (words split at spaces; a source
// without spaces is one word per byte): which source word each target word reads.
void print_alignment(model::Seq2Seq& m, const std::string& src, const std::string& out) {
  if (out.empty() || out.size() + 1 > size_t(m.dims().block_size)) return;
  data::PairBatch b;
  data::make_pair_batch(b, {src}, {out}, int(src.size()), int(out.size()) + 1);
  nn::Arena arena;
  nn::GradMode no_grad(false);
  m.forward_logits(arena, b.src.data(), b.tgt_in.data(), 1, b.S, b.T);
  const nn::Tensor att = m.last_attention(model::AttentionKind::cross, m.dims().n_dec_layer - 1);  // (1, NH, T, S)
  const int NH = m.dims().n_head, T = b.T, S = b.S;
  auto words = [](const std::string& s) {  // [begin, end) byte ranges
    std::vector<std::pair<int, int>> w;
    const bool spaced = s.find(' ') != std::string::npos;
    int start = 0;
    for (int i = 0; i <= int(s.size()); i++)
      if (i == int(s.size()) || (spaced ? s[size_t(i)] == ' ' : true)) {
        if (spaced ? i > start : i < int(s.size())) w.push_back(spaced ? std::pair{start, i} : std::pair{i, i + 1});
        start = i + 1;
      }
    return w;
  };
  const auto sw = words(src), tw = words(out);
  std::printf("    cross-attention, last layer (rows: output words, columns: source words)\n    %-12s", "");
  for (const auto& [a, e] : sw) std::printf(" %8s", src.substr(size_t(a), size_t(e - a)).c_str());
  std::printf("\n");
  for (const auto& [ta, te] : tw) {
    std::printf("    %-12s", out.substr(size_t(ta), size_t(te - ta)).c_str());
    for (const auto& [sa, se] : sw) {
      double w = 0;
      for (int t = ta; t < te; t++)  // decoder row t produces output byte t
        for (int h = 0; h < NH; h++)
          for (int j = sa; j < se; j++) w += att.data()[(size_t(h) * T + size_t(t)) * S + size_t(j)];
      std::printf(" %8.2f", w / (NH * (te - ta)));
    }
    std::printf("\n");
  }
}

int learn(int argc, char** argv) {
  std::string task;
  int steps = 2000, B = 32, eval_every = 250, threads = tinygpt::max_threads();
  float lr = 1e-3f;
  uint64_t seed = 1;
  model::Seq2SeqDims d;
  d.n_enc_layer = 2, d.n_dec_layer = 2, d.n_head = 4, d.n_embd = 64, d.d_ff = 256, d.block_size = 0;
  for (int i = 1; i + 1 < argc; i++) {
    const std::string a = argv[i];
    const char* v = argv[i + 1];
    if (a == "--learn") task = v, i++;
    else if (a == "--steps") steps = std::atoi(v), i++;
    else if (a == "--batch") B = std::atoi(v), i++;
    else if (a == "--lr") lr = float(std::atof(v)), i++;
    else if (a == "--enc") d.n_enc_layer = std::atoi(v), i++;
    else if (a == "--dec") d.n_dec_layer = std::atoi(v), i++;
    else if (a == "--heads") d.n_head = std::atoi(v), i++;
    else if (a == "--embd") d.n_embd = std::atoi(v), i++;
    else if (a == "--ff") d.d_ff = std::atoi(v), i++;
    else if (a == "--block") d.block_size = std::atoi(v), i++;
    else if (a == "--threads") threads = std::atoi(v), i++;
    else if (a == "--eval-every") eval_every = std::atoi(v), i++;
    else if (a == "--seed") seed = uint64_t(std::atoll(v)), i++;
  }
  int longest = 0;
  for (const data::TaskInfo& t : data::builtin_tasks())
    if (task == t.name) longest = t.longest;
  if (!longest) {
    std::fprintf(stderr, "unknown task '%s'\n", task.c_str());
    return 2;
  }
  if (d.block_size == 0) d.block_size = longest + 1;
  d.seed = seed;
  tinygpt::set_num_threads(threads);
  data::PairDataset pairs(data::builtin_task(task, seed), d.block_size, seed);
  Run run(d, B, lr, steps);
  std::printf("task %s: %zu pairs (%zu held out), S %d, T %d; model enc %d dec %d heads %d width %d d_ff %d block %d "
              "(%lld parameters); batch %d, lr %g, %d steps, %d thread(s), %s kernels\n",
              task.c_str(), pairs.size(), pairs.val_size(), pairs.max_source_len(), pairs.max_target_len() + 1,
              d.n_enc_layer, d.n_dec_layer, d.n_head, d.n_embd, d.d_ff, d.block_size,
              (long long)d.num_parameters(), B, double(lr), steps, threads, kernels::simd_backend());
  data::PairBatch batch;
  double train_seconds = 0, loss_sum = 0;
  int loss_n = 0;
  for (int step = 1; step <= steps; step++) {
    const auto t0 = Clock::now();
    pairs.sample_batch(B, batch);
    loss_sum += run.step(batch);
    loss_n++;
    train_seconds += seconds_since(t0);
    if (step % eval_every == 0 || step == steps) {
      const auto e0 = Clock::now();
      const data::TranslationScore s = sample::evaluate_translation(run.model, pairs);
      std::printf("step %5d  loss %.4f  held-out exact %.1f%%  CER %.2f%%  (%lld pairs)  train %.1f s  eval %.1f s\n",
                  step, loss_sum / loss_n, 100 * s.exact_match(), 100 * s.cer(), (long long)s.pairs, train_seconds,
                  seconds_since(e0));
      std::fflush(stdout);
      loss_sum = 0, loss_n = 0;
    }
  }
  // a few translations (beam 4) and, for the first of the task's held-out pairs and the seed's
  // sentence, the cross-attention of the last decoder layer between words
  std::vector<std::string> probes = {pairs.source(pairs.val_index(0))};
  if (task == "zh-en") probes.insert(probes.begin(), "我 爱 吃 火锅");
  for (const std::string& src : probes) {
    sample::TranslateOptions o;
    o.beam = 4;
    const std::string out = sample::translate(run.model, src, o).text;
    std::printf("  %s -> %s\n", src.c_str(), out.c_str());
    print_alignment(run.model, src, out);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    for (int i = 1; i < argc; i++)
      if (!std::strcmp(argv[i], "--learn")) return learn(argc, argv);
    return speed(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seq2seq_bench: %s\n", e.what());
    return 1;
  }
}
