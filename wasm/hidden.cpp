// hidden.cpp — the hidden feature: what a recurrent model's units do on a text (core hidden.h):
// every unit's activation, the LSTM's cell states and gates, the patterns, and the unit search.
#include "common.h"
#include "session.h"
#include "tinygpt/hidden.h"

namespace tinygpt::js {

namespace {

// {kind, T, L, H, G, tokens: Int32Array (T), ends: Int32Array (T) (the text's byte offset after
//  each position's token), labels: string[] (T: each token's text), h: Float32Array (L, T, H),
//  c: Float32Array (L, T, H) (lstm; else empty), gates: Float32Array (L, T, G, H) (lstm i f g o,
//  gru r z n; rnn: empty)}. A byte model's positions are the bytes; a BPE model's its tokens.
val hidden_trace(Session& s, const val& text) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(text, "the text");
    const hidden::Trace tr = s.trainer().trace_hidden(b.data(), b.size());
    val o = val::object();
    o.set("kind", tr.kind);
    o.set("T", tr.T);
    o.set("L", tr.L);
    o.set("H", tr.H);
    o.set("G", tr.G);
    o.set("tokens", copy_to_js("Int32Array", tr.tokens.data(), tr.tokens.size()));
    o.set("ends", copy_to_js("Int32Array", tr.ends.data(), tr.ends.size()));
    val labels = val::array();
    for (const int32_t id : tr.tokens) labels.call<void>("push", s.trainer().token_text(id));
    o.set("labels", labels);
    o.set("h", copy_to_js("Float32Array", tr.h.data(), tr.h.size()));
    o.set("c", copy_to_js("Float32Array", tr.c.data(), tr.c.size()));
    o.set("gates", copy_to_js("Float32Array", tr.gates.data(), tr.gates.size()));
    return o;
  });
}

// [{name, description}]: the patterns the unit search knows
val hidden_patterns() {
  val out = val::array();
  for (const hidden::PatternInfo& p : hidden::patterns()) {
    val o = val::object();
    o.set("name", std::string(p.name));
    o.set("description", std::string(p.description));
    out.call<void>("push", o);
  }
  return out;
}

// Float32Array (n): the pattern's value at each byte of a text
val hidden_signal(const std::string& pattern, const val& text) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(text, "the text");
    const std::vector<float> sig = hidden::signal(pattern, b.data(), b.size());
    return copy_to_js("Float32Array", sig.data(), sig.size());
  });
}

// [{layer, unit, state: 'h' | 'c', correlation}]: the k units that follow the pattern best on the
// text (its first hidden::kMaxTraceBytes positions), |correlation| largest first; a BPE model's
// tokens take the pattern's value at their last byte (hidden::token_signal)
val hidden_search(Session& s, const val& text, const std::string& pattern, int k) {
  return guarded([&] {
    if (k < 1 || k > 1024) throw Error("hiddenSearch: k must be 1 to 1024, not " + std::to_string(k));
    const std::vector<uint8_t> b = bytes_from(text, "the text");
    const hidden::Trace tr = s.trainer().trace_hidden(b.data(), b.size());
    const std::vector<float> sig = hidden::token_signal(hidden::signal(pattern, b.data(), b.size()), tr.ends);
    val out = val::array();
    for (const hidden::UnitMatch& u : hidden::search_units(tr, sig, k)) {
      val o = val::object();
      o.set("layer", u.layer);
      o.set("unit", u.unit);
      o.set("state", u.state);
      o.set("correlation", u.correlation);
      out.call<void>("push", o);
    }
    return out;
  });
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_hidden) {
  using namespace tinygpt::js;
  emscripten::function("hiddenTrace", &hidden_trace);
  emscripten::function("hiddenPatterns", &hidden_patterns);
  emscripten::function("hiddenSignal", &hidden_signal);
  emscripten::function("hiddenSearch", &hidden_search);
}
