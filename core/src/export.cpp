// export.cpp — one entry for every export format (export.h): which files a model gives in each.
#include "tinygpt/export.h"

#include <cstring>

#include "protobuf.h"

#include "tinygpt/error.h"
#include "tinygpt/model.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/seq2seq.h"
#include "tinygpt/tensor.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/trainer.h"

namespace tinygpt::exporter {

namespace {
constexpr Format kFormats[] = {Format::safetensors, Format::onnx, Format::hf, Format::gguf};

// The run's tokenizer: a bpe run's own vocabulary (its checkpoint's tokenizer section), else the
// bytes (256 tokens, no merges).
tok::Tokenizer tokenizer_of(const train::Trainer& t) { return t.tokenizer() ? *t.tokenizer() : tok::Tokenizer(); }

void require_gpt(const train::Trainer& t, Format f) {
  if (t.kind() != ModelKind::gpt)
    throw Error(std::string(format_name(f)) + ": a " + model_kind_name(t.kind()) +
                " model cannot be written in this format (the GPT can); its ONNX or safetensors export can");
}
}  // namespace

const char* format_name(Format f) {
  switch (f) {
    case Format::safetensors: return "safetensors";
    case Format::onnx: return "onnx";
    case Format::hf: return "hf";
    case Format::gguf: return "gguf";
  }
  return "?";
}

Format parse_format(const std::string& name) {
  std::string list;
  for (Format f : kFormats) {
    if (name == format_name(f)) return f;
    list += std::string(list.empty() ? "" : ", ") + format_name(f);
  }
  throw Error("unknown export format '" + name + "': the formats are " + list);
}

std::vector<File> export_model(const train::Trainer& t, Format format, const Options& options) {
  switch (format) {
    case Format::safetensors:
      return {{"model.safetensors", safetensors::export_model(t)}};
    case Format::onnx:
      if (t.kind() == ModelKind::gpt) return {{"model.onnx", onnx::export_gpt(t.model())}};
      if (is_recurrent(t.kind())) return {{"model.onnx", onnx::export_recurrent(t.recurrent())}};
      if (t.kind() == ModelKind::seq2seq) return onnx::export_seq2seq(t.seq2seq());
      return onnx::export_lstm_seq2seq(t.lstm_seq2seq());
    case Format::gguf:
      require_gpt(t, format);
      return {{std::string("model-") + gguf::type_name(options.gguf_type) + ".gguf",
               gguf::export_gpt(t.model(), tokenizer_of(t), options.gguf_type)}};
    case Format::hf:
      require_gpt(t, format);
      return hf::export_folder(t.model(), tokenizer_of(t));
  }
  throw Error(std::string(format_name(format)) + ": not written yet");
}

std::string export_format_of(const uint8_t* data, size_t n) {
  if (n >= 4 && std::memcmp(data, "GGUF", 4) == 0) return "gguf";
  if (n < 2 || data[0] != 0x08) return "";  // ModelProto's first field: ir_version (field 1, a varint)
  try {
    // the whole file, or its first bytes (a page reads a file's head): a ModelProto's fields, in
    // the numbers onnx.proto gives them, ir_version first (3 to 20: IR versions so far and to come)
    const std::vector<pb::Field> fields = pb::read_fields(data, n, true);
    if (fields.size() < 2 || fields[0].number != 1 || fields[0].wire != pb::kVarint || fields[0].value < 3 || fields[0].value > 20)
      return "";
    for (const pb::Field& f : fields)
      if (!(f.number >= 1 && f.number <= 8) && f.number != 14 && f.number != 20 && f.number != 25) return "";
    return "onnx";
  } catch (const Error&) {
    return "";
  }
}

void refuse_export_format(const uint8_t* data, size_t n, const std::string& name) {
  const std::string format = export_format_of(data, n);
  if (format.empty()) return;
  const std::string tool = format == "gguf" ? "llama.cpp" : "ONNX Runtime and transformers.js";
  throw Error(coded("import.export_format", {{"name", name}, {"format", format}},
                    name + " is " + (format == "gguf" ? "a GGUF" : "an ONNX") + " file, a format tinygpt exports for " + tool +
                        " and does not read back: load a checkpoint (.ckpt), a model file (.safetensors) or a Hugging Face "
                        "GPT-2 folder (config.json with model.safetensors)"));
}

int vocab_of(const train::Trainer& t) {
  if (t.kind() == ModelKind::gpt) return int(t.model().param_info("wte").shape[0]);            // (V, C)
  if (is_recurrent(t.kind())) return int(t.recurrent().param_info("wte").shape[0]);           // (V, C)
  if (t.kind() == ModelKind::seq2seq) return t.seq2seq().dims().vocab_size;                   // text tokens + BOS, EOS, PAD
  return t.lstm_seq2seq().dims().vocab_size;
}

std::vector<float> reference_logits(train::Trainer& t, const std::vector<int32_t>& tokens) {
  if (t.kind() == ModelKind::seq2seq || t.kind() == ModelKind::lstm_seq2seq)
    throw Error(std::string("a ") + model_kind_name(t.kind()) + " model is a translator: give its source and its decoder input");
  const int V = vocab_of(t), T = int(tokens.size());
  if (T < 1) throw Error("reference_logits: no tokens");
  for (int32_t id : tokens)
    if (id < 0 || id >= V) throw Error("reference_logits: token " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(V) + ")");
  nn::GradMode no_grad(false);
  nn::Arena arena;
  const nn::Tensor logits = t.kind() == ModelKind::gpt ? t.model().forward_logits(arena, tokens.data(), 1, T)  // (1, T, V)
                                                         : t.recurrent().forward_logits(arena, tokens.data(), 1, T);
  return std::vector<float>(logits.data(), logits.data() + logits.numel());
}

std::vector<float> reference_translation_logits(train::Trainer& t, const std::vector<int32_t>& source, const std::vector<int32_t>& target_in) {
  if (t.kind() != ModelKind::seq2seq && t.kind() != ModelKind::lstm_seq2seq)
    throw Error(std::string("reference_translation_logits: a ") + model_kind_name(t.kind()) + " model is not a translator");
  const int V = vocab_of(t), S = int(source.size()), T = int(target_in.size());
  for (const std::vector<int32_t>* ids : {&source, &target_in})
    for (int32_t id : *ids)
      if (id < 0 || id >= V) throw Error("reference_translation_logits: token " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(V) + ")");
  nn::GradMode no_grad(false);
  nn::Arena arena;
  const nn::Tensor logits = t.kind() == ModelKind::seq2seq ? t.seq2seq().forward_logits(arena, source.data(), target_in.data(), 1, S, T)
                                                           : t.lstm_seq2seq().forward_logits(arena, source.data(), target_in.data(), 1, S, T);  // (1, T, V); checks the lengths
  return std::vector<float>(logits.data(), logits.data() + logits.numel());
}

}  // namespace tinygpt::exporter
