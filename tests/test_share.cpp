// test_share.cpp — runs as links (share.h): the round trip, the messages for a bad link, the text
// check, and a replay that reproduces a run's first losses bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"
#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/share.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

namespace {

std::vector<uint8_t> text() { return testutil::numbered_lines("Share the run, and the run is the same", 60); }

Config small() {
  Config c = preset_config("tiny");
  c.n_layer = 1;
  c.n_embd = 32;
  c.block_size = 16;
  c.batch_size = 4;
  c.learning_rate = 3e-3f;
  c.max_iters = 60;
  c.warmup_iters = 5;
  c.seed = 42;
  return c;
}

std::vector<float> train_losses(const Config& c, int steps) {
  train::Trainer t(c);
  t.set_corpus(text());
  for (int i = 0; i < steps; i++) t.step();
  return t.train_losses();
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

}  // namespace

TEST_CASE("a run link carries the config, variant, text and losses, and gives them back exactly", "[share]") {
  share::Link a;
  a.config = small();
  a.variant = "wasm-simd128";
  a.corpus.fingerprint = 0x0123456789abcdefull;
  a.corpus.size = 4242;
  a.corpus.name = "my notes (2).txt";
  a.losses = {5.5451774f, 4.25f, 3.1415927f, 1e-7f};
  const std::string url = share::make_link(a, "https://example.org/tinygpt/?variant=simd#old");
  CHECK(url.rfind("https://example.org/tinygpt/?variant=simd#tinygpt=1&model=gpt&n_layer=1&", 0) == 0);
  CHECK_THAT(url, Catch::Contains("&learning_rate=0.003&"));  // the shortest decimal of the float
  CHECK_THAT(url, Catch::Contains("&seed=42&"));
  CHECK_THAT(url, Catch::Contains("&corpus=fnv:0123456789abcdef:4242&name=my%20notes%20%282%29.txt"));
  CHECK_THAT(url, !Catch::Contains("n_enc_layer"));  // seq2seq fields stay out of a gpt link
  const share::Link b = share::parse_link(url);
  CHECK(b.config == a.config);
  CHECK(b.variant == a.variant);
  CHECK(b.corpus.fingerprint == a.corpus.fingerprint);
  CHECK(b.corpus.size == a.corpus.size);
  CHECK(b.corpus.name == a.corpus.name);
  REQUIRE(b.losses.size() == a.losses.size());
  for (size_t i = 0; i < a.losses.size(); i++) CHECK(same_bits(a.losses[i], b.losses[i]));

  SECTION("a built-in text by name; the fragment alone parses too; at most 50 losses travel") {
    a.corpus = {};
    a.corpus.builtin = "tinyshakespeare.txt";
    a.losses.assign(80, 2.5f);
    const std::string u = share::make_link(a, "");
    const share::Link c = share::parse_link(u.substr(u.find('#') + 1));
    CHECK(c.corpus.builtin == "tinyshakespeare.txt");
    CHECK(c.losses.size() == share::kMaxLosses);
  }
}

TEST_CASE("a bad link is refused with a message that says what is wrong", "[share]") {
  share::Link good;
  good.config = small();
  good.variant = "native-avx2";
  good.corpus.builtin = "tinyshakespeare.txt";
  good.losses = {1.0f};
  const std::string ok = share::make_link(good, "x");
  auto refused = [](const std::string& url) {
    try {
      share::parse_link(url);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK_THAT(refused("https://example.org/#foo=1"), Catch::Contains("not a tinygpt run link"));
  CHECK_THAT(refused("#tinygpt=2&corpus=builtin:x"), Catch::Contains("version 2"));
  CHECK_THAT(refused("#tinygpt=1&n_layers=2&corpus=builtin:x"), Catch::Contains("unknown config field 'n_layers'"));
  CHECK_THAT(refused("#tinygpt=1&seed=1&seed=2&corpus=builtin:x"), Catch::Contains("gives 'seed' twice"));
  CHECK_THAT(refused("#tinygpt=1&n_layer=2"), Catch::Contains("which text"));
  CHECK_THAT(refused("#tinygpt=1&corpus=fnv:123:9"), Catch::Contains("fnv:<16 hex digits>:<size>"));
  CHECK_THAT(refused("#tinygpt=1&corpus=builtin:x&n_layer=0"), Catch::Contains("n_layer"));
  CHECK_THAT(refused("#tinygpt=1&corpus=builtin:x&n_head=3"), Catch::Contains("not valid") && Catch::Contains("divisible"));
  CHECK_THAT(refused("#tinygpt=1&corpus=builtin:x&d_ff=64"), Catch::Contains("a gpt model does not have"));
  CHECK_THAT(refused("#tinygpt=1&corpus=builtin:x&losses=abc*"), Catch::Contains("not base64url"));
  CHECK_THAT(refused(ok + "&colour=blue"), Catch::Contains("unknown config field 'colour'"));
}

TEST_CASE("the link's text is checked by name, or by fingerprint and size", "[share]") {
  const std::vector<uint8_t> t = text();
  share::Link own{small(), "native-avx2", {"", data::fingerprint(t.data(), t.size()), t.size(), "notes.txt"}, {}};
  CHECK(share::check_corpus(own, data::fingerprint(t.data(), t.size()), t.size()).empty());
  std::vector<uint8_t> other = t;
  other[10] ^= 1;
  CHECK_THAT(share::check_corpus(own, data::fingerprint(other.data(), other.size()), other.size()), Catch::Contains("same size as notes.txt but other bytes"));
  CHECK_THAT(share::check_corpus(own, data::fingerprint(t.data(), t.size() - 1), t.size() - 1), Catch::Contains("trained on notes.txt of " + std::to_string(t.size()) + " bytes"));
  share::Link builtin{small(), "", {"tinyshakespeare.txt", 0, 0, ""}, {}};
  CHECK(share::check_corpus(builtin, 0, 0, "tinyshakespeare.txt").empty());
  CHECK_THAT(share::check_corpus(builtin, data::fingerprint(t.data(), t.size()), t.size()), Catch::Contains("the built-in text tinyshakespeare.txt"));
}

TEST_CASE("a shared run replays to the same losses, bit for bit, on the same build variant", "[share]") {
  const Config c = small();
  const std::vector<float> first = train_losses(c, 50);
  const std::vector<uint8_t> t = text();
  share::Link made{c, share::build_variant(), {"", data::fingerprint(t.data(), t.size()), t.size(), ""}, first};
  const share::Link link = share::parse_link(share::make_link(made, "https://example.org/"));
  REQUIRE(share::check_corpus(link, data::fingerprint(t.data(), t.size()), t.size()).empty());
  const std::vector<float> again = train_losses(link.config, 50);
  share::Replay r = share::check_replay(link, again.data(), 20, share::build_variant());
  CHECK(r.status == share::Replay::pending);
  CHECK(!r.final);
  CHECK(r.message == "matches the shared run so far (step 20 of 50)");
  r = share::check_replay(link, again.data(), again.size(), share::build_variant());
  CHECK(r.status == share::Replay::matches);
  CHECK(r.final);
  CHECK(r.message == "matches the shared run at step 50: the first 50 losses are identical, bit for bit");

  SECTION("another seed differs at step 1; another variant is named in the message") {
    Config other = c;
    other.seed = 43;
    const std::vector<float> o = train_losses(other, 3);
    r = share::check_replay(link, o.data(), o.size(), "wasm-scalar");
    CHECK(r.status == share::Replay::diverged);
    CHECK(r.diverged_at == 1);
    CHECK(!r.same_variant);
    CHECK_THAT(r.message, Catch::StartsWith("differs from the shared run at step 1: loss ") &&
                              Catch::Contains("; over the first 3 steps the losses differ by at most ") &&
                              Catch::Contains("runs are bit-identical only on the same build variant"));
    CHECK(r.max_difference > 1e-3);  // another run: not a rounding difference
  }
  SECTION("the same run on other kernels (every loss a few units in the last place off): how close it is") {
    std::vector<float> near = again;
    for (size_t i = 0; i < near.size(); i++)
      for (size_t k = 0; k < i % 3; k++) near[i] = std::nextafter(near[i], 100.0f);
    r = share::check_replay(link, near.data(), near.size(), "wasm-scalar");
    CHECK(r.status == share::Replay::diverged);
    CHECK(r.diverged_at == 2);  // steps 2, 3, 5, 6, ... moved by one or two units; step 1 did not
    CHECK(r.max_difference > 0.0);
    CHECK(r.max_difference < 1e-5);
    CHECK_THAT(r.message, Catch::Contains("over the first 50 steps the losses differ by at most"));
  }
  SECTION("on the same variant, a difference is only where it is: no summary of how close") {
    std::vector<float> changed = again;
    changed[19] = std::nextafter(changed[19], 100.0f);
    r = share::check_replay(link, changed.data(), changed.size(), share::build_variant());
    CHECK(r.diverged_at == 20);
    CHECK(r.max_difference == Approx(double(changed[19]) - double(again[19])));
    CHECK_THAT(r.message, !Catch::Contains("at most"));
  }
}

// The rule the page and the CLI both follow (share::Replay::final): report a replay once its verdict is the
// answer, and never before.
TEST_CASE("a replay's verdict is final when it matches, or diverged on the same variant, or on another after all the link's steps", "[share]") {
  share::Link link{small(), "native-avx2", {"tinyshakespeare.txt", 0, 0, ""}, {2.0f, 1.9f, 1.8f, 1.7f}};
  const std::vector<float> same = link.losses;
  std::vector<float> off = link.losses;
  off[1] = std::nextafter(off[1], 100.0f);
  auto check = [&](const std::vector<float>& run, size_t n, const char* variant) { return share::check_replay(link, run.data(), n, variant); };

  SECTION("the same variant") {
    CHECK(!check(same, 0, "native-avx2").final);  // nothing compared yet
    CHECK(!check(same, 2, "native-avx2").final);  // matches so far: pending
    CHECK(check(same, 4, "native-avx2").final);   // matches all the link's steps
    CHECK(check(same, 9, "native-avx2").final);   // ... and more
    const share::Replay d = check(off, 2, "native-avx2");
    CHECK(d.status == share::Replay::diverged);
    CHECK(d.final);  // a bit difference on the same kernels is the answer at once
  }
  SECTION("another variant: a difference waits for all the link's steps, a match does not") {
    const share::Replay early = check(off, 2, "wasm-scalar");
    CHECK(early.status == share::Replay::diverged);
    CHECK(!early.final);
    const share::Replay all = check(off, 4, "wasm-scalar");
    CHECK(all.status == share::Replay::diverged);
    CHECK(all.final);
    CHECK(!check(same, 3, "wasm-scalar").final);
    CHECK(check(same, 4, "wasm-scalar").final);
  }
  SECTION("a link without a variant is treated as the same variant; one without losses matches at once") {
    link.variant = "";
    CHECK(check(off, 2, "wasm-scalar").final);
    link.losses.clear();
    const share::Replay none = check(same, 0, "wasm-scalar");
    CHECK(none.status == share::Replay::matches);
    CHECK(none.final);
  }
}
