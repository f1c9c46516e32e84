// export.cpp — the export feature: a session's model in the formats of other tools (core export.h:
// safetensors, ONNX, a Hugging Face GPT-2 folder, GGUF), and the core's logits that a runtime's
// outputs are compared with (the page's "check in ONNX Runtime", tests/wasm/export*.test.mjs).
#include "common.h"
#include "session.h"
#include "tinygpt/export.h"

namespace tinygpt::js {

namespace {

// exportModel(session, format, {dtype?}) -> [{path, bytes}]: the files of the export, in order.
val export_model(Session& s, const std::string& format, const val& options) {
  return guarded([&] {
    exporter::Options o;
    if (!options.isUndefined() && !options.isNull() && !options["dtype"].isUndefined())
      o.gguf_type = gguf::parse_type(options["dtype"].as<std::string>());
    const std::vector<exporter::File> files = exporter::export_model(s.trainer(), exporter::parse_format(format), o);
    val out = val::array();
    for (const exporter::File& f : files) {
      val file = val::object();
      file.set("path", f.path);
      file.set("bytes", copy_to_js("Uint8Array", f.bytes.data(), f.bytes.size()));
      out.call<void>("push", file);
    }
    return out;
  });
}

std::vector<int32_t> ids_from(const val& tokens) {
  if (!tokens.instanceof(val::global("Int32Array")) && !tokens.isArray())
    throw Error("exportLogits: the tokens must be an Int32Array or an array of numbers");
  std::vector<int32_t> ids(tokens["length"].as<size_t>());
  for (size_t i = 0; i < ids.size(); i++) ids[i] = tokens[i].as<int32_t>();
  return ids;
}

// exportLogits(session, tokens) -> Float32Array (T * V): the core's logits after each prefix.
val export_logits(Session& s, const val& tokens) {
  return guarded([&] {
    const std::vector<float> logits = exporter::reference_logits(s.trainer(), ids_from(tokens));
    return copy_to_js("Float32Array", logits.data(), logits.size());
  });
}

// exportTranslationLogits(session, source, targetIn) -> Float32Array (T * V): the seq2seq translator's
// logits after each token of targetIn (BOS, then the target so far), teacher-forced.
val export_translation_logits(Session& s, const val& source, const val& target_in) {
  return guarded([&] {
    const std::vector<float> logits = exporter::reference_translation_logits(s.trainer(), ids_from(source), ids_from(target_in));
    return copy_to_js("Float32Array", logits.data(), logits.size());
  });
}

// modelFileFromFolder({name: bytes}) -> Uint8Array: a Hugging Face GPT-2 folder's files (config.json,
// model.safetensors, tokenizer.json; others ignored) as a tinygpt model file, which
// sessionFromSafetensors starts a run from.
val model_file_from_folder(const val& files) {
  return guarded([&] {
    hf::FolderFiles f;
    const val names = val::global("Object").call<val>("keys", files);
    for (size_t i = 0, n = names["length"].as<size_t>(); i < n; i++) {
      const std::string name = names[i].as<std::string>();
      f[name] = bytes_from(files[name], name.c_str());
    }
    const std::vector<uint8_t> b = hf::model_file_from_folder(f);
    return copy_to_js("Uint8Array", b.data(), b.size());
  });
}

// exportFormatOf(bytes) -> 'gguf' | 'onnx' | '': a file of an export format (the page says so when one is dropped).
std::string export_format_of(const val& bytes) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the file");
    return exporter::export_format_of(b.data(), b.size());
  });
}

// refuseExportFormat(bytes, name): throws the core's import.export_format message for a file of an
// export format (its first bytes will do); returns nothing for any other file.
void refuse_export_format(const val& bytes, const std::string& name) {
  guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the file");
    exporter::refuse_export_format(b.data(), b.size(), name);
  });
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_export) {
  using namespace tinygpt::js;
  emscripten::function("exportModel", &export_model);
  emscripten::function("exportLogits", &export_logits);
  emscripten::function("exportTranslationLogits", &export_translation_logits);
  emscripten::function("modelFileFromFolder", &model_file_from_folder);
  emscripten::function("exportFormatOf", &export_format_of);
  emscripten::function("refuseExportFormat", &refuse_export_format);
}
