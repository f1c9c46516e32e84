// kernels_bench — the machine's multiply-add peak, its memory bandwidth, the GEMM kernels'
// GFLOP/s at the shapes of configs S and M, and KV-cached decoding of M against the bandwidth
// bound; natively (every compiled-in backend: SSE2, AVX2+FMA, AVX-512) and, built with
// Emscripten, in SIMD128.
//
//   kernels_bench [--threads N] [--json] [--quick] [--cpu-time] [--no-gemm] [--cross-core] [--peak]
//
// --no-gemm skips the GEMM table, the recurrent gates and attention (peaks, bandwidth and decoding only).
// --cross-core runs only the two-core figures (below) and prints them (as JSON with --json).
// --peak runs only the peaks (bench/page.mjs reads the SIMD128 one around each timed part).
//
// Cross-core (natively, with 2 or more hardware threads): two threads pinned to CPUs 0 and 1 (Linux)
// pass a counter back and forth (the round trip, in ns), and one reads 1 MiB that the other has just
// written, against 1 MiB it wrote itself (GB/s). Cores that share a last-level cache answer in well
// under 100 ns and read the other's data at a large fraction of their own; cores on different dies
// (a VM's vCPUs can be placed so, and moved) take several hundred ns and read it at memory speed.
// Every kernel split across threads reads data another thread wrote, so the two-thread figures of
// the other benchmarks follow these.
//
// Recurrent gates (lstm-S: B 12, T 64, H 256, an LSTM layer): the fused step kernels
// rnn_forward (h_{t-1} W_hh^T and the cell, step after step) and rnn_backward (dgates W_hh and
// the cell's backward), in GFLOP/s of their products with W_hh (2 B T 4H H each; the cells'
// arithmetic is not counted); the input projection and the weight gradients are GEMMs of the table.
//
// --cpu-time times the GEMMs by this thread's CPU time instead of the wall clock (one thread
// only): on a machine shared with other busy processes it measures the kernel, not the share
// of the CPU it got (in wasm, Node's process CPU time: bench/cpu_clock.h). Reported figures use
// the wall clock.
//
// Peak: many independent multiply-add chains on registers (no memory traffic), at the vector
// width of each backend. With FMA (AVX2, AVX-512) a chain step is one fused instruction; SSE2
// and SIMD128 have no FMA, so a step is a mul and an add (two flops either way).
// Bandwidth: a streaming read of a buffer much larger than the caches (the sum of its floats),
// with N threads each reading a contiguous slice.
// Decode: config M, one token at a time against the KV cache through a whole context; the bytes
// a token must read are the weights of every layer and the head, plus the cached keys and values
// of the positions before it. bound = memory bandwidth / bytes per token; as a reference, also
// the rate of reading a buffer of one token's bytes over and over (part of it stays in L3, as
// part of the weights does between tokens).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "cpu_clock.h"
#include "kernels.h"
#include "peak.h"
#include "simd.h"
#include "threadpool.h"
#include "tinygpt/config.h"
#include "tinygpt/model.h"
#include "tinygpt/rng.h"

using namespace tinygpt;

namespace {

using bench::Clock;
using bench::peak_for;
using bench::peak_kind;
using bench::seconds_since;

bool g_cpu_time = false;  // --cpu-time
double gemm_clock() {
  if (g_cpu_time) return bench::cpu_seconds(bench::CpuClock::thread);
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// Seconds per call of run(): one warm-up call (packing buffers, caches, JIT tier-up), then
// `samples` short samples of enough calls for min_seconds / 5 each; the best one, the least
// disturbed by other processes.
template <class F>
double best_seconds(F&& run, double min_seconds, int samples) {
  run();
  const double t_one = gemm_clock();
  run();
  const int reps = std::max(1, int(min_seconds / 5 / std::max(1e-7, gemm_clock() - t_one)));
  double best = 1e30;
  for (int r = 0; r < samples; r++) {
    const double t0 = gemm_clock();
    for (int i = 0; i < reps; i++) run();
    best = std::min(best, (gemm_clock() - t0) / reps);
  }
  return best;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + " ")
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  return out;
}

// ---- memory bandwidth ----------------------------------------------------------------------

// GB/s of reading `buf` with the pool's threads, each summing a contiguous slice as kStreams
// interleaved sequential streams (one stream per core leaves memory idle between its requests;
// the one-row products of decoding read many rows of a matrix at once); best of several passes.
double read_bandwidth_gbs(const std::vector<float>& buf) {
  constexpr int kStreams = 8;
  const int64_t n = int64_t(buf.size());
  const int P = tp::num_threads();
  std::vector<double> partial(size_t(P) * 16, 0.0);  // one cache line apart
  auto pass = [&] {
    tp::parallel_for(P, [&](int b, int e, int) {
      for (int p = b; p < e; p++) {
        const int64_t lo = n * p / P, len = (n * (p + 1) / P - lo) / (kStreams * simd::W) * simd::W;
        const float* base = buf.data() + lo;
        simd::vf s[kStreams] = {};
        for (int64_t i = 0; i < len; i += simd::W)
          for (int k = 0; k < kStreams; k++) s[k] = s[k] + simd::load(base + k * len + i);
        simd::vf t = simd::zero();
        for (int k = 0; k < kStreams; k++) t = t + s[k];
        partial[size_t(p) * 16] += simd::hsum(t);
      }
    });
  };
  pass();
  double best = 1e30;
  for (int r = 0; r < 8; r++) {
    const auto t0 = Clock::now();
    pass();
    best = std::min(best, seconds_since(t0));
  }
  double sink = 0;
  for (double x : partial) sink += x;
  if (sink == 12345.0) std::printf("!");
  // the bytes read: each slice's kStreams streams (a few floats at a slice's end are skipped)
  int64_t read = 0;
  for (int p = 0; p < P; p++) read += (n * (p + 1) / P - n * p / P) / (kStreams * simd::W) * simd::W * kStreams;
  return double(read) * sizeof(float) / best / 1e9;
}

// ---- cross-core --------------------------------------------------------------------------------

struct CrossCore {
  bool measured = false;
  bool pinned = false;         // the two threads ran on CPUs 0 and 1
  double round_trip_ns = 0;    // one message there and back
  double other_gbs = 0;        // reading 1 MiB the other thread has just written
  double own_gbs = 0;          // reading 1 MiB this thread has just written
};

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
CrossCore cross_core() { return {}; }
#else
bool pin_to_cpu(int cpu) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
#else
  (void)cpu;
  return false;
#endif
}

__attribute__((noinline)) float sum_floats(const float* p, size_t n) {
  simd::vf s[4] = {};
  for (size_t i = 0; i + 4 * simd::W <= n; i += 4 * simd::W)
    for (int k = 0; k < 4; k++) s[k] = s[k] + simd::load(p + i + k * simd::W);
  return simd::hsum(s[0] + s[1] + s[2] + s[3]);
}

CrossCore cross_core() {
  CrossCore r;
  if (std::thread::hardware_concurrency() < 2) return r;
  r.measured = true;
  // the caller's affinity is restored at the end (the pool's threads keep theirs)
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  cpu_set_t saved;
  const bool have_saved = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
#endif
  // Ping-pong: the caller writes an odd value, the other thread answers with the next even one;
  // -1 tells it to stop. Each trip is cut short after 50 ms: on a loaded machine (a test suite
  // beside it) a round can wait for a scheduler's time slice.
  std::atomic<int64_t> flag{0};
  std::atomic<int> helper_pinned{-1};
  std::thread other([&] {
    helper_pinned.store(pin_to_cpu(1) ? 1 : 0);
    for (;;) {
      const int64_t f = flag.load(std::memory_order_acquire);
      if (f < 0) return;
      if (f & 1) flag.store(f + 1, std::memory_order_release);
    }
  });
  const bool self_pinned = pin_to_cpu(0);
  while (helper_pinned.load() < 0) {
  }
  r.pinned = self_pinned && helper_pinned.load() == 1;
  constexpr int kRounds = 20000, kTrips = 3;
  double best = 1e30;
  int64_t seq = 0;
  for (int t = 0; t < kTrips; t++) {
    const auto t0 = Clock::now();
    int rounds = 0;
    while (rounds < kRounds) {
      seq += 2;
      flag.store(seq - 1, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) != seq) {
      }
      if ((++rounds & 63) == 0 && seconds_since(t0) > 0.05) break;
    }
    best = std::min(best, seconds_since(t0) / rounds);
  }
  flag.store(-1, std::memory_order_release);
  other.join();
  r.round_trip_ns = best * 1e9;
  // Reading 1 MiB written by the other core, then by this one: best of several passes each.
  std::vector<float> buf(size_t(1) << 18);
  double best_other = 1e30, best_own = 1e30;
  float sink = 0;
  for (int rep = 0; rep < 20; rep++) {
    std::thread writer([&] {
      pin_to_cpu(1);
      for (size_t i = 0; i < buf.size(); i++) buf[i] = float(i & 7);
    });
    writer.join();
    auto t0 = Clock::now();
    sink += sum_floats(buf.data(), buf.size());
    best_other = std::min(best_other, seconds_since(t0));
    for (size_t i = 0; i < buf.size(); i++) buf[i] = float(i & 3);
    t0 = Clock::now();
    sink += sum_floats(buf.data(), buf.size());
    best_own = std::min(best_own, seconds_since(t0));
  }
  if (sink == 12345.0f) std::printf("!");
  const double bytes = double(buf.size()) * sizeof(float);
  r.other_gbs = bytes / best_other / 1e9;
  r.own_gbs = bytes / best_own / 1e9;
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  if (have_saved) pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
#endif
  return r;
}
#endif

void print_cross_core(const CrossCore& c) {
  if (!c.measured) return;
  std::printf("cross-core (%s): round trip %.0f ns; reading 1 MiB the other core wrote %.1f GB/s, that this core "
              "wrote %.1f GB/s (%.2fx)\n",
              c.pinned ? "threads on CPUs 0 and 1" : "two threads, not pinned", c.round_trip_ns, c.other_gbs, c.own_gbs,
              c.other_gbs / c.own_gbs);
}

void json_cross_core(const CrossCore& c) {
  if (!c.measured) {
    std::printf("null");
    return;
  }
  std::printf("{\"pinned\":%s,\"round_trip_ns\":%.1f,\"other_gbs\":%.2f,\"own_gbs\":%.2f}", c.pinned ? "true" : "false",
              c.round_trip_ns, c.other_gbs, c.own_gbs);
}

// ---- GEMM ------------------------------------------------------------------------------------

struct Shape {
  const char* config;
  const char* what;
  bool transA, transB;
  int M, N, K;
};

// Config S: B*T = 768 rows, C = 128. Config M: B*T = 1024 rows, C = 384. The forward products
// and the two backward ones per weight (dinp = dout @ W^T, dW = inp^T @ dout).
const Shape kShapes[] = {
    {"S", "qkv     768x128 @ 128x384", false, false, 768, 384, 128},
    {"S", "fc      768x128 @ 128x512", false, false, 768, 512, 128},
    {"S", "fcproj  768x512 @ 512x128", false, false, 768, 128, 512},
    {"S", "lmhead  768x128 @ 128x256", false, false, 768, 256, 128},
    {"S", "dinp    768x384 @ (128x384)^T", false, true, 768, 128, 384},
    {"S", "dW      (768x128)^T @ 768x384", true, false, 128, 384, 768},
    {"S", "dinp    768x128 @ (512x128)^T", false, true, 768, 512, 128},
    {"S", "dW      (768x512)^T @ 768x128", true, false, 512, 128, 768},
    {"M", "qkv     1024x384 @ 384x1152", false, false, 1024, 1152, 384},
    {"M", "proj    1024x384 @ 384x384", false, false, 1024, 384, 384},
    {"M", "fc      1024x384 @ 384x1536", false, false, 1024, 1536, 384},
    {"M", "fcproj  1024x1536 @ 1536x384", false, false, 1024, 384, 1536},
    {"M", "dinp    1024x1152 @ (384x1152)^T", false, true, 1024, 384, 1152},
    {"M", "dW      (1024x384)^T @ 1024x1152", true, false, 384, 1152, 1024},
    {"M", "dinp    1024x384 @ (1536x384)^T", false, true, 1024, 1536, 384},
    {"M", "dW      (1024x1536)^T @ 1024x384", true, false, 1536, 384, 1024},
    {"M", "att     256x64 @ (256x64)^T", false, true, 256, 256, 64},
    // config S2S (seq2seq_bench): B*S = B*T = 512 rows, C = 128, d_ff 512, V = 259 (256 bytes + BOS,
    // EOS, PAD); the projections that differ from S's: out/cross q (C x C), cross K/V (C x 2C),
    // and the logits, whose 259 columns leave a ragged last panel
    {"S2S", "proj    512x128 @ 128x128", false, false, 512, 128, 128},
    {"S2S", "kv      512x128 @ 128x256", false, false, 512, 256, 128},
    {"S2S", "qkv     512x128 @ 128x384", false, false, 512, 384, 128},
    {"S2S", "fc1     512x128 @ 128x512", false, false, 512, 512, 128},
    {"S2S", "fc2     512x512 @ 512x128", false, false, 512, 128, 512},
    {"S2S", "logits  512x128 @ 128x259", false, false, 512, 259, 128},
    {"S2S", "dinp    512x128 @ (128x128)^T", false, true, 512, 128, 128},
    {"S2S", "dW      (512x128)^T @ 512x128", true, false, 128, 128, 512},
    {"S2S", "dinp    512x259 @ (128x259)^T", false, true, 512, 128, 259},
    {"S2S", "dW      (512x128)^T @ 512x259", true, false, 128, 259, 512},
    {"S2S", "dW      (512x512)^T @ 512x128", true, false, 512, 128, 512},
    // lstm-S (E 64, H 256, 4H = 1024 gate rows): input projections and weight gradients
    {"lstm", "xg      768x64 @ (1024x64)^T", false, true, 768, 1024, 64},
    {"lstm", "xg      768x256 @ (1024x256)^T", false, true, 768, 1024, 256},
    {"lstm", "dW_hh   (768x1024)^T @ 768x256", true, false, 1024, 256, 768},
    {"lstm", "dx      768x1024 @ 1024x256", false, false, 768, 256, 1024},
};

// ---- the recurrent step kernels -----------------------------------------------------------------

struct RnnShape {
  const char* what;
  bool backward;
  int cell, B, T, H;
};
const RnnShape kRnnShapes[] = {
    {"lstm fwd  12x64 steps, 4x256x256", false, 2, 12, 64, 256},
    {"lstm bwd  12x64 steps, 4x256x256", true, 2, 12, 64, 256},
    {"gru fwd   12x64 steps, 3x288x288", false, 1, 12, 64, 288},
    {"rnn fwd   12x64 steps, 512x512", false, 0, 12, 64, 512},
};

// GFLOP/s of the products with W_hh: 2 B T G H H per call.
double rnn_gflops(const RnnShape& s, double min_seconds) {
  const int G = s.cell == 0 ? 1 : s.cell == 1 ? 3 : 4, GH = G * s.H;
  const size_t N = size_t(s.B) * s.T;
  data::Rng rng(3);
  auto fill = [&](std::vector<float>& v, size_t n, float scale) {
    v.resize(n);
    for (float& x : v) x = float(rng.normal()) * scale;
  };
  std::vector<float> xg, w, b, h(N * s.H), c(N * s.H), gates(N * 4 * s.H), dh, dgx(N * GH), dgh(N * GH);
  fill(xg, N * GH, 0.5f);
  fill(w, size_t(GH) * s.H, 0.05f);
  fill(b, size_t(GH), 0.1f);
  fill(dh, N * s.H, 1.0f);
  auto forward = [&] {
    kernels::rnn_forward(h.data(), s.cell == 2 ? c.data() : nullptr, s.cell ? gates.data() : nullptr, xg.data(), w.data(),
                         b.data(), nullptr, nullptr, s.cell, s.B, s.T, s.H);
  };
  auto run = [&] {
    if (!s.backward) return forward();
    kernels::rnn_backward(dgx.data(), s.cell == 1 ? dgh.data() : nullptr, nullptr, nullptr, dh.data(), nullptr, h.data(),
                          s.cell == 2 ? c.data() : nullptr, s.cell ? gates.data() : nullptr, w.data(), nullptr, nullptr,
                          s.cell, s.B, s.T, s.H);
  };
  forward();
  const double best = best_seconds(run, min_seconds, 9);
  return 2.0 * double(N) * GH * s.H / best / 1e9;
}

double gemm_gflops(const Shape& s, bool reference, double min_seconds) {
  const int lda = s.transA ? s.M : s.K, ldb = s.transB ? s.K : s.N;
  data::Rng rng(1);
  std::vector<float> A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N, 0.0f);
  for (float& x : A) x = float(rng.normal());
  for (float& x : B) x = float(rng.normal());
  auto run = [&] {
    if (reference)
      kernels::ref::sgemm(s.transA, s.transB, s.M, s.N, s.K, A.data(), lda, B.data(), ldb, C.data(), s.N, false);
    else
      kernels::sgemm(s.transA, s.transB, s.M, s.N, s.K, A.data(), lda, B.data(), ldb, C.data(), s.N, false);
  };
  const double best = best_seconds(run, min_seconds, 15);
  return 2.0 * s.M * s.N * s.K / best / 1e9;
}

// ---- attention -------------------------------------------------------------------------------
// The translator's attention (mha_forward / mha_backward at S2S's shape: batch 16, 32 positions,
// 4 heads of 32) and the GPT's (attention_forward / attention_backward at S's: batch 12, 64
// positions, 4 heads of 32), in GFLOP/s of their products: 4 B Tq Tk C forward (scores and
// weighted values), 8 B Tq Tk C backward, causal rows counted whole (as seq2seq_bench counts them).
struct AttentionBench {
  const char* what;
  bool gpt, backward, causal, cross;  // cross: q (B, T, C) and kv (B, T, 2C) apart, keys padded
  int B, T, C, NH;
};
const AttentionBench kAttention[] = {
    {"s2s self  causal fwd, 16x32, 4x32", false, false, true, false, 16, 32, 128, 4},
    {"s2s self  causal bwd, 16x32, 4x32", false, true, true, false, 16, 32, 128, 4},
    {"s2s cross padded fwd, 16x32, 4x32", false, false, false, true, 16, 32, 128, 4},
    {"s2s cross padded bwd, 16x32, 4x32", false, true, false, true, 16, 32, 128, 4},
    {"S   gpt   causal fwd, 12x64, 4x32", true, false, true, false, 12, 64, 128, 4},
    {"S   gpt   causal bwd, 12x64, 4x32", true, true, true, false, 12, 64, 128, 4},
};

double attention_gflops(const AttentionBench& a, double min_seconds) {
  const int B = a.B, T = a.T, C = a.C;
  data::Rng rng(5);
  auto fill = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = float(rng.normal());
    return v;
  };
  const std::vector<float> qkv = fill(size_t(B) * T * 3 * C), dout = fill(size_t(B) * T * C);
  std::vector<float> out(size_t(B) * T * C), att(size_t(B) * a.NH * T * T), dqkv(qkv.size());
  std::vector<uint8_t> pad(size_t(B) * T, 0);  // cross: batch element b ends in b % 8 padding keys
  if (a.cross)
    for (int b = 0; b < B; b++)
      for (int t = T - b % 8; t < T; t++) pad[size_t(b) * T + t] = 1;
  kernels::AttentionShape s;
  s.B = B, s.Tq = T, s.Tk = T, s.C = C, s.NH = a.NH, s.causal = a.causal;
  // self: q, k, v side by side in (B, T, 3C); cross: q in the first C columns, k and v in the next 2C
  s.q_row = s.kv_row = 3 * C;
  s.q_batch = s.kv_batch = int64_t(T) * 3 * C;
  const float *q = qkv.data(), *k = q + C, *v = q + 2 * C;
  float *dq = dqkv.data(), *dk = dq + C, *dv = dq + 2 * C;
  const uint8_t* key_pad = a.cross ? pad.data() : nullptr;
  auto forward = [&] {
    if (a.gpt) kernels::attention_forward(out.data(), att.data(), qkv.data(), B, T, C, a.NH);
    else kernels::mha_forward(out.data(), att.data(), q, k, v, key_pad, s);
  };
  auto run = [&] {
    if (!a.backward) return forward();
    // written, as a training step's backward does (ops.cpp: the first contribution to dqkv)
    if (a.gpt) kernels::attention_backward(dqkv.data(), dout.data(), qkv.data(), att.data(), B, T, C, a.NH, false);
    else kernels::mha_backward(dq, dk, dv, dout.data(), q, k, v, att.data(), key_pad, s, false);
  };
  forward();
  const double best = best_seconds(run, min_seconds, 9);
  return (a.backward ? 8.0 : 4.0) * B * T * T * C / best / 1e9;
}

// ---- KV-cached decoding of config M -----------------------------------------------------------

struct DecodeResult {
  double tok_s = 0;           // tokens per second through one whole context
  double bytes_per_token = 0; // average bytes a token must read (weights + cache)
};

DecodeResult decode_m() {
  const Config c = preset_config("M");
  model::TinyGPT m(c);
  model::KVCache cache;
  const int T = c.block_size;
  const int64_t C = c.n_embd, L = c.n_layer, V = model::kVocab;
  // Weights a token reads: every layer's matrices and vectors, the final LayerNorm and the head,
  // one row each of the token and position tables.
  const int64_t weights = L * (12 * C * C + 13 * C) + 2 * C + C * V + V + 2 * C;
  // Cached keys and values read by the token at position p: 2 L (p + 1) C; averaged over p < T.
  const double cache_avg = 2.0 * L * C * (T + 1) / 2.0;
  std::vector<int32_t> tokens(static_cast<size_t>(T));
  for (int i = 0; i < T; i++) tokens[size_t(i)] = int32_t((i * 37 + 11) % V);
  // Each position's best time over several passes through the context (the first pass warms
  // up): a pass takes a third of a second, long enough for other programs to preempt it, a
  // single token is not.
  std::vector<double> best(static_cast<size_t>(T), 1e30);
  for (int r = 0; r < 7; r++) {
    m.reset_cache(cache);
    for (int i = 0; i < T; i++) {
      const auto t0 = Clock::now();
      m.decode(cache, &tokens[size_t(i)], 1);
      if (r > 0) best[size_t(i)] = std::min(best[size_t(i)], seconds_since(t0));
    }
  }
  double total = 0;
  for (double b : best) total += b;
  return {T / total, (double(weights) + cache_avg) * sizeof(float)};
}

// Each backend's one-thread peak: "backends":[{"name":..,"peak_gflops":..},...] (JSON), or a line each.
void json_peaks(const std::vector<std::string>& backends, const std::vector<double>& peaks) {
  std::printf("\"backends\":[");
  for (size_t k = 0; k < backends.size(); k++)
    std::printf("%s{\"name\":\"%s\",\"peak_gflops\":%.2f}", k ? "," : "", backends[k].c_str(), peaks[k]);
  std::printf("]");
}
void print_peaks(const std::vector<std::string>& backends, const std::vector<double>& peaks) {
  for (size_t k = 0; k < backends.size(); k++)
    std::printf("peak %-8s (1 thread, independent %s chains): %.1f GFLOP/s\n", backends[k].c_str(),
                peak_kind(backends[k]), peaks[k]);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  bool json = false, quick = false, gemm = true, only_cross_core = false, only_peak = false;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--json")) json = true;
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--cpu-time")) g_cpu_time = true;
    if (!std::strcmp(argv[i], "--no-gemm")) gemm = false;
    if (!std::strcmp(argv[i], "--cross-core")) only_cross_core = true;
    if (!std::strcmp(argv[i], "--peak")) only_peak = true;
  }
  if (only_peak) {  // the peaks alone (~0.1 s each): benchmarks that read them again around each timed part
    const std::vector<std::string> backends = split(kernels::available_backends());
    std::vector<double> peaks;
    for (const std::string& b : backends) peaks.push_back(peak_for(b));
    if (json) {
      std::printf("{");
      json_peaks(backends, peaks);
      std::printf("}\n");
    } else {
      print_peaks(backends, peaks);
    }
    return 0;
  }
  if (only_cross_core) {
    const CrossCore c = cross_core();
    if (json) {
      json_cross_core(c);
      std::printf("\n");
    } else if (c.measured) {
      print_cross_core(c);
    } else {
      std::printf("cross-core: not measured (one hardware thread, or a build without threads)\n");
    }
    return 0;
  }
  if (g_cpu_time && threads != 1) {
    std::fprintf(stderr, "kernels_bench: --cpu-time measures one thread only\n");
    return 2;
  }
  tp::set_num_threads(threads);
  const double min_seconds = quick ? 0.02 : 0.1;
  const std::vector<std::string> backends = split(kernels::available_backends());
  const std::string best_backend = kernels::simd_backend();
  std::vector<double> peaks;
  for (const std::string& b : backends) peaks.push_back(peak_for(b));
  const size_t n_shapes = gemm ? std::size(kShapes) : 0;
  std::vector<double> ref(n_shapes);
  std::vector<std::vector<double>> gf(n_shapes, std::vector<double>(backends.size()));
  for (size_t i = 0; i < n_shapes; i++) {
    const Shape& s = kShapes[i];
    // the scalar reference is slow: time it on the small shapes only
    ref[i] = int64_t(s.M) * s.N * s.K <= (int64_t(1) << 26) ? gemm_gflops(s, true, 0.0) : 0.0;
    for (size_t k = 0; k < backends.size(); k++) {
      kernels::use_backend(backends[k]);
      gf[i][k] = gemm_gflops(s, false, min_seconds);
    }
  }
  // table[i][k]: f(i), row i of a table, with backend k
  auto per_backend = [&](size_t rows, auto&& f) {
    std::vector<std::vector<double>> table(rows, std::vector<double>(backends.size()));
    for (size_t i = 0; i < rows; i++)
      for (size_t k = 0; k < backends.size(); k++) {
        kernels::use_backend(backends[k]);
        table[i][k] = f(i);
      }
    return table;
  };
  const size_t n_rnn = gemm ? std::size(kRnnShapes) : 0, n_att = gemm ? std::size(kAttention) : 0;
  const auto rnn = per_backend(n_rnn, [&](size_t i) { return rnn_gflops(kRnnShapes[i], min_seconds); });
  const auto attn = per_backend(n_att, [&](size_t i) { return attention_gflops(kAttention[i], min_seconds); });
  kernels::use_backend(best_backend);
  // Bandwidth of this many threads, and of one thread, streaming a buffer far larger than the
  // caches; then over a buffer as large as what one decoded token reads (part of it may stay in
  // the L3 cache between passes, as part of the weights may between tokens): the bound.
  std::vector<float> big(size_t(quick ? 32 : 128) << 20 >> 2, 1.0f);  // 32 or 128 MiB
  const double bw = read_bandwidth_gbs(big);
  tp::set_num_threads(1);
  const double bw1 = read_bandwidth_gbs(big);
  tp::set_num_threads(threads);
  big = std::vector<float>();
  const DecodeResult dec = decode_m();
  std::vector<float> token_bytes(size_t(dec.bytes_per_token / sizeof(float)), 1.0f);
  const double bw_token = read_bandwidth_gbs(token_bytes);
  token_bytes = std::vector<float>();
  // The bound: memory bandwidth (streaming far more than the caches hold) / bytes per token.
  // Part of M's weights stays in the L3 cache from one token to the next, so decoding can beat
  // it; the second figure reads a buffer of one token's bytes over and over, which keeps as much
  // in L3 as it can: an upper reference rather than a bound.
  const double bound = bw * 1e9 / dec.bytes_per_token;
  const double bound_cached = bw_token * 1e9 / dec.bytes_per_token;
  const CrossCore cross = cross_core();

  if (json) {
    std::printf("{\"threads\":%d,\"backend\":\"%s\",", threads, best_backend.c_str());
    json_peaks(backends, peaks);
    std::printf(",\"gemm\":[");
    for (size_t i = 0; i < n_shapes; i++) {
      std::printf("%s{\"config\":\"%s\",\"shape\":\"%s\",\"scalar\":%.2f", i ? "," : "", kShapes[i].config,
                  kShapes[i].what, ref[i]);
      for (size_t k = 0; k < backends.size(); k++) std::printf(",\"%s\":%.2f", backends[k].c_str(), gf[i][k]);
      std::printf("}");
    }
    // rows of {"shape": name(i), backend: GFLOP/s, ...}
    auto json_rows = [&](const std::vector<std::vector<double>>& table, auto&& name) {
      for (size_t i = 0; i < table.size(); i++) {
        std::printf("%s{\"shape\":\"%s\"", i ? "," : "", name(i));
        for (size_t k = 0; k < backends.size(); k++) std::printf(",\"%s\":%.2f", backends[k].c_str(), table[i][k]);
        std::printf("}");
      }
    };
    std::printf("],\"rnn\":[");
    json_rows(rnn, [](size_t i) { return kRnnShapes[i].what; });
    std::printf("],\"attention\":[");
    json_rows(attn, [](size_t i) { return kAttention[i].what; });
    std::printf("],\"bandwidth_gbs\":%.2f,\"bandwidth_1thread_gbs\":%.2f,\"bandwidth_token_gbs\":%.2f,", bw, bw1,
                bw_token);
    std::printf("\"decode_m\":{\"tok_s\":%.1f,\"bytes_per_token\":%.0f,\"bound_tok_s\":%.1f,\"cached_reference_tok_s\":%.1f},",
                dec.tok_s, dec.bytes_per_token, bound, bound_cached);
    std::printf("\"cross_core\":");
    json_cross_core(cross);
    std::printf("}\n");
    return 0;
  }
  std::printf("kernels_bench: %d thread(s), %s kernels by default\n", threads, best_backend.c_str());
  print_peaks(backends, peaks);
  if (n_shapes > 0) {
    std::printf("\n%-36s %8s", "GEMM shape (GFLOP/s, % of peak)", "scalar");
    for (const std::string& b : backends) std::printf(" %15s", b.c_str());
    std::printf("\n");
  }
  for (size_t i = 0; i < n_shapes; i++) {
    std::printf("%s %-34s", kShapes[i].config, kShapes[i].what);
    if (ref[i] > 0) std::printf(" %8.1f", ref[i]);
    else std::printf(" %8s", "-");
    for (size_t k = 0; k < backends.size(); k++)
      std::printf(" %7.1f (%4.0f%%)", gf[i][k], 100.0 * gf[i][k] / (peaks[k] * threads));
    std::printf("\n");
  }
  if (n_shapes > 0) std::printf("(%% of peak: of the backend's one-thread peak x %d thread(s))\n", threads);
  // a table of GFLOP/s per backend, with % of each backend's peak; name(i) labels row i
  auto print_table = [&](const char* title, const std::vector<std::vector<double>>& table, auto&& name) {
    if (!table.empty()) std::printf("\n%-45s\n", title);
    for (size_t i = 0; i < table.size(); i++) {
      std::printf("%-44s", name(i));
      for (size_t k = 0; k < backends.size(); k++)
        std::printf(" %7.1f (%4.0f%%)", table[i][k], 100.0 * table[i][k] / (peaks[k] * threads));
      std::printf("\n");
    }
  };
  print_table("Recurrent step kernels (GFLOP/s of the W_hh products, % of peak)", rnn,
              [](size_t i) { return kRnnShapes[i].what; });
  print_table("Attention kernels (GFLOP/s of their products, % of peak)", attn, [](size_t i) { return kAttention[i].what; });
  std::printf("\nmemory read bandwidth, streaming 128 MiB: %.1f GB/s with %d thread(s), %.1f GB/s with 1\n", bw, threads,
              bw1);
  std::printf("  over %.1f MB (what one decoded token of M reads): %.1f GB/s with %d thread(s)\n",
              dec.bytes_per_token / 1e6, bw_token, threads);
  std::printf("decode M (KV cache, one token at a time through 256 positions): %.0f tok/s, %.1f MB per token\n",
              dec.tok_s, dec.bytes_per_token / 1e6);
  std::printf("  bound = %.1f GB/s / %.1f MB = %.0f tok/s -> %.0f%% of it; a buffer of one token's bytes read over and "
              "over (L3 keeps part of it): %.0f tok/s -> %.0f%%\n",
              bw, dec.bytes_per_token / 1e6, bound, 100.0 * dec.tok_s / bound, bound_cached,
              100.0 * dec.tok_s / bound_cached);
  print_cross_core(cross);
  return 0;
}
