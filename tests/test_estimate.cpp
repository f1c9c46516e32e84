// test_estimate.cpp — text entropies by hand, and the pre-flight measurement's bookkeeping
// (no timed assertions: only how the measured numbers relate to each other).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/estimate.h"

using namespace tinygpt;

namespace {
std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
TextEntropy entropy_of(const std::string& s) { return text_entropy(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
}  // namespace

TEST_CASE("text entropies by hand: unigram and bigram", "[estimate]") {
  SECTION("'aab': p(a) = 2/3, p(b) = 1/3; after 'a' comes 'a' or 'b', one each") {
    const TextEntropy e = entropy_of("aab");
    CHECK(e.unigram == Approx(-(2.0 / 3 * std::log(2.0 / 3) + 1.0 / 3 * std::log(1.0 / 3))));  // 0.6365
    CHECK(e.bigram == Approx(std::log(2.0)));                                                    // 0.6931
    CHECK(e.bytes == 3);
  }
  SECTION("the walkthrough's bytes [2, 1, 3, 0]: four symbols once each, each followed by one byte only") {
    const uint8_t b[4] = {2, 1, 3, 0};
    const TextEntropy e = text_entropy(b, 4);
    CHECK(e.unigram == Approx(std::log(4.0)));
    CHECK(e.bigram == 0.0);
  }
  SECTION("'abab...': one bit per byte unigram, nothing left to guess with the byte before") {
    std::string s;
    for (int i = 0; i < 500; i++) s += "ab";
    const TextEntropy e = entropy_of(s);
    CHECK(e.unigram == Approx(std::log(2.0)));
    CHECK(e.bigram == 0.0);
  }
  SECTION("one repeated byte, and nothing at all") {
    CHECK(entropy_of("aaaa").unigram == 0.0);
    CHECK(entropy_of("aaaa").bigram == 0.0);
    CHECK(text_entropy(nullptr, 0).unigram == 0.0);
  }
  SECTION("the byte before never makes the guess worse: H(X_t | X_t-1) <= H(X)") {
    std::string s;
    for (int i = 0; i < 2000; i++) s += char('a' + (i * 7 + i / 13) % 11);
    const TextEntropy e = entropy_of(s);
    CHECK(e.bigram <= e.unigram + 1e-12);
    CHECK(e.unigram <= std::log(11.0) + 1e-12);
  }
}

TEST_CASE("a pre-flight times real steps of the config and adds up what the run will take", "[estimate]") {
  Config c = preset_config("tiny");
  std::string text;
  for (int i = 0; i < 400; i++) text += "The pre-flight measures a few real steps. ";
  const std::vector<uint8_t> corpus = bytes_of(text);
  const Preflight p = preflight(c, corpus.data(), corpus.size(), 50.0);
  REQUIRE(p.steps_timed >= 1);
  CHECK(p.ms_per_step > 0);
  CHECK(p.first_step_ms > 0);
  // tokens per step are batch x context
  CHECK(p.tokens_per_s == Approx(double(c.batch_size) * c.block_size / (p.ms_per_step / 1000.0)));
  // tiny: 500 steps, a validation loss every 50: at 0, 50, ..., 500
  CHECK(p.evaluations == 11);
  CHECK(p.ms_per_eval > 0);
  CHECK(p.total_s == Approx((500 * p.ms_per_step + 11 * p.ms_per_eval) / 1000.0));
  // weights, gradients, moments, the good state (7 copies), activations, the text
  CHECK(p.parameters == num_parameters(c));
  CHECK(p.memory_bytes > p.parameters * 28 + int64_t(corpus.size()));
  CHECK(p.estimated_bytes == estimate_training_bytes(c));
  const TextEntropy e = text_entropy(corpus.data(), corpus.size());
  CHECK(p.entropy.bigram == e.bigram);
  CHECK(p.entropy.unigram == e.unigram);
  CHECK(p.measured_ms >= p.first_step_ms);
}

TEST_CASE("a pre-flight refuses what the run would refuse, with the same message", "[estimate]") {
  Config c = preset_config("tiny");
  const std::vector<uint8_t> short_text = bytes_of("too short");
  CHECK_THROWS_WITH(preflight(c, short_text.data(), short_text.size()), Catch::Contains("fewer than context + 1 = 33"));
  c.n_head = 3;  // 64 is not divisible by 3
  std::vector<uint8_t> text(1000, 'x');
  CHECK_THROWS_AS(preflight(c, text.data(), text.size()), Error);
}
