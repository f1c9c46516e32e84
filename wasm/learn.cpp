// learn.cpp — the learn feature ("learn by hand", docs/learn.md): one traced training step of the
// walkthrough's tiny GPT (core/include/tinygpt/learn.h). learnTrace(model, edits?) -> {model, loss,
// gradNorm, entries}; stateless: the page keeps its edits and sends them every time.
#include <cmath>

#include "common.h"
#include "tinygpt/learn.h"

namespace tinygpt::js {

namespace {

val shape_to_js(const nn::Shape& s) {
  val a = val::array();
  for (int i = 0; i < s.ndim; i++) a.call<void>("push", double(s.dims[i]));
  return a;
}

double edit_number(const val& v, const std::string& what) {
  if (v.typeOf().as<std::string>() != "number") throw Error(what + " must be a number");
  return v.as<double>();
}

int edit_int(const val& v, const std::string& what) {
  const double x = edit_number(v, what);
  if (x != std::floor(x) || std::abs(x) > 1e9) throw Error(what + " must be an integer");
  return int(x);
}

// edits.tokens: all T + 1 tokens
void apply_token_edits(learn::Model& m, const val& tokens) {
  if (tokens.isUndefined() || tokens.isNull()) return;
  if (!val::global("Array").call<bool>("isArray", tokens) || tokens["length"].as<int>() != m.T + 1)
    throw Error("learnTrace: tokens must be an array of " + std::to_string(m.T + 1) + " numbers");
  for (int i = 0; i <= m.T; i++) learn::set_token(m, i, edit_int(tokens[i], "token " + std::to_string(i)));
}

// edits.weights: [{param, index, value}]
void apply_weight_edits(learn::Model& m, const val& weights) {
  if (weights.isUndefined() || weights.isNull()) return;
  if (!val::global("Array").call<bool>("isArray", weights)) throw Error("learnTrace: weights must be an array");
  const int n = weights["length"].as<int>();
  for (int i = 0; i < n; i++) {
    const val w = weights[i];
    if (w.typeOf().as<std::string>() != "object" || w.isNull() || w["param"].typeOf().as<std::string>() != "string")
      throw Error("learnTrace: each weight edit is { param, index, value }");
    learn::set_weight(m, w["param"].as<std::string>(), edit_int(w["index"], "index"), float(edit_number(w["value"], "value")));
  }
}

// {name, V, C, NH, T, tokens: Int32Array, params: [{name, shape, decay}]}
val model_to_js(const learn::Model& m) {
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
  return model;
}

// {name, phase, node, shape, values: Float32Array, equation, function, doc}
val entry_to_js(const learn::Entry& e) {
  val o = val::object();
  o.set("name", e.name);
  o.set("phase", e.phase);
  o.set("node", e.node);
  o.set("shape", shape_to_js(e.shape));
  o.set("values", copy_to_js("Float32Array", e.values.data(), e.values.size()));
  o.set("equation", e.equation);
  o.set("function", e.function);
  o.set("doc", e.doc);
  return o;
}

val learn_trace(const std::string& name, const val& edits) {
  return guarded([&] {
    learn::Model m = learn::model_named(name);
    if (!edits.isUndefined() && !edits.isNull()) {
      if (edits.typeOf().as<std::string>() != "object") throw Error("learnTrace: edits must be an object");
      apply_token_edits(m, edits["tokens"]);
      apply_weight_edits(m, edits["weights"]);
    }
    const learn::Trace tr = learn::trace_step(m);
    val entries = val::array();
    for (const learn::Entry& e : tr.entries) entries.call<void>("push", entry_to_js(e));
    val out = val::object();
    out.set("model", model_to_js(m));
    out.set("loss", tr.loss);
    out.set("gradNorm", tr.grad_norm);
    out.set("entries", entries);
    return out;
  });
}

val learn_trace_default(const std::string& name) { return learn_trace(name, val::undefined()); }

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_learn) {
  using namespace tinygpt::js;
  emscripten::function("learnTrace", &learn_trace_default);
  emscripten::function("learnTrace", &learn_trace);
}
