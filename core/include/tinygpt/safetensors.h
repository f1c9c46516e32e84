// safetensors.h — the safetensors format: a writer and a strict reader, and the model's
// parameters as a safetensors file.
//
// Layout (huggingface/safetensors, "Format"):
//   u64 N                little-endian: the header's length in bytes
//   N bytes              UTF-8 JSON object:
//                          {"NAME": {"dtype": "F32", "shape": [d0, d1, ...], "data_offsets": [BEGIN, END]},
//                           ..., "__metadata__": {"key": "value", ...}}   (metadata optional, strings only)
//                        padded with spaces so that the data starts at a multiple of 8 bytes
//   data                 the tensors' bytes, little-endian, row-major, no strides; BEGIN/END are
//                        relative to the start of this section, END one past the last byte
//
// The reader refuses, each with its own message (tinygpt::Error, "safetensors: ..."): a file
// shorter than 8 bytes; a header length above 100,000,000 bytes (the reference's limit) or past the
// end of the file; a header that is not UTF-8 JSON (json.h: position in the message), not an object,
// or has duplicate keys; tensor entries that are not {dtype, shape, data_offsets} with the right
// types; unknown dtypes; sub-byte dtypes (F4, F6_*: valid in the format, not supported here);
// a byte count that disagrees with shape x dtype size (or overflows); offsets that leave a gap,
// overlap, or run past the data (tensors sorted by offset must tile [0, data size) exactly, the
// reference's rule); bytes after the last tensor; and files above Limits::max_file_bytes.
//
// The writer follows the reference byte for byte: tensors ordered by dtype (the reference's enum
// order, last first: U64, I64, F64, C64, F32, ...) then name, compact JSON with "__metadata__" first (its keys sorted), each tensor's members in
// the order dtype, shape, data_offsets, and space padding of the header to a multiple of 8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "tinygpt/config.h"

namespace tinygpt::model {
class TinyGPT;
struct ParamInfo;
}
namespace tinygpt::train {
class Trainer;
}
namespace tinygpt::tok {
class Tokenizer;
}

namespace tinygpt::safetensors {

// The byte-sized dtypes of the format. (F4, F6_E2M3, F6_E3M2 pack several values per byte:
// the reader names them and refuses them.)
// In the reference's order (huggingface/safetensors Dtype), which its writer sorts by.
enum class Dtype {
  BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ,
  I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64
};

const char* dtype_name(Dtype dtype);  // "F32", ...
size_t dtype_size(Dtype dtype);       // bytes per element
bool parse_dtype(const std::string& name, Dtype* out);  // false when the name is not one of the above

using Metadata = std::map<std::string, std::string>;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct Limits {
  uint64_t max_header_bytes = kMaxHeaderBytes;
  uint64_t max_file_bytes = uint64_t(1) << 32;  // 4 GiB: far above any tinygpt model (wasm32 can't hold more)
};

// A tensor in a parsed file: a view into the caller's buffer.
struct TensorView {
  std::string name;
  Dtype dtype;
  std::vector<uint64_t> shape;  // [] is a scalar; a 0 dimension is an empty tensor
  const uint8_t* data;          // nbytes bytes, little-endian
  size_t nbytes;
  uint64_t begin, end;          // data_offsets as written
  uint64_t numel() const;
};

struct File {
  Metadata metadata;
  std::vector<TensorView> tensors;  // in data order
  size_t header_bytes = 0;          // N

  const TensorView* find(const std::string& name) const;
  const TensorView& at(const std::string& name) const;  // throws "safetensors: missing tensor 'NAME'"
};

// Validates everything listed above; the views point into bytes (keep it alive).
File parse(const uint8_t* bytes, size_t n, const Limits& limits = {});

// A tensor to write; data holds nbytes = numel * dtype_size bytes (little-endian).
struct TensorData {
  std::string name;
  Dtype dtype;
  std::vector<uint64_t> shape;
  const void* data;
  size_t nbytes;
};

// Throws for duplicate or empty names, the name "__metadata__", a byte count that disagrees with
// the shape, or names and metadata that are not valid UTF-8.
std::vector<uint8_t> serialize(const std::vector<TensorData>& tensors, const Metadata& metadata = {});

// Whole files. read_file checks the size against limits.max_file_bytes before reading anything.
std::vector<uint8_t> read_file(const std::string& path, const Limits& limits = {});
void write_file(const std::string& path, const std::vector<TensorData>& tensors, const Metadata& metadata = {});

// ---- the model's parameters ---------------------------------------------------------------------
// One F32 tensor per entry of a param_table (TinyGPT's, Seq2Seq's: any kind's), under its name and
// shape ("h.0.attn.c_attn.weight", (C, 3C): the core's (in, out) layout), with `metadata` (the
// config, by the caller) in "__metadata__". params is the contiguous block the table describes.
std::vector<uint8_t> serialize_params(const std::vector<model::ParamInfo>& table, const float* params,
                                      const Metadata& metadata);
std::vector<uint8_t> serialize_model(const model::TinyGPT& model, const Metadata& metadata);

// Copies every parameter of the table from the file into params. The file must hold exactly the
// table's parameters (names, shapes, dtype F32) and nothing else, and every value must be finite;
// otherwise it throws naming the first problem and params is left unchanged.
void load_params(const File& file, const std::vector<model::ParamInfo>& table, float* params);
// load_params into the model; returns the file's metadata.
Metadata load_model(const File& file, model::TinyGPT& model);
Metadata load_model(const uint8_t* bytes, size_t n, model::TinyGPT& model);

// ---- a model file: the parameters and the config of the run --------------------------------------
// What `tinygpt export` writes and the CLI (`sample`/`translate --ckpt`, `train --init`), the page
// (a dropped .safetensors) and python/tinygpt read: the run's parameters (serialize_params, any
// model kind) and, in "__metadata__", every field of the config schema under its own name as
// field_text writes it ("n_layer": "4", "learning_rate": "0.001", "model": "gpt"), plus
// "format": "pt" (what the PyTorch ecosystem's loaders look for). The run's state (step, AdamW
// moments, data order) is not in it: a model file starts a new run; a checkpoint continues one.
Metadata config_metadata(const Config& config);

// True for the metadata keys a model file of this kind must have: the fields of the group `model`
// that apply to the kind (they shape the parameters), except `model` (default gpt), `tie_weights`
// (default 0: files written before it have a head of their own), `seed` (the
// data order of a new run) and, for rnn, gru and lstm, block_size (their training window, not a
// shape). Every other field takes the schema's default when missing.
bool required_in_model_file(const FieldSpec& field, ModelKind kind);

// The config a model file's metadata describes: the schema's defaults, then every key that is a
// schema field, parsed like a flag (set_field_text); keys that are not fields are ignored (tools add
// their own, e.g. "format"). Throws tinygpt::Error ("safetensors: ...") when a required field is
// missing, a value is refused, or the config breaks a rule (config_problems).
Config config_from_metadata(const Metadata& metadata);

// A BPE model's tokenizer travels in the metadata under this key, as Hugging Face's tokenizer.json
// (tok::Tokenizer::to_hf_json): the form the export and transformers.js read, and python/tinygpt.
// The merges' counts stay in the checkpoint's compact form only.
constexpr const char* kTokenizerKey = "tokenizer.json";
// The tokenizer in a model file's metadata, or null when it has none; throws tinygpt::Error
// (tokenizer.bad_json, ...) for a damaged one.
std::shared_ptr<const tok::Tokenizer> tokenizer_from_metadata(const Metadata& metadata);

// The trainer's parameters with config_metadata(its config), and its tokenizer (kTokenizerKey):
// what `tinygpt export` writes.
std::vector<uint8_t> export_model(const train::Trainer& trainer);

// A new run of `config` (step 0, AdamW moments zero, data order from config.seed) whose model starts
// from the file's parameters. The model fields of `config` that apply to its kind must equal those
// of the file's metadata (callers start from config_from_metadata and change training or run fields
// and the seed only). Throws tinygpt::Error naming the first problem (a model field that differs, a
// tensor that does not fit (load_params), the memory limit, a BPE model without its tokenizer.json
// (safetensors.tokenizer_missing) or with a damaged one); nothing is kept on error.
std::unique_ptr<train::Trainer> start_run(const File& file, const Config& config,
                                          int64_t memory_limit = kDefaultMemoryLimit);

}  // namespace tinygpt::safetensors
