// test_util.h — helpers shared by the Catch2 tests: heap-allocation counting, random
// tensors, the finite-difference gradient check, and a temporary directory.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tinygpt/ops.h"
#include "tinygpt/rng.h"
#include "tinygpt/runtime.h"
#include "tinygpt/tensor.h"

using namespace tinygpt;

namespace testutil {

extern std::atomic<long> g_allocations;  // every operator new in the test binary (test_main.cpp)

inline long allocations() { return g_allocations.load(); }

// The thread counts a test compares with one thread: 2 .. `usual`, or 2 .. TINYGPT_TEST_THREADS
// where that is set (on a many-core machine: `TINYGPT_TEST_THREADS=16 tinygpt_tests "[threads]"`).
// The kernels split their work differently for every count (the products cut about 8 tasks a
// thread); more threads than cores only oversubscribes. {1} in a build without threads.
inline std::vector<int> thread_counts(int usual) {
  if (tinygpt::max_threads() < 2) return {1};
  int most = usual;
  if (const char* env = std::getenv("TINYGPT_TEST_THREADS"); env && std::atoi(env) >= 2)
    most = std::min(256, std::atoi(env));
  std::vector<int> counts;
  for (int t = 2; t <= most; t++) counts.push_back(t);
  return counts;
}
// Runs compute() with 1 thread and with each of thread_counts(usual), and checks that every run
// gives the same bits; restores the thread count.
template <class F>
void require_thread_independent(F compute, int usual) {
  const int saved = tinygpt::num_threads();
  tinygpt::set_num_threads(1);
  const std::vector<float> one = compute();
  for (int threads : thread_counts(usual)) {
    tinygpt::set_num_threads(threads);
    const std::vector<float> many = compute();
    INFO(threads << " threads");
    REQUIRE(one.size() == many.size());
    CHECK(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)) == 0);
  }
  tinygpt::set_num_threads(saved);
}
// 1, then thread_counts(usual) (for tests that check each count against a reference)
inline std::vector<int> one_and_thread_counts(int usual) {
  std::vector<int> counts = thread_counts(usual);
  if (counts.front() != 1) counts.insert(counts.begin(), 1);
  return counts;
}

// A fresh directory under the system's temporary one, removed at the end of the test. Its name
// holds the process id and the clock too: under Node (Emscripten) getpid() is always 42, and two
// suites run at once must not share a directory.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix) {
    static int n = 0;
    path = std::filesystem::temp_directory_path() /
           (prefix + "-" + std::to_string(::getpid()) + "-" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline std::vector<float> random_vector(size_t n, uint64_t seed, float scale = 1.0f) {
  data::Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = float(rng.normal()) * scale;
  return v;
}

inline nn::Tensor random_tensor(nn::Arena& a, const nn::Shape& s, uint64_t seed, bool requires_grad = true,
                                float scale = 1.0f) {
  return a.from(s, random_vector(size_t(s.numel()), seed, scale), requires_grad);
}

// sum(out * w) as a graph node, built from reshape + matmul: a scalar whose gradient with
// respect to out is w.
inline nn::Tensor weighted_sum(nn::Arena& a, const nn::Tensor& out, const nn::Tensor& w) {
  nn::Tensor row = nn::reshape(a, out, {1, out.numel()});
  nn::Tensor col = nn::reshape(a, w, {w.numel(), 1});
  return nn::reshape(a, nn::matmul(a, row, col), {});
}

// build(arena)'s values, then the gradients of `inputs` for loss = sum(out * dy) (weighted_sum), each
// zeroed first: to compare a fused op with the ops it replaces, forward and backward.
inline std::vector<float> values_and_grads(const std::function<nn::Tensor(nn::Arena&)>& build,
                                           const std::vector<nn::Tensor>& inputs, const nn::Tensor& dy,
                                           nn::Tensor::GradBuffers buffers = nn::Tensor::GradBuffers::keep) {
  for (const nn::Tensor& t : inputs)
    if (t.grad()) std::fill(t.grad(), t.grad() + t.numel(), 0.0f);
  nn::Arena arena;
  nn::Tensor out = build(arena);
  weighted_sum(arena, out, dy).backward(buffers);
  std::vector<float> v(out.data(), out.data() + out.numel());
  for (const nn::Tensor& t : inputs) v.insert(v.end(), t.grad(), t.grad() + t.numel());
  return v;
}

struct GradCheckResult {
  double max_abs_err = 0, max_rel_err = 0;
  int checked = 0, failed = 0;
  std::string worst;
};

// Finite-difference check of every input's gradient for loss = sum(build(arena) * w), w random.
// Up to max_per_input elements of each input are checked (spread over the tensor).
// An element passes when |analytic - numeric| <= atol + rtol * |numeric|.
inline GradCheckResult check_gradients(const std::function<nn::Tensor(nn::Arena&)>& build,
                                       const std::vector<nn::Tensor>& inputs, float eps, double atol, double rtol,
                                       int max_per_input = 40, uint64_t seed = 7) {
  GradCheckResult r;
  nn::Arena arena;
  nn::Tensor out = build(arena);
  std::vector<float> w = random_vector(size_t(out.numel()), seed);
  nn::Tensor wt = arena.from(out.shape(), w, false);
  nn::Tensor loss = weighted_sum(arena, out, wt);
  for (const nn::Tensor& x : inputs)
    if (x.grad()) std::fill(x.grad(), x.grad() + x.numel(), 0.0f);
  loss.backward();

  // loss in double from a graph-free forward pass
  auto eval = [&]() {
    nn::GradMode no_grad(false);
    nn::Arena tmp;
    nn::Tensor o = build(tmp);
    double s = 0.0;
    for (int64_t i = 0; i < o.numel(); i++) s += double(o.data()[i]) * w[size_t(i)];
    return s;
  };
  for (size_t k = 0; k < inputs.size(); k++) {
    const nn::Tensor& x = inputs[k];
    const int64_t n = x.numel();
    const int64_t stride = std::max<int64_t>(1, n / max_per_input);
    for (int64_t i = 0; i < n; i += stride) {
      const float saved = x.data()[i];
      x.data()[i] = saved + eps;
      const double plus = eval();
      x.data()[i] = saved - eps;
      const double minus = eval();
      x.data()[i] = saved;
      const double numeric = (plus - minus) / (2.0 * double(eps));
      const double analytic = x.grad()[i];
      const double err = std::fabs(analytic - numeric);
      const double rel = err / std::max(1e-6, std::fabs(numeric));
      r.checked++;
      r.max_abs_err = std::max(r.max_abs_err, err);
      if (err > 1e-6) r.max_rel_err = std::max(r.max_rel_err, rel);
      if (err > atol + rtol * std::fabs(numeric)) {
        if (r.failed++ == 0) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "input %zu element %lld: analytic %.6g numeric %.6g", k, (long long)i,
                        analytic, numeric);
          r.worst = buf;
        }
      }
    }
  }
  return r;
}

// A check_gradients result in a test: something was checked and nothing failed; the worst element
// and the largest error are printed when it fails. (A macro: Catch2 reports the caller's line.)
#define CHECK_GRADS(result)                                    \
  do {                                                         \
    const auto& r_ = (result);                                 \
    INFO("checked " << r_.checked << ", worst: " << r_.worst); \
    INFO("max abs err " << r_.max_abs_err);                    \
    CHECK(r_.checked > 0);                                     \
    CHECK(r_.failed == 0);                                     \
  } while (0)

// A corpus of n numbered copies of a line ("<line> 0.\n<line> 1.\n..."), for tests that need text.
inline std::vector<uint8_t> numbered_lines(const std::string& line, int n) {
  std::string s;
  for (int i = 0; i < n; i++) s += line + " " + std::to_string(i) + ".\n";
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace testutil
