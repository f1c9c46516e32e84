// test_sample.cpp — temperature, top-k and top-p sampling, and reproducible generation.
#include <catch2/catch.hpp>

#include <cmath>

#include "tinygpt/error.h"
#include "tinygpt/sample.h"

using namespace tinygpt;


namespace {
// logits for 256 bytes: bytes 'a'..'d' carry most of the mass
std::vector<float> peaked_logits() {
  std::vector<float> z(256, -4.0f);
  z['a'] = 3.0f;
  z['b'] = 2.0f;
  z['c'] = 1.0f;
  z['d'] = 0.5f;
  return z;
}

std::vector<double> frequencies(const sample::Options& o, int n) {
  std::vector<float> z = peaked_logits(), scratch(512);
  data::Rng rng(o.seed);
  std::vector<double> f(256, 0.0);
  for (int i = 0; i < n; i++) f[size_t(sample::sample_logits(z.data(), 256, o, rng, scratch.data()))] += 1.0;
  for (double& x : f) x /= n;  // counts / n: exactly 1.0 when one byte takes every draw
  return f;
}

std::vector<double> softmax(const std::vector<float>& z, double temperature) {
  std::vector<double> p(z.size());
  double s = 0;
  for (size_t i = 0; i < z.size(); i++) s += p[i] = std::exp(z[i] / temperature);
  for (double& x : p) x /= s;
  return p;
}
}  // namespace

TEST_CASE("temperature 0 always picks the most likely byte", "[sample]") {
  sample::Options o;
  o.temperature = 0.0f;
  std::vector<double> f = frequencies(o, 100);
  CHECK(f['a'] == 1.0);
}

TEST_CASE("sampling frequencies follow softmax(logits / temperature)", "[sample]") {
  for (float t : {1.0f, 0.5f, 2.0f}) {
    sample::Options o;
    o.temperature = t;
    o.seed = 3;
    std::vector<double> f = frequencies(o, 40000), p = softmax(peaked_logits(), t);
    for (int c : {'a', 'b', 'c', 'd'}) CHECK(f[size_t(c)] == Approx(p[size_t(c)]).margin(0.01));
  }
}

TEST_CASE("top-k keeps only the k most likely bytes, renormalised", "[sample]") {
  sample::Options o;
  o.top_k = 2;
  o.seed = 4;
  std::vector<double> f = frequencies(o, 20000);
  CHECK(f['a'] + f['b'] == Approx(1.0));
  const double e = std::exp(1.0);  // p(a) / p(b) = e
  CHECK(f['a'] == Approx(e / (1 + e)).margin(0.01));
}

TEST_CASE("top-p keeps the smallest set whose probability reaches p", "[sample]") {
  std::vector<double> p = softmax(peaked_logits(), 1.0);
  sample::Options o;
  o.seed = 5;
  o.top_p = float(p['a'] + p['b'] - 0.01);  // needs 'a' and 'b', not 'c'
  std::vector<double> f = frequencies(o, 20000);
  CHECK(f['a'] + f['b'] == Approx(1.0));
  o.top_p = float(p['a'] * 0.5);  // 'a' alone is enough
  CHECK(frequencies(o, 1000)['a'] == 1.0);
}

TEST_CASE("generation is reproducible for a seed and reports the model's probabilities", "[sample]") {
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.seed = 2;
  model::TinyGPT m(c);
  sample::Options o;
  o.seed = 99;
  o.top_k = 50;
  auto a = sample::generate(m, "Once upon", 40, o);
  auto b = sample::generate(m, "Once upon", 40, o);
  o.seed = 100;
  auto d = sample::generate(m, "Once upon", 40, o);
  REQUIRE(a.size() == 40);
  bool all_same = true, any_diff = false;
  for (size_t i = 0; i < a.size(); i++) {
    all_same = all_same && a[i].id == b[i].id && a[i].prob == b[i].prob;
    any_diff = any_diff || a[i].id != d[i].id;
    CHECK(a[i].prob > 0.0f);
    CHECK(a[i].top_probs[0] >= a[i].top_probs[1]);
    CHECK(a[i].top_probs[3] >= a[i].top_probs[4]);
    CHECK(a[i].prob <= a[i].top_probs[0]);
  }
  CHECK(all_same);
  CHECK(any_diff);
}

TEST_CASE("impossible sampling options are rejected", "[sample][errors]") {
  Config c;
  c.n_layer = 1, c.n_head = 1, c.n_embd = 8, c.block_size = 8;
  model::TinyGPT m(c);
  sample::Options o;
  o.temperature = -1;
  CHECK_THROWS_WITH(sample::Generator(m, o), Catch::Contains("temperature"));
  o = {};
  o.top_p = 0;
  CHECK_THROWS_WITH(sample::Generator(m, o), Catch::Contains("top-p"));
  o = {};
  o.top_k = 300;
  CHECK_THROWS_WITH(sample::Generator(m, o), Catch::Contains("top-k"));
  o = {};
  o.window_keep = 9;
  CHECK_THROWS_WITH(sample::Generator(m, o), Catch::Contains("window_keep"));
}
