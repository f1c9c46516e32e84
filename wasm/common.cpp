// common.cpp — the helpers every feature file of the binding shares (common.h).
#include "common.h"

#include <cmath>

namespace tinygpt::js {

void set_code(val& o, const std::string& code, const MessageArgs& args) {
  if (code.empty()) return;
  val a = val::object();
  for (const auto& [name, value] : args) a.set(name, value);
  o.set("code", code);
  o.set("args", a);
}

val coded_to_js(const std::string& message, const std::string& code, const MessageArgs& args) {
  val o = val::object();
  o.set("message", message);
  set_code(o, code, args);
  return o;
}

[[noreturn]] void throw_js(const std::string& message, const std::string& code, const MessageArgs& args) {
  val e = val::global("Error").new_(message);
  set_code(e, code, args);
  e.throw_();
}

std::vector<uint8_t> bytes_from(const val& array, const char* what) {
  if (!array.instanceof(val::global("Uint8Array"))) throw Error(std::string(what) + " must be a Uint8Array");
  const size_t n = array["length"].as<size_t>();
  std::vector<uint8_t> bytes(n);
  // one bulk copy into wasm memory
  val(emscripten::typed_memory_view(n, bytes.data())).call<void>("set", array);
  return bytes;
}

std::vector<uint8_t> optional_bytes(const val& array, const char* what) {
  if (array.isUndefined() || array.isNull()) return {};
  return bytes_from(array, what);
}

std::vector<float> floats_from(const val& array, const char* what) {
  if (!array.instanceof(val::global("Float32Array"))) throw Error(std::string(what) + " must be a Float32Array");
  return vector_from<float>(array, "Float32Array", array["length"].as<size_t>(), what);
}

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

namespace {

// One key of a config object into r (throws the field's coded message).
void parse_config_field(ConfigAndLimit& r, const std::string& key, const val& v) {
  const std::string type = v.typeOf().as<std::string>();
  if (key == "memory_limit_mb") {
    if (type != "number")
      throw Error(coded("config.not_a_number", {{"field", "memory_limit_mb"}}, "memory_limit_mb must be a number"));
    r.memory_limit = int64_t(v.as<double>()) << 20;
    return;
  }
  const FieldSpec& f = field(key);  // throws "unknown config field" with a suggestion
  if (f.type == FieldType::choice) {
    if (type != "string") throw Error(coded("config.not_a_string", {{"field", f.name}}, std::string(f.name) + " must be a string"));
    set_field_text(r.config, f, v.as<std::string>());
  } else {
    if (type != "number") throw Error(coded("config.not_a_number", {{"field", f.name}}, std::string(f.name) + " must be a number"));
    set_field(r.config, f, v.as<double>());
  }
}

}  // namespace

ConfigAndLimit parse_config(const val& obj, std::vector<ConfigProblem>* problems) {
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
      parse_config_field(r, key, v);
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

}  // namespace tinygpt::js
