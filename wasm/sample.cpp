// sample.cpp — the sample feature: generation from a session's model, whole or streamed
// (sample::Generator), each byte with its probability and the five likeliest.
#include "common.h"
#include "session.h"

namespace tinygpt::js {

sample::Options parse_sample_options(const val& o) {
  sample::Options s;
  s.temperature = float(number_field(o, "temperature", s.temperature));
  s.top_k = int_field(o, "topK", s.top_k);
  s.top_p = float(number_field(o, "topP", s.top_p));
  s.seed = uint64_t(number_field(o, "seed", 0));
  s.window_keep = int_field(o, "windowKeep", s.window_keep);
  return s;
}

namespace {

// {bytes: Uint8Array (n), probs: Float32Array (n), topBytes: Uint8Array (n, 5), topProbs: Float32Array (n, 5)}
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

// A generator on the session's language model: TinyGPT's KV cache or a recurrent model's state.
std::unique_ptr<sample::Generator> make_generator(const train::Trainer& t, const sample::Options& o) {
  if (is_recurrent(t.kind())) return std::make_unique<sample::Generator>(t.recurrent(), o);
  return std::make_unique<sample::Generator>(t.model(), o);
}

}  // namespace

val Session::generate(const val& prompt, int n, const val& options) {
  return guarded([&] {
    if (n < 0) throw Error("the number of bytes to generate must be >= 0");
    std::vector<uint8_t> p = bytes_from(prompt, "the prompt");
    std::unique_ptr<sample::Generator> gen = make_generator(*trainer_, parse_sample_options(options));
    gen->set_prompt(p.data(), p.size());
    std::vector<sample::Token> toks;
    toks.reserve(size_t(n));
    for (int i = 0; i < n; i++) toks.push_back(gen->next());
    return tokens_to_js(toks);
  });
}

// Streaming generation: beginGeneration once, then generateNext(k) for each chunk.
void Session::beginGeneration(const val& prompt, const val& options) {
  guarded([&] {
    std::vector<uint8_t> p = bytes_from(prompt, "the prompt");
    auto gen = make_generator(*trainer_, parse_sample_options(options));
    gen->set_prompt(p.data(), p.size());
    generator_ = std::move(gen);
    generator_step_ = trainer_->steps_done();
  });
}

val Session::generateNext(int k) {
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

void bind_sample(const SessionClass& c) {
  c.function("generate", &Session::generate)
      .function("beginGeneration", &Session::beginGeneration)
      .function("generateNext", &Session::generateNext);
}

}  // namespace tinygpt::js
