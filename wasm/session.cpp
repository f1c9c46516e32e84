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

void Session::setTokenizer(const Tokenizer& tokenizer) {
  guarded([&] { trainer_->set_tokenizer(tokenizer.t); });
}

val Session::tokenizer() const {
  if (!trainer_->tokenizer()) return val::null();
  return val(Tokenizer{trainer_->shared_tokenizer()});
}

val Session::tokenTexts(const val& ids) const {
  return guarded([&] {
    val out = val::array();
    const size_t n = ids["length"].as<size_t>();
    for (size_t i = 0; i < n; i++) out.call<void>("push", trainer_->token_text(ids[i].as<int32_t>()));
    return out;
  });
}

// null when the corpus is the one the loaded checkpoint was trained on (or there is no checkpoint),
// else {message, code, args}: what differs.
val Session::corpusMismatch() const {
  const Message m = trainer_->corpus_mismatch();
  return m.text.empty() ? val::null() : coded_to_js(m.text, m.code, m.args);
}

val Session::config() const { return config_to_js(trainer_->config()); }

// {train: Float32Array (one per step), valSteps: Float64Array, valLosses, valExactMatch, valCer,
// valBitsPerByte: Float32Array, tokensPerByte}: losses in nats per token; bits per byte = loss x
// tokensPerByte / ln 2 (NaN / 0 while the run's tokens per byte is not known)
val Session::history() const {
  const auto& tl = trainer_->train_losses();
  std::vector<double> steps;
  std::vector<float> losses, exact, cer, bpb;
  for (const train::ValPoint& p : trainer_->val_losses()) {
    steps.push_back(double(p.step));
    losses.push_back(p.loss);
    exact.push_back(p.exact_match);
    cer.push_back(p.cer);
    bpb.push_back(float(trainer_->bits_per_byte(p.loss)));
  }
  val o = val::object();
  o.set("train", copy_to_js("Float32Array", tl.data(), tl.size()));
  o.set("valSteps", copy_to_js("Float64Array", steps.data(), steps.size()));
  o.set("valLosses", copy_to_js("Float32Array", losses.data(), losses.size()));
  o.set("valExactMatch", copy_to_js("Float32Array", exact.data(), exact.size()));  // NaN for gpt
  o.set("valCer", copy_to_js("Float32Array", cer.data(), cer.size()));
  o.set("valBitsPerByte", copy_to_js("Float32Array", bpb.data(), bpb.size()));
  o.set("tokensPerByte", trainer_->tokens_per_byte());
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
      .function("kind", &Session::kind)
      .function("setTokenizer", &Session::setTokenizer)
      .function("tokenizer", &Session::tokenizer)
      .function("tokensPerByte", &Session::tokensPerByte)
      .function("tokenTexts", &Session::tokenTexts);
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
