// export_hf.cpp — the GPT as a Hugging Face GPT-2 folder (transformers' GPT2LMHeadModel, and
// transformers.js through its onnx/model.onnx).
//
// GPT-2 and tinygpt's GPT-2 layout (tie_weights 1) are the same network: pre-norm blocks, learned
// positions, LayerNorm eps 1e-5, the tanh GELU ("gelu_new"), attention scaled by 1 / sqrt(HS), the
// head tied to wte with no bias. Even the weights' layout is GPT-2's: its Conv1D keeps (in, out) as
// the core does, so the tensors are written as they are, under GPT-2's names with the
// "transformer." prefix of GPT2LMHeadModel (lm_head.weight is wte: tied, not written).
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

}  // namespace tinygpt::hf
