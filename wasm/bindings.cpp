// bindings.cpp — the Embind surface of the core: one Session class and plain config objects.
// Every result is a copy in a fresh JS typed array (never a view into wasm memory, which can
// move when memory grows). A C++ exception becomes a JS Error with the same message, and the
// session stays usable afterwards.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tinygpt/checkpoint.h"
#include "tinygpt/config.h"
#include "tinygpt/error.h"
#include "tinygpt/pairs.h"
#include "tinygpt/run.h"
#include "tinygpt/runtime.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

using emscripten::val;

namespace {

// A coded message's code and args (error.h) as properties of o, next to its English text: the
// page words it from them (web/src/i18n/core-messages.ts). Nothing for an uncoded one.
void set_code(val& o, const std::string& code, const MessageArgs& args) {
  if (code.empty()) return;
  val a = val::object();
  for (const auto& [name, value] : args) a.set(name, value);
  o.set("code", code);
  o.set("args", a);
}

[[noreturn]] void throw_js(const std::string& message, const std::string& code = "", const MessageArgs& args = {}) {
  val e = val::global("Error").new_(message);
  set_code(e, code, args);
  e.throw_();
}

// Runs f, turning any C++ exception into a JS Error.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    if constexpr (std::is_void_v<decltype(f())>)
      f();
    else
      return f();
  } catch (const Error& e) {
    throw_js(e.what(), e.code(), e.args());
  } catch (const std::bad_alloc&) {
    throw_js("out of memory: the browser could not give the model more memory", "wasm.out_of_memory");
  } catch (const std::exception& e) {
    throw_js(std::string("internal error: ") + e.what());
  }
}

std::vector<uint8_t> bytes_from(const val& array, const char* what) {
  if (!array.instanceof(val::global("Uint8Array"))) throw Error(std::string(what) + " must be a Uint8Array");
  const size_t n = array["length"].as<size_t>();
  std::vector<uint8_t> bytes(n);
  // one bulk copy into wasm memory
  val(emscripten::typed_memory_view(n, bytes.data())).call<void>("set", array);
  return bytes;
}

template <class T>
val copy_to_js(const char* type, const T* data, size_t n) {
  return val::global(type).new_(emscripten::typed_memory_view(n, data));  // new X(view) copies
}

// Reads an optional number field of a plain JS object (sampling options), checking its type.
double number_field(const val& obj, const char* name, double fallback) {
  if (obj.isUndefined() || obj.isNull()) return fallback;
  val v = obj[name];
  if (v.isUndefined() || v.isNull()) return fallback;
  if (v.typeOf().as<std::string>() != "number") throw Error(std::string(name) + " must be a number");
  const double x = v.as<double>();
  if (!std::isfinite(x)) throw Error(std::string(name) + " must be finite");
  return x;
}

int int_field(const val& obj, const char* name, int fallback) {
  const double x = number_field(obj, name, fallback);
  if (x != std::floor(x) || x < -2147483648.0 || x > 2147483647.0) throw Error(std::string(name) + " must be an integer");
  return int(x);
}

// A config from a plain JS object keyed by the schema's names: { n_layer: 4, learning_rate: 1e-3, ... }.
// Missing fields take the schema's defaults; an unknown key or a value of the wrong type is an error.
// `memory_limit_mb` (not a config field: a limit of this session) may be given too.
struct ConfigAndLimit {
  Config config;
  int64_t memory_limit = kDefaultMemoryLimit;
};

// With `problems`, a bad field is recorded there (and skipped) instead of thrown.
ConfigAndLimit parse_config(const val& obj, std::vector<ConfigProblem>* problems = nullptr) {
  ConfigAndLimit r;
  if (obj.isUndefined() || obj.isNull()) return r;
  if (obj.typeOf().as<std::string>() != "object") throw Error("the config must be an object");
  const val keys = val::global("Object").call<val>("keys", obj);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; i++) {
    const std::string key = keys[i].as<std::string>();
    const val v = obj[key];
    if (v.isUndefined() || v.isNull()) continue;
    try {
      const std::string type = v.typeOf().as<std::string>();
      if (key == "memory_limit_mb") {
        if (type != "number")
          throw Error(coded("config.not_a_number", {{"field", "memory_limit_mb"}}, "memory_limit_mb must be a number"));
        r.memory_limit = int64_t(v.as<double>()) << 20;
        continue;
      }
      const FieldSpec& f = field(key);  // throws "unknown config field" with a suggestion
      if (f.type == FieldType::choice) {
        if (type != "string") throw Error(coded("config.not_a_string", {{"field", f.name}}, std::string(f.name) + " must be a string"));
        set_field_text(r.config, f, v.as<std::string>());
      } else {
        if (type != "number") throw Error(coded("config.not_a_number", {{"field", f.name}}, std::string(f.name) + " must be a number"));
        set_field(r.config, f, v.as<double>());
      }
    } catch (const Error& e) {
      if (!problems) throw;
      problems->push_back({key, e.what(), e.code(), e.args()});
    }
  }
  return r;
}

val config_to_js(const Config& c) {
  val o = val::object();
  for (const FieldSpec& f : config_schema()) {
    if (f.type == FieldType::choice) o.set(f.name, field_text(c, f));
    else o.set(f.name, f.get(c));
  }
  return o;
}

sample::Options parse_sample_options(const val& o) {
  sample::Options s;
  s.temperature = float(number_field(o, "temperature", s.temperature));
  s.top_k = int_field(o, "topK", s.top_k);
  s.top_p = float(number_field(o, "topP", s.top_p));
  s.seed = uint64_t(number_field(o, "seed", 0));
  s.window_keep = int_field(o, "windowKeep", s.window_keep);
  return s;
}

val tokens_to_js(const std::vector<sample::Token>& toks) {
  const size_t n = toks.size();
  std::vector<uint8_t> bytes(n), top_bytes(n * 5);
  std::vector<float> probs(n), top_probs(n * 5);
  for (size_t i = 0; i < n; i++) {
    bytes[i] = toks[i].byte;
    probs[i] = toks[i].prob;
    for (size_t k = 0; k < 5; k++) {
      top_bytes[i * 5 + k] = toks[i].top_bytes[k];
      top_probs[i * 5 + k] = toks[i].top_probs[k];
    }
  }
  val r = val::object();
  r.set("bytes", copy_to_js("Uint8Array", bytes.data(), n));
  r.set("probs", copy_to_js("Float32Array", probs.data(), n));
  r.set("topBytes", copy_to_js("Uint8Array", top_bytes.data(), n * 5));
  r.set("topProbs", copy_to_js("Float32Array", top_probs.data(), n * 5));
  return r;
}

// A run slice (tinygpt::Slice) as advance() returns it: {firstStep, step, losses: Float32Array,
// evals: [{step, loss, exactMatch, cer, ms}], trainMs, tokensPerSec, lr, gradNorm, finished, etaSeconds, rollbacks, error}
val slice_to_js(const Slice& s) {
  val evals = val::array();
  for (const Evaluation& e : s.evals) {
    val o = val::object();
    o.set("step", double(e.step));
    o.set("loss", e.loss);
    o.set("exactMatch", e.exact_match);  // seq2seq: held-out exact match and CER; NaN for gpt
    o.set("cer", e.cer);
    o.set("ms", e.ms);
    o.set("snapshotMs", e.snapshot_ms);  // of which the history's snapshot (0 without one)
    evals.call<void>("push", o);
  }
  val rollbacks = val::array();
  for (const train::Rollback& b : s.rollbacks) {
    val o = val::object();
    o.set("failedStep", double(b.failed_step));
    o.set("restoredStep", double(b.restored_step));
    o.set("lrScale", b.lr_scale);
    o.set("reason", b.reason);
    set_code(o, b.code, b.args);
    rollbacks.call<void>("push", o);
  }
  val r = val::object();
  r.set("firstStep", double(s.first_step));
  r.set("rollbacks", rollbacks);
  r.set("step", double(s.step));
  r.set("losses", copy_to_js("Float32Array", s.losses.data(), s.losses.size()));
  r.set("evals", evals);
  r.set("trainMs", s.train_ms);
  r.set("tokensPerSec", s.tokens_per_s);
  r.set("lr", s.lr);
  r.set("gradNorm", s.grad_norm);
  r.set("finished", s.finished);
  r.set("etaSeconds", s.eta_s);
  r.set("error", s.error);
  if (!s.error_code.empty()) {  // the pause's code and args, next to error
    val coded = val::object();
    set_code(coded, s.error_code, s.error_args);
    r.set("errorCode", coded["code"]);
    r.set("errorArgs", coded["args"]);
  }
  r.set("threads", s.threads);
  r.set("threadsReason", s.threads_reason);
  if (!s.threads_reason_code.empty()) {  // its code and args, as {code, args}
    val coded = val::object();
    set_code(coded, s.threads_reason_code, s.threads_reason_args);
    r.set("threadsCoded", coded);
  }
  return r;
}

// Every trainer a Session holds gets a new number: objects that point into one (the insight
// block's GenerationTree) can tell that it was replaced.
uint64_t g_next_generation = 1;

}  // namespace

class Session {
 public:
  explicit Session(const val& config) {
    guarded([&] {
      ConfigAndLimit c = parse_config(config);
      trainer_ = std::make_unique<train::Trainer>(c.config, c.memory_limit);
      new_run();
      memory_limit_ = c.memory_limit;
    });
    generation_ = g_next_generation++;
  }

  // A session around a trainer made elsewhere (sessionFromSafetensors, at the end of this file).
  Session(std::unique_ptr<train::Trainer> trainer, int64_t memory_limit)
      : trainer_(std::move(trainer)), memory_limit_(memory_limit), generation_(g_next_generation++) {
    new_run();
  }

  void setCorpus(const val& bytes) {
    guarded([&] {
      trainer_->set_corpus(bytes_from(bytes, "the corpus"));
    });
  }
  bool hasCorpus() const { return trainer_->has_corpus(); }
  double corpusSize() const { return double(trainer_->corpus_size()); }
  bool corpusMatchesCheckpoint() const { return trainer_->corpus_matches_checkpoint(); }

  // The run loop (tinygpt::Run): at most maxSteps steps, returning after about budgetMs of wall
  // time. {firstStep, step, losses: Float32Array, evals: [{step, loss, exactMatch, cer, ms}], trainMs, tokensPerSec,
  // lr, gradNorm, finished, etaSeconds, error}
  val advance(double max_steps, double budget_ms) {
    return guarded([&] {
      if (!(max_steps >= 1)) throw Error("advance(maxSteps, budgetMs) needs maxSteps >= 1");
      return slice_to_js(run_->advance(int64_t(std::min(max_steps, 1e15)), budget_ms > 0 ? budget_ms : 1e300));
    });
  }

  // Thread tuning (Run::tune_threads): the run picks 1..maxThreads threads from its own step
  // times, and keeps doing so across model changes; 0 turns it off.
  void tuneThreads(int max_threads) {
    tune_threads_ = max_threads;
    run_->tune_threads(max_threads);
  }

  // Test hook (the page's e2e test of the NaN guard): the next n steps get a NaN gradient.
  void injectNanGradient(int n) { trainer_->inject_nan_gradient(n); }

  // -1 = train until paused (the default past the end of the schedule)
  double stopAt() const { return double(run_->stop_at()); }
  void setStopAt(double step) {
    guarded([&] { run_->set_stop_at(int64_t(step)); });
  }
  // eval_interval and eval_iters change at once; max_iters moves the end of the schedule.
  void updateField(const std::string& name, double value) {
    guarded([&] {
      trainer_->update_field(name, value);
      new_run();  // the stop follows the schedule's new end
    });
  }

  double evaluate() {
    return guarded([&] { return double(trainer_->evaluate().loss); });
  }

  val generate(const val& prompt, int n, const val& options) {
    return guarded([&] {
      if (n < 0) throw Error("the number of bytes to generate must be >= 0");
      std::vector<uint8_t> p = bytes_from(prompt, "the prompt");
      sample::Generator gen(trainer_->model(), parse_sample_options(options));
      gen.set_prompt(p.data(), p.size());
      std::vector<sample::Token> toks;
      toks.reserve(size_t(n));
      for (int i = 0; i < n; i++) toks.push_back(gen.next());
      return tokens_to_js(toks);
    });
  }

  // Streaming generation: beginGeneration once, then generateNext(k) for each chunk.
  void beginGeneration(const val& prompt, const val& options) {
    guarded([&] {
      std::vector<uint8_t> p = bytes_from(prompt, "the prompt");
      auto gen = std::make_unique<sample::Generator>(trainer_->model(), parse_sample_options(options));
      gen->set_prompt(p.data(), p.size());
      generator_ = std::move(gen);
      generator_step_ = trainer_->steps_done();
    });
  }

  val generateNext(int k) {
    return guarded([&] {
      if (!generator_) throw Error("call beginGeneration() first");
      if (generator_step_ != trainer_->steps_done())
        throw Error(coded("sample.model_changed", {}, "the model was trained since beginGeneration(): start a new generation"));
      if (k < 0) throw Error("generateNext(k) needs k >= 0");
      std::vector<sample::Token> toks;
      toks.reserve(size_t(k));
      for (int i = 0; i < k; i++) toks.push_back(generator_->next());
      return tokens_to_js(toks);
    });
  }

  // {T, L, NH, attention: Float32Array (L, NH, T, T), probs: Float32Array (T, 256)}
  val inspect(const val& text) {
    return guarded([&] {
      std::vector<uint8_t> b = bytes_from(text, "the text");
      train::Inspection r = trainer_->inspect(b.data(), b.size());
      val o = val::object();
      o.set("T", r.T);
      o.set("L", r.L);
      o.set("NH", r.NH);
      o.set("attention", copy_to_js("Float32Array", r.attention.data(), r.attention.size()));
      o.set("probs", copy_to_js("Float32Array", r.probs.data(), r.probs.size()));
      return o;
    });
  }

  val save() const {
    return guarded([&] {
      std::vector<uint8_t> b = trainer_->save();
      return copy_to_js("Uint8Array", b.data(), b.size());
    });
  }

  // Replaces the model, optimizer and history with a checkpoint's; keeps the data when the model
  // kind is the same (a checkpoint of the other kind starts without: give it a text or pairs).
  // On any error the session is exactly as before.
  void load(const val& bytes) {
    guarded([&] {
      std::vector<uint8_t> b = bytes_from(bytes, "the checkpoint");
      std::unique_ptr<train::Trainer> t = train::Trainer::load(b.data(), b.size(), memory_limit_);
      if (trainer_->has_corpus() && t->kind() == trainer_->kind()) {
        if (t->kind() == ModelKind::gpt) {
          const int ctx = t->config().block_size;
          if (trainer_->corpus_size() < size_t(ctx) + 1)
            throw Error(coded("checkpoint.corpus_short", {{"needed", std::to_string(ctx + 1)}},
                              "the current corpus is shorter than this checkpoint's block_size + 1 (" + std::to_string(ctx + 1) +
                                  " bytes)"));
          t->set_corpus(trainer_->take_corpus());  // moved, not copied: it can be 100 MB
        } else {
          std::vector<uint8_t> tsv = trainer_->take_corpus();
          try {
            t->set_corpus(tsv);  // a copy: parsing with the checkpoint's block_size may still refuse it
          } catch (...) {
            trainer_->set_corpus(std::move(tsv));
            throw;
          }
        }
      }
      generator_.reset();
      trainer_ = std::move(t);
      new_run();
      generation_ = g_next_generation++;
    });
  }

  val config() const { return config_to_js(trainer_->config()); }
  train::Trainer& trainer() { return *trainer_; }  // for the WebGPU block at the end of this file
  Run& run() { return *run_; }
  uint64_t generation() const { return generation_; }  // changes when the trainer is replaced
  double step() const { return double(trainer_->steps_done()); }
  double learningRate() const { return trainer_->learning_rate(); }
  double numParameters() const { return double(trainer_->num_parameters()); }

  // {train: Float32Array (one per step), valSteps: Float64Array, valLosses: Float32Array}
  val history() const {
    const auto& tl = trainer_->train_losses();
    const auto& vl = trainer_->val_losses();
    std::vector<double> steps;
    std::vector<float> losses, exact, cer;
    for (const train::ValPoint& p : vl) {
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

  // ---- seq2seq -----------------------------------------------------------------------------------

  std::string kind() const { return model_kind_name(trainer_->kind()); }
  // The TSV report of the pairs: how many, which lines were skipped and why ("" for gpt).
  std::string dataReport() const { return trainer_->data_report(); }

  // {text: Uint8Array, probs: Float32Array, logProb, score, finished}; options {beam, temperature,
  // topK, maxLen, lengthPenalty, seed}.
  val translate(const val& source, const val& options) {
    return guarded([&] {
      const std::vector<uint8_t> src = bytes_from(source, "the source");
      sample::TranslateOptions o;
      o.beam = int_field(options, "beam", o.beam);
      o.temperature = float(number_field(options, "temperature", o.temperature));
      o.top_k = int_field(options, "topK", o.top_k);
      o.max_len = int_field(options, "maxLen", o.max_len);
      o.length_penalty = float(number_field(options, "lengthPenalty", o.length_penalty));
      o.seed = uint64_t(number_field(options, "seed", 0));
      o.validate(trainer_->config().block_size);
      const sample::Translation t = trainer_->translate(std::string(src.begin(), src.end()), o);
      val r = val::object();
      r.set("text", copy_to_js("Uint8Array", reinterpret_cast<const uint8_t*>(t.text.data()), t.text.size()));
      r.set("probs", copy_to_js("Float32Array", t.probs.data(), t.probs.size()));
      r.set("logProb", t.log_prob);
      r.set("score", t.score);
      r.set("finished", t.finished);
      return r;
    });
  }

  // The model reading a source and a target: {S, T, Le, Ld, NH, src: Int32Array (S), tgtIn: Int32Array
  // (T: BOS + target), encSelf (Le,NH,S,S), decSelf (Ld,NH,T,T), cross (Ld,NH,T,S), probs (T,259)}
  val inspectTranslation(const val& source, const val& target) {
    return guarded([&] {
      const std::vector<uint8_t> src = bytes_from(source, "the source"), tgt = bytes_from(target, "the target");
      const train::TranslationInspection r =
          trainer_->inspect_translation(std::string(src.begin(), src.end()), std::string(tgt.begin(), tgt.end()));
      val o = val::object();
      o.set("S", r.S);
      o.set("T", r.T);
      o.set("Le", r.Le);
      o.set("Ld", r.Ld);
      o.set("NH", r.NH);
      o.set("src", copy_to_js("Int32Array", r.src.data(), r.src.size()));
      o.set("tgtIn", copy_to_js("Int32Array", r.tgt_in.data(), r.tgt_in.size()));
      o.set("encSelf", copy_to_js("Float32Array", r.enc_self.data(), r.enc_self.size()));
      o.set("decSelf", copy_to_js("Float32Array", r.dec_self.data(), r.dec_self.size()));
      o.set("cross", copy_to_js("Float32Array", r.cross.data(), r.cross.size()));
      o.set("probs", copy_to_js("Float32Array", r.probs.data(), r.probs.size()));
      return o;
    });
  }

 private:
  void new_run() {
    run_ = std::make_unique<Run>(*trainer_);
    if (tune_threads_ > 0) run_->tune_threads(tune_threads_);
  }

  std::unique_ptr<train::Trainer> trainer_;
  std::unique_ptr<Run> run_;  // drives trainer_; rebuilt whenever trainer_ is replaced
  int tune_threads_ = 0;      // tuneThreads(): kept for every new Run
  std::unique_ptr<sample::Generator> generator_;
  int64_t generator_step_ = 0;
  int64_t memory_limit_ = kDefaultMemoryLimit;
  uint64_t generation_ = 0;
};

// ---- module-level functions ------------------------------------------------------------------

std::string backend() { return simd_backend(); }
double memoryBytes() { return double(emscripten_get_heap_size()); }
int maxThreads() { return max_threads(); }
int numThreads() { return num_threads(); }
void setThreads(int n) {
  guarded([&] { set_num_threads(n); });
}

// The built-in translation tasks: [{name, description, pairs, longest}].
val builtinTasks() {
  val out = val::array();
  for (const data::TaskInfo& t : data::builtin_tasks()) {
    val o = val::object();
    o.set("name", std::string(t.name));
    o.set("description", std::string(t.description));
    o.set("pairs", t.default_count);
    o.set("longest", t.longest);
    out.call<void>("push", o);
  }
  return out;
}

// A built-in task's pairs as TSV bytes (the same bytes `tinygpt train --task NAME` trains on).
val builtinTask(const std::string& name, double seed) {
  return guarded([&] {
    const std::vector<uint8_t> tsv = data::builtin_task(name, uint64_t(seed));
    return copy_to_js("Uint8Array", tsv.data(), tsv.size());
  });
}

// A TSV of pairs read as a seq2seq session with this block_size would read it (Session.setCorpus),
// without a model: {pairs, trainPairs, valPairs, longestSource, longestTarget, report}. Throws the
// core's message (which lines, and why) when no line is a usable pair. The page shows the report
// before a model exists, and checks a dropped file with it.
val pairsReport(const val& bytes, int block_size) {
  return guarded([&] {
    const data::PairDataset d(bytes_from(bytes, "the pairs"), block_size);
    val o = val::object();
    o.set("pairs", double(d.size()));
    o.set("trainPairs", double(d.train_size()));
    o.set("valPairs", double(d.val_size()));
    o.set("longestSource", d.max_source_len());
    o.set("longestTarget", d.max_target_len());
    o.set("report", d.report().summary());
    o.set("reportCode", std::string("pairs.report"));  // the report's code and args for the page's wording
    val report_args = val::object();
    for (const auto& [name, value] : d.report().args()) report_args.set(name, value);
    o.set("reportArgs", report_args);
    return o;
  });
}

// Every code a coded message of the core can carry (error.h): the page's catalogues word each one.
val message_codes_js() {
  val codes = val::array();
  for (std::string_view c : message_codes()) codes.call<void>("push", std::string(c));
  return codes;
}

// {problems: [{field, message, code?, args?}], parameters, trainingBytes} for a config, computed without
// allocating the model: every out-of-range field and broken rule, and the memory limit.
val checkConfig(const val& config) {
  return guarded([&] {
    val problems = val::array();
    auto problem = [&](const ConfigProblem& found) {
      val p = val::object();
      p.set("field", found.field);
      p.set("message", found.message);
      set_code(p, found.code, found.args);
      problems.call<void>("push", p);
    };
    val o = val::object();
    std::vector<ConfigProblem> found;
    const ConfigAndLimit c = parse_config(config, &found);  // every field that can't be set
    if (found.empty()) found = config_problems(c.config);    // then the ranges and the rules
    if (found.empty()) {
      Message memory = memory_message(c.config, c.memory_limit);
      if (!memory.text.empty()) found.push_back({"batch_size", std::move(memory.text), std::move(memory.code), std::move(memory.args)});
    }
    for (const ConfigProblem& p : found) problem(p);
    o.set("problems", problems);
    o.set("parameters", found.empty() ? double(num_parameters(c.config)) : 0.0);
    o.set("trainingBytes", found.empty() ? double(estimate_training_bytes(c.config)) : 0.0);
    return o;
  });
}

// The schema (config.h) as an array of {name, type, default, min, max, minOpen, maxOpen, range,
// kinds, group, label, help, choices}: the page builds its knobs from it.
val configSchema() {
  static const char* types[] = {"integer", "real", "choice"};
  static const char* groups[] = {"model", "training", "run"};
  val out = val::array();
  for (const FieldSpec& f : config_schema()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("type", std::string(types[int(f.type)]));
    if (f.type == FieldType::choice) o.set("default", f.choices.at(size_t(f.default_value)));
    else o.set("default", f.default_value);
    o.set("min", f.lo);
    o.set("max", f.hi);
    o.set("minOpen", f.lo_open);
    o.set("maxOpen", f.hi_open);
    o.set("range", std::string(f.range));
    val kinds = val::array();
    for (int k = 0; k < 32; k++)
      if ((f.kinds >> k) & 1u) kinds.call<void>("push", std::string(model_kind_name(ModelKind(k))));
    o.set("kinds", kinds);
    o.set("group", std::string(groups[int(f.group)]));
    o.set("label", std::string(f.label));
    o.set("help", std::string(f.help));
    val choices = val::array();
    for (const std::string& c : f.choices) choices.call<void>("push", c);
    o.set("choices", choices);
    out.call<void>("push", o);
  }
  return out;
}

// [{name, label, blurb, config}] — the same presets as `tinygpt train --preset`.
val presetList() {
  val out = val::array();
  for (const Preset& p : presets()) {
    val o = val::object();
    o.set("name", std::string(p.name));
    o.set("label", std::string(p.label));
    o.set("blurb", std::string(p.blurb));
    o.set("config", config_to_js(preset_config(p.name)));
    out.call<void>("push", o);
  }
  return out;
}

// What a checkpoint holds, from its header: {version, config, step, corpusFingerprint (16 hex
// digits), corpusSize, parameters}. Throws the loader's message for a bad file.
val describeCheckpoint(const val& bytes) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the checkpoint");
    const ckpt::Summary s = ckpt::describe(b.data(), b.size());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)s.corpus_fingerprint);
    val o = val::object();
    o.set("version", s.version);
    o.set("config", config_to_js(s.config));
    o.set("step", double(s.step));
    o.set("corpusFingerprint", std::string(hex));
    o.set("corpusSize", double(s.corpus_size));
    o.set("parameters", double(s.num_parameters));
    o.set("historySnapshots", double(s.history_snapshots));
    return o;
  });
}

EMSCRIPTEN_BINDINGS(tinygpt) {
  emscripten::class_<Session>("Session")
      .constructor<val>()
      .function("setCorpus", &Session::setCorpus)
      .function("hasCorpus", &Session::hasCorpus)
      .function("corpusSize", &Session::corpusSize)
      .function("corpusMatchesCheckpoint", &Session::corpusMatchesCheckpoint)
      .function("advance", &Session::advance)
      .function("stopAt", &Session::stopAt)
      .function("injectNanGradient", &Session::injectNanGradient)
      .function("setStopAt", &Session::setStopAt)
      .function("tuneThreads", &Session::tuneThreads)
      .function("updateField", &Session::updateField)
      .function("evaluate", &Session::evaluate)
      .function("generate", &Session::generate)
      .function("beginGeneration", &Session::beginGeneration)
      .function("generateNext", &Session::generateNext)
      .function("inspect", &Session::inspect)
      .function("save", &Session::save)
      .function("load", &Session::load)
      .function("config", &Session::config)
      .function("step", &Session::step)
      .function("learningRate", &Session::learningRate)
      .function("numParameters", &Session::numParameters)
      .function("history", &Session::history)
      .function("kind", &Session::kind)
      .function("dataReport", &Session::dataReport)
      .function("translate", &Session::translate)
      .function("inspectTranslation", &Session::inspectTranslation);
  emscripten::function("backend", &backend);
  emscripten::function("memoryBytes", &memoryBytes);
  emscripten::function("maxThreads", &maxThreads);
  emscripten::function("numThreads", &numThreads);
  emscripten::function("setThreads", &setThreads);
  emscripten::function("checkConfig", &checkConfig);
  emscripten::function("messageCodes", &message_codes_js);
  emscripten::function("configSchema", &configSchema);
  emscripten::function("presets", &presetList);
  emscripten::function("describeCheckpoint", &describeCheckpoint);
  emscripten::function("builtinTasks", &builtinTasks);
  emscripten::function("builtinTask", &builtinTask);
  emscripten::function("pairsReport", &pairsReport);
}

// ---- model files: a session from a .safetensors file ---------------------------------------------
// A file written by `tinygpt export` or python/tinygpt (safetensors.h: the weights, the config in
// the metadata) starts a new run: step 0, AdamW moments zero, the config from the file. The page
// calls this when a dropped file starts with a safetensors header instead of TGPTCKPT.

// {memory_limit_mb} as in the Session constructor. Throws the core's message for a file that is
// not a tinygpt model file (safetensors::parse, config_from_metadata, load_model).
Session* sessionFromSafetensors(const val& bytes, const val& options) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the model file");
    const safetensors::File file = safetensors::parse(b.data(), b.size());
    const int64_t memory_limit = int64_t(number_field(options, "memory_limit_mb", double(kDefaultMemoryLimit >> 20))) << 20;
    auto trainer = safetensors::start_run(file, safetensors::config_from_metadata(file.metadata), memory_limit);
    return new Session(std::move(trainer), memory_limit);  // the caller (JS) owns it: session.delete()
  });
}

Session* sessionFromSafetensorsDefaults(const val& bytes) { return sessionFromSafetensors(bytes, val::undefined()); }

EMSCRIPTEN_BINDINGS(tinygpt_model_files) {
  // two overloads: Embind calls need every argument, and the options are optional
  emscripten::function("sessionFromSafetensors", &sessionFromSafetensorsDefaults, emscripten::allow_raw_pointers());
  emscripten::function("sessionFromSafetensors", &sessionFromSafetensors, emscripten::allow_raw_pointers());
}

// ==== WebGPU backend (docs/webgpu.md) =============================================================
// The core's plan of a GPU step, and the host's half of a run whose steps execute on the GPU: the
// Session's trainer keeps the corpus, its sampling generator, the history and the checkpoint
// format (core/include/tinygpt/gpu_host.h). Arrays of parameters and moments are in the plan's
// GPU layout. Self-contained: it only needs Session::trainer().
#include "tinygpt/gpu_host.h"

namespace {

template <class T>
std::vector<T> vector_from(const val& array, const char* type, size_t n, const char* what) {
  if (!array.instanceof(val::global(type)) || array["length"].as<size_t>() != n)
    throw tinygpt::Error(std::string(what) + " must be a " + type + " of " + std::to_string(n) + " elements");
  std::vector<T> v(n);
  val(emscripten::typed_memory_view(n, v.data())).call<void>("set", array);
  return v;
}

std::string gpu_plan_json(Session& s) {
  return guarded([&] { return gpu::to_json(gpu::plan_for(s.trainer())); });
}

val gpu_export_state(Session& s) {
  return guarded([&] {
    const gpu::State st = gpu::export_state(s.trainer(), gpu::plan_for(s.trainer()));
    val o = val::object();
    o.set("params", copy_to_js("Float32Array", st.params.data(), st.params.size()));
    o.set("m", copy_to_js("Float32Array", st.m.data(), st.m.size()));
    o.set("v", copy_to_js("Float32Array", st.v.data(), st.v.size()));
    o.set("step", double(st.step));
    o.set("adamT", double(st.adam_t));
    return o;
  });
}

void gpu_import_state(Session& s, const val& params, const val& m, const val& v, double adam_t, bool good_state) {
  guarded([&] {
    const gpu::Plan plan = gpu::plan_for(s.trainer());
    const size_t n = size_t(plan.gpu_params);
    gpu::import_state(s.trainer(), plan, vector_from<float>(params, "Float32Array", n, "params").data(),
                      vector_from<float>(m, "Float32Array", n, "m").data(),
                      vector_from<float>(v, "Float32Array", n, "v").data(), int64_t(adam_t), good_state);
  });
}

val gpu_next_batches(Session& s, int k) {
  return guarded([&] {
    const train::Trainer& t = s.trainer();
    std::vector<int32_t> out(size_t(std::max(k, 0)) * 2 * t.config().batch_size * t.config().block_size);
    gpu::next_batches(s.trainer(), k, out.data());
    return copy_to_js("Int32Array", out.data(), out.size());
  });
}

val gpu_step_scalars(Session& s, double step, double adam_t, int k) {
  return guarded([&] {
    if (k < 1 || step < 0 || adam_t < 0) throw tinygpt::Error("gpuStepScalars: step, adamT >= 0 and k >= 1");
    std::vector<float> out(static_cast<size_t>(3 * k));
    gpu::step_scalars(s.trainer(), int64_t(step), int64_t(adam_t), k, out.data());
    return copy_to_js("Float32Array", out.data(), out.size());
  });
}

val gpu_val_batches(Session& s) {
  return guarded([&] {
    const train::Trainer& t = s.trainer();
    std::vector<int32_t> out(size_t(t.config().eval_iters) * 2 * t.config().batch_size * t.config().block_size);
    gpu::val_batches(t, out.data());
    return copy_to_js("Int32Array", out.data(), out.size());
  });
}

void gpu_record_steps(Session& s, const val& losses, const val& grad_norms) {
  guarded([&] {
    const size_t k = losses["length"].as<size_t>();
    const std::vector<float> l = vector_from<float>(losses, "Float32Array", k, "losses");
    const std::vector<float> g = vector_from<float>(grad_norms, "Float32Array", k, "gradient norms");
    gpu::record_steps(s.trainer(), l.data(), g.data(), int(k));
  });
}

double gpu_record_eval(Session& s, const val& losses) {
  return guarded([&] {
    const size_t n = losses["length"].as<size_t>();
    const std::vector<float> l = vector_from<float>(losses, "Float32Array", n, "losses");
    return double(gpu::record_eval(s.trainer(), l.data(), int(n)));
  });
}

// After a diverged step: back to the trainer's last good state at half the learning rate.
val gpu_roll_back(Session& s, const std::string& reason) {
  return guarded([&] {
    const train::Rollback r = s.trainer().roll_back(reason);
    val o = val::object();
    o.set("failedStep", double(r.failed_step));
    o.set("restoredStep", double(r.restored_step));
    o.set("lrScale", r.lr_scale);
    o.set("reason", r.reason);
    return o;
  });
}

// The run loop with steps computed on the GPU (tinygpt::Run::plan / record / record_evaluation):
// {evaluate, steps, keepGoodState, finished}.
val gpu_run_plan(Session& s, double max_steps) {
  return guarded([&] {
    const StepPlan p = s.run().plan(int64_t(std::max(0.0, std::min(max_steps, 1e15))));
    val o = val::object();
    o.set("evaluate", p.evaluate);
    o.set("steps", double(p.steps));
    o.set("keepGoodState", p.keep_good_state);
    o.set("finished", p.finished);
    return o;
  });
}

// The losses and gradient norms of steps the GPU computed, and how long they took: a slice as
// advance() returns it (a diverged step rolls back: upload the session's state again).
val gpu_run_record(Session& s, const val& losses, const val& grad_norms, double train_ms) {
  return guarded([&] {
    const size_t k = losses["length"].as<size_t>();
    const std::vector<float> l = vector_from<float>(losses, "Float32Array", k, "losses");
    const std::vector<float> g = vector_from<float>(grad_norms, "Float32Array", k, "gradient norms");
    return slice_to_js(s.run().record(l.data(), g.data(), int(k), train_ms));
  });
}

// The validation batches' losses (gpuValBatches, on the GPU): {step, loss, ms}.
val gpu_run_record_evaluation(Session& s, const val& batch_losses, double ms) {
  return guarded([&] {
    const size_t n = batch_losses["length"].as<size_t>();
    const std::vector<float> l = vector_from<float>(batch_losses, "Float32Array", n, "losses");
    const Evaluation e = s.run().record_evaluation(l.data(), int(n), ms);
    val o = val::object();
    o.set("step", double(e.step));
    o.set("loss", e.loss);
    o.set("ms", e.ms);
    return o;
  });
}

// The GPU's state is lost and the session's parameters are behind its step counter: back to its
// last good state, the learning rate unchanged (gpu::return_to_good_state).
val gpu_return_to_good_state(Session& s, const std::string& reason) {
  return guarded([&] {
    const train::Rollback r = gpu::return_to_good_state(s.trainer(), reason);
    val o = val::object();
    o.set("failedStep", double(r.failed_step));
    o.set("restoredStep", double(r.restored_step));
    o.set("lrScale", r.lr_scale);
    o.set("reason", r.reason);
    return o;
  });
}

// The sampling options as the CPU's Generator resolves them (validated; windowKeep 0 -> half the context).
val gpu_sample_options(Session& s, const val& options) {
  return guarded([&] {
    sample::Options o = parse_sample_options(options);
    const int T = s.trainer().config().block_size;
    o.validate(T);
    if (o.window_keep == 0) o.window_keep = std::max(1, T / 2);
    val r = val::object();
    r.set("temperature", o.temperature);
    r.set("topK", o.top_k);
    r.set("topP", o.top_p);
    r.set("seed", double(o.seed));
    r.set("windowKeep", o.window_keep);
    return r;
  });
}

val gpu_sample_draws(double seed, double start, int k) {
  return guarded([&] {
    if (k < 0 || start < 0) throw tinygpt::Error("gpuSampleDraws: start and k must be >= 0");
    std::vector<float> draws(static_cast<size_t>(k));
    gpu::sample_draws(uint64_t(seed), int64_t(start), k, draws.data());
    return copy_to_js("Float32Array", draws.data(), draws.size());
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(tinygpt_gpu) {
  emscripten::function("gpuPlan", &gpu_plan_json);
  emscripten::function("gpuExportState", &gpu_export_state);
  emscripten::function("gpuImportState", &gpu_import_state);
  emscripten::function("gpuNextBatches", &gpu_next_batches);
  emscripten::function("gpuStepScalars", &gpu_step_scalars);
  emscripten::function("gpuValBatches", &gpu_val_batches);
  emscripten::function("gpuRecordSteps", &gpu_record_steps);
  emscripten::function("gpuRecordEval", &gpu_record_eval);
  emscripten::function("gpuRollBack", &gpu_roll_back);
  emscripten::function("gpuSampleOptions", &gpu_sample_options);
  emscripten::function("gpuSampleDraws", &gpu_sample_draws);
  emscripten::function("gpuRunPlan", &gpu_run_plan);
  emscripten::function("gpuRunRecord", &gpu_run_record);
  emscripten::function("gpuRunRecordEvaluation", &gpu_run_record_evaluation);
  emscripten::function("gpuReturnToGoodState", &gpu_return_to_good_state);
}

// ---- sniff: "what is this file?" ---------------------------------------------------------------
// Self-contained on purpose (it uses nothing above), so the rest of this file can change freely.
// sniff(head: Uint8Array, totalSize: number, name: string) -> { kind, encoding, message, counts... }
#include "tinygpt/sniff.h"

namespace {

val sniff_file(const val& head, double total_size, const std::string& name) {
  if (!head.instanceof(val::global("Uint8Array"))) val::global("Error").new_(std::string("sniff: head must be a Uint8Array")).throw_();
  const size_t n = head["length"].as<size_t>();
  std::vector<uint8_t> bytes(n);
  val(emscripten::typed_memory_view(n, bytes.data())).call<void>("set", head);
  const io::Sniffed s = io::sniff(bytes.data(), n, uint64_t(total_size), name);
  val o = val::object();
  o.set("kind", s.kind_name);
  o.set("encoding", s.encoding);
  o.set("message", s.message);
  {  // the message's code and args (error.h), for the page's wording
    val a = val::object();
    for (const auto& [arg, value] : s.args) a.set(arg, value);
    o.set("code", s.code);
    o.set("args", a);
  }
  o.set("bytesLookedAt", double(s.bytes_looked_at));
  o.set("invalidUtf8", double(s.invalid_utf8));
  o.set("nulBytes", double(s.nul_bytes));
  o.set("controlBytes", double(s.control_bytes));
  o.set("highBytes", double(s.high_bytes));
  o.set("tsvLines", double(s.tsv_lines));
  o.set("lines", double(s.lines));
  return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(tinygpt_sniff) { emscripten::function("sniff", &sniff_file); }

// ---- pre-flight: "how long will this take here?" (issue 16) ---------------------------------------
// Self-contained like the sniff block: a throw-away trainer times a few real steps of the config
// (core/include/tinygpt/estimate.h), and the text's unigram and bigram entropies give the loss of
// simple models for scale.
#include "tinygpt/estimate.h"

namespace {

val entropy_to_js(const TextEntropy& e) {
  val o = val::object();
  o.set("unigram", e.unigram);
  o.set("bigram", e.bigram);
  o.set("bytes", double(e.bytes));
  return o;
}

// preflight(config, corpus: Uint8Array, budgetMs) -> {stepsTimed, firstStepMs, msPerStep, tokensPerSec,
// msPerEval, evaluations, totalSeconds, memoryBytes, estimatedBytes, parameters, measuredMs, entropy}
val preflight_js(const val& config, const val& corpus, double budget_ms) {
  return guarded([&] {
    const ConfigAndLimit c = parse_config(config);
    const std::vector<uint8_t> bytes = bytes_from(corpus, "the corpus");
    const Preflight p = preflight(c.config, bytes.data(), bytes.size(), budget_ms > 0 ? budget_ms : 1000.0, c.memory_limit);
    val o = val::object();
    o.set("stepsTimed", p.steps_timed);
    o.set("firstStepMs", p.first_step_ms);
    o.set("msPerStep", p.ms_per_step);
    o.set("tokensPerSec", p.tokens_per_s);
    o.set("msPerEval", p.ms_per_eval);
    o.set("evaluations", double(p.evaluations));
    o.set("totalSeconds", p.total_s);
    o.set("memoryBytes", double(p.memory_bytes));
    o.set("estimatedBytes", double(p.estimated_bytes));
    o.set("parameters", double(p.parameters));
    o.set("measuredMs", p.measured_ms);
    o.set("entropy", entropy_to_js(p.entropy));
    return o;
  });
}

// textEntropy(bytes: Uint8Array) -> {unigram, bigram, bytes}: nats per byte
val text_entropy_js(const val& bytes) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the text");
    return entropy_to_js(text_entropy(b.data(), b.size()));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(tinygpt_estimate) {
  emscripten::function("preflight", &preflight_js);
  emscripten::function("textEntropy", &text_entropy_js);
}

// ---- runs as links (issue 16) ------------------------------------------------------------------
// core/include/tinygpt/share.h: the page makes, parses and checks links with the same functions as
// `tinygpt train --from-link URL`. A link object in JS:
//   {config, variant, corpus: {builtin, fingerprint (16 hex digits), size, name}, losses: Float32Array}
#include "tinygpt/share.h"

namespace {

val link_to_js(const share::Link& l) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)l.corpus.fingerprint);
  val corpus = val::object();
  corpus.set("builtin", l.corpus.builtin);
  corpus.set("fingerprint", std::string(l.corpus.builtin.empty() ? hex : ""));
  corpus.set("size", double(l.corpus.size));
  corpus.set("name", l.corpus.name);
  val o = val::object();
  o.set("config", config_to_js(l.config));
  o.set("variant", l.variant);
  o.set("corpus", corpus);
  o.set("losses", copy_to_js("Float32Array", l.losses.data(), l.losses.size()));
  return o;
}

share::Link link_from_js(const val& o) {
  if (o.isUndefined() || o.isNull() || o.typeOf().as<std::string>() != "object") throw Error("the link must be an object");
  share::Link l;
  l.config = parse_config(o["config"]).config;
  if (!o["variant"].isUndefined()) l.variant = o["variant"].as<std::string>();
  const val c = o["corpus"];
  if (c.isUndefined() || c.isNull()) throw Error("the link needs a corpus: {builtin} or {fingerprint, size, name}");
  if (!c["builtin"].isUndefined() && !c["builtin"].isNull()) l.corpus.builtin = c["builtin"].as<std::string>();
  if (l.corpus.builtin.empty()) {
    const std::string hex = c["fingerprint"].isString() ? c["fingerprint"].as<std::string>() : "";
    char* end = nullptr;
    l.corpus.fingerprint = std::strtoull(hex.c_str(), &end, 16);
    if (hex.size() != 16 || *end) throw Error("the link's corpus.fingerprint must be 16 hex digits");
    l.corpus.size = uint64_t(number_field(c, "size", 0));
    if (!c["name"].isUndefined()) l.corpus.name = c["name"].as<std::string>();
  }
  const val losses = o["losses"];
  if (!losses.isUndefined() && !losses.isNull()) {
    if (!losses.instanceof(val::global("Float32Array"))) throw Error("the link's losses must be a Float32Array");
    const size_t n = losses["length"].as<size_t>();
    l.losses.resize(n);
    val(emscripten::typed_memory_view(n, l.losses.data())).call<void>("set", losses);
  }
  return l;
}

std::string build_variant_js() { return share::build_variant(); }

std::string make_share_link(const val& link, const std::string& base) {
  return guarded([&] { return share::make_link(link_from_js(link), base); });
}

val parse_share_link(const std::string& url) {
  return guarded([&] { return link_to_js(share::parse_link(url)); });
}

// checkReplay(link, losses: Float32Array, variant) -> {status: 'pending'|'matches'|'diverged', compared, expected,
// divergedAt, linkLoss, runLoss, sameVariant, maxDifference, message}
val check_replay_js(const val& link, const val& losses, const std::string& variant) {
  return guarded([&] {
    const share::Link l = link_from_js(link);
    if (!losses.instanceof(val::global("Float32Array"))) throw Error("the losses must be a Float32Array");
    const size_t n = losses["length"].as<size_t>();
    std::vector<float> run(n);
    val(emscripten::typed_memory_view(n, run.data())).call<void>("set", losses);
    const share::Replay r = share::check_replay(l, run.data(), n, variant.empty() ? share::build_variant() : variant);
    static const char* status[] = {"pending", "matches", "diverged"};
    val o = val::object();
    o.set("status", std::string(status[int(r.status)]));
    o.set("compared", double(r.compared));
    o.set("expected", double(r.expected));
    o.set("divergedAt", double(r.diverged_at));
    o.set("linkLoss", r.link_loss);
    o.set("runLoss", r.run_loss);
    o.set("sameVariant", r.same_variant);
    o.set("maxDifference", r.max_difference);
    o.set("message", r.message);
    set_code(o, r.code, r.args);
    return o;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(tinygpt_share) {
  emscripten::function("buildVariant", &build_variant_js);
  emscripten::function("makeShareLink", &make_share_link);
  emscripten::function("parseShareLink", &parse_share_link);
  emscripten::function("checkReplay", &check_replay_js);
}

// ==== watch it learn (issue 15): the run's history and step-through generation ====================
// core/include/tinygpt/watch.h; docs/watch.md. Self-contained: it needs Session::trainer()
// and Session::generation() only.
#include "tinygpt/watch.h"

namespace {

val baselines_to_js(const watch::Baselines& b) {
  val o = val::object();
  o.set("unigram", b.unigram);  // nats per token
  o.set("bigram", b.bigram);
  o.set("uniform", b.uniform);
  o.set("unigramBits", b.unigram / watch::kLn2);
  o.set("bigramBits", b.bigram / watch::kLn2);
  o.set("uniformBits", b.uniform / watch::kLn2);
  o.set("distinct", b.distinct);
  o.set("tokens", double(b.tokens));
  return o;
}

// Entropy baselines of the session's data (gpt: the training split; seq2seq: the training targets).
val insight_baselines(Session& s) {
  return guarded([&] { return baselines_to_js(s.trainer().baselines()); });
}

std::vector<uint8_t> optional_bytes(const val& v, const char* what) {
  if (v.isUndefined() || v.isNull()) return {};
  return bytes_from(v, what);
}

// Starts (or restarts) the history; probe/target: Uint8Array, or null to let the core choose.
void insight_start_history(Session& s, const val& probe, const val& target) {
  guarded([&] { s.trainer().start_history(optional_bytes(probe, "the probe"), optional_bytes(target, "the probe's target")); });
}

void insight_stop_history(Session& s) { s.trainer().stop_history(); }

// The history: its layout, probe and baselines, and the snapshots after `after_step` (-1: all):
// {enabled, kind, L, NH, Le, S, T, N, P, attentionBytes, probe, probeSource, bytes, baselines,
//  total, sizeBytes, budgetBytes, steps: Float64Array (K), attention: Uint8Array (K, A),
//  embedding: Float32Array (K, N, 2), probeLoss (K, T), positionLoss (K, P)}
val insight_history(Session& s, double after_step) {
  return guarded([&] {
    const watch::History& h = s.trainer().history();
    const watch::Layout& l = h.layout();
    val o = val::object();
    o.set("enabled", h.enabled());
    o.set("kind", std::string(model_kind_name(l.kind)));
    o.set("L", l.L), o.set("NH", l.NH), o.set("Le", l.Le), o.set("S", l.S), o.set("T", l.T), o.set("N", l.N), o.set("P", l.P);
    o.set("attentionBytes", double(l.attention_bytes()));
    o.set("probe", copy_to_js("Uint8Array", h.probe().data(), h.probe().size()));
    o.set("probeSource", copy_to_js("Uint8Array", h.probe_source().data(), h.probe_source().size()));
    o.set("bytes", copy_to_js("Uint8Array", h.bytes().data(), h.bytes().size()));
    o.set("baselines", baselines_to_js(h.baselines()));
    o.set("total", double(h.snapshots().size()));
    o.set("sizeBytes", double(h.size_bytes()));
    o.set("budgetBytes", double(watch::History::kBudgetBytes));
    std::vector<double> steps;
    std::vector<uint8_t> attention;
    std::vector<float> embedding, probe_loss, position_loss;
    for (const watch::Snapshot& sn : h.snapshots()) {
      if (double(sn.step) <= after_step) continue;
      steps.push_back(double(sn.step));
      attention.insert(attention.end(), sn.attention.begin(), sn.attention.end());
      embedding.insert(embedding.end(), sn.embedding.begin(), sn.embedding.end());
      probe_loss.insert(probe_loss.end(), sn.probe_loss.begin(), sn.probe_loss.end());
      position_loss.insert(position_loss.end(), sn.position_loss.begin(), sn.position_loss.end());
    }
    o.set("steps", copy_to_js("Float64Array", steps.data(), steps.size()));
    o.set("attention", copy_to_js("Uint8Array", attention.data(), attention.size()));
    o.set("embedding", copy_to_js("Float32Array", embedding.data(), embedding.size()));
    o.set("probeLoss", copy_to_js("Float32Array", probe_loss.data(), probe_loss.size()));
    o.set("positionLoss", copy_to_js("Float32Array", position_loss.data(), position_loss.size()));
    return o;
  });
}

// The nearest neighbours of every byte on the embedding map, by cosine in the full embedding space
// at the model's current weights (watch::embedding_neighbours): {k, step, index: Int32Array (N, k)
// into the history's bytes, most alike first, similarity: Float32Array (N, k)}. N = 0 without a history.
val insight_neighbours(Session& s, int k) {
  return guarded([&] {
    if (k < 0 || k > 256) throw Error("watchNeighbours: k must be 0 to 256, not " + std::to_string(k));
    train::Trainer& t = s.trainer();
    const std::vector<uint8_t>& bytes = t.history().bytes();
    const watch::Neighbours n = t.kind() == ModelKind::gpt ? watch::embedding_neighbours(t.model(), bytes, k)
                                                             : watch::embedding_neighbours(t.seq2seq(), bytes, k);
    val o = val::object();
    o.set("k", n.k);
    o.set("step", s.step());
    o.set("index", copy_to_js("Int32Array", n.index.data(), n.index.size()));
    o.set("similarity", copy_to_js("Float32Array", n.similarity.data(), n.similarity.size()));
    return o;
  });
}

// Takes a snapshot now (the run loop takes one at every evaluation by itself).
void insight_record_snapshot(Session& s) {
  guarded([&] { s.trainer().record_snapshot(); });
}

}  // namespace

// Step-through generation (watch::BranchTree) on a session's model. It points into the session's
// trainer: every call checks that the trainer is the same one and has not trained since.
class GenerationTree {
 public:
  // Throws tinygpt::Error (growGenerationTree turns it into a JS Error).
  GenerationTree(Session& s, const val& prompt, int top_k) : session_(&s) {
    const std::vector<uint8_t> p = bytes_from(prompt, s.trainer().kind() == ModelKind::gpt ? "the prompt" : "the source");
    const train::Trainer& t = s.trainer();
    if (t.kind() == ModelKind::gpt) tree_ = std::make_unique<watch::BranchTree>(t.model(), p.data(), p.size(), top_k);
    else tree_ = std::make_unique<watch::BranchTree>(t.seq2seq(), p.data(), p.size(), top_k);
    generation_ = s.generation();
    step_ = t.steps_done();
  }

  // {id, parent, token, prob, depth, topTokens: Int32Array, topProbs: Float32Array, children: Int32Array}
  val node(int id) const {
    return guarded([&] {
      const watch::BranchTree::Node& n = tree_->node(id);
      val o = val::object();
      o.set("id", id);
      o.set("parent", n.parent);
      o.set("token", n.token);
      o.set("prob", n.prob);
      o.set("depth", n.depth);
      o.set("topTokens", copy_to_js("Int32Array", n.top_tokens.data(), n.top_tokens.size()));
      o.set("topProbs", copy_to_js("Float32Array", n.top_probs.data(), n.top_probs.size()));
      o.set("children", copy_to_js("Int32Array", n.children.data(), n.children.size()));
      return o;
    });
  }

  int extend(int node, int token) {
    return guarded([&] {
      check();
      return tree_->extend(node, token);
    });
  }

  val text(int node) const {
    return guarded([&] {
      const std::vector<uint8_t> t = tree_->text(node);
      return copy_to_js("Uint8Array", t.data(), t.size());
    });
  }

  int size() const { return tree_ ? tree_->size() : 0; }
  double positionsComputed() const { return tree_ ? double(tree_->positions_computed()) : 0.0; }
  double step() const { return double(step_); }
  // False once the session's model was replaced or trained: grow a new tree.
  bool current() const { return session_->generation() == generation_ && session_->trainer().steps_done() == step_; }

 private:
  void check() const {
    if (session_->generation() != generation_)
      throw Error(coded("tree.replaced", {}, "the model was replaced: start a new generation tree"));
    if (session_->trainer().steps_done() != step_)
      throw Error(coded("tree.stale", {{"step", std::to_string(step_)}, {"now", std::to_string(session_->trainer().steps_done())}},
                        "the model has trained since this tree was grown (step " + std::to_string(step_) + ", now " +
                            std::to_string(session_->trainer().steps_done()) + "): grow it again"));
  }
  Session* session_;
  std::unique_ptr<watch::BranchTree> tree_;
  uint64_t generation_ = 0;
  int64_t step_ = 0;
};

// The caller (JS) owns the tree: tree.delete().
GenerationTree* make_generation_tree(Session& s, const val& prompt, int top_k) {
  return guarded([&] { return new GenerationTree(s, prompt, top_k); });
}

EMSCRIPTEN_BINDINGS(tinygpt_insight) {
  emscripten::function("watchBaselines", &insight_baselines);
  emscripten::function("watchStartHistory", &insight_start_history);
  emscripten::function("watchStopHistory", &insight_stop_history);
  emscripten::function("watchHistory", &insight_history);
  emscripten::function("watchRecordSnapshot", &insight_record_snapshot);
  emscripten::function("watchNeighbours", &insight_neighbours);
  emscripten::class_<GenerationTree>("GenerationTree")
      .function("node", &GenerationTree::node)
      .function("extend", &GenerationTree::extend)
      .function("text", &GenerationTree::text)
      .function("size", &GenerationTree::size)
      .function("positionsComputed", &GenerationTree::positionsComputed)
      .function("step", &GenerationTree::step)
      .function("current", &GenerationTree::current);
  // a factory rather than a constructor: a C++ exception in it becomes a JS Error with the message
  emscripten::function("growGenerationTree", &make_generation_tree, emscripten::allow_raw_pointers());
}

// ---- learn by hand: one traced training step of the walkthrough's tiny GPT ---------------------
// Self-contained like sniff. learnTrace(model, edits?) -> { model, loss, gradNorm, entries }
// (core/include/tinygpt/learn.h); stateless: the page keeps its edits and sends them every time.
#include "tinygpt/learn.h"

namespace {

val shape_to_js(const nn::Shape& s) {
  val a = val::array();
  for (int i = 0; i < s.ndim; i++) a.call<void>("push", double(s.dims[i]));
  return a;
}

double walk_number(const val& v, const std::string& what) {
  if (v.typeOf().as<std::string>() != "number") throw Error(what + " must be a number");
  return v.as<double>();
}

int walk_int(const val& v, const std::string& what) {
  const double x = walk_number(v, what);
  if (x != std::floor(x) || std::abs(x) > 1e9) throw Error(what + " must be an integer");
  return int(x);
}

val walk_trace(const std::string& name, const val& edits) {
  return guarded([&] {
    learn::Model m = learn::model_named(name);
    if (!edits.isUndefined() && !edits.isNull()) {
      if (edits.typeOf().as<std::string>() != "object") throw Error("learnTrace: edits must be an object");
      const val tokens = edits["tokens"];
      if (!tokens.isUndefined() && !tokens.isNull()) {
        if (!val::global("Array").call<bool>("isArray", tokens) || tokens["length"].as<int>() != m.T + 1)
          throw Error("learnTrace: tokens must be an array of " + std::to_string(m.T + 1) + " numbers");
        for (int i = 0; i <= m.T; i++) learn::set_token(m, i, walk_int(tokens[i], "token " + std::to_string(i)));
      }
      const val weights = edits["weights"];
      if (!weights.isUndefined() && !weights.isNull()) {
        if (!val::global("Array").call<bool>("isArray", weights)) throw Error("learnTrace: weights must be an array");
        const int n = weights["length"].as<int>();
        for (int i = 0; i < n; i++) {
          const val w = weights[i];
          if (w.typeOf().as<std::string>() != "object" || w.isNull() || w["param"].typeOf().as<std::string>() != "string")
            throw Error("learnTrace: each weight edit is { param, index, value }");
          learn::set_weight(m, w["param"].as<std::string>(), walk_int(w["index"], "index"),
                           float(walk_number(w["value"], "value")));
        }
      }
    }
    const learn::Trace tr = learn::trace_step(m);
    val model = val::object();
    model.set("name", m.name);
    model.set("V", m.V), model.set("C", m.C), model.set("NH", m.NH), model.set("T", m.T);
    model.set("tokens", copy_to_js("Int32Array", m.tokens.data(), m.tokens.size()));
    val params = val::array();
    for (const learn::Param& p : m.params) {
      val o = val::object();
      o.set("name", p.name);
      o.set("shape", shape_to_js(p.shape));
      o.set("decay", p.decay);
      params.call<void>("push", o);
    }
    model.set("params", params);
    val entries = val::array();
    for (const learn::Entry& e : tr.entries) {
      val o = val::object();
      o.set("name", e.name);
      o.set("phase", e.phase);
      o.set("node", e.node);
      o.set("shape", shape_to_js(e.shape));
      o.set("values", copy_to_js("Float32Array", e.values.data(), e.values.size()));
      o.set("equation", e.equation);
      o.set("function", e.function);
      o.set("doc", e.doc);
      entries.call<void>("push", o);
    }
    val out = val::object();
    out.set("model", model);
    out.set("loss", tr.loss);
    out.set("gradNorm", tr.grad_norm);
    out.set("entries", entries);
    return out;
  });
}

val walk_trace_default(const std::string& name) { return walk_trace(name, val::undefined()); }

}  // namespace

EMSCRIPTEN_BINDINGS(tinygpt_walk) {
  emscripten::function("learnTrace", &walk_trace_default);
  emscripten::function("learnTrace", &walk_trace);
}
