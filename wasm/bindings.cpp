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

#include "tinygpt/error.h"
#include "tinygpt/runtime.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

using emscripten::val;

namespace {

[[noreturn]] void throw_js(const std::string& message) { val::global("Error").new_(message).throw_(); }

// Runs f, turning any C++ exception into a JS Error.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    if constexpr (std::is_void_v<decltype(f())>)
      f();
    else
      return f();
  } catch (const tinygpt::Error& e) {
    throw_js(e.what());
  } catch (const std::bad_alloc&) {
    throw_js("out of memory: the browser could not give the model more memory");
  } catch (const std::exception& e) {
    throw_js(std::string("internal error: ") + e.what());
  }
}

std::vector<uint8_t> bytes_from(const val& array, const char* what) {
  if (!array.instanceof(val::global("Uint8Array"))) throw tinygpt::Error(std::string(what) + " must be a Uint8Array");
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

// Reads an optional field of a plain JS object, checking its type.
double number_field(const val& obj, const char* name, double fallback) {
  if (obj.isUndefined() || obj.isNull()) return fallback;
  val v = obj[name];
  if (v.isUndefined() || v.isNull()) return fallback;
  if (v.typeOf().as<std::string>() != "number") throw tinygpt::Error(std::string("config.") + name + " must be a number");
  const double x = v.as<double>();
  if (!std::isfinite(x)) throw tinygpt::Error(std::string("config.") + name + " must be finite");
  return x;
}

int int_field(const val& obj, const char* name, int fallback) {
  const double x = number_field(obj, name, fallback);
  if (x != std::floor(x) || x < -2147483648.0 || x > 2147483647.0)
    throw tinygpt::Error(std::string("config.") + name + " must be an integer");
  return int(x);
}

struct Configs {
  model::Config model;
  train::TrainConfig train;
  int64_t memory_limit;
};

Configs parse_config(const val& c) {
  Configs r;
  r.model.n_layer = int_field(c, "layers", r.model.n_layer);
  r.model.n_head = int_field(c, "heads", r.model.n_head);
  r.model.n_embd = int_field(c, "width", r.model.n_embd);
  r.model.block_size = int_field(c, "context", r.model.block_size);
  r.model.seed = uint64_t(number_field(c, "seed", double(r.model.seed)));
  r.train.batch_size = int_field(c, "batch", r.train.batch_size);
  r.train.lr = float(number_field(c, "lr", r.train.lr));
  r.train.min_lr = float(number_field(c, "minLr", r.train.lr / 10));
  r.train.warmup = int_field(c, "warmup", r.train.warmup);
  r.train.steps = int_field(c, "steps", r.train.steps);
  r.train.weight_decay = float(number_field(c, "weightDecay", r.train.weight_decay));
  r.train.beta1 = float(number_field(c, "beta1", r.train.beta1));
  r.train.beta2 = float(number_field(c, "beta2", r.train.beta2));
  r.train.grad_clip = float(number_field(c, "gradClip", r.train.grad_clip));
  r.train.eval_batches = int_field(c, "evalBatches", r.train.eval_batches);
  r.memory_limit = int64_t(number_field(c, "memoryLimitMB", double(train::kDefaultMemoryLimit >> 20))) << 20;
  return r;
}

val config_to_js(const model::Config& m, const train::TrainConfig& t) {
  val o = val::object();
  o.set("layers", m.n_layer);
  o.set("heads", m.n_head);
  o.set("width", m.n_embd);
  o.set("context", m.block_size);
  o.set("seed", double(m.seed));
  o.set("batch", t.batch_size);
  o.set("lr", t.lr);
  o.set("minLr", t.min_lr);
  o.set("warmup", t.warmup);
  o.set("steps", t.steps);
  o.set("weightDecay", t.weight_decay);
  o.set("beta1", t.beta1);
  o.set("beta2", t.beta2);
  o.set("gradClip", t.grad_clip);
  o.set("evalBatches", t.eval_batches);
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

}  // namespace

class Session {
 public:
  explicit Session(const val& config) {
    guarded([&] {
      Configs c = parse_config(config);
      trainer_ = std::make_unique<train::Trainer>(c.model, c.train, c.memory_limit);
      memory_limit_ = c.memory_limit;
    });
  }

  void setCorpus(const val& bytes) {
    guarded([&] {
      trainer_->set_corpus(bytes_from(bytes, "the corpus"));
    });
  }
  bool hasCorpus() const { return trainer_->has_corpus(); }
  double corpusSize() const { return trainer_->has_corpus() ? double(trainer_->dataset().size()) : 0.0; }
  bool corpusMatchesCheckpoint() const { return trainer_->corpus_matches_checkpoint(); }

  // k optimizer steps: {losses: Float32Array(k), elapsedMs, step, lr, gradNorm}
  val train(int k) {
    return guarded([&] {
      if (k < 1) throw tinygpt::Error("train(k) needs k >= 1");
      std::vector<float> losses;
      losses.reserve(size_t(k));
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < k; i++) losses.push_back(trainer_->step());
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      val r = val::object();
      r.set("losses", copy_to_js("Float32Array", losses.data(), losses.size()));
      r.set("elapsedMs", ms);
      r.set("step", double(trainer_->steps_done()));
      r.set("lr", trainer_->learning_rate());
      r.set("gradNorm", trainer_->last_grad_norm());
      return r;
    });
  }

  double evaluate() {
    return guarded([&] { return double(trainer_->evaluate()); });
  }

  val generate(const val& prompt, int n, const val& options) {
    return guarded([&] {
      if (n < 0) throw tinygpt::Error("the number of bytes to generate must be >= 0");
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
      if (!generator_) throw tinygpt::Error("call beginGeneration() first");
      if (generator_step_ != trainer_->steps_done())
        throw tinygpt::Error("the model was trained since beginGeneration(): start a new generation");
      if (k < 0) throw tinygpt::Error("generateNext(k) needs k >= 0");
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

  // Replaces the model, optimizer and history with a checkpoint's; keeps the corpus.
  // On any error the session is exactly as before.
  void load(const val& bytes) {
    guarded([&] {
      std::vector<uint8_t> b = bytes_from(bytes, "the checkpoint");
      std::unique_ptr<train::Trainer> t = train::Trainer::load(b.data(), b.size(), memory_limit_);
      if (trainer_->has_corpus()) {
        const int ctx = t->model_config().block_size;
        if (trainer_->dataset().size() < size_t(ctx) + 1)
          throw tinygpt::Error("the current corpus is shorter than this checkpoint's context + 1 (" +
                               std::to_string(ctx + 1) + " bytes)");
        t->adopt_dataset(trainer_->take_dataset());
      }
      generator_.reset();
      trainer_ = std::move(t);
    });
  }

  val config() const { return config_to_js(trainer_->model_config(), trainer_->train_config()); }
  double step() const { return double(trainer_->steps_done()); }
  double learningRate() const { return trainer_->learning_rate(); }
  double numParameters() const { return double(trainer_->model().num_parameters()); }

  // {train: Float32Array (one per step), valSteps: Float64Array, valLosses: Float32Array}
  val history() const {
    const auto& tl = trainer_->train_losses();
    const auto& vl = trainer_->val_losses();
    std::vector<double> steps;
    std::vector<float> losses;
    for (const train::ValPoint& p : vl) {
      steps.push_back(double(p.step));
      losses.push_back(p.loss);
    }
    val o = val::object();
    o.set("train", copy_to_js("Float32Array", tl.data(), tl.size()));
    o.set("valSteps", copy_to_js("Float64Array", steps.data(), steps.size()));
    o.set("valLosses", copy_to_js("Float32Array", losses.data(), losses.size()));
    return o;
  }

 private:
  std::unique_ptr<train::Trainer> trainer_;
  std::unique_ptr<sample::Generator> generator_;
  int64_t generator_step_ = 0;
  int64_t memory_limit_ = train::kDefaultMemoryLimit;
};

// ---- module-level functions ------------------------------------------------------------------

std::string backend() { return tinygpt::simd_backend(); }
double memoryBytes() { return double(emscripten_get_heap_size()); }
int maxThreads() { return tinygpt::max_threads(); }
int numThreads() { return tinygpt::num_threads(); }
void setThreads(int n) {
  guarded([&] { tinygpt::set_num_threads(n); });
}

// "" if the config is valid, else the core's message (for inline validation in the UI).
std::string validateConfig(const val& config) {
  try {
    Configs c = parse_config(config);
    c.model.validate();
    c.train.validate();
    const int64_t need = train::estimate_training_bytes(c.model, c.train.batch_size);
    if (need > c.memory_limit)
      return "this configuration needs about " + std::to_string(need >> 20) + " MiB, more than the " +
             std::to_string(c.memory_limit >> 20) + " MiB allowed: reduce the batch, context, width or layers";
    return "";
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
}

// {parameters, trainingBytes} for a config, computed without allocating the model.
val estimate(const val& config) {
  return guarded([&] {
    Configs c = parse_config(config);
    val o = val::object();
    o.set("parameters", double(c.model.num_parameters()));
    o.set("trainingBytes", double(train::estimate_training_bytes(c.model, c.train.batch_size)));
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
      .function("train", &Session::train)
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
      .function("history", &Session::history);
  emscripten::function("backend", &backend);
  emscripten::function("memoryBytes", &memoryBytes);
  emscripten::function("maxThreads", &maxThreads);
  emscripten::function("numThreads", &numThreads);
  emscripten::function("setThreads", &setThreads);
  emscripten::function("validateConfig", &validateConfig);
  emscripten::function("estimate", &estimate);
}
