// test_messages.cpp — the core's coded messages (error.h): a stable code and its args next to the
// English, which the page words in its own language. A few representative ones, one per source.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tinygpt/checkpoint.h"
#include "tinygpt/config.h"
#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/pairs.h"
#include "tinygpt/run.h"
#include "tinygpt/runtime.h"
#include "tinygpt/share.h"
#include "tinygpt/sniff.h"
#include "tinygpt/trainer.h"
#include "test_util.h"

using namespace tinygpt;

namespace {

// The arg called name, or "(none)".
std::string arg(const MessageArgs& args, const std::string& name) {
  for (const auto& [k, v] : args)
    if (k == name) return v;
  return "(none)";
}

// The Error f throws (REQUIREs that it throws one).
template <class F>
Error thrown_by(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no tinygpt::Error thrown");
  return Error("");
}

Config tiny() {
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.batch_size = 2;
  c.max_iters = 300, c.warmup_iters = 2, c.eval_interval = 0, c.eval_iters = 1;
  return c;
}

}  // namespace

TEST_CASE("the list of message codes has no duplicate, and coded() refuses a code not in it", "[messages]") {
  const auto& codes = message_codes();
  CHECK(std::set<std::string_view>(codes.begin(), codes.end()).size() == codes.size());
  CHECK(is_message_code("config.range"));
  const Message m = coded("config.no_such_code", {{"x", "1"}}, "some text");
  CHECK(m.code.empty());  // goes uncoded: the page shows its English rather than a wrong wording
  CHECK(m.text == "some text");
}

TEST_CASE("config problems carry a code, the field and the values", "[messages]") {
  Config c = tiny();
  c.n_layer = 0;
  std::vector<ConfigProblem> p = config_problems(c);
  REQUIRE(p.size() == 1);
  CHECK(p[0].code == "config.range");
  CHECK(arg(p[0].args, "field") == "n_layer");
  CHECK(arg(p[0].args, "range") == "[1, 96]");
  CHECK(arg(p[0].args, "value") == "0");
  CHECK(p[0].message == "n_layer must be in [1, 96] (got 0)");  // the CLI's English is unchanged

  c = tiny();
  c.n_head = 3;
  p = config_problems(c);
  REQUIRE(p.size() == 1);
  CHECK(p[0].code == "config.heads_divide");
  CHECK(arg(p[0].args, "n_embd") == "16");
  CHECK(arg(p[0].args, "n_head") == "3");

  // validate_config's "invalid config: ..." keeps the problem's code (the page words the problem)
  const Error e = thrown_by([&] { validate_config(c); });
  CHECK(e.code() == "config.heads_divide");
  CHECK_THAT(e.what(), Catch::StartsWith("invalid config: n_embd 16 is not divisible by n_head 3"));

  const Error unknown = thrown_by([] { field("n_embed"); });
  CHECK(unknown.code() == "config.unknown_field_near");
  CHECK(arg(unknown.args(), "field") == "n_embed");
  CHECK(arg(unknown.args(), "near") == "n_embd");

  Config choice = tiny();
  const Error bad_choice = thrown_by([&] { set_field_text(choice, field("model"), "bert"); });
  CHECK(bad_choice.code() == "config.not_a_choice");
  CHECK(arg(bad_choice.args(), "value") == "bert");
}

TEST_CASE("the memory check says how much the config needs and the limit, in MiB", "[messages]") {
  Config c = tiny();
  c.n_embd = 1024, c.n_head = 8, c.n_layer = 8, c.block_size = 512, c.batch_size = 16;
  const Message m = memory_message(c, int64_t(64) << 20);
  CHECK(m.code == "config.memory");
  CHECK(arg(m.args, "limit_mib") == "64");
  CHECK(std::stoll(arg(m.args, "need_mib")) == estimate_training_bytes(c) >> 20);
  CHECK(m.text == check_memory(c, int64_t(64) << 20));
  const Error e = thrown_by([&] { train::Trainer t(c, int64_t(64) << 20); });
  CHECK(e.code() == "config.memory");
}

TEST_CASE("corpus, pairs and checkpoint refusals are coded", "[messages]") {
  train::Trainer t(tiny());
  const Error short_corpus = thrown_by([&] {
    t.set_corpus({'a', 'b', 'c'});
    Run(t).advance(1);
  });
  CHECK(short_corpus.code() == "corpus.too_short");
  CHECK(arg(short_corpus.args(), "bytes") == "3");
  CHECK(arg(short_corpus.args(), "needed") == "17");

  const std::string tsv = "one\n\ntwo\nthree\n";
  const Error no_pair = thrown_by([&] { data::PairDataset d(std::vector<uint8_t>(tsv.begin(), tsv.end()), 16); });
  CHECK(no_pair.code() == "pairs.none_usable");
  CHECK(arg(no_pair.args(), "no_tab") == "3");
  CHECK(arg(no_pair.args(), "no_tab_lines") == "1, 3, 4");
  CHECK(arg(no_pair.args(), "blank") == "1");

  const std::string junk = "hello, this is not a checkpoint";
  const Error not_ckpt = thrown_by([&] { ckpt::describe(reinterpret_cast<const uint8_t*>(junk.data()), junk.size()); });
  CHECK(not_ckpt.code() == "checkpoint.not_checkpoint");

  std::vector<uint8_t> bytes = ckpt::serialize(t);
  bytes[8] = 9;  // version 9
  const Error version = thrown_by([&] { ckpt::describe(bytes.data(), bytes.size()); });
  CHECK(version.code() == "checkpoint.version");
  CHECK(arg(version.args(), "version") == "9");

  bytes = ckpt::serialize(t);
  bytes.resize(bytes.size() / 2);
  const Error cut = thrown_by([&] { ckpt::describe(bytes.data(), bytes.size()); });
  CHECK((cut.code() == "checkpoint.truncated" || cut.code() == "checkpoint.corrupt"));
}

TEST_CASE("the sniffer's verdict is coded by file kind, with the file's name", "[messages]") {
  const std::string latin1 = "caf\xe9 cr\xe8me br\xfbl\xe9" "e and more plain text here";
  const io::Sniffed s = io::sniff(reinterpret_cast<const uint8_t*>(latin1.data()), latin1.size(), latin1.size(), "menu.txt");
  CHECK(s.code == "sniff.latin1_text");
  CHECK(arg(s.args, "name") == "menu.txt");
  CHECK(arg(s.args, "high_bytes") == "4");
  const uint8_t nul[] = {'a', 0, 'b', 0};
  CHECK(io::sniff(nul, 4, 4, "x.bin").code == "sniff.binary_nul");
  CHECK(io::sniff(nul, 0, 0, "").code == "sniff.empty");
  for (const std::string& code : {s.code, std::string("sniff.binary_nul"), std::string("sniff.empty")}) CHECK(is_message_code(code));
}

TEST_CASE("the NaN guard's rollbacks and its pause are coded", "[messages]") {
  train::Trainer t(tiny());
  t.set_corpus(testutil::numbered_lines("All the world's a stage", 100));
  Run run(t);
  REQUIRE(run.advance(40).step == 40);
  t.inject_nan_gradient(5);
  const Slice s = run.advance(100);
  REQUIRE(s.rollbacks.size() == 3);
  CHECK(s.rollbacks[0].code == "train.diverged_norm");
  CHECK(arg(s.rollbacks[0].args, "norm") == "nan");
  CHECK(arg(s.rollbacks[0].args, "step") == std::to_string(s.rollbacks[0].failed_step + 1));
  CHECK(s.error_code == "train.paused");
  CHECK(arg(s.error_args, "rollbacks") == "3");
  CHECK(arg(s.error_args, "lr_scale") == "0.125");
}

TEST_CASE("run links: parse errors and the replay's verdict are coded", "[messages]") {
  const Error not_link = thrown_by([] { share::parse_link("https://example.org/#a=1"); });
  CHECK(not_link.code() == "share.not_a_link");
  const Error version = thrown_by([] { share::parse_link("tinygpt=7&corpus=builtin:shakespeare"); });
  CHECK(version.code() == "share.version");
  CHECK(arg(version.args(), "version") == "7");

  share::Link link;
  link.corpus.builtin = "shakespeare";
  link.losses = {2.5f, 2.25f};
  link.variant = share::build_variant();
  const float same[] = {2.5f, 2.25f}, other[] = {2.5f, 3.0f};
  share::Replay r = share::check_replay(link, same, 2, share::build_variant());
  CHECK(r.code == "replay.matches");
  CHECK(arg(r.args, "step") == "2");
  r = share::check_replay(link, other, 2, share::build_variant());
  CHECK(r.code == "replay.diverged");
  CHECK(arg(r.args, "step") == "2");
  r = share::check_replay(link, same, 1, "wasm-scalar");
  CHECK(r.code == "replay.so_far");
  CHECK(arg(r.args, "variant") == "wasm-scalar");
}

TEST_CASE("the thread tuner's decisions are coded, with the counts and times", "[messages][threads]") {
  ThreadTuner only(1);
  CHECK(only.reason_message().code == "threads.only");
  CHECK(arg(only.reason_message().args, "threads") == "1");

  ThreadTuner::Options o;
  o.warmup_steps = 0, o.samples = 1, o.windows = 1;  // one window each: 2 threads, then 1
  ThreadTuner t(2, o);
  CHECK(t.reason_message().code == "threads.timing_first");
  CHECK(arg(t.reason_message().args, "threads") == "2");
  t.record(0.010);  // 2 threads: 10 ms; then 1 thread
  t.record(0.040);  // 1 thread: 40 ms: 2 threads win
  const Message m = t.reason_message();
  CHECK(m.code == "threads.chosen");
  CHECK(m.text == t.reason());
  CHECK(arg(m.args, "threads") == "2");
  CHECK(arg(m.args, "ms") == "10.0");
  CHECK(arg(m.args, "others") == "1");
  CHECK(arg(m.args, "other_0_threads") == "1");
  CHECK(arg(m.args, "other_0_ms") == "40.0");
}
