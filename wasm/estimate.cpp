// estimate.cpp — the estimate feature: "how long will this take here?" A throw-away trainer times
// a few real steps of a config (core/include/tinygpt/estimate.h), and the text's unigram and
// bigram entropies give the loss of simple models for scale.
#include "common.h"
#include "data.h"
#include "tinygpt/estimate.h"
#include "tokenizer.h"

namespace tinygpt::js {

namespace {

// {unigram, bigram, bytes}: nats per byte
val entropy_to_js(const TextEntropy& e) {
  val o = val::object();
  o.set("unigram", e.unigram);
  o.set("bigram", e.bigram);
  o.set("bytes", double(e.bytes));
  return o;
}

// preflight(config, corpus: Uint8Array, budgetMs) -> {stepsTimed, firstStepMs, msPerStep, tokensPerSec,
// msPerEval, evaluations, totalSeconds, memoryBytes, estimatedBytes, parameters, measuredMs, entropy}
val preflight_to_js(const Preflight& p) {
    val o = val::object();
    o.set("stepsTimed", p.steps_timed);
    o.set("firstStepMs", p.first_step_ms);
    o.set("msPerStep", p.ms_per_step);
    o.set("tokensPerSec", p.tokens_per_s);
    o.set("tokensPerByte", p.tokens_per_byte);
    o.set("bytesPerSec", p.bytes_per_s);
    o.set("msPerEval", p.ms_per_eval);
    o.set("evaluations", double(p.evaluations));
    o.set("totalSeconds", p.total_s);
    o.set("memoryBytes", double(p.memory_bytes));
    o.set("estimatedBytes", double(p.estimated_bytes));
    o.set("parameters", double(p.parameters));
    o.set("measuredMs", p.measured_ms);
    o.set("entropy", entropy_to_js(p.entropy));
    return o;
}

// A bpe config's tokenizer: the one given (a Tokenizer), else null: a stand-in from the text's beginning.
std::shared_ptr<const tok::Tokenizer> tokenizer_of(const val& tokenizer) {
  if (tokenizer.isNull() || tokenizer.isUndefined()) return nullptr;
  return tokenizer.as<const Tokenizer&>().t;
}

val preflight_js(const val& config, const val& corpus, double budget_ms, const val& tokenizer) {
  return guarded([&] {
    const ConfigAndLimit c = parse_config(config);
    const std::vector<uint8_t> bytes = bytes_from(corpus, "the corpus");
    return preflight_to_js(preflight(c.config, bytes.data(), bytes.size(), budget_ms > 0 ? budget_ms : 1000.0, c.memory_limit,
                                     tokenizer_of(tokenizer)));
  });
}

// preflightCorpus(config, corpus: Corpus, budgetMs, tokenizer): the same on a corpus read a window at a time
val preflight_corpus_js(const val& config, const Corpus& corpus, double budget_ms, const val& tokenizer) {
  return guarded([&] {
    const ConfigAndLimit c = parse_config(config);
    return preflight_to_js(preflight(c.config, corpus.corpus, budget_ms > 0 ? budget_ms : 1000.0, c.memory_limit, tokenizer_of(tokenizer)));
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

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_estimate) {
  using namespace tinygpt::js;
  emscripten::function("preflight", &preflight_js);
  emscripten::function("preflightCorpus", &preflight_corpus_js);
  emscripten::function("textEntropy", &text_entropy_js);
}
