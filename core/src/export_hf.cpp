// export_hf.cpp — the GPT as a Hugging Face GPT-2 folder (transformers' GPT2LMHeadModel, and
// transformers.js through its onnx/model.onnx).
//
// GPT-2 and tinygpt's GPT-2 layout (tie_weights 1) are the same network: pre-norm blocks, learned
// positions, LayerNorm eps 1e-5, the tanh GELU ("gelu_new"), attention scaled by 1 / sqrt(HS), the
// head tied to wte with no bias. Even the weights' layout is GPT-2's: its Conv1D keeps (in, out) as
// the core does, so the tensors are written as they are, under GPT-2's names with the
// "transformer." prefix of GPT2LMHeadModel (lm_head.weight is wte: tied, not written).
//
// Read back (model_file_from_folder): config.json's shape and model.safetensors' tensors (with or
// without the "transformer." prefix; F32, F16 or BF16; GPT-2's attention-mask buffers "attn.bias"
// and "attn.masked_bias" ignored) become a tinygpt model file, which starts a new run as a model
// file from tinygpt export does (train --init, the page's drop). An lm_head.weight equal to wte is
// the tie; a different one becomes a head of its own (tie_weights 0, its transpose, a zero bias).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "json.h"
#include "tinygpt/error.h"
#include "tinygpt/export.h"
#include "tinygpt/model.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::hf {

namespace {

bool has_param(const model::TinyGPT& m, const std::string& name) {
  for (const model::ParamInfo& p : m.param_table())
    if (p.name == name) return true;
  return false;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// The id GPT-2 uses for BOS and EOS: the tokenizer's <|endoftext|>.
int32_t end_of_text(const tok::Tokenizer& tok) { return tok.special_id(tok::Special::endoftext); }

std::string config_json(const model::TinyGPT& m, const tok::Tokenizer& tok) {
  using json::Value;
  const Config& c = m.config();
  const int64_t V = m.param_info("wte").shape[0];
  const Value root(json::Object{
      {"architectures", Value(json::Array{Value("GPT2LMHeadModel")})},
      {"model_type", Value("gpt2")},
      {"vocab_size", Value(V)},
      {"n_positions", Value(c.block_size)},
      {"n_ctx", Value(c.block_size)},
      {"n_embd", Value(c.n_embd)},
      {"n_layer", Value(c.n_layer)},
      {"n_head", Value(c.n_head)},
      {"n_inner", Value()},  // null: 4 n_embd
      {"activation_function", Value("gelu_new")},
      {"layer_norm_epsilon", Value::number_literal("1e-05")},
      {"resid_pdrop", Value(0.0)},
      {"embd_pdrop", Value(0.0)},
      {"attn_pdrop", Value(0.0)},
      {"initializer_range", Value(0.02)},
      {"scale_attn_weights", Value(true)},
      {"tie_word_embeddings", Value(true)},
      {"use_cache", Value(true)},
      {"bos_token_id", Value(end_of_text(tok))},
      {"eos_token_id", Value(end_of_text(tok))},
      {"torch_dtype", Value("float32")},
  });
  return json::write(root, 2) + "\n";
}

std::string generation_config_json(const tok::Tokenizer& tok) {
  using json::Value;
  return json::write(Value(json::Object{{"bos_token_id", Value(end_of_text(tok))},
                                        {"eos_token_id", Value(end_of_text(tok))},
                                        {"_from_model_config", Value(true)}}),
                     2) +
         "\n";
}

std::string tokenizer_config_json(const model::TinyGPT& m, const tok::Tokenizer& tok) {
  using json::Value;
  const std::string eot = tok.token_bytes(end_of_text(tok));
  return json::write(Value(json::Object{
                         {"tokenizer_class", Value("GPT2Tokenizer")},
                         {"add_bos_token", Value(false)},
                         {"add_eos_token", Value(false)},
                         {"add_prefix_space", Value(false)},
                         {"bos_token", Value(eot)},
                         {"eos_token", Value(eot)},
                         {"unk_token", Value(eot)},
                         {"clean_up_tokenization_spaces", Value(false)},
                         {"model_max_length", Value(m.config().block_size)},
                     }),
                     2) +
         "\n";
}

// The weights under GPT-2's names (GPT2LMHeadModel.state_dict()), in the core's order.
std::vector<uint8_t> model_safetensors(const model::TinyGPT& m) {
  std::vector<safetensors::TensorData> tensors;
  for (const model::ParamInfo& p : m.param_table()) {
    std::vector<uint64_t> shape(p.shape.dims, p.shape.dims + p.shape.ndim);
    const std::string name = "transformer." + (p.name == "wte" || p.name == "wpe" ? p.name + ".weight" : p.name);
    tensors.push_back({name, safetensors::Dtype::F32, shape, m.params() + p.offset, size_t(p.shape.numel()) * sizeof(float)});
  }
  return safetensors::serialize(tensors, {{"format", "pt"}});
}

}  // namespace

Message gpt2_problem(const model::TinyGPT& m) {
  if (!has_param(m, "lm_head.weight") && !has_param(m, "lm_head.bias")) return {};
  return coded("export.not_gpt2", {},
               "hf: a Hugging Face GPT-2 has its head tied to the token embedding and no head bias, and this model has "
               "a head of its own (tie_weights 0): export it as ONNX, or train with the GPT-2 layout (tie_weights 1)");
}

std::vector<exporter::File> export_folder(const model::TinyGPT& m, const tok::Tokenizer& tok) {
  if (Message problem = gpt2_problem(m); !problem.text.empty()) throw Error(problem);
  if (tok.vocab_size() != m.param_info("wte").shape[0])
    throw Error("hf: the tokenizer has " + std::to_string(tok.vocab_size()) + " text tokens, the model " +
                std::to_string(m.param_info("wte").shape[0]));
  return {
      {"config.json", bytes_of(config_json(m, tok))},
      {"generation_config.json", bytes_of(generation_config_json(tok))},
      {"model.safetensors", model_safetensors(m)},
      {"tokenizer.json", bytes_of(tok.to_hf_json())},
      {"tokenizer_config.json", bytes_of(tokenizer_config_json(m, tok))},
      {"onnx/model.onnx", onnx::export_gpt(m)},
  };
}

// ---- a folder read back ------------------------------------------------------------------------------

namespace {

[[noreturn]] void refuse(const std::string& code, MessageArgs args, const std::string& text) { throw Error(coded(code, std::move(args), text)); }

// A whole-number member of config.json (or the default when missing or null).
int64_t integer(const json::Value& config, const char* key, int64_t fallback, bool required) {
  const json::Value* v = config.find(key);
  if (!v || v->is_null()) {
    if (required) refuse("import.unsupported", {{"what", std::string("it has no ") + key}}, std::string("config.json: it has no ") + key);
    return fallback;
  }
  if (!v->is_number() || v->as_double() != std::floor(v->as_double()) || v->as_double() < 1 || v->as_double() > 1e9)
    refuse("import.unsupported", {{"what", std::string(key) + " is not a whole number >= 1"}},
           std::string("config.json: ") + key + " is not a whole number >= 1");
  return int64_t(v->as_double());
}

void unsupported(const std::string& what) { refuse("import.unsupported", {{"what", what}}, "config.json: " + what); }

// What GPT-2's config.json says about the network, checked against what the core computes.
struct Shape {
  int64_t n_layer, n_head, n_embd, n_positions, vocab;
};

Shape read_config(const std::vector<uint8_t>& bytes) {
  json::Value c;
  try {
    c = json::parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const Error& e) {
    unsupported(std::string("not JSON (") + e.what() + ")");
  }
  if (!c.is_object()) unsupported("not a JSON object");
  const json::Value* type = c.find("model_type");
  const std::string model_type = type && type->is_string() ? type->as_string() : "";
  if (model_type != "gpt2")
    refuse("import.model_type", {{"model_type", model_type}},
           "config.json says model_type \"" + model_type + "\": tinygpt reads GPT-2's layout (model_type gpt2) only");
  Shape s{integer(c, "n_layer", 0, true), integer(c, "n_head", 0, true), integer(c, "n_embd", 0, true),
          integer(c, "n_positions", integer(c, "n_ctx", 0, false), true), integer(c, "vocab_size", 0, true)};
  const json::Value* act = c.find("activation_function");
  const std::string activation = act && act->is_string() ? act->as_string() : "gelu_new";
  if (activation != "gelu_new" && activation != "gelu_pytorch_tanh" && activation != "gelu_fast")
    unsupported("activation_function \"" + activation + "\" (tinygpt computes GELU's tanh form: gelu_new)");
  if (integer(c, "n_inner", 4 * s.n_embd, false) != 4 * s.n_embd) unsupported("n_inner is not 4 n_embd");
  if (const json::Value* eps = c.find("layer_norm_epsilon"); eps && eps->is_number() && std::fabs(eps->as_double() - 1e-5) > 1e-12)
    unsupported("layer_norm_epsilon " + eps->number_text() + " (tinygpt's LayerNorm has 1e-5)");
  for (const char* off : {"scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"})
    if (const json::Value* v = c.find(off); v && v->is_bool() && v->as_bool()) unsupported(std::string(off) + " is true");
  if (const json::Value* v = c.find("scale_attn_weights"); v && v->is_bool() && !v->as_bool()) unsupported("scale_attn_weights is false");
  if (s.n_embd % s.n_head) unsupported("n_embd " + std::to_string(s.n_embd) + " is not divisible by n_head " + std::to_string(s.n_head));
  return s;
}

std::string dims_text(const std::vector<uint64_t>& d) {
  std::string t = "[";
  for (size_t i = 0; i < d.size(); i++) t += (i ? ", " : "") + std::to_string(d[i]);
  return t + "]";
}

// The tensor's values as floats (F32, F16, BF16).
std::vector<float> floats_of(const safetensors::TensorView& t) {
  std::vector<float> out(size_t(t.numel()));
  for (size_t i = 0; i < out.size(); i++) {
    if (t.dtype == safetensors::Dtype::F32) {
      std::memcpy(&out[i], t.data + 4 * i, 4);
    } else {
      const uint16_t h = uint16_t(t.data[2 * i] | t.data[2 * i + 1] << 8);
      if (t.dtype == safetensors::Dtype::F16) {
        out[i] = gguf::half_to_float(h);
      } else {
        const uint32_t bits = uint32_t(h) << 16;
        std::memcpy(&out[i], &bits, 4);
      }
    }
  }
  return out;
}

// The folder's tensor for a tinygpt parameter, checked against the shape config.json makes it.
std::vector<float> tensor_for(const safetensors::File& f, const std::string& ours, const std::vector<uint64_t>& want) {
  const std::string name = ours == "wte" || ours == "wpe" ? ours + ".weight" : ours;
  const safetensors::TensorView* t = f.find("transformer." + name);
  if (!t) t = f.find(name);
  if (!t) refuse("import.missing_tensor", {{"name", "transformer." + name}}, "model.safetensors has no tensor transformer." + name);
  if (t->dtype != safetensors::Dtype::F32 && t->dtype != safetensors::Dtype::F16 && t->dtype != safetensors::Dtype::BF16)
    refuse("import.shape", {{"name", t->name}, {"got", safetensors::dtype_name(t->dtype)}, {"want", "F32, F16 or BF16"}},
           "model.safetensors: " + t->name + " is " + safetensors::dtype_name(t->dtype) + ", not F32, F16 or BF16");
  if (t->shape != want)
    refuse("import.shape", {{"name", t->name}, {"got", dims_text(t->shape)}, {"want", dims_text(want)}},
           "model.safetensors: " + t->name + " is " + dims_text(t->shape) + " but config.json makes it " + dims_text(want));
  return floats_of(*t);
}

// The folder's tokenizer: tokenizer.json, or GPT-2's vocab.json + merges.txt. A byte model (vocab_size
// 256) needs none, and one it has must be the 256 bytes in order (ids = bytes, as the core reads text);
// a BPE model (vocab_size > 256) needs one of exactly vocab_size text tokens, which becomes the run's.
// Returns the tokenizer.json the model file carries (safetensors::kTokenizerKey), "" for a byte model.
std::string read_tokenizer(const FolderFiles& files, int64_t vocab) {
  const auto text = [&](const char* name) {
    const auto it = files.find(name);
    return it == files.end() ? std::string() : std::string(it->second.begin(), it->second.end());
  };
  const bool hf = files.count("tokenizer.json") != 0, gpt2 = files.count("vocab.json") && files.count("merges.txt");
  const std::string source = hf ? "tokenizer.json" : "vocab.json + merges.txt";
  if (!hf && !gpt2) {
    if (vocab == 256) return "";
    refuse("import.tokenizer",
           {{"file", "tokenizer.json"},
            {"what", "none among the files, and config.json says vocab_size " + std::to_string(vocab) +
                         ": a model of more tokens than the 256 bytes needs its tokenizer (tokenizer.json, or vocab.json with merges.txt)"}},
           "config.json says vocab_size " + std::to_string(vocab) +
               ": a model of more tokens than the 256 bytes needs its tokenizer (tokenizer.json, or vocab.json with merges.txt)");
  }
  const tok::Tokenizer t = [&] {
    try {
      return hf ? tok::Tokenizer::from_hf_json(text("tokenizer.json"), "tokenizer.json") : tok::Tokenizer::from_gpt2(text("vocab.json"), text("merges.txt"));
    } catch (const Error& e) {
      refuse("import.tokenizer", {{"file", source}, {"what", e.what()}}, source + ": " + e.what());
    }
  }();
  if (vocab == 256) {
    bool bytes = t.vocab_size() == 256 && t.merge_count() == 0;
    for (int id = 0; bytes && id < 256; id++) bytes = t.token_bytes(id) == std::string(1, char(id));
    if (!bytes)
      refuse("import.tokenizer", {{"file", source}, {"what", "its tokens are not the 256 bytes in order, and config.json says vocab_size 256 (a byte model)"}},
             source + ": its tokens are not the 256 bytes in order (" + std::to_string(t.vocab_size()) +
                 " tokens), and config.json says vocab_size 256 (a byte model)");
    return "";
  }
  if (t.vocab_size() != vocab) {
    const std::string what = "it has " + std::to_string(t.vocab_size()) + " text tokens and config.json says vocab_size " + std::to_string(vocab) +
                             " (tinygpt's vocabulary is the text tokens: a model with rows for special tokens, as GPT-2's <|endoftext|>, is not read)";
    refuse("import.tokenizer", {{"file", source}, {"what", what}}, source + ": " + what);
  }
  return t.to_hf_json();
}

}  // namespace

std::vector<uint8_t> model_file_from_folder(const FolderFiles& files) {
  const auto config_it = files.find("config.json");
  if (config_it == files.end()) {
    std::string names;
    for (const auto& [name, bytes] : files) names += (names.empty() ? "" : ", ") + name;
    refuse("import.no_config", {{"files", names}},
           "no config.json among the files (" + names + "): a Hugging Face model folder has config.json beside model.safetensors");
  }
  const Shape s = read_config(config_it->second);
  if (s.vocab < 256 || s.vocab > tok::kMaxVocab)
    refuse("import.unsupported", {{"what", "vocab_size " + std::to_string(s.vocab)}},
           "config.json: vocab_size " + std::to_string(s.vocab) + " (tinygpt reads 256 bytes, or a BPE vocabulary of up to " +
               std::to_string(tok::kMaxVocab) + " tokens)");
  const std::string tokenizer_json = read_tokenizer(files, s.vocab);
  const auto weights = files.find("model.safetensors");
  if (weights == files.end())
    refuse("import.no_weights", {}, "no model.safetensors beside config.json (tinygpt reads the weights in safetensors, not pytorch_model.bin)");
  const safetensors::File f = safetensors::parse(weights->second.data(), weights->second.size());

  Config c;  // the schema's defaults, then the shape of the folder's model
  c.model = ModelKind::gpt;
  c.n_layer = int(s.n_layer), c.n_head = int(s.n_head), c.n_embd = int(s.n_embd), c.block_size = int(s.n_positions);
  c.vocab_size = int(s.vocab);
  c.tokenizer = tokenizer_json.empty() ? TokenizerKind::bytes : TokenizerKind::bpe;
  const uint64_t C = uint64_t(s.n_embd), V = uint64_t(s.vocab);
  std::vector<float> wte = tensor_for(f, "wte", {V, C});
  const safetensors::TensorView* head = f.find("lm_head.weight");
  std::vector<float> lm_head;
  if (head) {
    lm_head = tensor_for(f, "lm_head.weight", {V, C});  // nn.Linear's (out, in)
    if (lm_head == wte) lm_head.clear();                 // the tie, saved as two tensors
  }
  c.tie_weights = lm_head.empty() ? 1 : 0;
  validate_config(c);

  // the parameters in the core's table order, under its names
  model::TinyGPT shape(c);
  std::vector<std::vector<float>> values;
  std::vector<safetensors::TensorData> tensors;
  for (const model::ParamInfo& p : shape.param_table()) {
    std::vector<uint64_t> dims(p.shape.dims, p.shape.dims + p.shape.ndim);
    if (p.name == "wte") values.push_back(wte);
    else if (p.name == "lm_head.weight") {  // (out, in) -> the core's (in, out)
      std::vector<float> t(lm_head.size());
      for (uint64_t v = 0; v < V; v++)
        for (uint64_t i = 0; i < C; i++) t[i * V + v] = lm_head[v * C + i];
      values.push_back(std::move(t));
    } else if (p.name == "lm_head.bias") values.push_back(std::vector<float>(V, 0.0f));
    else values.push_back(tensor_for(f, p.name, dims));
    tensors.push_back({p.name, safetensors::Dtype::F32, dims, values.back().data(), values.back().size() * sizeof(float)});
  }
  safetensors::Metadata metadata = safetensors::config_metadata(c);
  if (!tokenizer_json.empty()) metadata[safetensors::kTokenizerKey] = tokenizer_json;  // the run's tokenizer (start_run)
  return safetensors::serialize(tensors, metadata);
}

}  // namespace tinygpt::hf
