// config.h — the one configuration schema: every knob of a run, declared once.
//
// Each row of TINYGPT_CONFIG_FIELDS is one field:
//   X(name, C++ type, default, range, model kinds, group, label, help)
// `name` is the only name the field has: the C++ member of tinygpt::Config, the property of the
// JavaScript config object, the CLI flag (--name), the key in checkpoint files and the
// safetensors metadata. Where nanoGPT has a name for the knob, it is nanoGPT's.
// `range` is an interval in the usual notation ("[1, 64]", "(0, 1]"); values outside it are
// refused with a message that quotes it. `kinds` says which model kinds read the field.
// `group` says when it can change: model (fixed when the model is created), training (the
// optimizer and schedule; max_iters can be extended), run (the run loop's cadence, any time).
//
// Everything else is derived from the table: the Config struct and its defaults, validation
// (per field, then the cross-field rules in validate_config), the checkpoint header, the CLI's
// flags and help, the Embind conversion and configSchema() for the page's knobs.
// Adding a knob = adding a row (and reading it where it matters).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "tinygpt/error.h"

namespace tinygpt {

// The model kinds the schema knows. A field lists the kinds it applies to.
//   gpt           the decoder-only TinyGPT (model.h), trained on a text
//   seq2seq       the encoder-decoder Transformer of the seed (seq2seq.h), trained on source<TAB>target pairs
//   rnn, gru, lstm  recurrent language models (rnn.h): an embedding, n_layer recurrent layers of
//                 n_hidden units (tanh RNN, GRU or LSTM cells, as torch.nn has them) and a linear head,
//                 trained on a text like gpt
//   lstm_seq2seq  an LSTM encoder-decoder with attention (rnn_seq2seq.h), trained on pairs like seq2seq
enum class ModelKind : int { gpt = 0, seq2seq = 1, rnn = 2, gru = 3, lstm = 4, lstm_seq2seq = 5 };
constexpr int kModelKinds = 6;
constexpr uint32_t kKindGpt = 1u << int(ModelKind::gpt);
constexpr uint32_t kKindSeq2Seq = 1u << int(ModelKind::seq2seq);
constexpr uint32_t kKindRecurrent = (1u << int(ModelKind::rnn)) | (1u << int(ModelKind::gru)) | (1u << int(ModelKind::lstm));
constexpr uint32_t kKindLstmSeq2Seq = 1u << int(ModelKind::lstm_seq2seq);
constexpr uint32_t kKindTranslators = kKindSeq2Seq | kKindLstmSeq2Seq;
constexpr uint32_t kAllKinds = kKindGpt | kKindSeq2Seq | kKindRecurrent | kKindLstmSeq2Seq;
const char* model_kind_name(ModelKind kind);  // "gpt", "seq2seq", "rnn", "gru", "lstm", "lstm_seq2seq"
// rnn, gru, lstm: a recurrent language model (rnn.h)
constexpr bool is_recurrent(ModelKind k) { return k == ModelKind::rnn || k == ModelKind::gru || k == ModelKind::lstm; }
// Trained on a text, continues text: gpt and the recurrent kinds.
constexpr bool is_language_model(ModelKind k) { return k == ModelKind::gpt || is_recurrent(k); }
// Trained on source<TAB>target pairs, translates: seq2seq and lstm_seq2seq.
constexpr bool is_translator(ModelKind k) { return k == ModelKind::seq2seq || k == ModelKind::lstm_seq2seq; }

// How a text becomes tokens (tokenizer.h):
//   bytes  every byte is a token (vocab_size 256): any file works, as always
//   bpe    a byte-level BPE vocabulary of vocab_size tokens (the bytes and vocab_size - 256 merges),
//          learned from the training split or loaded (tokenizer.json); the run carries it (its
//          checkpoint's tokenizer section)
enum class TokenizerKind : int { bytes = 0, bpe = 1 };
constexpr int kTokenizerKinds = 2;
const char* tokenizer_kind_name(TokenizerKind kind);  // "bytes", "bpe"

enum class FieldGroup : int { model, training, run };

// clang-format off
#define TINYGPT_CONFIG_FIELDS(X)                                                                                       \
  X(model,         ModelKind, ModelKind::gpt, "[0, 5]",       kAllKinds, model,    "Model",                            \
    "gpt, rnn, gru, lstm: a language model that continues text; seq2seq, lstm_seq2seq: an encoder-decoder that translates") \
  X(n_layer,       int,       4,        "[1, 96]",            kKindGpt | kKindRecurrent, model, "Layers",              \
    "Transformer blocks (gpt), or recurrent layers (rnn, gru, lstm), stacked on each other")                          \
  X(n_enc_layer,   int,       2,        "[1, 64]",            kKindTranslators, model, "Encoder layers",               \
    "encoder layers: self-attention over the source, then a ReLU feed-forward (lstm_seq2seq: LSTM layers)")           \
  X(n_dec_layer,   int,       2,        "[1, 64]",            kKindTranslators, model, "Decoder layers",               \
    "decoder layers: causal self-attention, cross-attention to the source, feed-forward (lstm_seq2seq: LSTM layers)") \
  X(d_ff,          int,       256,      "[1, 65536]",         kKindSeq2Seq, model, "Feed-forward width",               \
    "hidden width of each layer's ReLU feed-forward network")                                                          \
  X(n_head,        int,       4,        "[1, 128]",           kKindGpt | kKindSeq2Seq, model, "Heads",                 \
    "attention heads per layer; n_embd is split between them")                                                         \
  X(tie_weights,   int,       0,        "[0, 1]",             kKindGpt, model,     "GPT-2 layout",                     \
    "1: the head is the token embedding wte (tied) with no bias, as GPT-2 and nanoGPT: such a model exports as a Hugging Face GPT-2 folder and to llama.cpp") \
  X(n_embd,        int,       128,      "[1, 8192]",          kAllKinds, model,    "Width",                            \
    "size of each token's vector (must be divisible by n_head)")                                                       \
  X(n_hidden,      int,       256,      "[1, 8192]",          kKindRecurrent | kKindLstmSeq2Seq, model, "Hidden size", \
    "units of each recurrent layer's hidden state (and of the LSTM's cell state)")                                    \
  X(block_size,    int,       64,       "[1, 8192]",          kAllKinds, model,    "Context",                          \
    "how many tokens the model sees at once (seq2seq: the longest source, and target + 1)")                            \
  X(tokenizer,     TokenizerKind, TokenizerKind::bytes, "[0, 1]", kAllKinds, model, "Tokenizer",                 \
    "bytes: every byte is a token (vocab_size 256); bpe: a byte-level BPE vocabulary of vocab_size tokens learned from the text") \
  X(vocab_size,    int,       256,      "[256, 65536]",       kAllKinds, model,    "Vocabulary",                       \
    "tokens the model knows: 256 bytes, plus the BPE merges (the translators add BOS, EOS and PAD)")                  \
  X(seed,          uint64_t,  1337,     "[0, 9007199254740991]", kAllKinds, model, "Seed",                             \
    "random start and order of the data: same seed, same run")                                                         \
  X(batch_size,    int,       12,       "[1, 4096]",          kAllKinds, training, "Batch",                            \
    "windows of text (or pairs) per step")                                                                             \
  X(learning_rate, float,     1e-3f,    "(0, 1]",             kAllKinds, training, "Learning rate",                    \
    "peak step size of AdamW, reached after warmup_iters")                                                             \
  X(min_lr,        float,     1e-4f,    "[0, 1]",             kAllKinds, training, "Minimum learning rate",            \
    "floor of the cosine decay (about learning_rate / 10)")                                                            \
  X(warmup_iters,  int,       100,      "[0, 1000000000]",    kAllKinds, training, "Warmup",                           \
    "steps of linear ramp-up of the learning rate")                                                                    \
  X(max_iters,     int,       2000,     "[1, 1000000000]",    kAllKinds, training, "Steps",                            \
    "length of the schedule: the cosine decay reaches min_lr at this step")                                            \
  X(weight_decay,  float,     0.1f,     "[0, 10]",            kAllKinds, training, "Weight decay",                     \
    "pulls weight matrices and embeddings towards zero (AdamW)")                                                       \
  X(beta1,         float,     0.9f,     "[0, 1)",             kAllKinds, training, "Adam beta1",                       \
    "decay of AdamW's first moment (momentum)")                                                                        \
  X(beta2,         float,     0.99f,    "[0, 1)",             kAllKinds, training, "Adam beta2",                       \
    "decay of AdamW's second moment")                                                                                  \
  X(eps,           float,     1e-8f,    "(0, 1]",             kAllKinds, training, "Adam eps",                         \
    "added to AdamW's denominator")                                                                                    \
  X(grad_clip,     float,     1.0f,     "[0, 1000000]",       kAllKinds, training, "Gradient clip",                    \
    "largest global gradient norm (0 = no clipping)")                                                                  \
  X(stateful,      int,       0,        "[0, 1]",             kKindRecurrent, training, "Stateful",                    \
    "1: each window continues the text of the last and starts from its hidden state (truncated BPTT); 0: from zeros")  \
  X(eval_interval, int,       100,      "[0, 1000000000]",    kAllKinds, run,      "Validate every",                   \
    "steps between validation losses (0 = only when asked)")                                                           \
  X(eval_iters,    int,       20,       "[1, 10000]",         kAllKinds, run,      "Validation batches",               \
    "batches averaged for one validation loss")
// clang-format on

struct Config {
#define TINYGPT_CONFIG_MEMBER(name, type, def, range, kinds, group, label, help) type name = def;
  TINYGPT_CONFIG_FIELDS(TINYGPT_CONFIG_MEMBER)
#undef TINYGPT_CONFIG_MEMBER

  bool operator==(const Config&) const = default;
};

// ---- the schema at run time ----------------------------------------------------------------

enum class FieldType : int { integer, real, choice };

struct FieldSpec {
  const char* name;      // the field's one name (see the top of this file)
  FieldType type;
  double default_value;  // choices: the index of the default choice
  double lo, hi;         // the range's bounds (choices: indices)
  bool lo_open, hi_open; // "(" or ")" in the range
  const char* range;     // the range as written in the table
  uint32_t kinds;        // model kinds that read the field
  FieldGroup group;
  const char* label;     // a short label for a form
  const char* help;      // one line
  std::vector<std::string> choices;  // names of the choices (choice fields only)
  double (*get)(const Config&);      // the value as a double (choices: the index)
  void (*set)(Config&, double);      // stores a value already checked against the range
};

// Every field, in the table's order.
const std::vector<FieldSpec>& config_schema();
// The field called `name`, or nullptr.
const FieldSpec* find_field(std::string_view name);
// The field called `name`; throws tinygpt::Error "unknown config field 'x'" (with a suggestion).
const FieldSpec& field(std::string_view name);

// "" if v is a value of the field (an integer where one is needed, inside the range), else why not.
std::string check_field_value(const FieldSpec& f, double v);
// The same problem, coded for the page ({} when v is fine).
Message check_field_message(const FieldSpec& f, double v);
// Checks and stores v; throws tinygpt::Error naming the field.
void set_field(Config& c, const FieldSpec& f, double v);
// Parses text (a number, or a choice's name) and stores it; throws tinygpt::Error naming the field.
void set_field_text(Config& c, const FieldSpec& f, std::string_view text);
// The value as text ("4", "0.001", "gpt").
std::string field_text(const Config& c, const FieldSpec& f);
bool applies_to(const FieldSpec& f, ModelKind kind);

struct ConfigProblem {
  std::string field;    // the field it is about (the first one, for a rule between two)
  std::string message;  // a sentence that names the field(s) and what is allowed
  std::string code;     // its code and args for the page (error.h); "" for an uncoded one
  MessageArgs args;
};
// Every problem of the config: out-of-range fields, then the rules between fields
// (n_embd divisible by n_head, min_lr <= learning_rate, warmup_iters <= max_iters, vocab_size 256
// exactly with tokenizer bytes and above 256 with bpe).
std::vector<ConfigProblem> config_problems(const Config& c);
// Throws tinygpt::Error("invalid config: <first problem>") unless the config is valid.
void validate_config(const Config& c);

// The tokens a model of this config reads and predicts: vocab_size for the language models; the
// translators add BOS, EOS and PAD after the text tokens (model_vocab = vocab_size + 3, as pairs.h).
int model_vocab(const Config& c);

// The seq2seq model's dimensions from a config.
namespace model {
struct Seq2SeqDims;
struct LstmSeq2SeqDims;
}
model::Seq2SeqDims seq2seq_dims(const Config& c);
// The LSTM translator's (rnn_seq2seq.h).
model::LstmSeq2SeqDims lstm_seq2seq_dims(const Config& c);

// Parameters of the model the config describes, without building it.
int64_t num_parameters(const Config& c);
// Estimated bytes for training: parameters, gradients, AdamW moments and the activations (and
// their gradients) of one step.
int64_t estimate_training_bytes(const Config& c);
// Default ceiling for the memory a run may plan to use; larger configurations are refused before
// anything is allocated.
constexpr int64_t kDefaultMemoryLimit = int64_t(2) << 30;  // 2 GiB
// "" if the estimate fits the limit, else a message that says how to make it fit.
std::string check_memory(const Config& c, int64_t memory_limit);
// The same, coded for the page ({} when it fits).
Message memory_message(const Config& c, int64_t memory_limit);

// ---- presets ---------------------------------------------------------------------------------

struct Preset {
  const char* name;   // what --preset and presets() call it: "tiny", "S", "M", "s2s-tiny", ...
  const char* label;  // for the page: "tiny", "small (S)", ...
  const char* blurb;  // one line: what to expect
  std::vector<std::pair<const char*, const char*>> values;  // fields that differ from the defaults, as text
};
const std::vector<Preset>& presets();
// The defaults with a preset's values applied; throws tinygpt::Error listing the presets if unknown.
Config preset_config(std::string_view name);

}  // namespace tinygpt
