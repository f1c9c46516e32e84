// export.h — a trained model in the formats other tools read, and a Hugging Face GPT-2 folder read
// back as a new run (docs/export.md):
//
//   onnx   an ONNX graph (opset 17) for onnxruntime and transformers.js. The GPT is one decoder with
//          past keys/values in the layout the Hugging Face (optimum) exporters give GPT-2:
//            inputs   input_ids (B, T) int64, attention_mask (B, P + T) int64, position_ids (B, T) int64,
//                     past_key_values.N.key / .value (B, NH, P, HS) float
//            outputs  logits (B, T, V), present.N.key / .value (B, NH, P + T, HS)
//          (P tokens already seen, T new ones; the first dimension is named batch_size, NH and HS are
//          numbers: transformers.js builds the empty cache from them.)
//   hf     a Hugging Face GPT-2 folder (config.json, model.safetensors, tokenizer.json,
//          tokenizer_config.json, generation_config.json, onnx/model.onnx) for the GPT-2 layout
//   gguf   llama.cpp's file, architecture gpt2, f32, f16 or q8_0
//
// Every exporter reads the vocabulary size V from the model's parameters (wte is (V, C)), and the
// head from the parameter table: a model without "lm_head.weight" uses wte for its head (tied, as
// GPT-2), one without "lm_head.bias" has no head bias.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/config.h"

namespace tinygpt::model {
class TinyGPT;
class Recurrent;
class Seq2Seq;
class LstmSeq2Seq;
}
namespace tinygpt::exporter {
struct File;
}
namespace tinygpt::train {
class Trainer;
}
namespace tinygpt::tok {
class Tokenizer;
}

namespace tinygpt::onnx {

constexpr int kOpset = 17;      // LayerNormalization is an ONNX op from 17 on
constexpr int kIrVersion = 8;   // the IR version of opset 17

// The GPT as an ONNX model with past keys/values (the layout above).
std::vector<uint8_t> export_gpt(const model::TinyGPT& model);
// A recurrent language model (rnn, gru, lstm) as ONNX's RNN / GRU / LSTM ops, the state in and out:
//   inputs   input_ids (B, T) int64, h0 (L, B, H) [, c0 (L, B, H): the LSTM's cells]
//   outputs  logits (B, T, V), hn (L, B, H) [, cn (L, B, H)]
// A decoder feeds hn (and cn) back as the next call's h0 (c0); zeros start a text.
std::vector<uint8_t> export_recurrent(const model::Recurrent& model);
// The translator (seq2seq) as two graphs, the Hugging Face (optimum) split of an encoder-decoder:
//   encoder_model.onnx   inputs   input_ids (B, S) int64, attention_mask (B, S) int64 (1: a source
//                                 token, 0: padding; the core masks its PAD tokens so)
//                        outputs  last_hidden_state (B, S, C), and every decoder layer's
//                                 cross-attention keys and values, present.N.encoder.key / .value
//                                 (B, NH, S, HS): computed once per source
//   decoder_model.onnx   inputs   input_ids (B, T) int64 (BOS first), encoder_attention_mask (B, S),
//                                 past_key_values.N.decoder.key / .value (B, NH, P, HS) (P = 0 to
//                                 start), past_key_values.N.encoder.key / .value (the encoder's present.N.encoder.*)
//                        outputs  logits (B, T, V), present.N.decoder.key / .value (B, NH, P + T, HS)
// V is the model's vocabulary: the text tokens, then BOS, EOS and PAD (the metadata names their ids).
// The decoder masks causally (the target has no padding while decoding).
std::vector<exporter::File> export_seq2seq(const model::Seq2Seq& model);
// The LSTM translator (lstm_seq2seq), in the same two files:
//   encoder_model.onnx   inputs   input_ids (B, S) int64, attention_mask (B, S) int64 (1: a source
//                                 token, 0: padding, which comes after them)
//                        outputs  last_hidden_state (B, S, H); h0, c0 (Ld, B, H): the decoder's first
//                                 state (its layer k from the encoder's layer k at each source's last
//                                 real token; zeros beyond the encoder's layers)
//   decoder_model.onnx   inputs   input_ids (B, T) int64 (BOS first), encoder_hidden_states (B, S, H),
//                                 encoder_attention_mask (B, S), h0, c0 (Ld, B, H)
//                        outputs  logits (B, T, V), hn, cn (Ld, B, H): the next call's h0, c0
std::vector<exporter::File> export_lstm_seq2seq(const model::LstmSeq2Seq& model);

}  // namespace tinygpt::onnx

namespace tinygpt::gguf {

// The type of the matrices (1-D tensors, LayerNorm gains and biases, stay f32, as llama.cpp's own
// converter writes them): f32; f16; q8_0 (blocks of 32 values: an f16 scale d = max|x| / 127 and 32
// int8 q = round(x / d); a matrix whose rows are not a multiple of 32 stays f16).
enum class Type { f32 = 0, f16 = 1, q8_0 = 2 };
const char* type_name(Type t);  // "f32", "f16", "q8_0"
// Throws tinygpt::Error listing the types.
Type parse_type(const std::string& name);

// The GPT as a GGUF file (version 3, architecture gpt2) with the tokenizer's vocabulary
// (export_gguf.cpp says how it is written). Throws tinygpt::Error (export.head_bias) for a head bias
// that is not zero: llama.cpp's gpt2 has none.
std::vector<uint8_t> export_gpt(const model::TinyGPT& model, const tok::Tokenizer& tokenizer, Type type);
// IEEE half precision, rounding to nearest even (the f16 and q8_0 scales of the file).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

}  // namespace tinygpt::gguf

namespace tinygpt::hf {

// {} when the model can be written as a Hugging Face GPT-2 folder (the GPT-2 layout: the head tied
// to wte, no head bias), else why not (export.not_gpt2), for the page and the CLI.
Message gpt2_problem(const model::TinyGPT& model);
// The folder's files: config.json (model_type gpt2), generation_config.json, model.safetensors
// (GPT-2's names, Conv1D's (in, out) layout: the core's own), tokenizer.json, tokenizer_config.json
// and onnx/model.onnx (onnx::export_gpt). Throws tinygpt::Error with gpt2_problem's message.
std::vector<exporter::File> export_folder(const model::TinyGPT& model, const tok::Tokenizer& tokenizer);

// A folder's files by name ("config.json", "model.safetensors", "tokenizer.json"; other files are
// ignored), e.g. as the CLI reads a directory or the page a dropped folder.
using FolderFiles = std::map<std::string, std::vector<uint8_t>>;
// A tinygpt model file (safetensors.h: the parameters under the core's names, the config in the
// metadata) from a Hugging Face GPT-2 folder: our own export, or any GPT-2-shaped model of this
// vocabulary. vocab_size 256 is a byte model; above, a BPE model whose tokenizer (tokenizer.json, or
// vocab.json + merges.txt) the model file carries (safetensors::kTokenizerKey), so the run reads and
// writes text as the exported one did. It starts a new run like any model file (safetensors::start_run). Throws tinygpt::Error,
// coded: import.no_config (no config.json), import.model_type (not gpt2), import.unsupported (a
// setting the core does not compute: another activation, n_inner, LayerNorm eps, ...),
// import.no_weights (no model.safetensors), import.missing_tensor, import.shape (a tensor whose
// shape or dtype disagrees with config.json), import.tokenizer (args file, what: a byte model's
// tokenizer that is not the bytes in order, a BPE model's missing or of another size than
// vocab_size, a damaged one); safetensors' own messages for a damaged file.
std::vector<uint8_t> model_file_from_folder(const FolderFiles& files);

}  // namespace tinygpt::hf

namespace tinygpt::exporter {

// A file of an export: its path inside the export ("model.onnx", "onnx/model.onnx") and its bytes.
struct File {
  std::string path;
  std::vector<uint8_t> bytes;
};

enum class Format { safetensors, onnx, hf, gguf };
// "safetensors", "onnx", "hf", "gguf"
const char* format_name(Format f);
// Parses a format's name; throws tinygpt::Error listing the formats.
Format parse_format(const std::string& name);

// The files of the trainer's model in one format (safetensors: one file, the model file of
// safetensors.h; onnx: model.onnx for a GPT or a recurrent model, encoder_model.onnx and
// decoder_model.onnx for a translator (seq2seq, lstm_seq2seq); hf and gguf: the GPT, with the run's tokenizer,
// BPE or bytes). Throws tinygpt::Error when the model cannot be
// written in that format, saying why and which format can.
struct Options {
  gguf::Type gguf_type = gguf::Type::f32;
};
std::vector<File> export_model(const train::Trainer& trainer, Format format, const Options& options = {});

// "gguf" or "onnx" when the bytes (a whole file, or its first bytes) are a file of those export
// formats (GGUF's magic; an ONNX model: protobuf fields of ModelProto, ir_version first), else "". A run starts from neither: the CLI and
// the page say so (import.export_format) instead of calling them damaged.
std::string export_format_of(const uint8_t* data, size_t n);
// Throws import.export_format for such a file, naming it; returns otherwise.
void refuse_export_format(const uint8_t* data, size_t n, const std::string& name);

// The core's logits (T, V), row t after tokens[0..t], for one sequence of a language model: what an
// export's parity checks (tests, the page's "check in ONNX Runtime") compare the runtimes with.
// Throws tinygpt::Error for a translator, an empty or too long sequence, a token outside [0, V).
std::vector<float> reference_logits(train::Trainer& trainer, const std::vector<int32_t>& tokens);
// A translator's (seq2seq, lstm_seq2seq) logits (T, V) for one source and decoder input (BOS, then
// the target so far), teacher-forced (forward_logits). Throws tinygpt::Error for another model, an empty
// or too long sequence, a token outside [0, V).
std::vector<float> reference_translation_logits(train::Trainer& trainer, const std::vector<int32_t>& source,
                                                const std::vector<int32_t>& target_in);
// V: the rows of wte (TinyGPT) or of the recurrent model's embedding; the seq2seq translator's
// and lstm_seq2seq translators' vocabulary (text tokens + BOS, EOS, PAD).
int vocab_of(const train::Trainer& trainer);

}  // namespace tinygpt::exporter
