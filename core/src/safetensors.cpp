// safetensors.cpp — the safetensors writer and strict reader of safetensors.h, and the model's
// parameters as a safetensors file.
#include "tinygpt/safetensors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "json.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/model.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/trainer.h"

namespace tinygpt::safetensors {

using tinygpt::Error;

static_assert(std::endian::native == std::endian::little, "the format is little-endian, and so is this code");

namespace {

struct DtypeInfo {
  Dtype dtype;
  const char* name;
  size_t size;
};
constexpr DtypeInfo kDtypes[] = {
    {Dtype::BOOL, "BOOL", 1},       {Dtype::U8, "U8", 1},
    {Dtype::I8, "I8", 1},           {Dtype::F8_E5M2, "F8_E5M2", 1},
    {Dtype::F8_E4M3, "F8_E4M3", 1}, {Dtype::F8_E8M0, "F8_E8M0", 1},
    {Dtype::F8_E4M3FNUZ, "F8_E4M3FNUZ", 1}, {Dtype::F8_E5M2FNUZ, "F8_E5M2FNUZ", 1},
    {Dtype::I16, "I16", 2},         {Dtype::U16, "U16", 2},
    {Dtype::F16, "F16", 2},         {Dtype::BF16, "BF16", 2},
    {Dtype::I32, "I32", 4},         {Dtype::U32, "U32", 4},
    {Dtype::F32, "F32", 4},         {Dtype::C64, "C64", 8},
    {Dtype::F64, "F64", 8},         {Dtype::I64, "I64", 8},
    {Dtype::U64, "U64", 8},
};
// valid in the format, several values per byte: named in the message, not read
constexpr const char* kSubByteDtypes[] = {"F4", "F6_E2M3", "F6_E3M2"};

[[noreturn]] void fail(const std::string& what) { throw Error("safetensors: " + what); }

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); i++) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// numel * element size, or false on overflow
bool byte_count(const std::vector<uint64_t>& shape, size_t element, uint64_t* out) {
  uint64_t n = element;
  for (uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return false;
    n *= d;
  }
  *out = n;
  return true;
}

uint64_t read_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

TensorView tensor_entry(const std::string& name, const json::Value& entry) {
  const std::string t = "tensor " + quoted(name) + ": ";
  if (!entry.is_object()) fail(t + "expected an object {dtype, shape, data_offsets}, got a " + json::type_name(entry.type()));
  for (const json::Member& m : entry.as_object())
    if (m.first != "dtype" && m.first != "shape" && m.first != "data_offsets")
      fail(t + "unexpected member \"" + m.first + "\" (a tensor has dtype, shape and data_offsets)");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.find(key)) fail(t + "missing \"" + key + "\"");

  TensorView v{};
  v.name = name;
  const json::Value& dtype = entry.at("dtype");
  if (!dtype.is_string()) fail(t + "dtype must be a string, got a " + json::type_name(dtype.type()));
  if (!parse_dtype(dtype.as_string(), &v.dtype)) {
    for (const char* sub : kSubByteDtypes)
      if (dtype.as_string() == sub)
        fail(t + "dtype " + sub + " packs several values into a byte; tinygpt reads byte-sized dtypes only");
    std::string known;
    for (const DtypeInfo& d : kDtypes) known += (known.empty() ? "" : ", ") + std::string(d.name);
    fail(t + "unknown dtype \"" + dtype.as_string() + "\" (known: " + known + ")");
  }

  const json::Value& shape = entry.at("shape");
  const auto dimension = [&](const json::Value& d, const std::string& what) {
    if (!d.is_number() || d.number_text()[0] == '-' || d.number_text().find_first_of(".eE") != std::string::npos)
      fail(t + what + " must hold non-negative integers, got " + json::write(d));
    try {
      return d.as_uint64();
    } catch (const Error&) {
      fail(t + what + " value " + d.number_text() + " does not fit in 64 bits");
    }
  };
  if (!shape.is_array()) fail(t + "shape must be an array, got a " + json::type_name(shape.type()));
  for (const json::Value& d : shape.as_array()) v.shape.push_back(dimension(d, "shape"));

  const json::Value& offsets = entry.at("data_offsets");
  if (!offsets.is_array() || offsets.as_array().size() != 2)
    fail(t + "data_offsets must be an array [begin, end], got " + json::write(offsets));
  v.begin = dimension(offsets.as_array()[0], "data_offsets");
  v.end = dimension(offsets.as_array()[1], "data_offsets");
  if (v.end < v.begin)
    fail(t + "data_offsets [" + std::to_string(v.begin) + ", " + std::to_string(v.end) + "] end before they begin");

  uint64_t need;
  if (!byte_count(v.shape, dtype_size(v.dtype), &need))
    fail(t + "shape " + shape_text(v.shape) + " of " + dtype_name(v.dtype) + " overflows 64 bits");
  if (v.end - v.begin != need)
    fail(t + "data_offsets [" + std::to_string(v.begin) + ", " + std::to_string(v.end) + "] hold " +
         std::to_string(v.end - v.begin) + " bytes, but shape " + shape_text(v.shape) + " of " + dtype_name(v.dtype) +
         " needs " + std::to_string(need));
  return v;
}

}  // namespace

const char* dtype_name(Dtype dtype) {
  for (const DtypeInfo& d : kDtypes)
    if (d.dtype == dtype) return d.name;
  return "?";
}

size_t dtype_size(Dtype dtype) {
  for (const DtypeInfo& d : kDtypes)
    if (d.dtype == dtype) return d.size;
  return 0;
}

bool parse_dtype(const std::string& name, Dtype* out) {
  for (const DtypeInfo& d : kDtypes)
    if (name == d.name) {
      *out = d.dtype;
      return true;
    }
  return false;
}

uint64_t TensorView::numel() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;  // cannot overflow: parse() checked numel * size
  return n;
}

const TensorView* File::find(const std::string& name) const {
  for (const TensorView& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const TensorView& File::at(const std::string& name) const {
  if (const TensorView* t = find(name)) return *t;
  fail("missing tensor " + quoted(name));
}

File parse(const uint8_t* bytes, size_t n, const Limits& limits) {
  if (uint64_t(n) > limits.max_file_bytes)
    fail("the file is " + std::to_string(n) + " bytes, above the limit of " + std::to_string(limits.max_file_bytes));
  if (n < 8) fail("the file is " + std::to_string(n) + " bytes, too short for the 8-byte header length");
  const uint64_t header_len = read_u64(bytes);
  if (header_len > limits.max_header_bytes)
    fail("header length " + std::to_string(header_len) + " is above the limit of " +
         std::to_string(limits.max_header_bytes) + " bytes (not a safetensors file, or a damaged one)");
  if (header_len > n - 8)
    fail("header length " + std::to_string(header_len) + " runs past the end of the file (" + std::to_string(n) +
         " bytes)");

  const std::string_view text(reinterpret_cast<const char*>(bytes + 8), size_t(header_len));
  json::Value header;
  try {
    header = json::parse(text);
  } catch (const Error& e) {
    fail(std::string("header: ") + e.what());
  }
  if (!header.is_object()) fail(std::string("the header is a JSON ") + json::type_name(header.type()) + ", not an object");

  File file;
  file.header_bytes = size_t(header_len);
  for (const json::Member& m : header.as_object()) {
    if (m.first == "__metadata__") {
      if (!m.second.is_object()) fail("__metadata__ must be an object of strings, got a " + std::string(json::type_name(m.second.type())));
      for (const json::Member& kv : m.second.as_object()) {
        if (!kv.second.is_string())
          fail("__metadata__ maps strings to strings, but \"" + kv.first + "\" is a " + json::type_name(kv.second.type()));
        file.metadata[kv.first] = kv.second.as_string();
      }
      continue;
    }
    file.tensors.push_back(tensor_entry(m.first, m.second));
  }

  // Sorted by offset, the tensors must tile the data section exactly (the reference's rule):
  // no gaps, no overlaps, nothing past the end, nothing after the last tensor.
  const uint64_t data_len = uint64_t(n) - 8 - header_len;
  std::stable_sort(file.tensors.begin(), file.tensors.end(), [](const TensorView& a, const TensorView& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const TensorView* previous = nullptr;
  for (TensorView& t : file.tensors) {
    const std::string range = std::string("[") + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
    if (t.end > data_len)
      fail("tensor " + quoted(t.name) + " data_offsets " + range + " run past the end of the data (" +
           std::to_string(data_len) + " bytes)");
    if (t.begin < covered)
      fail("tensor " + quoted(t.name) + " data_offsets " + range + " overlap tensor " + quoted(previous->name) +
           " [" + std::to_string(previous->begin) + ", " + std::to_string(previous->end) + "]");
    if (t.begin > covered)
      fail("tensor " + quoted(t.name) + " begins at data byte " + std::to_string(t.begin) + ", leaving bytes " +
           std::to_string(covered) + ".." + std::to_string(t.begin - 1) + " unused (tensors must cover the data without gaps)");
    covered = t.end;
    previous = &t;
    t.data = bytes + 8 + header_len + t.begin;
    t.nbytes = size_t(t.end - t.begin);
  }
  if (covered != data_len)
    fail(std::to_string(data_len - covered) + " bytes after the last tensor (the data section is " +
         std::to_string(data_len) + " bytes, the tensors cover " + std::to_string(covered) + ")");
  return file;
}

std::vector<uint8_t> serialize(const std::vector<TensorData>& tensors, const Metadata& metadata) {
  std::vector<const TensorData*> order;
  for (const TensorData& t : tensors) {
    if (t.name.empty()) fail("a tensor needs a name");
    if (t.name == "__metadata__") fail("\"__metadata__\" is reserved and cannot name a tensor");
    if (!json::valid_utf8(t.name)) fail("tensor names must be UTF-8");
    uint64_t need = 0;
    if (!byte_count(t.shape, dtype_size(t.dtype), &need))
      fail("tensor " + quoted(t.name) + ": shape " + shape_text(t.shape) + " overflows 64 bits");
    if (need != t.nbytes)
      fail("tensor " + quoted(t.name) + " has " + std::to_string(t.nbytes) + " bytes, but shape " +
           shape_text(t.shape) + " of " + dtype_name(t.dtype) + " needs " + std::to_string(need));
    order.push_back(&t);
  }
  // the reference's order: dtype (later in the enum first), then name
  std::sort(order.begin(), order.end(), [](const TensorData* a, const TensorData* b) {
    return a->dtype != b->dtype ? a->dtype > b->dtype : a->name < b->name;
  });
  for (size_t i = 1; i < order.size(); i++)
    if (order[i]->name == order[i - 1]->name) fail("two tensors are named " + quoted(order[i]->name));

  json::Value header = json::Object{};
  if (!metadata.empty()) {
    json::Value meta = json::Object{};
    for (const auto& [key, value] : metadata) {
      if (!json::valid_utf8(key) || !json::valid_utf8(value)) fail("metadata must be UTF-8 (key \"" + key + "\")");
      meta.set(key, value);
    }
    header.set("__metadata__", std::move(meta));
  }
  uint64_t offset = 0;
  for (const TensorData* t : order) {
    json::Value entry = json::Object{};
    entry.set("dtype", dtype_name(t->dtype));
    json::Array shape;
    for (uint64_t d : t->shape) shape.emplace_back(d);
    entry.set("shape", std::move(shape));
    entry.set("data_offsets", json::Array{json::Value(offset), json::Value(offset + t->nbytes)});
    header.set(t->name, std::move(entry));
    offset += t->nbytes;
  }
  std::string text = json::write(header);
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  if (text.size() > kMaxHeaderBytes) fail("the header would be " + std::to_string(text.size()) + " bytes, above the format's limit");

  std::vector<uint8_t> out;
  out.reserve(8 + text.size() + size_t(offset));
  for (int i = 0; i < 8; i++) out.push_back(uint8_t(uint64_t(text.size()) >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const TensorData* t : order) {
    const auto* p = static_cast<const uint8_t*>(t->data);
    out.insert(out.end(), p, p + t->nbytes);
  }
  return out;
}

std::vector<uint8_t> read_file(const std::string& path, const Limits& limits) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error("cannot open '" + path + "'");
  long size = -1;
  if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
  std::fclose(f);
  if (size < 0) throw Error("cannot read the size of '" + path + "'");
  if (uint64_t(size) > limits.max_file_bytes)
    fail("'" + path + "' is " + std::to_string(size) + " bytes, above the limit of " + std::to_string(limits.max_file_bytes));
  return io::read_file(path);
}

void write_file(const std::string& path, const std::vector<TensorData>& tensors, const Metadata& metadata) {
  io::write_file(path, serialize(tensors, metadata));
}

// ---- the model's parameters -----------------------------------------------------------------------

std::vector<uint8_t> serialize_params(const std::vector<model::ParamInfo>& table, const float* params,
                                      const Metadata& metadata) {
  std::vector<TensorData> tensors;
  for (const model::ParamInfo& p : table) {
    std::vector<uint64_t> shape;
    for (int i = 0; i < p.shape.ndim; i++) shape.push_back(uint64_t(p.shape[i]));
    tensors.push_back({p.name, Dtype::F32, shape, params + p.offset, size_t(p.shape.numel()) * sizeof(float)});
  }
  return serialize(tensors, metadata);
}

std::vector<uint8_t> serialize_model(const model::TinyGPT& model, const Metadata& metadata) {
  return serialize_params(model.param_table(), model.params(), metadata);
}

void load_params(const File& file, const std::vector<model::ParamInfo>& table, float* params) {
  // check everything first: the parameters change only when the whole file fits
  for (const model::ParamInfo& p : table) {
    const TensorView* t = file.find(p.name);
    if (!t)
      fail("the file has no tensor " + quoted(p.name) + " (a model of this configuration has " +
           std::to_string(table.size()) + " parameter tensors)");
    std::vector<uint64_t> want;
    for (int i = 0; i < p.shape.ndim; i++) want.push_back(uint64_t(p.shape[i]));
    if (t->dtype != Dtype::F32) fail("tensor " + quoted(p.name) + " is " + dtype_name(t->dtype) + "; tinygpt's parameters are F32");
    if (t->shape != want)
      fail("tensor " + quoted(p.name) + " has shape " + shape_text(t->shape) + ", the model's is " + shape_text(want) +
           " (the file was written for another configuration)");
    for (size_t i = 0; i < t->nbytes / 4; i++) {
      float x;
      std::memcpy(&x, t->data + 4 * i, 4);
      if (!std::isfinite(x)) fail("tensor " + quoted(p.name) + " holds a non-finite value at index " + std::to_string(i));
    }
  }
  if (file.tensors.size() != table.size())
    for (const TensorView& t : file.tensors) {
      bool known = false;
      for (const model::ParamInfo& p : table) known = known || p.name == t.name;
      if (!known) fail("the file has a tensor " + quoted(t.name) + " that the model does not have");
    }
  for (const model::ParamInfo& p : table) {
    const TensorView& t = file.at(p.name);
    std::memcpy(params + p.offset, t.data, t.nbytes);
  }
}

Metadata load_model(const File& file, model::TinyGPT& model) {
  load_params(file, model.param_table(), model.params());
  return file.metadata;
}

Metadata load_model(const uint8_t* bytes, size_t n, model::TinyGPT& model) { return load_model(parse(bytes, n), model); }

// ---- a model file -------------------------------------------------------------------------------

Metadata config_metadata(const Config& config) {
  Metadata m;
  for (const FieldSpec& f : config_schema()) m[f.name] = field_text(config, f);
  m["format"] = "pt";
  return m;
}

bool required_in_model_file(const FieldSpec& f, ModelKind kind) {
  const std::string_view name = f.name;
  if (name == "tie_weights") return false;  // files written before the GPT-2 layout have a head of their own
  // a recurrent model's window (block_size) is how it was trained, not a shape of its parameters
  if (is_recurrent(kind) && name == "block_size") return false;
  // files written before the tokenizer fields existed are byte models: tokenizer bytes, vocab_size 256
  if (name == "tokenizer" || name == "vocab_size") return false;
  return f.group == FieldGroup::model && applies_to(f, kind) && name != "model" && name != "seed";
}

Config config_from_metadata(const Metadata& metadata) {
  Config c;
  const FieldSpec& kind_field = field("model");
  if (const auto it = metadata.find(kind_field.name); it != metadata.end()) {
    try {
      set_field_text(c, kind_field, it->second);
    } catch (const Error& e) {
      fail(std::string("the config in the file's metadata is invalid: ") + e.what());
    }
  }
  for (const FieldSpec& f : config_schema())
    if (required_in_model_file(f, c.model) && !metadata.count(f.name))
      fail(std::string("not a tinygpt model file: its metadata has no \"") + f.name +
           "\" (tinygpt export writes the whole config there)");
  for (const FieldSpec& f : config_schema()) {
    const auto it = metadata.find(f.name);
    if (it == metadata.end()) continue;
    try {
      set_field_text(c, f, it->second);
    } catch (const Error& e) {
      fail(std::string("the config in the file's metadata is invalid: ") + e.what());
    }
  }
  const std::vector<ConfigProblem> problems = config_problems(c);
  if (!problems.empty()) fail("the config in the file's metadata is invalid: " + problems.front().message);
  return c;
}

std::vector<uint8_t> export_model(const train::Trainer& trainer) {
  Metadata m = config_metadata(trainer.config());
  if (trainer.tokenizer()) m[kTokenizerKey] = trainer.tokenizer()->to_hf_json();
  return serialize_params(trainer.param_table(), trainer.params(), m);
}

std::shared_ptr<const tok::Tokenizer> tokenizer_from_metadata(const Metadata& metadata) {
  const auto it = metadata.find(kTokenizerKey);
  if (it == metadata.end()) return nullptr;
  return std::make_shared<const tok::Tokenizer>(tok::Tokenizer::from_hf_json(it->second, "the model file's tokenizer.json"));
}

std::unique_ptr<train::Trainer> start_run(const File& file, const Config& config, int64_t memory_limit) {
  const Config from_file = config_from_metadata(file.metadata);
  for (const FieldSpec& f : config_schema())
    if (f.group == FieldGroup::model && f.name != std::string_view("seed") && applies_to(f, config.model) &&
        f.get(config) != f.get(from_file))
      fail(std::string(f.name) + " is " + field_text(config, f) + " but the file's model has " + field_text(from_file, f) +
           ": the model's shape comes from the file");
  std::shared_ptr<const tok::Tokenizer> tokenizer;
  if (config.tokenizer == TokenizerKind::bpe) {
    if (!file.metadata.count(kTokenizerKey))
      throw Error(coded("safetensors.tokenizer_missing", {{"vocab", std::to_string(config.vocab_size)}},
                        "safetensors: the model reads BPE tokens (vocab_size " + std::to_string(config.vocab_size) +
                            ") but its metadata has no \"tokenizer.json\": without it no text can be read or written"));
    tokenizer = tokenizer_from_metadata(file.metadata);
  }
  auto trainer = std::make_unique<train::Trainer>(config, memory_limit);
  load_params(file, trainer->param_table(), trainer->params());
  if (tokenizer) trainer->set_tokenizer(std::move(tokenizer));
  return trainer;
}

}  // namespace tinygpt::safetensors
