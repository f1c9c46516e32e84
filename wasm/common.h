// common.h — what every feature file of the binding shares: C++ exceptions as JS Errors, coded
// messages as JS objects, bytes and numbers in, typed-array copies and configs out.
// Every result is a copy in a fresh JS typed array (never a view into wasm memory, which can move
// when memory grows). A C++ exception becomes a JS Error with the same message, and the module
// stays usable afterwards.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "tinygpt/config.h"
#include "tinygpt/error.h"

namespace tinygpt::sample {
struct Translation;
struct TranslateOptions;
}

namespace tinygpt::js {

using emscripten::val;

// A translation as JS reads it: {text: Uint8Array, tokens: Int32Array (no EOS), probs: Float32Array,
// logProb, score, finished} (Session.translate and the WebGPU host's gpuTranslateFinish).
val translation_to_js(const sample::Translation& t);
// a translation's options from JS ({beam, temperature, topK, maxLen, lengthPenalty, seed}), validated
sample::TranslateOptions parse_translate_options(const val& options, int block_size, int tokens);

// A coded message's code and args (error.h) as properties of o, next to its English text: the
// page words it from them (web/src/i18n/core-messages.ts). Nothing for an uncoded one.
void set_code(val& o, const std::string& code, const MessageArgs& args);

// A coded sentence as the one shape every call returns it in: {message, code?, args?}.
val coded_to_js(const std::string& message, const std::string& code, const MessageArgs& args);

// Throws a JS Error with the message, and the code and args beside it (e.code, e.args).
[[noreturn]] void throw_js(const std::string& message, const std::string& code = "", const MessageArgs& args = {});

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

// The bytes of a Uint8Array (one bulk copy into wasm memory); `what` names it in the error.
std::vector<uint8_t> bytes_from(const val& array, const char* what);
// The same, or nothing for null / undefined.
std::vector<uint8_t> optional_bytes(const val& array, const char* what);

// The elements of a typed array of the JS type `type` ("Float32Array") and exactly n elements.
template <class T>
std::vector<T> vector_from(const val& array, const char* type, size_t n, const char* what) {
  if (!array.instanceof(val::global(type)) || array["length"].as<size_t>() != n)
    throw Error(std::string(what) + " must be a " + type + " of " + std::to_string(n) + " elements");
  std::vector<T> v(n);
  val(emscripten::typed_memory_view(n, v.data())).call<void>("set", array);
  return v;
}

// The elements of a Float32Array of any length.
std::vector<float> floats_from(const val& array, const char* what);

// A copy of n elements in a new JS typed array of the JS type `type`.
template <class T>
val copy_to_js(const char* type, const T* data, size_t n) {
  return val::global(type).new_(emscripten::typed_memory_view(n, data));  // new X(view) copies
}

// An optional number field of a plain JS object (sampling options), checked for type and finiteness.
double number_field(const val& obj, const char* name, double fallback);
// The same, an integer.
int int_field(const val& obj, const char* name, int fallback);

// A config from a plain JS object keyed by the schema's names: { n_layer: 4, learning_rate: 1e-3, ... }.
// Missing fields take the schema's defaults; an unknown key or a value of the wrong type is an error.
// `memory_limit_mb` (not a config field: a limit of this session) may be given too.
struct ConfigAndLimit {
  Config config;
  int64_t memory_limit = kDefaultMemoryLimit;
};

// With `problems`, a bad field is recorded there (and skipped) instead of thrown.
ConfigAndLimit parse_config(const val& obj, std::vector<ConfigProblem>* problems = nullptr);

// A config as a plain JS object keyed by the schema's names.
val config_to_js(const Config& c);

}  // namespace tinygpt::js
