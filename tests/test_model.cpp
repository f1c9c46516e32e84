// test_model.cpp — TinyGPT end to end: layout, initial loss, whole-model gradients,
// memorisation, determinism, KV-cache decoding and introspection.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "test_util.h"
#include "tinygpt/io.h"
#include "tinygpt/model.h"
#include "tinygpt/runtime.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;


namespace {

Config small_config(int L = 2, int NH = 2, int C = 16, int T = 8, uint64_t seed = 1) {
  Config c;
  c.n_layer = L, c.n_head = NH, c.n_embd = C, c.block_size = T, c.seed = seed;
  return c;
}

std::vector<uint8_t> shakespeare() {
  static std::vector<uint8_t> bytes = io::read_file(std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt");
  return bytes;
}

std::vector<int32_t> tokens_of(const std::string& s) { return std::vector<int32_t>(s.begin(), s.end()); }

// The losses of the first `steps` steps of a run of config c with this batch size, on Shakespeare.
std::vector<float> first_losses(Config c, int batch_size, int steps) {
  c.batch_size = batch_size;
  c.max_iters = steps;
  c.warmup_iters = 1;
  train::Trainer t(c);
  t.set_corpus(shakespeare());
  std::vector<float> losses;
  for (int i = 0; i < steps; i++) losses.push_back(t.step());
  return losses;
}

}  // namespace

TEST_CASE("the parameter table tiles one contiguous block with GPT-2 names", "[model]") {
  model::TinyGPT m(small_config(3, 2, 8, 5));
  const auto& t = m.param_table();
  REQUIRE(t.size() == 2 + 3 * 12 + 4);
  int64_t offset = 0;
  for (const auto& p : t) {
    CHECK(p.offset == offset);
    CHECK(p.decay == (p.shape.ndim >= 2));
    offset += p.shape.numel();
  }
  CHECK(offset == m.num_parameters());
  CHECK(m.num_parameters() == num_parameters(small_config(3, 2, 8, 5)));
  CHECK(m.param_info("h.2.attn.c_attn.weight").shape == nn::Shape{8, 24});
  CHECK(m.param_info("lm_head.weight").shape == nn::Shape{8, 256});
  CHECK(m.param("wpe").data() == m.params() + m.param_info("wpe").offset);
  CHECK_THROWS_WITH(m.param("nope"), Catch::Contains("no parameter named 'nope'"));
}

TEST_CASE("initialisation follows GPT-2: N(0, 0.02), scaled residual projections, unit gains, zero biases", "[model]") {
  Config c = small_config(4, 4, 64, 16);
  model::TinyGPT m(c);
  auto stats = [&](const std::string& name) {
    nn::Tensor p = m.param(name);
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < p.numel(); i++) {
      s += p.data()[i];
      s2 += double(p.data()[i]) * p.data()[i];
    }
    const double mean = s / p.numel();
    return std::make_pair(mean, std::sqrt(s2 / p.numel() - mean * mean));
  };
  CHECK(stats("wte").second == Approx(0.02).epsilon(0.05));
  CHECK(stats("h.0.mlp.c_fc.weight").second == Approx(0.02).epsilon(0.05));
  CHECK(stats("h.1.attn.c_proj.weight").second == Approx(0.02 / std::sqrt(8.0)).epsilon(0.05));
  CHECK(stats("h.3.mlp.c_proj.weight").second == Approx(0.02 / std::sqrt(8.0)).epsilon(0.05));
  CHECK(stats("h.2.ln_1.weight").first == 1.0);
  CHECK(stats("h.2.ln_1.weight").second == Approx(0.0).margin(1e-12));
  CHECK(stats("lm_head.bias").first == 0.0);
  model::TinyGPT same(c);
  CHECK(std::memcmp(m.params(), same.params(), size_t(m.num_parameters()) * 4) == 0);
}

TEST_CASE("the loss at initialisation is about ln(256) = 5.545", "[model]") {
  Config c = small_config(4, 4, 128, 64, 1337);
  train::Trainer t(c);
  t.set_corpus(shakespeare());
  CHECK(t.evaluate().loss == Approx(std::log(256.0)).margin(0.1));
}

TEST_CASE("the whole model's loss gradient matches finite differences for every parameter tensor",
          "[model][gradcheck]") {
  model::TinyGPT m(small_config(2, 2, 8, 6, 3));
  // larger-than-GPT-2 weights so every path carries signal
  data::Rng rng(5);
  for (int64_t i = 0; i < m.num_parameters(); i++) m.params()[i] += float(rng.normal() * 0.2);
  const int B = 2, T = 6;
  std::vector<int32_t> x = {1, 5, 9, 200, 3, 7, 42, 42, 17, 255, 0, 8};
  std::vector<int32_t> y = {5, 9, 200, 3, 7, 1, 42, 17, 255, 0, 8, 3};
  nn::Arena arena;
  m.zero_grad();
  m.loss(arena, x.data(), y.data(), B, T).backward();
  auto loss_at = [&]() {
    nn::GradMode no_grad(false);
    nn::Arena a;
    return double(m.loss(a, x.data(), y.data(), B, T).item());
  };
  int checked = 0;
  for (const model::ParamInfo& p : m.param_table()) {
    float* w = m.params() + p.offset;
    const float* g = m.grads() + p.offset;
    const int64_t n = p.shape.numel();
    const int64_t stride = std::max<int64_t>(1, n / 12);
    for (int64_t i = 0; i < n; i += stride) {
      const float eps = 1e-2f, saved = w[i];
      w[i] = saved + eps;
      const double plus = loss_at();
      w[i] = saved - eps;
      const double minus = loss_at();
      w[i] = saved;
      const double numeric = (plus - minus) / (2 * double(eps));
      INFO(p.name << "[" << i << "] analytic " << g[i] << " numeric " << numeric);
      CHECK(std::fabs(g[i] - numeric) <= 2e-4 + 2e-2 * std::fabs(numeric));
      checked++;
    }
  }
  CHECK(checked > 200);
}

TEST_CASE("zero_grad leaves the gradient block to the backward: the same gradients as zeroing it first", "[model]") {
  // zero_grad marks each view unset: the weights' first products write their gradients, the other
  // ops zero theirs when they first read them, grads() zeroes the views nothing reached
  model::TinyGPT m(small_config());
  const int B = 2, T = 6;
  std::vector<int32_t> x = {1, 5, 9, 200, 3, 7, 42, 42, 17, 255, 0, 8};
  std::vector<int32_t> y = {5, 9, 200, 3, 7, 1, 42, 17, 255, 0, 8, 3};
  std::vector<int32_t> x2 = {4, 4, 8, 100, 30, 70, 2, 2, 7, 25, 10, 80};
  const size_t P = size_t(m.num_parameters());
  auto backward = [&](const std::vector<int32_t>& in) {
    nn::Arena a;
    m.loss(a, in.data(), y.data(), B, T).backward(nn::Tensor::GradBuffers::recycle);
  };
  backward(x);  // a step's gradients left in the block
  m.zero_grad();
  backward(x2);
  const std::vector<float> lazy(m.grads(), m.grads() + P);
  backward(x);
  std::memset(m.grads(), 0, P * sizeof(float));  // the block zeroed first: every op adds to zeros
  backward(x2);
  const std::vector<float> zeroed(m.grads(), m.grads() + P);
  CHECK(lazy == zeroed);  // ==: a zero of either sign is the same value
  int64_t nonzero = 0;
  for (float g : lazy) nonzero += g != 0.0f;
  CHECK(nonzero > int64_t(P) / 2);
  // a view no op reaches reads zero after zero_grad, not the last step's gradient
  backward(x);
  m.zero_grad();
  for (size_t i = 0; i < P; i++) REQUIRE(m.grads()[i] == 0.0f);
}

TEST_CASE("a tiny corpus is memorised (loss < 0.05)", "[model][train]") {
  // exactly one window of context + 1 bytes: every prediction is determined by its position,
  // so a model that memorises the text can drive the loss to zero
  const std::string text = "To be, or not to be, that is the question.";
  Config c = small_config(2, 2, 32, int(text.size()) - 1, 7);
  c.batch_size = 4;
  c.learning_rate = 1e-2f;
  c.min_lr = 1e-3f;
  c.warmup_iters = 20;
  c.max_iters = 300;
  c.weight_decay = 0.0f;
  train::Trainer t(c);
  t.set_corpus(std::vector<uint8_t>(text.begin(), text.end()));
  for (int i = 0; i < c.max_iters; i++) t.step();
  const float final_loss = t.train_losses().back();
  INFO("loss after " << c.max_iters << " steps: " << final_loss << " (start " << t.train_losses().front() << ")");
  CHECK(t.train_losses().front() > 5.0f);
  CHECK(final_loss < 0.05f);
  // and greedy generation from the first byte reproduces the text
  sample::Options greedy;
  greedy.temperature = 0.0f;
  std::string out = "T";
  for (const sample::Token& tok : t.generate("T", int(text.size()) - 1, greedy)) out += char(tok.id);
  CHECK(out == text);
}

TEST_CASE("the same seed gives bit-identical losses, another seed does not", "[model][train]") {
  auto run = [](uint64_t seed) { return first_losses(small_config(2, 2, 16, 16, seed), 4, 6); };
  const std::vector<float> a = run(11), b = run(11), c = run(12);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
  CHECK(a != c);
}

TEST_CASE("two threads train to the same losses as one thread", "[model][threads]") {
  // bit-identical by construction
  testutil::require_thread_independent([] { return first_losses(small_config(2, 4, 32, 32, 9), 6, 5); }, 2);
}

TEST_CASE("KV-cache decoding gives the full forward pass's logits at every position", "[model][sample]") {
  model::TinyGPT m(small_config(2, 2, 16, 12, 4));
  data::Rng rng(2);
  for (int64_t i = 0; i < m.num_parameters(); i++) m.params()[i] += float(rng.normal() * 0.1);
  const std::vector<int32_t> toks = tokens_of("Hello, world");  // 12 bytes = block_size
  nn::Arena arena;
  nn::GradMode no_grad(false);
  nn::Tensor full = m.forward_logits(arena, toks.data(), 1, 12);  // (1, 12, V)

  model::KVCache cache;
  m.reset_cache(cache);
  // prefill 5 tokens at once, then one at a time
  const float* logits = m.decode(cache, toks.data(), 5);
  for (int v = 0; v < 256; v++) CHECK(logits[v] == Approx(full.data()[4 * 256 + v]).margin(1e-4));
  for (int t = 5; t < 12; t++) {
    logits = m.decode(cache, &toks[size_t(t)], 1);
    double max_err = 0;
    for (int v = 0; v < 256; v++) max_err = std::max(max_err, double(std::fabs(logits[v] - full.data()[t * 256 + v])));
    INFO("position " << t);
    CHECK(max_err < 1e-4);
  }
  CHECK(cache.length == 12);
  CHECK_THROWS_WITH(m.decode(cache, toks.data(), 1), Catch::Contains("do not fit"));
}

TEST_CASE("generation past the context keeps using the last block_size bytes", "[model][sample]") {
  model::TinyGPT m(small_config(2, 2, 16, 8, 4));
  sample::Options o;
  o.temperature = 0.0f;  // greedy: the output is a function of the logits alone
  for (int keep : {8, 0, 4, 1}) {  // 8 = the exact window, 0 = the default (half: 4)
    o.window_keep = keep;
    sample::Generator gen(m, o);
    const std::string prompt = "abcdefghij";  // longer than the context of 8
    gen.set_prompt(prompt);
    std::vector<int32_t> history = tokens_of(prompt);
    std::vector<int32_t> window(history.end() - 8, history.end());
    for (int step = 0; step < 20; step++) {
      // reference: a full forward pass over the window the generator should be using
      nn::GradMode no_grad(false);
      nn::Arena arena;
      nn::Tensor logits = m.forward_logits(arena, window.data(), 1, int(window.size()));
      const float* last = logits.data() + (window.size() - 1) * 256;
      const int expected = int(std::max_element(last, last + 256) - last);
      const sample::Token tok = gen.next();
      INFO("keep " << keep << " step " << step);
      REQUIRE(tok.id == expected);
      // the generator's window: the last 8 bytes, or after a rebuild the last `keep` bytes growing back to 8
      const int k = keep == 0 ? 4 : keep;
      window.push_back(uint8_t(tok.id));
      if (int(window.size()) > 8) window.erase(window.begin(), window.end() - k);
    }
  }
}

TEST_CASE("inspection returns causal attention rows that sum to one and next-byte distributions", "[model]") {
  train::Trainer t(small_config(3, 2, 16, 10, 8));
  const std::string text = "the quick brown fox";  // 19 bytes: the last 10 are used
  train::Inspection r = t.inspect(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  REQUIRE(r.T == 10);
  REQUIRE(r.L == 3);
  REQUIRE(r.NH == 2);
  REQUIRE(r.attention.size() == size_t(3 * 2 * 10 * 10));
  for (int lh = 0; lh < 6; lh++)
    for (int i = 0; i < 10; i++) {
      double s = 0;
      for (int j = 0; j < 10; j++) {
        const float p = r.attention[size_t((lh * 10 + i) * 10 + j)];
        if (j > i) CHECK(p == 0.0f);
        s += p;
      }
      CHECK(s == Approx(1.0).margin(1e-5));
    }
  for (int i = 0; i < 10; i++) {
    double s = 0;
    for (int v = 0; v < 256; v++) s += r.probs[size_t(i * 256 + v)];
    CHECK(s == Approx(1.0).margin(1e-4));
  }
}
