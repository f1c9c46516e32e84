// test_run.cpp — the one training loop (run.h), the schedule's extension and the config schema.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "tinygpt/config.h"
#include "tinygpt/error.h"
#include "tinygpt/gpu_host.h"
#include "tinygpt/optim.h"
#include "tinygpt/run.h"
#include "tinygpt/trainer.h"
#include "test_util.h"

using namespace tinygpt;

namespace {

std::vector<uint8_t> text() { return testutil::numbered_lines("All the world's a stage, and all the men and women merely players", 100); }

Config tiny(int max_iters, int eval_interval) {
  Config c;
  c.n_layer = 1, c.n_head = 2, c.n_embd = 16, c.block_size = 16, c.batch_size = 2;
  c.max_iters = max_iters;
  c.warmup_iters = 2;
  c.eval_interval = eval_interval;
  c.eval_iters = 1;
  return c;
}

std::vector<int64_t> eval_steps(const Slice& s) {
  std::vector<int64_t> out;
  for (const Evaluation& e : s.evals) out.push_back(e.step);
  return out;
}

}  // namespace

TEST_CASE("a run evaluates at step 0, every eval_interval steps and at its stop", "[run]") {
  train::Trainer t(tiny(10, 4));
  t.set_corpus(text());
  Run run(t);
  REQUIRE(run.stop_at() == 10);
  Slice a = run.advance(3);
  CHECK(a.first_step == 0);
  CHECK(a.step == 3);
  CHECK(a.losses.size() == 3);
  CHECK(eval_steps(a) == std::vector<int64_t>{0});
  CHECK(a.tokens_per_s > 0);
  CHECK_FALSE(a.finished);
  Slice b = run.advance(100);  // runs to the stop, not past it
  CHECK(b.first_step == 3);
  CHECK(b.step == 10);
  CHECK(b.losses.size() == 7);
  CHECK(eval_steps(b) == std::vector<int64_t>{4, 8, 10});
  CHECK(b.finished);
  CHECK(b.lr == Approx(t.config().min_lr));
  // the trainer holds what the slices reported
  REQUIRE(t.val_losses().size() == 4);
  CHECK(t.val_losses()[3].step == 10);
  CHECK(t.val_losses()[3].loss == b.evals.back().loss);
  CHECK(std::memcmp(t.train_losses().data() + 3, b.losses.data(), 7 * sizeof(float)) == 0);
  // a finished run does nothing more
  Slice c = run.advance(5);
  CHECK(c.losses.empty());
  CHECK(c.finished);
}

TEST_CASE("a run that tunes its thread count trains exactly like one that does not", "[run][threads]") {
  // The tuner changes only how many threads run the kernels, and results do not depend on that
  // (determinism across thread counts), so the losses are bit-identical to a fixed-count run.
  const int saved = num_threads();
  set_num_threads(1);
  train::Trainer fixed(tiny(40, 0));
  fixed.set_corpus(text());
  Run fixed_run(fixed);
  const Slice f = fixed_run.advance(40);
  set_num_threads(max_threads());

  train::Trainer tuned(tiny(40, 0));
  tuned.set_corpus(text());
  Run run(tuned);
  CHECK_FALSE(run.tuning_threads());
  run.tune_threads(max_threads());
  REQUIRE(run.tuning_threads());
  std::vector<float> losses;
  for (int i = 0; i < 4; i++) {
    const Slice s = run.advance(10);
    losses.insert(losses.end(), s.losses.begin(), s.losses.end());
    CHECK(s.threads >= 1);
    CHECK(s.threads <= max_threads());
    CHECK(s.threads == num_threads());
  }
  REQUIRE(losses.size() == f.losses.size());
  CHECK(std::memcmp(losses.data(), f.losses.data(), losses.size() * sizeof(float)) == 0);
  if (max_threads() > 1) CHECK_FALSE(run.advance(1).threads_reason.empty());  // 40 steps: it measured
  run.tune_threads(0);
  CHECK_FALSE(run.tuning_threads());
  CHECK(run.advance(1).threads_reason.empty());
  set_num_threads(saved);
}

TEST_CASE("the eval interval can change between slices, and 0 turns evaluations off", "[run]") {
  train::Trainer t(tiny(20, 0));
  t.set_corpus(text());
  Run run(t);
  CHECK(eval_steps(run.advance(5)).empty());  // not even at step 0
  t.update_field("eval_interval", 3);
  CHECK(eval_steps(run.advance(5)) == std::vector<int64_t>{6, 9});
  CHECK_THROWS_WITH(t.update_field("n_layer", 2), Catch::Contains("n_layer is fixed once the model exists"));
  CHECK_THROWS_WITH(t.update_field("eval_interval", -1), Catch::Contains("eval_interval must be in [0, 1000000000]"));
}

TEST_CASE("a run stops at the end of the schedule and trains on past it only when asked", "[run]") {
  train::Trainer t(tiny(4, 0));
  t.set_corpus(text());
  {
    Run run(t);
    CHECK(run.advance(100).step == 4);
  }
  Run past(t);  // a run made past the end of the schedule has no stop
  CHECK(past.stop_at() == -1);
  Slice s = past.advance(3);
  CHECK(s.step == 7);
  CHECK_FALSE(s.finished);
  CHECK(s.eta_s == -1.0);
  CHECK(s.lr == Approx(t.config().min_lr));  // at the final learning rate
  past.set_stop_at(9);
  CHECK(past.advance(100).step == 9);
  CHECK_THROWS_WITH(past.set_stop_at(5), Catch::Contains("already at step 9"));
}

TEST_CASE("the run's ETA counts the steps and evaluations still to come", "[run]") {
  train::Trainer t(tiny(50, 10));
  t.set_corpus(text());
  Run run(t);
  const Slice s = run.advance(5);
  REQUIRE(run.ms_per_step() > 0);
  REQUIRE(run.ms_per_eval() > 0);
  // 45 steps and the evaluations at 10, 20, 30, 40, 50
  const double expected = (45 * run.ms_per_step() + 5 * run.ms_per_eval()) / 1000.0;
  CHECK(s.eta_s == Approx(expected));
}

TEST_CASE("the NaN guard rolls a corrupted step back to the last good state at half the learning rate", "[run][guard]") {
  auto make = [] {
    auto t = std::make_unique<train::Trainer>(tiny(400, 0));
    t->set_corpus(text());
    return t;
  };
  auto reference = make();  // the same run, untouched, to step 100
  for (int i = 0; i < 100; i++) reference->step();
  auto t = make();
  Run run(*t);
  REQUIRE(run.advance(130).step == 130);
  REQUIRE(t->good_state_step() == 100);
  const float lr_before = t->learning_rate();
  t->inject_nan_gradient();  // step 131's gradient is NaN, as a corrupted batch would give
  const Slice s = run.advance(1);
  REQUIRE(s.rollbacks.size() == 1);
  CHECK(s.rollbacks[0].failed_step == 130);
  CHECK(s.rollbacks[0].restored_step == 100);
  CHECK(s.rollbacks[0].lr_scale == 0.5f);
  CHECK_THAT(s.rollbacks[0].reason, Catch::Contains("diverged at step 131") && Catch::Contains("gradient norm is nan"));
  CHECK(s.error.empty());
  CHECK(s.first_step == 100);
  CHECK(t->steps_done() == 100);
  CHECK(t->train_losses().size() == 100);
  // back at step 100 exactly: weights, moments and the data order of the untouched run
  CHECK(std::memcmp(t->model().params(), reference->model().params(), size_t(t->model().num_parameters()) * 4) == 0);
  CHECK(t->optimizer().m() == reference->optimizer().m());
  CHECK(t->optimizer().t() == reference->optimizer().t());
  CHECK(t->step() == reference->step());  // the same next batch
  CHECK(t->learning_rate() < lr_before);
  // the scale is part of the run: a checkpoint keeps it
  const std::vector<uint8_t> b = t->save();
  CHECK(train::Trainer::load(b.data(), b.size())->lr_scale() == 0.5f);
}

TEST_CASE("the NaN guard saves a run with an absurd learning rate", "[run][guard]") {
  Config c = tiny(150, 0);
  c.learning_rate = 1.0f;  // absurd: AdamW steps of size 1 send the loss far above a uniform guess
  c.min_lr = 1.0f;
  c.warmup_iters = 0;
  c.grad_clip = 0.0f;
  c.weight_decay = 0.0f;
  train::Trainer t(c);
  t.set_corpus(text());
  Run run(t);
  std::vector<train::Rollback> rollbacks;
  while (!run.finished()) {
    const Slice s = run.advance(10);
    rollbacks.insert(rollbacks.end(), s.rollbacks.begin(), s.rollbacks.end());
    REQUIRE(s.error.empty());
  }
  REQUIRE(!rollbacks.empty());
  CHECK_THAT(rollbacks[0].reason, Catch::Contains("worse than 22.2 (4 x a uniform guess)"));
  CHECK(rollbacks[0].restored_step == 0);
  CHECK(rollbacks[0].lr_scale == 0.5f);
  CHECK(t.lr_scale() == rollbacks.back().lr_scale);
  // every loss the run kept is one that did not diverge
  REQUIRE(t.train_losses().size() == 150);
  for (float l : t.train_losses()) CHECK(l <= train::kDivergedLoss);
}

TEST_CASE("the NaN guard pauses the run after three rollbacks in a row", "[run][guard]") {
  train::Trainer t(tiny(300, 0));
  t.set_corpus(text());
  Run run(t);
  REQUIRE(run.advance(40).step == 40);
  t.inject_nan_gradient(5);  // corrupted batches that keep coming
  const Slice s = run.advance(100);
  REQUIRE(s.rollbacks.size() == 3);
  CHECK(s.rollbacks[2].lr_scale == 0.125f);
  for (const train::Rollback& r : s.rollbacks) CHECK(r.restored_step == 0);
  CHECK_THAT(s.error, Catch::Contains("training paused after 3 rollbacks in a row") && Catch::Contains("lower learning_rate"));
  CHECK(t.steps_done() == 0);
  CHECK(s.losses.empty());
  // the next slice (the user pressed Start again) goes on from the good state
  const Slice next = run.advance(3);
  CHECK(next.rollbacks.size() == 2);  // the two corrupted batches still queued
  CHECK(next.error.empty());
}

TEST_CASE("a slice's losses are the steps after its first step, even after two rollbacks to different states", "[run][guard]") {
  train::Trainer t(tiny(400, 0));
  t.set_corpus(text());
  Run run(t);
  REQUIRE(run.advance(50).step == 50);
  t.inject_nan_at(51);   // back to step 0, before the slice's start
  t.inject_nan_at(151);  // later in the same slice: back to the good state kept at step 100
  const Slice s = run.advance(200);
  REQUIRE(s.rollbacks.size() == 2);
  CHECK(s.rollbacks[0].restored_step == 0);
  CHECK(s.rollbacks[1].restored_step == 100);
  CHECK(s.first_step == 0);
  REQUIRE(int64_t(s.losses.size()) == s.step - s.first_step);
  // the slice's losses are the run's history from its first step on
  for (size_t i = 0; i < s.losses.size(); i++) CHECK(s.losses[i] == t.train_losses()[i]);
}

TEST_CASE("extending the schedule continues the learning rate without a jump", "[run][optim]") {
  const optim::Schedule s{1e-3f, 1e-4f, 10, 100};
  SECTION("mid-decay: the cosine restarts from the current rate towards the new end") {
    const optim::Schedule e = s.extended(60, 200);
    CHECK(e.lr_at(60) == s.lr_at(60));
    CHECK(e.lr_at(130) < e.lr_at(60));
    CHECK(e.lr_at(130) > s.lr_at(99));
    CHECK(e.lr_at(200) == Approx(1e-4f));
    CHECK(e.lr_at(199) > e.lr_at(200));
  }
  SECTION("past the end: stays at the floor") {
    const optim::Schedule e = s.extended(150, 300);
    CHECK(e.lr_at(150) == Approx(1e-4f));
    CHECK(e.lr_at(250) == Approx(1e-4f));
  }
  SECTION("during warmup: only the end moves") {
    const optim::Schedule e = s.extended(5, 200);
    CHECK(e.from_step == 0);
    CHECK(e.lr_at(5) == s.lr_at(5));
    CHECK(e.lr_at(10) == Approx(1e-3f));
    CHECK(e.lr_at(105) == Approx(0.5f * (1e-3f + 1e-4f)));  // halfway through the new cosine
  }
  SECTION("through the trainer, and kept by a checkpoint") {
    train::Trainer t(tiny(20, 0));
    t.set_corpus(text());
    for (int i = 0; i < 12; i++) t.step();
    const float before = t.learning_rate();
    t.update_field("max_iters", 40);
    CHECK(t.learning_rate() == before);
    CHECK(t.config().max_iters == 40);
    CHECK_THROWS_WITH(t.update_field("max_iters", 12), Catch::Contains("must be above the steps already done (12)"));
    const std::vector<uint8_t> b = t.save();
    auto u = train::Trainer::load(b.data(), b.size());
    CHECK(u->schedule().from_step == 12);
    CHECK(u->schedule().from_lr == before);
    u->set_corpus(t.take_corpus());
    for (int i = 0; i < 28; i++) u->step();
    CHECK(u->learning_rate() == Approx(t.config().min_lr));
  }
}

TEST_CASE("the schema: one row per field, names unique, defaults valid", "[config]") {
  std::set<std::string> names;
  for (const FieldSpec& f : config_schema()) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);
    CHECK(check_field_value(f, f.default_value).empty());
    CHECK(std::string(f.help).size() > 10);
    CHECK(f.kinds != 0u);
    CHECK(find_field(f.name) == &f);
  }
  CHECK(config_problems(Config{}).empty());
  CHECK(names.count("n_layer") == 1);
  CHECK(names.count("learning_rate") == 1);
  CHECK_THROWS_WITH(field("n_layr"), Catch::Contains("unknown config field 'n_layr' (did you mean n_layer?)"));
  CHECK_THROWS_WITH(field("width"), Catch::Contains("unknown config field 'width'"));
}

TEST_CASE("config fields parse from text, and refuse what their range does not allow", "[config]") {
  Config c;
  set_field_text(c, field("n_layer"), "6");
  set_field_text(c, field("learning_rate"), "3e-4");
  set_field_text(c, field("model"), "gpt");
  CHECK(c.n_layer == 6);
  CHECK(c.learning_rate == 3e-4f);
  CHECK(field_text(c, field("learning_rate")) == "0.0003");
  CHECK(field_text(c, field("model")) == "gpt");
  CHECK_THROWS_WITH(set_field_text(c, field("n_layer"), "2.5"), Catch::Contains("n_layer must be a whole number"));
  CHECK_THROWS_WITH(set_field_text(c, field("n_layer"), "four"), Catch::Contains("n_layer expects a whole number, got 'four'"));
  CHECK_THROWS_WITH(set_field_text(c, field("learning_rate"), "0"), Catch::Contains("learning_rate must be in (0, 1] (got 0)"));
  CHECK_THROWS_WITH(set_field_text(c, field("beta1"), "1"), Catch::Contains("beta1 must be in [0, 1) (got 1)"));
  CHECK_THROWS_WITH(set_field_text(c, field("model"), "bert"), Catch::Contains("model must be one of gpt, seq2seq, rnn, gru, lstm, lstm_seq2seq (got 'bert')"));
  CHECK(c.n_layer == 6);  // a refused value changes nothing
}

TEST_CASE("presets are valid configs and the default config is preset S", "[config]") {
  CHECK(preset_config("S") == Config{});
  for (const Preset& p : presets()) {
    INFO(p.name);
    const Config c = preset_config(p.name);
    CHECK(config_problems(c).empty());
    CHECK(check_memory(c, kDefaultMemoryLimit).empty());
  }
  const Config m = preset_config("M");
  CHECK(m.n_layer == 6);
  CHECK(m.n_embd == 384);
  CHECK(m.block_size == 256);
  CHECK(num_parameters(m) > 10'000'000);
  CHECK_THROWS_WITH(preset_config("XL"), Catch::Contains("unknown preset 'XL' (presets: tiny, S, fast, M, s2s-tiny, s2s-small, s2s-base, lstm-tiny, lstm-S, gru-tiny, gru-S, rnn-tiny, rnn-S, s2s-lstm)"));
}

// ---- steps computed elsewhere (Run::plan / record / record_evaluation): the WebGPU backend's run loop ----

namespace {

// The "device" of these tests is a second trainer on the CPU: it computes the same steps the host
// would (same config, corpus and seed, so the same batches), and hands over what a GPU would.
struct Device {
  train::Trainer& t;
  std::vector<float> losses, norms;
  void steps(int n) {
    losses.clear(), norms.clear();
    for (int i = 0; i < n; i++) {
      losses.push_back(t.step());
      norms.push_back(t.last_grad_norm());
    }
  }
  float validation_loss() { return t.evaluate().loss; }  // eval_iters = 1: the one batch's loss is the mean
};

}  // namespace

TEST_CASE("a run whose steps are computed elsewhere gets advance()'s evaluations, stop and history", "[run][external]") {
  Config c = tiny(230, 40);  // evaluations every 40 steps and at 230; good states at 100 and 200
  // reference: the CPU's run loop, slice after slice
  train::Trainer cpu(c);
  cpu.set_corpus(text());
  Run cpu_run(cpu);
  std::vector<int64_t> cpu_evals;
  while (!cpu_run.finished())
    for (const Evaluation& e : cpu_run.advance(64).evals) cpu_evals.push_back(e.step);
  // the same run, its steps computed by the "device"
  train::Trainer host(c), twin(c);
  host.set_corpus(text());
  twin.set_corpus(text());
  Device device{twin, {}, {}};
  const gpu::Plan plan = gpu::plan_for(host);
  Run run(host);
  std::vector<int64_t> evals, segments, good_states;
  std::vector<int32_t> batches;
  for (;;) {
    const StepPlan p = run.plan(64);
    if (p.evaluate) {
      const float loss = device.validation_loss();
      const Evaluation e = run.record_evaluation(&loss, 1, 2.0);
      CHECK(e.loss == loss);
      evals.push_back(e.step);
    }
    if (p.steps == 0) {
      CHECK(p.finished);
      break;
    }
    segments.push_back(host.steps_done() + p.steps);
    batches.resize(size_t(p.steps) * 2 * c.batch_size * c.block_size);
    gpu::next_batches(host, int(p.steps), batches.data());  // the host's corpus generator moves as the device's
    device.steps(int(p.steps));
    // in two parts, as a GPU's losses come back
    const int first = int(p.steps) / 2, rest = int(p.steps) - first;
    if (first > 0) {
      const int64_t before = host.steps_done();
      CHECK(run.record(device.losses.data(), device.norms.data(), first, 1.0 * first).step == before + first);
    }
    const Slice s = run.record(device.losses.data() + first, device.norms.data() + first, rest, 1.0 * rest);
    CHECK(s.first_step == host.steps_done() - rest);
    CHECK(s.losses.size() == size_t(rest));
    CHECK(s.tokens_per_s == Approx(double(rest) * c.batch_size * c.block_size / (rest / 1000.0)));
    CHECK(s.lr == host.learning_rate());
    if (p.keep_good_state) {
      const gpu::State st = gpu::export_state(twin, plan);
      gpu::import_state(host, plan, st.params.data(), st.m.data(), st.v.data(), st.adam_t, true);
      good_states.push_back(host.good_state_step());
    }
  }
  // the policy's events: every 40 steps, the good states, the stop; at most 64 steps a plan
  CHECK(segments == std::vector<int64_t>{40, 80, 100, 120, 160, 200, 230});
  CHECK(good_states == std::vector<int64_t>{100, 200});
  CHECK(evals == cpu_evals);
  CHECK(evals == std::vector<int64_t>{0, 40, 80, 120, 160, 200, 230});
  // the same history, bit for bit, and the ETA's timing from the recorded milliseconds
  CHECK(host.train_losses() == cpu.train_losses());
  REQUIRE(host.val_losses().size() == cpu.val_losses().size());
  for (size_t i = 0; i < host.val_losses().size(); i++) CHECK(host.val_losses()[i].loss == cpu.val_losses()[i].loss);
  CHECK(run.ms_per_step() == Approx(1.0));
  CHECK(run.ms_per_eval() == Approx(2.0));
  CHECK(run.finished());
  // with the device's last state brought back, the checkpoint is the CPU run's, byte for byte
  const gpu::State st = gpu::export_state(twin, plan);
  gpu::import_state(host, plan, st.params.data(), st.m.data(), st.v.data(), st.adam_t, true);
  CHECK(host.save() == cpu.save());
}

TEST_CASE("a run refuses recorded steps its plan does not allow", "[run][external]") {
  train::Trainer t(tiny(12, 5));
  t.set_corpus(text());
  Run run(t);
  const std::vector<float> loss(20, 5.0f), norm(20, 1.0f);
  const StepPlan p = run.plan(100);
  CHECK(p.evaluate);  // the starting point of the curve comes first
  CHECK(p.steps == 5);
  CHECK_FALSE(p.keep_good_state);
  CHECK_THROWS_WITH(run.record(loss.data(), norm.data(), 1, 1.0), Catch::Contains("an evaluation is due at step 0 first"));
  run.record_evaluation(loss.data(), 1, 1.0);
  CHECK_THROWS_WITH(run.record(loss.data(), norm.data(), 6, 1.0),
                    Catch::Contains("6 steps from step 0 pass the run's next event at step 5"));
  CHECK_THROWS_WITH(run.record(loss.data(), norm.data(), 0, 1.0), Catch::Contains("at least one step"));
  CHECK_THROWS_WITH(run.record_evaluation(loss.data(), 2, 1.0), Catch::Contains("expected 1 batch losses, got 2"));
  run.record(loss.data(), norm.data(), 5, 1.0);
  CHECK(run.plan(100).evaluate);
  run.record_evaluation(loss.data(), 1, 1.0);
  CHECK(run.plan(3).steps == 3);  // max_steps caps it
  run.record(loss.data(), norm.data(), 5, 1.0);
  run.record_evaluation(loss.data(), 1, 1.0);
  run.record(loss.data(), norm.data(), 2, 1.0);  // the stop, at 12
  const StepPlan end = run.plan(100);
  CHECK(end.evaluate);
  CHECK(end.finished);
  CHECK(end.steps == 0);
  run.record_evaluation(loss.data(), 1, 1.0);
  CHECK_THROWS_WITH(run.record(loss.data(), norm.data(), 1, 1.0), Catch::Contains("the run is at its stop, step 12"));
  CHECK(t.steps_done() == 12);
  CHECK(t.val_losses().size() == 4);  // 0, 5, 10, 12
}

TEST_CASE("a diverged step computed elsewhere gets the NaN guard: rollback, then a pause after three in a row", "[run][external][guard]") {
  train::Trainer t(tiny(1000, 0));
  t.set_corpus(text());
  const gpu::Plan plan = gpu::plan_for(t);
  Run run(t);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> loss(100, 5.0f), norm(100, 1.0f);
  auto keep_good_state = [&] {  // the "GPU" state: the host's own (these tests look at the policy)
    const gpu::State s = gpu::export_state(t, plan);
    gpu::import_state(t, plan, s.params.data(), s.m.data(), s.v.data(), s.adam_t, true);
  };
  const StepPlan p = run.plan(1000);
  REQUIRE(p.steps == 100);  // up to the first good state
  CHECK(p.keep_good_state);
  run.record(loss.data(), norm.data(), 100, 10.0);
  keep_good_state();
  REQUIRE(t.good_state_step() == 100);
  run.record(loss.data(), norm.data(), 30, 3.0);
  // the third of these steps diverged; the fourth was not applied (the GPU halted) and is ignored
  const float bad_loss[4] = {5.0f, 5.0f, nan, 5.0f};
  const Slice s = run.record(bad_loss, norm.data(), 4, 1.0);
  REQUIRE(s.rollbacks.size() == 1);
  CHECK(s.rollbacks[0].failed_step == 132);
  CHECK(s.rollbacks[0].restored_step == 100);
  CHECK(s.rollbacks[0].lr_scale == 0.5f);
  CHECK_THAT(s.rollbacks[0].reason, Catch::Contains("diverged at step 133") && Catch::Contains("the loss is nan"));
  CHECK(s.error.empty());
  CHECK(s.first_step == 100);
  CHECK(s.losses.empty());
  CHECK(t.steps_done() == 100);
  CHECK(t.train_losses().size() == 100);
  // two more in a row: the run pauses, as advance() does
  CHECK(run.record(&nan, norm.data(), 1, 1.0).error.empty());
  const Slice third = run.record(&nan, norm.data(), 1, 1.0);
  CHECK_THAT(third.error, Catch::Contains("training paused after 3 rollbacks in a row") && Catch::Contains("lower learning_rate"));
  CHECK(t.lr_scale() == 0.125f);
  // a new good state in between ends a series: two rollbacks, a good state, one more is no pause
  CHECK(run.record(&nan, norm.data(), 1, 1.0).error.empty());
  CHECK(run.record(&nan, norm.data(), 1, 1.0).error.empty());
  CHECK(run.plan(1000).steps == 100);
  run.record(loss.data(), norm.data(), 100, 10.0);
  keep_good_state();
  const Slice after = run.record(&nan, norm.data(), 1, 1.0);
  CHECK(after.error.empty());
  CHECK(after.rollbacks[0].restored_step == 200);
}

TEST_CASE("after steps computed elsewhere, advance() takes over where they left the run", "[run][external]") {
  train::Trainer t(tiny(30, 10));
  t.set_corpus(text());
  train::Trainer twin(tiny(30, 10));
  twin.set_corpus(text());
  Device device{twin, {}, {}};
  const gpu::Plan plan = gpu::plan_for(t);
  Run run(t);
  REQUIRE(run.plan(100).evaluate);
  const float l0 = device.validation_loss();
  run.record_evaluation(&l0, 1, 1.0);
  std::vector<int32_t> batches(size_t(10) * 2 * 2 * 16);
  gpu::next_batches(t, 10, batches.data());
  device.steps(10);
  run.record(device.losses.data(), device.norms.data(), 10, 1.0);
  // the GPU is gone before the evaluation at step 10: the CPU continues with the GPU's last state
  const gpu::State st = gpu::export_state(twin, plan);
  gpu::import_state(t, plan, st.params.data(), st.m.data(), st.v.data(), st.adam_t, true);
  const Slice s = run.advance(1);
  REQUIRE(s.evals.size() == 1);
  CHECK(s.evals[0].step == 10);  // the evaluation that was due comes first
  CHECK(s.evals[0].loss == device.validation_loss());
  CHECK(s.step == 11);
  CHECK(s.losses[0] == twin.step());  // and the next step is the one the device would have made
}
