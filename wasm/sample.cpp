// sample.cpp — the sample feature: generation from a session's model, whole or streamed
// (sample::Generator), each token with its probability and the five likeliest. A byte model's
// tokens are bytes; a BPE model's are its tokenizer's ids, several bytes each.
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

// {tokens: Int32Array (n), bytes: Uint8Array (the tokens' bytes, one after the other), ends:
// Uint32Array (n) (token i's bytes end there), probs: Float32Array (n), topTokens: Int32Array (n, 5),
// topProbs: Float32Array (n, 5)}. A byte model: bytes[i] is token i.
val tokens_to_js(const train::Trainer& t, const std::vector<sample::Token>& toks) {
  const size_t n = toks.size();
  std::vector<int32_t> ids(n), top(n * 5);
  std::vector<uint32_t> ends(n);
  std::vector<float> probs(n), top_probs(n * 5);
  std::string bytes;
  for (size_t i = 0; i < n; i++) {
    ids[i] = toks[i].id;
    bytes += t.token_bytes(toks[i].id);
    ends[i] = uint32_t(bytes.size());
    probs[i] = toks[i].prob;
    for (size_t k = 0; k < 5; k++) {
      top[i * 5 + k] = toks[i].top_ids[k];
      top_probs[i * 5 + k] = toks[i].top_probs[k];
    }
  }
  val r = val::object();
  r.set("tokens", copy_to_js("Int32Array", ids.data(), n));
  r.set("bytes", copy_to_js("Uint8Array", reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  r.set("ends", copy_to_js("Uint32Array", ends.data(), n));
  r.set("probs", copy_to_js("Float32Array", probs.data(), n));
  r.set("topTokens", copy_to_js("Int32Array", top.data(), n * 5));
  r.set("topProbs", copy_to_js("Float32Array", top_probs.data(), n * 5));
  return r;
}

// The prompt's tokens: its bytes, or its encoding by the run's tokenizer.
std::vector<int32_t> prompt_tokens(const train::Trainer& t, const val& prompt) {
  const std::vector<uint8_t> p = bytes_from(prompt, "the prompt");
  return t.encode(std::string_view(reinterpret_cast<const char*>(p.data()), p.size()));
}

// A generator on the session's language model: TinyGPT's KV cache or a recurrent model's state.
std::unique_ptr<sample::Generator> make_generator(const train::Trainer& t, const sample::Options& o) {
  if (is_recurrent(t.kind())) return std::make_unique<sample::Generator>(t.recurrent(), o);
  return std::make_unique<sample::Generator>(t.model(), o);
}

}  // namespace

val Session::generate(const val& prompt, int n, const val& options) {
  return guarded([&] {
    if (n < 0) throw Error("the number of tokens to generate must be >= 0");
    const std::vector<int32_t> p = prompt_tokens(*trainer_, prompt);
    std::unique_ptr<sample::Generator> gen = make_generator(*trainer_, parse_sample_options(options));
    gen->set_prompt_tokens(p.data(), p.size());
    std::vector<sample::Token> toks;
    toks.reserve(size_t(n));
    for (int i = 0; i < n; i++) toks.push_back(gen->next());
    return tokens_to_js(*trainer_, toks);
  });
}

// Streaming generation: beginGeneration once, then generateNext(k) for each chunk.
void Session::beginGeneration(const val& prompt, const val& options) {
  guarded([&] {
    const std::vector<int32_t> p = prompt_tokens(*trainer_, prompt);
    auto gen = make_generator(*trainer_, parse_sample_options(options));
    gen->set_prompt_tokens(p.data(), p.size());
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
    return tokens_to_js(*trainer_, toks);
  });
}

void bind_sample(const SessionClass& c) {
  c.function("generate", &Session::generate)
      .function("beginGeneration", &Session::beginGeneration)
      .function("generateNext", &Session::generateNext);
}

}  // namespace tinygpt::js
