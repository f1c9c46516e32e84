// translate.cpp — the translate feature: a seq2seq session translating a source (greedy, sampled
// or beam search) and reading a source and a target (the three attentions), and its data report.
#include "common.h"
#include "session.h"

namespace tinygpt::js {

// {beam, temperature, topK, maxLen, lengthPenalty, seed}, checked against the model's block_size
// and vocabulary (top-k at most its text tokens and EOS).
sample::TranslateOptions parse_translate_options(const val& options, int block_size, int tokens) {
  sample::TranslateOptions o;
  o.beam = int_field(options, "beam", o.beam);
  o.temperature = float(number_field(options, "temperature", o.temperature));
  o.top_k = int_field(options, "topK", o.top_k);
  o.max_len = int_field(options, "maxLen", o.max_len);
  o.length_penalty = float(number_field(options, "lengthPenalty", o.length_penalty));
  o.seed = uint64_t(number_field(options, "seed", 0));
  o.validate(block_size, tokens);
  return o;
}

val translation_to_js(const sample::Translation& t) {
  val r = val::object();
  r.set("text", copy_to_js("Uint8Array", reinterpret_cast<const uint8_t*>(t.text.data()), t.text.size()));
  r.set("tokens", copy_to_js("Int32Array", t.tokens.data(), t.tokens.size()));
  r.set("probs", copy_to_js("Float32Array", t.probs.data(), t.probs.size()));
  r.set("logProb", t.log_prob);
  r.set("score", t.score);
  r.set("finished", t.finished);
  return r;
}

// {text: Uint8Array, tokens: Int32Array (the output tokens, no EOS), probs: Float32Array, logProb, score, finished}
val Session::translate(const val& source, const val& options) {
  return guarded([&] {
    const std::vector<uint8_t> src = bytes_from(source, "the source");
    const sample::TranslateOptions o =
        parse_translate_options(options, trainer_->config().block_size, trainer_->config().vocab_size + 1);
    const sample::Translation t = trainer_->translate(std::string(src.begin(), src.end()), o);
    return translation_to_js(t);
  });
}

// The model reading a source and a target: {S, T, Le, Ld, NH, src: Int32Array (S), tgtIn: Int32Array
// (T: BOS + target), encSelf (Le,NH,S,S), decSelf (Ld,NH,T,T), cross (Ld,NH,T,S), probs (T,V): V =
// vocab_size + 3 (259 for bytes)}
val Session::inspectTranslation(const val& source, const val& target) {
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

void bind_translate(const SessionClass& c) {
  c.function("dataReport", &Session::dataReport)
      .function("translate", &Session::translate)
      .function("inspectTranslation", &Session::inspectTranslation);
}

}  // namespace tinygpt::js
