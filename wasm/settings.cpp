// settings.cpp — the settings feature: the config schema the page builds its knobs from, the
// presets, a config checked without allocating anything, and every code a coded message can carry.
#include "common.h"

namespace tinygpt::js {

namespace {

// Every code a coded message of the core can carry (error.h): the page's catalogues word each one.
val message_codes_js() {
  val codes = val::array();
  for (std::string_view c : message_codes()) codes.call<void>("push", std::string(c));
  return codes;
}

// Every field that can't be set, then the ranges and the rules, then the memory limit.
std::vector<ConfigProblem> config_problems_of(const ConfigAndLimit& c, std::vector<ConfigProblem> found) {
  if (found.empty()) found = config_problems(c.config);
  if (found.empty()) {
    Message memory = memory_message(c.config, c.memory_limit);
    if (!memory.text.empty()) found.push_back({"batch_size", std::move(memory.text), std::move(memory.code), std::move(memory.args)});
  }
  return found;
}

// {problems: [{field, message, code?, args?}], parameters, trainingBytes} for a config, computed without
// allocating the model: every out-of-range field and broken rule, and the memory limit.
val check_config(const val& config) {
  return guarded([&] {
    std::vector<ConfigProblem> found;
    const ConfigAndLimit c = parse_config(config, &found);  // every field that can't be set
    found = config_problems_of(c, std::move(found));
    val problems = val::array();
    for (const ConfigProblem& p : found) {
      val o = coded_to_js(p.message, p.code, p.args);
      o.set("field", p.field);
      problems.call<void>("push", o);
    }
    val o = val::object();
    o.set("problems", problems);
    o.set("parameters", found.empty() ? double(num_parameters(c.config)) : 0.0);
    o.set("trainingBytes", found.empty() ? double(estimate_training_bytes(c.config)) : 0.0);
    return o;
  });
}

val strings_to_js(const std::vector<std::string>& strings) {
  val a = val::array();
  for (const std::string& s : strings) a.call<void>("push", s);
  return a;
}

// {name, type, default, min, max, minOpen, maxOpen, range, kinds, group, label, help, choices}
val field_spec_to_js(const FieldSpec& f) {
  static const char* types[] = {"integer", "real", "choice"};
  static const char* groups[] = {"model", "training", "run"};
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
  std::vector<std::string> kinds;
  for (int k = 0; k < 32; k++)
    if ((f.kinds >> k) & 1u) kinds.push_back(model_kind_name(ModelKind(k)));
  o.set("kinds", strings_to_js(kinds));
  o.set("group", std::string(groups[int(f.group)]));
  o.set("label", std::string(f.label));
  o.set("help", std::string(f.help));
  o.set("choices", strings_to_js(f.choices));
  return o;
}

// The schema (config.h), one row per field: the page builds its knobs from it.
val config_schema_js() {
  val out = val::array();
  for (const FieldSpec& f : config_schema()) out.call<void>("push", field_spec_to_js(f));
  return out;
}

// [{name, label, blurb, config}] — the same presets as `tinygpt train --preset`.
val preset_list() {
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

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_settings) {
  using namespace tinygpt::js;
  emscripten::function("checkConfig", &check_config);
  emscripten::function("messageCodes", &message_codes_js);
  emscripten::function("configSchema", &config_schema_js);
  emscripten::function("presets", &preset_list);
}
