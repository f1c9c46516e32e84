// config.cpp — the schema table at run time, validation, sizes and presets (config.h).
#include "tinygpt/config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "tinygpt/error.h"
#include "tinygpt/rnn.h"
#include "tinygpt/rnn_seq2seq.h"
#include "tinygpt/seq2seq.h"

namespace tinygpt {

const char* model_kind_name(ModelKind kind) {
  switch (kind) {
    case ModelKind::gpt: return "gpt";
    case ModelKind::seq2seq: return "seq2seq";
    case ModelKind::rnn: return "rnn";
    case ModelKind::gru: return "gru";
    case ModelKind::lstm: return "lstm";
    case ModelKind::lstm_seq2seq: return "lstm_seq2seq";
  }
  return "?";
}

const char* tokenizer_kind_name(TokenizerKind kind) { return kind == TokenizerKind::bpe ? "bpe" : "bytes"; }

namespace {

template <class T>
constexpr FieldType field_type() {
  if constexpr (std::is_same_v<T, ModelKind> || std::is_same_v<T, TokenizerKind>) return FieldType::choice;
  else if constexpr (std::is_floating_point_v<T>) return FieldType::real;
  else return FieldType::integer;
}

template <class T>
std::vector<std::string> choices_of() {
  if constexpr (std::is_same_v<T, ModelKind>) {
    std::vector<std::string> names;
    for (int k = 0; k < kModelKinds; k++) names.push_back(model_kind_name(ModelKind(k)));
    return names;
  } else if constexpr (std::is_same_v<T, TokenizerKind>) {
    std::vector<std::string> names;
    for (int k = 0; k < kTokenizerKinds; k++) names.push_back(tokenizer_kind_name(TokenizerKind(k)));
    return names;
  }
  else return {};
}

// "[1, 64]" -> bounds and openness. The table is written by us: a malformed range is a bug,
// caught by the schema test at start-up of every test binary.
void parse_range(FieldSpec& f) {
  const std::string r = f.range;
  const size_t comma = r.find(',');
  if (r.size() < 5 || comma == std::string::npos || (r.front() != '[' && r.front() != '(') ||
      (r.back() != ']' && r.back() != ')'))
    throw Error(std::string("internal: malformed range for config field ") + f.name + ": " + r);
  f.lo_open = r.front() == '(';
  f.hi_open = r.back() == ')';
  f.lo = std::strtod(r.c_str() + 1, nullptr);
  f.hi = std::strtod(r.c_str() + comma + 1, nullptr);
}

std::vector<FieldSpec> build_schema() {
  std::vector<FieldSpec> fields;
#define TINYGPT_CONFIG_SPEC(NAME, TYPE, DEF, RANGE, KINDS, GROUP, LABEL, HELP)                                  \
  {                                                                                                              \
    FieldSpec f{#NAME, field_type<TYPE>(), double(DEF), 0, 0, false, false, RANGE, KINDS, FieldGroup::GROUP,   \
                LABEL, HELP, choices_of<TYPE>(),                                                                 \
                [](const Config& c) { return double(c.NAME); },                                                 \
                [](Config& c, double v) { c.NAME = static_cast<TYPE>(v); }};                                     \
    parse_range(f);                                                                                              \
    fields.push_back(std::move(f));                                                                              \
  }
  TINYGPT_CONFIG_FIELDS(TINYGPT_CONFIG_SPEC)
#undef TINYGPT_CONFIG_SPEC
  return fields;
}

std::string format_number(double v) {
  char buf[40];
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The field whose name is closest (edit distance <= 3) to a misspelt one, for the error message.
std::string closest_field(std::string_view name) {
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); j++) row[j] = j;
    for (size_t i = 1; i <= a.size(); i++) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); j++) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? size_t(0) : size_t(1))});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = 4;
  for (const FieldSpec& f : config_schema()) {
    const size_t d = distance(name, f.name);
    if (d < best_d) best_d = d, best = f.name;
  }
  return best;
}

}  // namespace

const std::vector<FieldSpec>& config_schema() {
  static const std::vector<FieldSpec> schema = build_schema();
  return schema;
}

const FieldSpec* find_field(std::string_view name) {
  for (const FieldSpec& f : config_schema())
    if (name == f.name) return &f;
  return nullptr;
}

const FieldSpec& field(std::string_view name) {
  if (const FieldSpec* f = find_field(name)) return *f;
  const std::string near = closest_field(name);
  const std::string text = "unknown config field '" + std::string(name) + "'" + (near.empty() ? "" : " (did you mean " + near + "?)");
  if (near.empty()) throw Error(coded("config.unknown_field", {{"field", std::string(name)}}, text));
  throw Error(coded("config.unknown_field_near", {{"field", std::string(name)}, {"near", near}}, text));
}

bool applies_to(const FieldSpec& f, ModelKind kind) { return (f.kinds >> int(kind)) & 1u; }

Message check_field_message(const FieldSpec& f, double v) {
  const std::string name = f.name;
  if (!std::isfinite(v)) return coded("config.not_finite", {{"field", name}}, name + " must be a finite number");
  const std::string got = format_number(v);
  if (f.type != FieldType::real && v != std::floor(v))
    return coded("config.not_whole", {{"field", name}, {"value", got}}, name + " must be a whole number (got " + got + ")");
  const bool low = f.lo_open ? v <= f.lo : v < f.lo;
  const bool high = f.hi_open ? v >= f.hi : v > f.hi;
  if (low || high) {
    if (f.type == FieldType::choice)
      return coded("config.no_choice", {{"field", name}, {"value", got}}, name + " has no choice number " + got);
    return coded("config.range", {{"field", name}, {"range", f.range}, {"value", got}},
                 name + " must be in " + f.range + " (got " + got + ")");
  }
  return {};
}

std::string check_field_value(const FieldSpec& f, double v) { return check_field_message(f, v).text; }

void set_field(Config& c, const FieldSpec& f, double v) {
  Message problem = check_field_message(f, v);
  if (!problem.text.empty()) throw Error(std::move(problem));
  f.set(c, v);
}

void set_field_text(Config& c, const FieldSpec& f, std::string_view text) {
  const std::string s(text);
  if (f.type == FieldType::choice) {
    for (size_t i = 0; i < f.choices.size(); i++)
      if (s == f.choices[i]) return f.set(c, double(i));
    std::string names;
    for (const std::string& n : f.choices) names += (names.empty() ? "" : ", ") + n;
    throw Error(coded("config.not_a_choice", {{"field", f.name}, {"choices", names}, {"value", s}},
                      std::string(f.name) + " must be one of " + names + " (got '" + s + "')"));
  }
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno == ERANGE)
    throw Error(coded(f.type == FieldType::integer ? "config.expects_whole" : "config.expects_number",
                      {{"field", f.name}, {"value", s}},
                      std::string(f.name) + " expects " + (f.type == FieldType::integer ? "a whole number" : "a number") +
                          ", got '" + s + "'"));
  set_field(c, f, v);
}

std::string field_text(const Config& c, const FieldSpec& f) {
  const double v = f.get(c);
  if (f.type == FieldType::choice) return f.choices.at(size_t(v));
  if (f.type == FieldType::real) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);  // the float as a person typed it
    return buf;
  }
  return format_number(v);
}

std::vector<ConfigProblem> config_problems(const Config& c) {
  std::vector<ConfigProblem> out;
  for (const FieldSpec& f : config_schema()) {
    Message p = check_field_message(f, f.get(c));
    if (!p.text.empty()) out.push_back({f.name, std::move(p.text), std::move(p.code), std::move(p.args)});
  }
  auto rule = [&](const char* field_name, std::string_view code, MessageArgs args, std::string text) {
    Message m = coded(code, std::move(args), std::move(text));
    out.push_back({field_name, std::move(m.text), std::move(m.code), std::move(m.args)});
  };
  if (!out.empty()) return out;  // the rules below assume every field is in range
  if (is_translator(c.model) && c.block_size < 2)
    rule("block_size", "config.seq2seq_block_min", {}, "block_size must be at least 2 for seq2seq (a target needs BOS and one byte)");
  if (is_translator(c.model) && c.block_size > 4096)
    rule("block_size", "config.seq2seq_block_max", {{"value", std::to_string(c.block_size)}},
         "block_size must be at most 4096 for seq2seq (got " + std::to_string(c.block_size) + ")");
  if (applies_to(field("n_head"), c.model) && c.n_embd % c.n_head != 0)
    rule("n_embd", "config.heads_divide", {{"n_embd", std::to_string(c.n_embd)}, {"n_head", std::to_string(c.n_head)}},
         "n_embd " + std::to_string(c.n_embd) + " is not divisible by n_head " + std::to_string(c.n_head) +
             " (each head gets n_embd / n_head channels)");
  if (c.tokenizer == TokenizerKind::bytes && c.vocab_size != 256)
    rule("vocab_size", "config.bytes_vocab", {{"value", std::to_string(c.vocab_size)}},
         "vocab_size must be 256 with tokenizer bytes (got " + std::to_string(c.vocab_size) +
             "): choose tokenizer bpe for a larger vocabulary");
  if (c.tokenizer == TokenizerKind::bpe && c.vocab_size == 256)
    rule("vocab_size", "config.bpe_vocab", {},
         "tokenizer bpe needs a vocab_size above 256 (256 is the bytes alone: tokenizer bytes)");
  if (c.min_lr > c.learning_rate)
    rule("min_lr", "config.min_lr_above", {{"min_lr", format_number(c.min_lr)}, {"learning_rate", format_number(c.learning_rate)}},
         "min_lr " + format_number(c.min_lr) + " is above learning_rate " + format_number(c.learning_rate));
  if (c.warmup_iters > c.max_iters)
    rule("warmup_iters", "config.warmup_longer",
         {{"warmup_iters", std::to_string(c.warmup_iters)}, {"max_iters", std::to_string(c.max_iters)}},
         "warmup_iters " + std::to_string(c.warmup_iters) + " is longer than max_iters " + std::to_string(c.max_iters));
  return out;
}

void validate_config(const Config& c) {
  const std::vector<ConfigProblem> problems = config_problems(c);
  if (problems.empty()) return;
  const ConfigProblem& p = problems.front();
  throw Error(Message{p.code, p.args, "invalid config: " + p.message});  // the page words the problem itself
}

int model_vocab(const Config& c) { return is_translator(c.model) ? c.vocab_size + 3 : c.vocab_size; }

model::LstmSeq2SeqDims lstm_seq2seq_dims(const Config& c) {
  model::LstmSeq2SeqDims d;
  d.vocab_size = model_vocab(c);
  d.n_enc_layer = c.n_enc_layer;
  d.n_dec_layer = c.n_dec_layer;
  d.n_embd = c.n_embd;
  d.n_hidden = c.n_hidden;
  d.block_size = c.block_size;
  d.seed = c.seed;
  return d;
}

model::Seq2SeqDims seq2seq_dims(const Config& c) {
  model::Seq2SeqDims d;
  d.vocab_size = model_vocab(c);
  d.n_enc_layer = c.n_enc_layer;
  d.n_dec_layer = c.n_dec_layer;
  d.n_head = c.n_head;
  d.n_embd = c.n_embd;
  d.d_ff = c.d_ff;
  d.block_size = c.block_size;
  d.seed = c.seed;
  return d;
}

int64_t num_parameters(const Config& c) {
  if (c.model == ModelKind::seq2seq) return seq2seq_dims(c).num_parameters();
  if (is_recurrent(c.model)) return model::recurrent_num_parameters(model::cell_of(c.model), c.vocab_size, c.n_embd, c.n_hidden, c.n_layer);
  if (c.model == ModelKind::lstm_seq2seq) return lstm_seq2seq_dims(c).num_parameters();
  const int64_t C = c.n_embd, V = c.vocab_size, L = c.n_layer;
  const int64_t per_block = 2 * C + (C * 3 * C + 3 * C) + (C * C + C) + 2 * C + (C * 4 * C + 4 * C) + (4 * C * C + C);
  return V * C + int64_t(c.block_size) * C + L * per_block + 2 * C + (c.tie_weights ? 0 : C * V + V);  // tied: no lm_head
}

int64_t estimate_training_bytes(const Config& c) {
  // parameters, gradients, AdamW m and v, and the last good state (parameters, m, v) of the NaN guard
  const int64_t params = num_parameters(c) * 7 * int64_t(sizeof(float));
  if (c.model == ModelKind::seq2seq) return params + model::seq2seq_activation_bytes(seq2seq_dims(c), c.batch_size);
  if (is_recurrent(c.model)) return params + model::recurrent_activation_bytes(c, c.batch_size);
  if (c.model == ModelKind::lstm_seq2seq) return params + model::lstm_seq2seq_activation_bytes(lstm_seq2seq_dims(c), c.batch_size);
  const int64_t B = c.batch_size, T = c.block_size, C = c.n_embd, NH = c.n_head, L = c.n_layer, V = c.vocab_size;
  // activations of one step (floats): per block LN1, qkv, attention out, probabilities,
  // projection, residual, LN2, fc, gelu, fc_proj, residual, LN statistics; then embeddings,
  // final LN, logits and softmax probabilities.
  const int64_t per_block = B * T * C * 18 + B * NH * T * T + 4 * B * T;
  const int64_t acts = L * per_block + 3 * B * T * C + 2 * B * T * V + B * T;
  return params + 2 * acts * int64_t(sizeof(float));  // activations and their gradients
}

std::string check_memory(const Config& c, int64_t memory_limit) { return memory_message(c, memory_limit).text; }

Message memory_message(const Config& c, int64_t memory_limit) {
  const int64_t need = estimate_training_bytes(c);
  if (need <= memory_limit) return {};
  return coded("config.memory", {{"need_mib", std::to_string(need >> 20)}, {"limit_mib", std::to_string(memory_limit >> 20)}},
               "this configuration needs about " + std::to_string(need >> 20) + " MiB, more than the " +
         std::to_string(memory_limit >> 20) + " MiB allowed: reduce batch_size, block_size, n_embd or n_layer");
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> list = {
      {"tiny", "tiny", "Learns letter pairs in seconds: for a first look and for tests.",
       {{"n_layer", "2"}, {"n_head", "2"}, {"n_embd", "64"}, {"block_size", "32"}, {"batch_size", "8"},
        {"learning_rate", "3e-3"}, {"min_lr", "3e-4"}, {"warmup_iters", "20"}, {"max_iters", "500"}, {"eval_interval", "50"}}},
      {"S", "small (S)", "nanoGPT's CPU Shakespeare setting: words and names in a few minutes (val loss ~1.9 at 2000 steps).",
       {}},
      // the page's default: time to quality. S's shape on a BPE vocabulary of 4,096 tokens learned from the
      // training split (a token is ~2.9 bytes, so a step reads ~2.6x the text of S's), a higher peak
      // learning rate, and a cosine schedule sized to about a minute on two cores (bench:page).
      {"fast", "fast (S, BPE)", "S with a 4,096-token vocabulary and a short schedule: val loss 1.9 nats per byte in under a minute.",
       {{"tokenizer", "bpe"}, {"vocab_size", "4096"}, {"learning_rate", "3e-3"}, {"min_lr", "3e-4"}, {"warmup_iters", "40"},
        {"max_iters", "400"}, {"eval_interval", "25"}}},
      {"M", "medium (M)", "6 layers, width 384, context 256: 11M parameters; slow without threads or a GPU.",
       {{"n_layer", "6"}, {"n_head", "6"}, {"n_embd", "384"}, {"block_size", "256"}, {"batch_size", "4"},
        {"learning_rate", "6e-4"}, {"min_lr", "6e-5"}, {"warmup_iters", "200"}, {"max_iters", "4000"}, {"eval_interval", "200"}}},
      // the encoder-decoder: sizes measured to learn the built-in tasks to 100% held-out exact match
      {"s2s-tiny", "translate: tiny", "1 + 1 layers, width 32: reverses strings perfectly in a few seconds.",
       {{"model", "seq2seq"}, {"n_enc_layer", "1"}, {"n_dec_layer", "1"}, {"n_head", "2"}, {"n_embd", "32"}, {"d_ff", "64"},
        {"batch_size", "32"}, {"learning_rate", "5e-3"}, {"min_lr", "5e-4"}, {"warmup_iters", "100"},
        {"max_iters", "2500"}, {"eval_interval", "250"}, {"eval_iters", "4"}}},
      {"s2s-small", "translate: small", "2 + 2 layers, width 32: the Chinese-English phrases in about a minute.",
       {{"model", "seq2seq"}, {"n_enc_layer", "2"}, {"n_dec_layer", "2"}, {"n_head", "4"}, {"n_embd", "32"}, {"d_ff", "128"},
        {"batch_size", "32"}, {"learning_rate", "3e-3"}, {"min_lr", "3e-4"}, {"warmup_iters", "100"},
        {"max_iters", "1500"}, {"eval_interval", "250"}, {"eval_iters", "4"}}},
      {"s2s-base", "translate: base", "2 + 2 layers, width 64, d_ff 256: numbers and dates in words; zh-en with margin.",
       {{"model", "seq2seq"}, {"n_head", "4"}, {"n_embd", "64"}, {"d_ff", "256"}, {"batch_size", "32"},
        {"learning_rate", "2e-3"}, {"min_lr", "2e-4"}, {"warmup_iters", "100"}, {"max_iters", "2000"}, {"eval_interval", "250"},
        {"eval_iters", "4"}}},
      // the recurrent language models: tiny and S-sized by their parameter count (tiny ~0.13M, S ~0.9M)
      {"lstm-tiny", "LSTM: tiny", "1 LSTM layer of 128 units: about as many parameters as tiny.",
       {{"model", "lstm"}, {"n_layer", "1"}, {"n_embd", "32"}, {"n_hidden", "128"}, {"block_size", "32"}, {"batch_size", "8"},
        {"learning_rate", "3e-3"}, {"min_lr", "3e-4"}, {"warmup_iters", "20"}, {"max_iters", "500"}, {"eval_interval", "50"}}},
      {"lstm-S", "LSTM: small (S)", "2 LSTM layers of 256 units (0.94M parameters): S's size, window and schedule.",
       {{"model", "lstm"}, {"n_layer", "2"}, {"n_embd", "64"}, {"n_hidden", "256"}, {"learning_rate", "2e-3"}, {"min_lr", "2e-4"}}},
      {"gru-tiny", "GRU: tiny", "1 GRU layer of 160 units: about as many parameters as tiny.",
       {{"model", "gru"}, {"n_layer", "1"}, {"n_embd", "32"}, {"n_hidden", "160"}, {"block_size", "32"}, {"batch_size", "8"},
        {"learning_rate", "3e-3"}, {"min_lr", "3e-4"}, {"warmup_iters", "20"}, {"max_iters", "500"}, {"eval_interval", "50"}}},
      {"gru-S", "GRU: small (S)", "2 GRU layers of 288 units (0.90M parameters): S's size, window and schedule.",
       {{"model", "gru"}, {"n_layer", "2"}, {"n_embd", "64"}, {"n_hidden", "288"}, {"learning_rate", "2e-3"}, {"min_lr", "2e-4"}}},
      {"rnn-tiny", "RNN: tiny", "1 tanh RNN layer of 256 units: about as many parameters as tiny.",
       {{"model", "rnn"}, {"n_layer", "1"}, {"n_embd", "32"}, {"n_hidden", "256"}, {"block_size", "32"}, {"batch_size", "8"},
        {"learning_rate", "3e-3"}, {"min_lr", "3e-4"}, {"warmup_iters", "20"}, {"max_iters", "500"}, {"eval_interval", "50"}}},
      {"rnn-S", "RNN: small (S)", "2 tanh RNN layers of 512 units (0.97M parameters): S's size, window and schedule.",
       {{"model", "rnn"}, {"n_layer", "2"}, {"n_embd", "64"}, {"n_hidden", "512"}, {"learning_rate", "1e-3"}, {"min_lr", "1e-4"}}},
      {"s2s-lstm", "translate: LSTM", "LSTM encoder and decoder (1 + 1 layers of 128 units) with attention: the Transformer's rival.",
       {{"model", "lstm_seq2seq"}, {"n_enc_layer", "1"}, {"n_dec_layer", "1"}, {"n_embd", "32"}, {"n_hidden", "128"},
        {"batch_size", "32"}, {"learning_rate", "5e-3"}, {"min_lr", "5e-4"}, {"warmup_iters", "100"},
        {"max_iters", "2500"}, {"eval_interval", "250"}, {"eval_iters", "4"}}},
  };
  return list;
}

Config preset_config(std::string_view name) {
  for (const Preset& p : presets())
    if (name == p.name) {
      Config c;
      for (const auto& [field_name, value] : p.values) set_field_text(c, field(field_name), value);
      return c;
    }
  std::string names;
  for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw Error("unknown preset '" + std::string(name) + "' (presets: " + names + ")");
}

}  // namespace tinygpt
