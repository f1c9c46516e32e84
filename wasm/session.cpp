// session.cpp — the session feature: the Session (session.h), the live model of the page, over a
// train::Trainer; its construction, corpus, configuration and loss history, and the one
// registration of the class, which every feature's file extends with its own methods (bind_*).
#include "session.h"

#include "common.h"

namespace tinygpt::js {

namespace {

// Every trainer a Session holds gets a new number: objects that point into one (watch.cpp's
// GenerationTree) can tell that it was replaced.
uint64_t g_next_generation = 1;

}  // namespace

Session::Session(const val& config) {
  guarded([&] {
    ConfigAndLimit c = parse_config(config);
    trainer_ = std::make_unique<train::Trainer>(c.config, c.memory_limit);
    new_run();
    memory_limit_ = c.memory_limit;
  });
  generation_ = g_next_generation++;
}

Session::Session(std::unique_ptr<train::Trainer> trainer, int64_t memory_limit)
    : trainer_(std::move(trainer)), memory_limit_(memory_limit), generation_(g_next_generation++) {
  new_run();
}

void Session::new_run() {
  run_ = std::make_unique<Run>(*trainer_);
  if (tune_threads_ > 0) run_->tune_threads(tune_threads_);
}

void Session::replace_trainer(std::unique_ptr<train::Trainer> t) {
  generator_.reset();
  trainer_ = std::move(t);
  new_run();
  generation_ = g_next_generation++;
}

void Session::setCorpus(const val& bytes) {
  guarded([&] { trainer_->set_corpus(bytes_from(bytes, "the corpus")); });
}

void Session::useCorpus(const Corpus& corpus) {
  guarded([&] { trainer_->set_corpus(corpus.corpus); });
}

// null when the corpus is the one the loaded checkpoint was trained on (or there is no checkpoint),
// else {message, code, args}: what differs.
val Session::corpusMismatch() const {
  const Message m = trainer_->corpus_mismatch();
  return m.text.empty() ? val::null() : coded_to_js(m.text, m.code, m.args);
}

val Session::config() const { return config_to_js(trainer_->config()); }

// {train: Float32Array (one per step), valSteps: Float64Array, valLosses, valExactMatch, valCer: Float32Array}
val Session::history() const {
  const auto& tl = trainer_->train_losses();
  std::vector<double> steps;
  std::vector<float> losses, exact, cer;
  for (const train::ValPoint& p : trainer_->val_losses()) {
    steps.push_back(double(p.step));
    losses.push_back(p.loss);
    exact.push_back(p.exact_match);
    cer.push_back(p.cer);
  }
  val o = val::object();
  o.set("train", copy_to_js("Float32Array", tl.data(), tl.size()));
  o.set("valSteps", copy_to_js("Float64Array", steps.data(), steps.size()));
  o.set("valLosses", copy_to_js("Float32Array", losses.data(), losses.size()));
  o.set("valExactMatch", copy_to_js("Float32Array", exact.data(), exact.size()));  // NaN for gpt
  o.set("valCer", copy_to_js("Float32Array", cer.data(), cer.size()));
  return o;
}

namespace {

void bind_session(const SessionClass& c) {
  c.constructor<val>()
      .function("setCorpus", &Session::setCorpus)
      .function("useCorpus", &Session::useCorpus)
      .function("corpusMismatch", &Session::corpusMismatch)
      .function("hasCorpus", &Session::hasCorpus)
      .function("corpusSize", &Session::corpusSize)
      .function("corpusMatchesCheckpoint", &Session::corpusMatchesCheckpoint)
      .function("config", &Session::config)
      .function("step", &Session::step)
      .function("numParameters", &Session::numParameters)
      .function("history", &Session::history)
      .function("kind", &Session::kind);
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_session) {
  using namespace tinygpt::js;
  const SessionClass session("Session");
  bind_session(session);
  bind_train(session);
  bind_sample(session);
  bind_inspect(session);
  bind_translate(session);
  bind_runs(session);
}
