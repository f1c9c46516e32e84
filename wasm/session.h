// session.h — the Session: the one class of the binding, the live model over a train::Trainer
// and its run loop (tinygpt::Run). Its methods live with their features:
//   session.cpp    construction, the corpus, the configuration, the loss history
//   train.cpp      the run loop (advance), the stop, the thread tuner, evaluate
//   sample.cpp     generate, beginGeneration, generateNext
//   inspect.cpp    inspect
//   translate.cpp  translate, inspectTranslation, dataReport
//   runs.cpp       save, load (and sessionFromSafetensors)
// and each feature binds its own methods on the class (bind_* below, called from session.cpp).
// The module functions of watch.cpp and webgpu.cpp take a Session and reach its trainer.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>

#include "tinygpt/run.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"
#include "data.h"
#include "tokenizer.h"

namespace tinygpt::js {

using emscripten::val;

class Session {
 public:
  explicit Session(const val& config);
  // A session around a trainer made elsewhere (sessionFromSafetensors, runs.cpp).
  Session(std::unique_ptr<train::Trainer> trainer, int64_t memory_limit);

  // ---- session.cpp ----
  void setCorpus(const val& bytes);
  void useCorpus(const Corpus& corpus);
  bool hasCorpus() const { return trainer_->has_corpus(); }
  double corpusSize() const { return double(trainer_->corpus_size()); }
  bool corpusMatchesCheckpoint() const { return trainer_->corpus_matches_checkpoint(); }
  val corpusMismatch() const;
  val config() const;
  double step() const { return double(trainer_->steps_done()); }
  double numParameters() const { return double(trainer_->num_parameters()); }
  val history() const;
  std::string kind() const { return model_kind_name(trainer_->kind()); }
  // The run's tokenizer (tokenizer bpe): give it before the corpus; a checkpoint brings its own.
  void setTokenizer(const Tokenizer& tokenizer);
  val tokenizer() const;  // a Tokenizer sharing the run's, or null (bytes)
  double tokensPerByte() const { return trainer_->tokens_per_byte(); }
  val tokenTexts(const val& ids) const;  // labels of tokens (token_text), bytes or BPE

  // ---- train.cpp ----
  val advance(double max_steps, double budget_ms);
  void tuneThreads(int max_threads);
  // Test hook (the page's e2e test of the NaN guard): the next n steps get a NaN gradient.
  void injectNanGradient(int n) { trainer_->inject_nan_gradient(n); }
  double stopAt() const { return double(run_->stop_at()); }  // -1 = train until paused
  void setStopAt(double step);
  void updateField(const std::string& name, double value);
  double evaluate();
  double learningRate() const { return trainer_->learning_rate(); }

  // ---- sample.cpp ----
  val generate(const val& prompt, int n, const val& options);
  void beginGeneration(const val& prompt, const val& options);
  val generateNext(int k);

  // ---- inspect.cpp ----
  val inspect(const val& text);

  // ---- translate.cpp (seq2seq) ----
  // The TSV report of the pairs: how many, which lines were skipped and why ("" for gpt).
  std::string dataReport() const { return trainer_->data_report(); }
  val translate(const val& source, const val& options);
  val inspectTranslation(const val& source, const val& target);

  // ---- runs.cpp ----
  val save() const;
  void load(const val& bytes);

  // ---- for the module functions that take a session (watch.cpp, webgpu.cpp) ----
  train::Trainer& trainer() { return *trainer_; }
  Run& run() { return *run_; }
  uint64_t generation() const { return generation_; }  // changes when the trainer is replaced

 private:
  void new_run();
  // Replaces the trainer (load): a new run, no generator, a new generation.
  void replace_trainer(std::unique_ptr<train::Trainer> t);

  std::unique_ptr<train::Trainer> trainer_;
  std::unique_ptr<Run> run_;  // drives trainer_; rebuilt whenever trainer_ is replaced
  int tune_threads_ = 0;      // tuneThreads(): kept for every new Run
  std::unique_ptr<sample::Generator> generator_;
  int64_t generator_step_ = 0;
  int64_t memory_limit_ = kDefaultMemoryLimit;
  uint64_t generation_ = 0;
};

// A run slice (tinygpt::Slice) as advance() and gpuRunRecord() return it (wasm/tinygpt.d.ts Slice).
val slice_to_js(const Slice& s);
// A NaN guard's rollback: {failedStep, restoredStep, lrScale, message, code?, args?}.
val rollback_to_js(const train::Rollback& r);
// Sampling options from a plain JS object {temperature, topK, topP, seed, windowKeep} (sample.cpp).
sample::Options parse_sample_options(const val& o);

// Each feature binds its methods of the Session (called from session.cpp's EMSCRIPTEN_BINDINGS).
using SessionClass = emscripten::class_<Session>;
void bind_train(const SessionClass& c);
void bind_sample(const SessionClass& c);
void bind_inspect(const SessionClass& c);
void bind_translate(const SessionClass& c);
void bind_runs(const SessionClass& c);

}  // namespace tinygpt::js
