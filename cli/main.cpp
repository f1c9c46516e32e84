// tinygpt — command-line front end to the core: train, config, sample, translate, export, bench.
//
// The knobs of `train` are the config schema's fields (core/include/tinygpt/config.h), each a flag
// of the same name (--n_layer 4 or --n_layer=4); the training loop's policy is the core's Run
// (run.h). This file parses arguments and prints.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data.h"
#include "tokenizer.h"
#include "tinygpt/checkpoint.h"
#include "tinygpt/config.h"
#include "tinygpt/error.h"
#include "tinygpt/export.h"
#include "tinygpt/hidden.h"
#include "tinygpt/io.h"
#include "tinygpt/run.h"
#include "tinygpt/runtime.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/sample.h"
#include "tinygpt/share.h"
#include "tinygpt/sniff.h"
#include "tinygpt/trainer.h"

#ifndef TINYGPT_DATA_DIR
#define TINYGPT_DATA_DIR "data"
#endif

using namespace tinygpt;

namespace {

using Clock = std::chrono::steady_clock;

// ---- options -----------------------------------------------------------------------------------

// The flags of the commands other than the config fields, in one table: which commands take each.
enum Command : unsigned { kTrain = 1, kConfig = 2, kSample = 4, kBench = 8, kTranslate = 16, kExport = 32, kData = 64, kHidden = 128, kTokenizer = 256 };

struct Option {
  const char* name;
  unsigned commands;  // Command bits
  const char* value;  // what the value looks like, for the usage text
  const char* help;
};

const Option kOptions[] = {
    {"preset", kTrain | kConfig | kBench, "NAME", "start from a preset (tiny, S, M; bench: or all); flags override it"},
    {"data", kTrain, "FILE|DIR", "a text to train on, read where it lies (gpt, rnn, gru, lstm; default: tiny Shakespeare), a folder of llm.c token shards (*_train_*.bin, *_val_*.bin), or source<TAB>target pairs (seq2seq, lstm_seq2seq)"},
    {"in_memory", kTrain, "on|off", "read the --data text whole into memory instead of where it lies (default off)"},
    {"stats", kTrain, "on|off", "read the --data text once on a thread of its own for its statistics while training starts (default on)"},
    {"encoding", kTrain, "NAME", "auto (default: Latin-1/Windows-1252/UTF-16 text is converted to UTF-8), bytes (as they are), or an encoding"},
    {"task", kTrain, "NAME", "seq2seq, lstm_seq2seq: a built-in task instead of --data (zh-en, reverse, numbers, dates)"},
    {"task_seed", kTrain, "N", "seq2seq: the seed that generates the built-in task's pairs (default 1)"},
    {"out", kTrain, "FILE", "write a checkpoint here at the end (and every --save_interval steps)"},
    {"save_interval", kTrain, "N", "also save every N steps (0 = only at the end)"},
    {"resume", kTrain | kConfig, "FILE", "continue a checkpoint exactly; --max_iters extends its schedule"},
    {"init", kTrain | kConfig, "FILE|DIR", "start a new run from a model file's weights and config (.safetensors: tinygpt export), or a Hugging Face GPT-2 folder (config.json, model.safetensors)"},
    {"history", kTrain, "on|off", "keep the run's history for the page's views: a snapshot at every evaluation (default: as the --resume checkpoint)"},
    {"until", kTrain, "STEP", "stop at this step (default: the end of the schedule); --resume continues"},
    {"from-link", kTrain, "URL", "replay a shared run: the link's settings and seed, its text (--data FILE for a person's own), and a check of its first losses"},
    {"share", kTrain, "URL", "at the end, print a link to this run: the page's address URL + its settings, text and first losses"},
    {"log_interval", kTrain, "N", "print a line every N steps (default 10)"},
    {"ckpt", kSample | kTranslate | kHidden, "FILE", "the checkpoint, .safetensors model file or Hugging Face GPT-2 folder to sample or translate with (required)"},
    {"text", kHidden, "FILE", "the text to trace (default: the start of tiny Shakespeare's validation split)"},
    {"pattern", kHidden, "NAME", "a pattern to rank the units by (default: all of them)"},
    {"top", kHidden, "N", "units listed per pattern (default 5)"},
    {"beam", kTranslate, "N", "beam search with N hypotheses (default 1: greedy)"},
    {"max_len", kTranslate, "N", "longest output in bytes (default: block_size - 1)"},
    {"ckpt", kExport, "FILE", "the checkpoint or .safetensors model file to export (required)"},
    {"out", kData, "DIR", "data pack: the folder to write the shards to (required)"},
    {"name", kData, "NAME", "data pack: the shards' names, NAME_train_000000.bin ... (default: the text's name)"},
    {"shard_tokens", kData, "N", "data pack: tokens per shard (default 100,000,000, llm.c's)"},
    {"tokenizer", kData, "FILE", "data pack: the text's BPE tokens under this tokenizer (tinygpt tokenizer train) instead of its bytes"},
    {"vocab", kTokenizer, "N", "tokenizer train: the vocabulary's size, 256 (bytes) to 65,536 (required)"},
    {"out", kTokenizer, "FILE", "tokenizer train: where to write it: FILE.json as Hugging Face's tokenizer.json, else tinygpt's compact form (required)"},
    {"tokenizer", kTokenizer, "FILE", "tokenizer encode: a tokenizer.json, a tinygpt tokenizer, or GPT-2's vocab.json (merges.txt beside it) or folder (required)"},
    {"text", kTokenizer, "STRING", "tokenizer encode: encode this string instead of a file"},
    {"out", kExport, "PATH", "the file to write (safetensors, onnx, gguf), or the folder (hf; onnx of a translator: its encoder and decoder) (required)"},
    {"format", kExport, "NAME", "safetensors (default: tinygpt's names, the config in the metadata), onnx, hf (a Hugging Face GPT-2 folder), gguf (llama.cpp)"},
    {"dtype", kExport, "NAME", "gguf: f32 (default), f16 or q8_0"},
    {"prompt", kSample, "TEXT", "text to continue (default: a newline)"},
    {"tokens", kSample, "N", "bytes to generate (default 500)"},
    {"temperature", kSample | kTranslate, "X", "1 = the model's distribution, 0 = always the likeliest byte (sample: default 1; translate: 0)"},
    {"top_k", kSample | kTranslate, "N", "sample from the N likeliest bytes only (0 = off)"},
    {"top_p", kSample, "X", "sample from the smallest set with this much probability (1 = off)"},
    {"seed", kSample | kTranslate, "N", "sampling seed (default 0)"},
    {"window_keep", kSample, "N", "bytes kept when the context window is full (0 = half the context)"},
    {"steps", kBench, "N", "timed training steps per preset (default 20)"},
    {"threads", kTrain | kSample | kTranslate | kBench, "N|auto",
     "threads for the kernels (default: all cores; train: auto, which measures its steps and uses fewer threads while another program holds a core)"},
};

std::string option_line(const std::string& flag, const std::string& help) {
  std::string line = "  " + flag;
  line += std::string(line.size() < 28 ? 28 - line.size() : 1, ' ');
  return line + help + "\n";
}

std::string options_text(unsigned command) {
  std::string s;
  for (const Option& o : kOptions)
    if (o.commands & command) s += option_line(std::string("--") + o.name + " " + o.value, o.help);
  return s;
}

// The config flags, one per schema field, grouped as in the schema.
std::string config_flags_text() {
  static const char* group_names[] = {"model (fixed once a run exists)", "training (--max_iters can extend a resumed run)",
                                      "run (can change on --resume)"};
  std::string s;
  for (int g = 0; g < 3; g++) {
    s += std::string("config: ") + group_names[g] + "\n";
    for (const FieldSpec& f : config_schema()) {
      if (int(f.group) != g) continue;
      const std::string value = f.type == FieldType::choice ? "NAME" : f.type == FieldType::integer ? "N" : "X";
      std::string allowed = f.range;
      if (f.type == FieldType::choice) {
        allowed = "one of";
        for (const std::string& name : f.choices) allowed += " " + name;
      }
      s += option_line(std::string("--") + f.name + " " + value,
                       std::string(f.help) + " (default " + field_text(Config{}, f) + ", " + allowed + ")");
    }
  }
  return s;
}

std::string usage(const std::string& command) {
  std::string s = "usage:\n";
  if (command.empty() || command == "train") {
    s += "  tinygpt train [--preset NAME] [--data FILE] [--CONFIG_FIELD VALUE ...] [--out FILE] [--resume FILE | --init MODEL] ...\n";
    s += "  tinygpt train ... --vocab_size N | --tokenizer FILE   BPE tokens: a vocabulary learned from the training split first, or a\n"
         "      tokenizer.json / tinygpt tokenizer / GPT-2's files (sets tokenizer bpe and its vocab_size; docs/tokenizer.md)\n";
    if (command == "train") s += options_text(kTrain) + config_flags_text();
  }
  if (command.empty() || command == "config") {
    s += "  tinygpt config [--preset NAME | --resume FILE | --init MODEL] [--CONFIG_FIELD VALUE ...]   print the resolved config\n";
    if (command == "config") s += options_text(kConfig);
  }
  if (command.empty() || command == "sample") {
    s += "  tinygpt sample --ckpt FILE [--prompt TEXT] [--tokens N] [--temperature X] [--top_k N] [--top_p X] ...\n";
    if (command == "sample") s += options_text(kSample);
  }
  if (command.empty() || command == "translate") {
    s += "  tinygpt translate --ckpt FILE [--beam N] [TEXT ...]   (no TEXT: translates stdin line by line)\n";
    if (command == "translate") s += options_text(kTranslate);
  }
  if (command.empty() || command == "export") {
    s += "  tinygpt export --ckpt FILE --out MODEL.safetensors   the weights, with the config in the metadata\n";
    s += "  tinygpt export --ckpt FILE --format onnx|hf|gguf --out PATH   for onnxruntime, transformers.js, llama.cpp\n";
    if (command == "export") s += options_text(kExport);
  }
  if (command.empty() || command == "hidden") {
    s += "  tinygpt hidden --ckpt FILE [--text FILE] [--pattern NAME] [--top N]   rnn, gru, lstm: the units that track a pattern\n";
    if (command == "hidden") s += options_text(kHidden);
  }
  if (command.empty() || command == "bench") {
    s += "  tinygpt bench [--preset NAME] [--steps N] [--threads N]\n";
    if (command == "bench") s += options_text(kBench);
  }
  if (command.empty() || command == "data") {
    s += "  tinygpt data stats FILE|DIR   a text's statistics in one streaming pass, or a folder's shards\n";
    s += "  tinygpt data pack TEXT --out DIR [--name NAME] [--tokenizer FILE]   the text's tokens (bytes, or BPE) as llm.c shards\n";
    if (command == "data") s += options_text(kData);
  }
  if (command.empty() || command == "tokenizer") {
    s += "  tinygpt tokenizer train TEXT --vocab N --out FILE   learn a byte-level BPE vocabulary from a text\n";
    s += "  tinygpt tokenizer encode --tokenizer FILE TEXT|-   print a text's token ids, and its tokens per byte\n";
    if (command == "tokenizer") s += options_text(kTokenizer);
  }
  if (command.empty()) s += "'tinygpt COMMAND --help' lists a command's flags.\n";
  return s;
}

// --name value and --name=value pairs. Known names: the command's options (and, for train, the
// config fields). A value that was given twice is an error rather than a silent override.
struct Args {
  std::map<std::string, std::string> values;
  std::vector<std::string> positional;  // `translate TEXT ...`
  bool help = false;

  bool has(const std::string& k) const { return values.count(k) != 0; }
  std::string str(const std::string& k, const std::string& def) const { return has(k) ? values.at(k) : def; }
  long integer(const std::string& k, long def) const {
    if (!has(k)) return def;
    const std::string& v = values.at(k);
    char* end = nullptr;
    errno = 0;
    const long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno || x < -2147483647L || x > 2147483647L)
      throw Error("--" + k + " expects a whole number, got '" + v + "'");
    return x;
  }
  double number(const std::string& k, double def) const {
    if (!has(k)) return def;
    const std::string& v = values.at(k);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(x)) throw Error("--" + k + " expects a number, got '" + v + "'");
    return x;
  }
};

Args parse_args(int argc, char** argv, unsigned command, bool config_fields) {
  Args args;
  for (int i = 2; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      args.help = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      if (command != kTranslate && command != kData && command != kTokenizer) throw Error("unexpected argument '" + a + "' (flags start with --)");
      args.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= argc) throw Error("--" + name + " needs a value");
      value = argv[++i];
    }
    bool known = config_fields && find_field(name) != nullptr;
    for (const Option& o : kOptions) known = known || ((o.commands & command) && name == o.name);
    if (!known) {
      if (config_fields) field(name);  // throws "unknown config field" with a suggestion
      throw Error("unknown option --" + name);
    }
    if (args.has(name)) throw Error("--" + name + " is given twice");
    args.values[name] = value;
  }
  return args;
}

// --threads N, or auto (all cores; train then tunes the count from its step times: Run::tune_threads).
// Returns true for auto.
bool set_threads(const Args& args, bool auto_by_default = false) {
  if (args.str("threads", auto_by_default ? "auto" : "") == "auto") {
    set_num_threads(max_threads());
    return true;
  }
  set_num_threads(int(args.integer("threads", max_threads())));
  return false;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

std::string progress_bar(double fraction, int width = 24) {
  fraction = std::fmin(1.0, std::fmax(0.0, fraction));
  const int filled = int(fraction * width + 0.5);
  return "[" + std::string(size_t(filled), '#') + std::string(size_t(width - filled), '.') + "]";
}

// ---- train -------------------------------------------------------------------------------------

// A model file given to --init, parsed (bytes keeps the data its views point into).
struct ModelFile {
  std::vector<uint8_t> bytes;
  safetensors::File file;
};

// A Hugging Face GPT-2 folder's files (config.json, model.safetensors, tokenizer.json) as a tinygpt
// model file (export.h hf::model_file_from_folder).
std::vector<uint8_t> model_file_from_folder(const std::string& dir) {
  hf::FolderFiles files;
  for (const char* name : {"config.json", "model.safetensors", "tokenizer.json"})
    if (std::filesystem::exists(std::filesystem::path(dir) / name)) files[name] = io::read_file((std::filesystem::path(dir) / name).string());
  return hf::model_file_from_folder(files);
}

ModelFile read_model_file(const std::string& path) {
  ModelFile m;
  m.bytes = std::filesystem::is_directory(path) ? model_file_from_folder(path) : safetensors::read_file(path);
  exporter::refuse_export_format(m.bytes.data(), m.bytes.size(), path);
  m.file = safetensors::parse(m.bytes.data(), m.bytes.size());
  return m;
}

// --tokenizer FILE (a path, not the config choice bytes / bpe), or "".
std::string tokenizer_file(const Args& args) {
  const std::string v = args.str("tokenizer", "");
  return v == "bytes" || v == "bpe" ? "" : v;
}

// The config of a new run: --preset (default S) or the --init model file's config, then the config
// flags. With --init the fields that shape the model come from the file and cannot be given.
// --tokenizer FILE loads the tokenizer (into *tokenizer) and sets tokenizer bpe and its vocab_size;
// --vocab_size N above 256 alone sets tokenizer bpe (the run trains one on its text).
Config new_run_config(const Args& args, const safetensors::File* init, std::shared_ptr<const tok::Tokenizer>* tokenizer = nullptr) {
  if (init && (args.has("preset") || args.has("resume")))
    throw Error("--init starts a new run from a model file: it does not mix with --preset or --resume");
  Config c = init ? safetensors::config_from_metadata(init->metadata) : preset_config(args.str("preset", "S"));
  const std::string tok_path = tokenizer_file(args);
  if (!tok_path.empty()) {
    if (init) throw Error("--tokenizer: with --init the tokenizer comes from the model file");
    auto t = std::make_shared<const tok::Tokenizer>(tok::Tokenizer::load(tok_path));
    if (args.has("vocab_size") && args.integer("vocab_size", 0) != t->vocab_size())
      throw Error("--vocab_size " + args.str("vocab_size", "") + ": the tokenizer " + tok_path + " has " +
                  std::to_string(t->vocab_size()) + " tokens");
    c.tokenizer = TokenizerKind::bpe;
    c.vocab_size = t->vocab_size();
    if (tokenizer) *tokenizer = std::move(t);
  } else if (args.has("vocab_size") && !args.has("tokenizer") && !init) {
    c.tokenizer = args.integer("vocab_size", 256) > 256 ? TokenizerKind::bpe : TokenizerKind::bytes;
  }
  for (const auto& [name, value] : args.values) {
    const FieldSpec* f = find_field(name);
    if (!f || (name == "tokenizer" && !tok_path.empty())) continue;
    if (init && f->group == FieldGroup::model && name != "seed")
      throw Error("--" + name + ": with --init the model comes from the file (" + name + " " + field_text(c, *f) + ")");
    set_field_text(c, *f, value);
  }
  if (!args.has("warmup_iters") && c.warmup_iters > c.max_iters) {
    c.warmup_iters = c.max_iters / 10;  // a short run asked for with --max_iters keeps a proportionate warmup
    std::printf("note: warmup_iters set to %d (a tenth of max_iters)\n", c.warmup_iters);
  }
  return c;
}

// A new trainer from --preset or --init and the config flags, or the --resume checkpoint with the
// flags that may change on a live run applied to it. *tokenizer: the --tokenizer FILE, loaded.
std::unique_ptr<train::Trainer> make_trainer(const Args& args, const share::Link* link, std::shared_ptr<const tok::Tokenizer>* tokenizer) {
  if (link) {
    for (const char* other : {"preset", "resume", "init"})
      if (args.has(other)) throw Error(std::string("--from-link sets up the run itself: it does not mix with --") + other);
    for (const auto& [name, value] : args.values)
      if (find_field(name)) throw Error("--" + name + ": a run from a link keeps the link's settings (they are what makes it the same run)");
    return std::make_unique<train::Trainer>(link->config);
  }
  if (args.has("init")) {
    const std::string path = args.str("init", "");
    const ModelFile m = read_model_file(path);
    auto t = safetensors::start_run(m.file, new_run_config(args, &m.file));
    std::printf("initialised from %s\n", path.c_str());
    return t;
  }
  if (!args.has("resume")) return std::make_unique<train::Trainer>(new_run_config(args, nullptr, tokenizer));
  if (args.has("preset")) throw Error("--preset and --resume don't mix: a resumed run keeps its own config");
  if (args.has("tokenizer")) throw Error("--tokenizer and --resume don't mix: a resumed run reads text with its own tokenizer");
  const std::string path = args.str("resume", "");
  const std::vector<uint8_t> bytes = io::read_file(path);
  auto t = train::Trainer::load(bytes.data(), bytes.size());
  for (const auto& [name, value] : args.values) {
    const FieldSpec* f = find_field(name);
    if (!f) continue;
    Config parsed = t->config();
    set_field_text(parsed, *f, value);
    t->update_field(name, f->get(parsed));
  }
  std::printf("resumed %s at step %lld of %d\n", path.c_str(), (long long)t->steps_done(), t->config().max_iters);
  return t;
}

// The data of a run: --data FILE or DIR, or a built-in task (--task, seq2seq), or tiny Shakespeare
// (gpt). A text is read where it lies (cli/data.h); a translator's pairs are read whole.
cli::Data load_data(const Args& args, ModelKind kind, const share::Link* link = nullptr) {
  if (link && !link->corpus.builtin.empty()) {
    if (link->corpus.builtin != "tinyshakespeare.txt") throw Error("the link's text is the built-in " + link->corpus.builtin + ", which this tinygpt does not have");
    if (args.has("data")) throw Error("the shared run trained on the built-in text " + link->corpus.builtin + ": leave out --data");
  } else if (link && !args.has("data") && !args.has("task")) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)link->corpus.fingerprint);
    throw Error("the shared run trained on " + (link->corpus.name.empty() ? std::string("a file") : link->corpus.name) + " (" +
                std::to_string(link->corpus.size) + " bytes, fingerprint " + hex + "): give it with --data FILE" +
                (is_translator(link->config.model) ? " (or --task NAME for a built-in task)" : ""));
  }
  if (args.has("task")) {
    if (args.has("data")) throw Error("--data and --task don't mix: give one");
    if (!is_translator(kind)) throw Error("--task NAME is a built-in translation task: use it with --model seq2seq (or lstm_seq2seq)");
    const std::string name = args.str("task", "");
    return {data::memory_corpus(data::builtin_task(name, uint64_t(args.integer("task_seed", 1)))), "built-in task " + name, nullptr};
  }
  std::string path = args.str("data", "");
  if (path.empty()) {
    if (is_translator(kind)) {
      std::string names;
      for (const data::TaskInfo& t : data::builtin_tasks()) names += (names.empty() ? "" : ", ") + std::string(t.name);
      throw Error("a seq2seq run needs pairs: --data pairs.tsv (source<TAB>target lines) or --task NAME (" + names + ")");
    }
    path = std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt";
  }
  const std::string encoding = args.str("encoding", "auto");
  const std::string in_memory = args.str("in_memory", "off");
  if (in_memory != "on" && in_memory != "off") throw Error("--in_memory expects on or off, got '" + in_memory + "'");
  if (is_language_model(kind)) return cli::open_text(path, encoding, in_memory == "on");
  // pairs: read whole (the TSV reader parses every line)
  std::vector<uint8_t> bytes = io::read_file(path);
  if (encoding != "auto" && encoding != "bytes") {
    if (bytes.empty()) throw Error("'" + path + "' is empty");
    return {data::memory_corpus(io::to_utf8(bytes, encoding)), path + " (" + encoding + " converted to UTF-8)", nullptr};
  }
  const io::Sniffed s = io::sniff(bytes.data(), std::min<size_t>(bytes.size(), size_t(256) << 10), bytes.size(), path);
  const std::string from = cli::text_encoding(s, path, encoding, /*pairs=*/true);
  if (!from.empty()) return {data::memory_corpus(io::to_utf8(bytes, from)), path + " (" + from + " converted to UTF-8)", nullptr};
  return {data::memory_corpus(std::move(bytes)), path, nullptr};
}

int cmd_train(const Args& args) {
  const bool tune_threads = set_threads(args, /*auto_by_default=*/true);
  std::optional<share::Link> link;
  if (args.has("from-link")) link = share::parse_link(args.str("from-link", ""));
  std::shared_ptr<const tok::Tokenizer> tokenizer;
  std::unique_ptr<train::Trainer> trainer = make_trainer(args, link ? &*link : nullptr, &tokenizer);
  cli::Data data = load_data(args, trainer->kind(), link ? &*link : nullptr);
  if (trainer->config().tokenizer == TokenizerKind::bpe && !trainer->tokenizer()) {
    // the run's vocabulary: the --tokenizer file, or learned from its text now (deterministic: a link's
    // run learns the same one again)
    if (!tokenizer) {
      auto text = std::dynamic_pointer_cast<const data::ByteSource>(data.corpus.train);
      if (!text || data.corpus.val)
        throw Error("a tokenizer is learned from a text: these are token shards already (give --tokenizer FILE, the one they were packed with)");
      tokenizer = is_translator(trainer->kind()) ? cli::tokenizer_for_pairs(text, trainer->config().vocab_size)
                                                 : cli::tokenizer_for_run(text, trainer->config().vocab_size);
    }
    trainer->set_tokenizer(tokenizer);
    if (link) {
      const Message other = share::check_tokenizer(*link, tokenizer->fingerprint());
      if (!other.text.empty()) throw Error(other);
    }
  }
  const std::string& data_name = data.name;
  // what a --share link says about the text: the built-in one by name, a file by fingerprint and size
  share::Corpus shared_corpus;
  if (!args.has("data") && !args.has("task")) shared_corpus.builtin = "tinyshakespeare.txt";
  else {
    shared_corpus.fingerprint = data.corpus.fingerprint();
    shared_corpus.size = data.corpus.size();
    std::string path = args.str("data", args.str("task", ""));
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    shared_corpus.name = path.substr(path.find_last_of('/') + 1);
  }
  if (link) {
    const std::string differs = share::check_corpus(*link, data.corpus.fingerprint(), data.corpus.size(), shared_corpus.builtin);
    if (!differs.empty()) throw Error(differs + ": the replay would not be the shared run");
    std::printf("replay: the shared run's settings and text; its first %zu losses are checked (made on %s, this is %s)\n",
                link->losses.size(), link->variant.empty() ? "?" : link->variant.c_str(), share::build_variant().c_str());
  }
  trainer->set_corpus(data.corpus);
  // a checkpoint continues on its own data: the sampler's position means nothing in another corpus
  if (const Message m = trainer->corpus_mismatch(); !m.text.empty())
    throw Error(data_name + " is not the data this checkpoint was trained on: " + m.text +
                ". To train this model on other data, export it (tinygpt export) and start a new run with --init MODEL");
  // the statistics of a text, read on a thread of their own while training starts
  const std::string stats_flag = args.str("stats", "on");
  if (stats_flag != "on" && stats_flag != "off") throw Error("--stats expects on or off, got '" + stats_flag + "'");
  std::unique_ptr<cli::StatsPass> stats;
  if (data.text && stats_flag == "on") stats = std::make_unique<cli::StatsPass>(data.text);
  bool stats_shown = !stats;
  auto show_stats = [&](bool tty) {
    if (stats_shown || !stats->done()) return;
    stats_shown = true;
    if (!stats->error().empty()) std::printf("%sdata: the statistics pass stopped: %s\n", tty ? "\n" : "", stats->error().c_str());
    else std::printf("%sdata: %s\n", tty ? "\n" : "", cli::stats_summary(stats->stats()).c_str());
  };
  if (args.has("history")) {
    const std::string h = args.str("history", "");
    if (h != "on" && h != "off") throw Error("--history expects on or off, got '" + h + "'");
    if (h == "off") trainer->stop_history();
    else if (!trainer->history().enabled()) trainer->start_history();
  }

  Run run(*trainer);
  const int64_t first_step = trainer->steps_done();
  const auto* read_file = dynamic_cast<const data::FileSource*>(data.corpus.train.get());
  const uint64_t read_before = read_file ? read_file->bytes_read() : 0;  // the start's reads (the baselines): not the steps'

  if (tune_threads) run.tune_threads(max_threads());
  const Config& c = trainer->config();
  if (args.has("until")) {
    run.set_stop_at(args.integer("until", 0));
  } else if (run.stop_at() < 0) {
    throw Error("this run is at step " + std::to_string(trainer->steps_done()) + ", past the end of its schedule (" +
                std::to_string(c.max_iters) + " steps): give --max_iters N to extend the schedule, or --until STEP to " +
                "train on at the final learning rate");
  }
  const int64_t stop = run.stop_at();
  const long log_every = args.integer("log_interval", 10);
  const long save_every = args.integer("save_interval", 0);
  if (log_every < 1 || save_every < 0) throw Error("--log_interval must be >= 1 and --save_interval >= 0");
  const std::string out = args.str("out", "");

  if (is_language_model(trainer->kind())) {
    const data::Dataset& ds = trainer->dataset();
    if (trainer->kind() == ModelKind::gpt)
      std::printf("model: gpt, %d layers, %d heads, n_embd %d, block_size %d: %lld parameters\n", c.n_layer, c.n_head,
                  c.n_embd, c.block_size, (long long)trainer->num_parameters());
    else
      std::printf("model: %s, %d layers of %d units, n_embd %d, window %d (%s): %lld parameters\n",
                  model_kind_name(c.model), c.n_layer, c.n_hidden, c.n_embd, c.block_size,
                  c.stateful ? "stateful: the hidden state carries over" : "stateless", (long long)trainer->num_parameters());
    std::printf("data: %s, %llu tokens (%llu train, %llu val)%s%s\n", data_name.c_str(), (unsigned long long)ds.size(),
                (unsigned long long)ds.train_size(), (unsigned long long)ds.val_size(), ds.val_overlaps_train(c.block_size) ? " (too short for a separate validation split)" : "",
                data.text && !data.corpus.memory_bytes() ? (trainer->tokenizer() ? ", its BPE tokens in memory" : ", read where it lies") : "");
  } else if (trainer->kind() == ModelKind::lstm_seq2seq) {
    std::printf("model: lstm_seq2seq, %d encoder + %d decoder LSTM layers of %d units, attention, n_embd %d, block_size %d: %lld parameters\n",
                c.n_enc_layer, c.n_dec_layer, c.n_hidden, c.n_embd, c.block_size, (long long)trainer->num_parameters());
    std::printf("data: %s: %s\n", data_name.c_str(), trainer->data_report().c_str());
  } else {
    std::printf("model: seq2seq, %d encoder + %d decoder layers, %d heads, n_embd %d, d_ff %d, block_size %d: %lld parameters\n",
                c.n_enc_layer, c.n_dec_layer, c.n_head, c.n_embd, c.d_ff, c.block_size, (long long)trainer->num_parameters());
    std::printf("data: %s: %s\n", data_name.c_str(), trainer->data_report().c_str());
  }
  if (trainer->history().enabled())
    std::printf("history: %zu snapshots kept for the page's views (a snapshot at every evaluation)\n",
                trainer->history().snapshots().size());
  std::printf("training: batch %d, lr %.2g -> %.2g, warmup %d, schedule %d steps, stop at %lld, %d thread(s)%s, %s kernels\n",
              c.batch_size, c.learning_rate, c.min_lr, c.warmup_iters, c.max_iters, (long long)stop, num_threads(),
              run.tuning_threads() ? " (auto)" : "", simd_backend());

  const bool tty = isatty(fileno(stdout));
  const auto t_start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t_start).count(); };
  auto save = [&] {
    if (!out.empty()) io::write_file(out, trainer->save());
  };
  // Each slice ends at the next log line, evaluation or save, so that a line shows exactly what
  // was measured at its step: a validation loss appears on the line of the step it was taken at.
  // Losses in nats per token, and in bits per byte (runs of different vocabularies compare in it).
  const int vocab = model_vocab(c);
  if (trainer->tokenizer())
    std::printf("tokenizer: BPE, %d tokens (%d merges); the validation text has %.4f tokens per byte\n", trainer->tokenizer()->vocab_size(),
                trainer->tokenizer()->merge_count(), trainer->tokens_per_byte());
  auto bpb = [&](double nats) -> std::string {
    const double b = trainer->bits_per_byte(nats);
    if (!std::isfinite(b)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.3f bpb)", b);
    return buf;
  };
  // seq2seq evaluations also translate held-out pairs
  auto metrics = [](const Evaluation& e) -> std::string {
    if (!std::isfinite(e.exact_match)) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, " | exact %.1f%% CER %.1f%%", 100.0 * e.exact_match, 100.0 * e.cer);
    return buf;
  };
  auto next_multiple = [](int64_t step, long every) -> int64_t { return every > 0 ? (step / every + 1) * every : INT64_MAX; };
  float last_val = NAN;
  int threads_now = num_threads();
  bool replay_reported = !link;
  auto report_replay = [&](bool run_ended) {
    if (replay_reported) return;
    const std::vector<float>& losses = trainer->train_losses();
    const share::Replay r = share::check_replay(*link, losses.data(), losses.size(), share::build_variant());
    if (!r.final && !run_ended) return;  // the core says when the verdict is the answer (share::Replay::final)
    std::printf("%sreplay: %s\n", tty ? "\n" : "", r.message.c_str());
    replay_reported = true;
  };
  while (!run.finished()) {
    const int64_t s0 = trainer->steps_done();
    const int64_t target = std::min({next_multiple(s0, log_every), next_multiple(s0, c.eval_interval),
                                     next_multiple(s0, save_every), stop < 0 ? int64_t(INT64_MAX) : stop});
    const Slice slice = run.advance(target - s0);
    for (const Evaluation& e : slice.evals)
      if (e.step == 0) std::printf("step      0/%d | val %.4f%s (ln %d = %.3f)%s\n", c.max_iters, e.loss, bpb(e.loss).c_str(), vocab,
                                   std::log(vocab), metrics(e).c_str());
    for (const train::Rollback& r : slice.rollbacks)
      std::printf("%s%s: rolled back to step %lld, learning rate now x%g\n", tty ? "\n" : "", r.reason.c_str(),
                  (long long)r.restored_step, double(r.lr_scale));
    if (run.tuning_threads() && slice.threads != threads_now) {
      std::printf("%sthreads: %d (%s)\n", tty ? "\n" : "", slice.threads, slice.threads_reason.c_str());
      threads_now = slice.threads;
    }
    if (!slice.error.empty()) {
      if (!out.empty()) {
        save();
        std::printf("saved the last good state (step %lld) to %s\n", (long long)trainer->steps_done(), out.c_str());
      }
      throw Error(slice.error);
    }
    const int64_t s = slice.step;
    const bool evaluated = !slice.evals.empty() && slice.evals.back().step == s && s > 0;
    if (evaluated) last_val = slice.evals.back().loss;
    if (s % log_every == 0 || evaluated || slice.finished) {
      double loss = 0;
      for (float l : slice.losses) loss += l;
      loss /= double(std::max<size_t>(1, slice.losses.size()));
      char val[128] = "";
      if (evaluated)
        std::snprintf(val, sizeof val, " | val %.4f%s%s", slice.evals.back().loss, bpb(slice.evals.back().loss).c_str(),
                      metrics(slice.evals.back()).c_str());
      const double fraction = stop > 0 ? double(s) / double(stop) : 1.0;
      show_stats(tty);
      char reading[48] = "";
      if (!stats_shown) std::snprintf(reading, sizeof reading, " | data stats %3.0f%%", 100.0 * stats->fraction());
      std::printf("%sstep %6lld/%lld | loss %.4f%s%s | lr %.2e | %7.0f tok/s | %s %3.0f%% | %s elapsed, ETA %s%s%s",
                  tty ? "\r" : "", (long long)s, (long long)(stop < 0 ? s : stop), loss, bpb(loss).c_str(), val, slice.lr,
                  slice.tokens_per_s, progress_bar(fraction).c_str(), 100.0 * fraction, format_duration(elapsed()).c_str(),
                  format_duration(slice.eta_s).c_str(), reading, tty && !evaluated ? "   " : "\n");
      std::fflush(stdout);
    }
    if (save_every > 0 && s % save_every == 0) save();
    report_replay(false);
  }
  report_replay(true);
  if (tty) std::printf("\n");
  show_stats(false);
  if (!stats_shown)
    std::printf("data: training ended before the statistics pass (%.0f%% read): tinygpt data stats %s gives them\n",
                100.0 * stats->fraction(), data_name.c_str());
  // what training read of a file read where it lies (bench:data reads this line)
  if (read_file) {
    const int64_t steps = trainer->steps_done() - first_step;
    const uint64_t read = read_file->bytes_read() - read_before;
    std::printf("read: %llu bytes of %s in %lld steps and their evaluations (%.0f bytes a step)\n", (unsigned long long)read,
                data_name.c_str(), (long long)steps, steps > 0 ? double(read) / double(steps) : 0.0);
  }
  if (std::isfinite(last_val))
    std::printf("final val loss %.4f%s after %lld steps\n", last_val, bpb(last_val).c_str(), (long long)trainer->steps_done());
  std::printf("trained in %s\n", format_duration(elapsed()).c_str());
  if (!out.empty()) {
    save();
    std::printf("saved checkpoint to %s\n", out.c_str());
  }
  if (args.has("share")) {
    const std::vector<float>& losses = trainer->train_losses();
    share::Link made{trainer->config(), share::build_variant(), shared_corpus,
                     std::vector<float>(losses.begin(), losses.begin() + std::ptrdiff_t(std::min(losses.size(), share::kMaxLosses)))};
    if (trainer->tokenizer()) {  // the replay learns it again and checks it; its check speaks in bits per byte
      made.tokenizer = trainer->tokenizer()->fingerprint();
      made.tokens_per_byte = trainer->tokens_per_byte();
    }
    std::printf("share: %s\n", share::make_link(made, args.str("share", "")).c_str());
  }
  return 0;
}

// ---- config ------------------------------------------------------------------------------------

// The config a `train` with the same flags would use, one `name=value` line per field.
int cmd_config(const Args& args) {
  Config c;
  if (args.has("init")) {
    const ModelFile m = read_model_file(args.str("init", ""));
    c = new_run_config(args, &m.file);
  } else if (args.has("resume")) {
    const std::vector<uint8_t> bytes = io::read_file(args.str("resume", ""));
    c = ckpt::describe(bytes.data(), bytes.size()).config;
    for (const auto& [name, value] : args.values)
      if (const FieldSpec* f = find_field(name)) set_field_text(c, *f, value);
  } else {
    c = new_run_config(args, nullptr);
  }
  validate_config(c);
  for (const FieldSpec& f : config_schema()) std::printf("%s=%s\n", f.name, field_text(c, f).c_str());
  return 0;
}

// ---- sample ------------------------------------------------------------------------------------

// A checkpoint (recognised by its TGPTCKPT magic) or a .safetensors model file (tinygpt export,
// python/tinygpt): a trainer holding its model.
std::unique_ptr<train::Trainer> load_model_or_checkpoint(const std::string& path) {
  const std::vector<uint8_t> bytes = std::filesystem::is_directory(path) ? model_file_from_folder(path) : io::read_file(path);
  if (ckpt::has_magic(bytes.data(), bytes.size())) return train::Trainer::load(bytes.data(), bytes.size());
  exporter::refuse_export_format(bytes.data(), bytes.size(), path);
  safetensors::File file;
  try {
    file = safetensors::parse(bytes.data(), bytes.size());
  } catch (const Error& e) {
    throw Error("'" + path + "' is neither a tinygpt checkpoint (it does not start with TGPTCKPT) nor a model file (" +
                e.what() + ")");
  }
  return safetensors::start_run(file, safetensors::config_from_metadata(file.metadata));
}

int cmd_sample(const Args& args) {
  set_threads(args);
  if (!args.has("ckpt"))
    throw Error("sample needs --ckpt FILE (a checkpoint written by 'tinygpt train --out', or a .safetensors model file)");
  auto trainer = load_model_or_checkpoint(args.str("ckpt", ""));
  if (is_translator(trainer->kind()))
    throw Error(std::string("this is a ") + model_kind_name(trainer->kind()) + " translation model: use 'tinygpt translate --ckpt FILE TEXT'");
  sample::Options o;
  o.temperature = float(args.number("temperature", 1.0));
  o.top_k = int(args.integer("top_k", 0));
  o.top_p = float(args.number("top_p", 1.0));
  o.seed = uint64_t(args.integer("seed", 0));
  o.window_keep = int(args.integer("window_keep", 0));
  const long n = args.integer("tokens", 500);
  if (n < 0) throw Error("--tokens must be >= 0");
  const std::string prompt = args.str("prompt", "");
  std::optional<sample::Generator> made;
  if (is_recurrent(trainer->kind())) made.emplace(trainer->recurrent(), o);
  else made.emplace(trainer->model(), o);
  sample::Generator& gen = *made;
  const std::vector<int32_t> ids = trainer->encode(prompt);  // a byte model's: the bytes
  gen.set_prompt_tokens(ids.data(), ids.size());
  std::fwrite(prompt.data(), 1, prompt.size(), stdout);
  const auto t0 = Clock::now();
  size_t bytes = 0;
  for (long i = 0; i < n; i++) {
    const std::string b = trainer->token_bytes(gen.next().id);  // a token's bytes (a BPE token: several)
    std::fwrite(b.data(), 1, b.size(), stdout);
    bytes += b.size();
    if (b.find('\n') != std::string::npos) std::fflush(stdout);
  }
  const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
  std::fflush(stdout);
  if (trainer->tokenizer())
    std::fprintf(stderr, "\n[%ld tokens, %zu bytes in %.2f s: %.0f tokens/s]\n", n, bytes, dt, dt > 0 ? double(n) / dt : 0.0);
  else
    std::fprintf(stderr, "\n[%ld bytes in %.2f s: %.0f bytes/s]\n", n, dt, dt > 0 ? double(n) / dt : 0.0);
  return 0;
}

// ---- translate -----------------------------------------------------------------------------------

// Translates the arguments after the flags, or else every line of stdin: exactly one output line per
// input line (an empty line gives an empty line), flushed at once, so it works in a pipe.
int cmd_translate(const Args& args) {
  const std::vector<std::string>& texts = args.positional;
  set_threads(args);
  if (!args.has("ckpt"))
    throw Error("translate needs --ckpt FILE (a seq2seq checkpoint written by 'tinygpt train --model seq2seq --out', or its export)");
  auto trainer = load_model_or_checkpoint(args.str("ckpt", ""));
  if (!is_translator(trainer->kind()))
    throw Error(std::string("this is a language model (") + model_kind_name(trainer->kind()) + "): use 'tinygpt sample --ckpt FILE --prompt TEXT'");
  sample::TranslateOptions o;
  o.beam = int(args.integer("beam", 1));
  o.temperature = float(args.number("temperature", 0.0));
  o.top_k = int(args.integer("top_k", 0));
  o.max_len = int(args.integer("max_len", 0));
  o.seed = uint64_t(args.integer("seed", 0));
  o.validate(trainer->config().block_size, trainer->config().vocab_size + 1);
  auto one = [&](const std::string& source) {
    if (source.empty()) return std::string();
    return trainer->translate(source, o).text;
  };
  if (!texts.empty()) {
    for (const std::string& t : texts) std::printf("%s\n", one(t).c_str());
    return 0;
  }
  std::string line;
  int c;
  while (true) {
    line.clear();
    while ((c = std::fgetc(stdin)) != EOF && c != '\n') line.push_back(char(c));
    if (c == EOF && line.empty()) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
    std::string out;
    try {
      out = one(line);
    } catch (const Error& e) {
      std::fprintf(stderr, "tinygpt translate: %s\n", e.what());  // e.g. longer than block_size: an empty line keeps the count
    }
    std::printf("%s\n", out.c_str());
    std::fflush(stdout);
    if (c == EOF) break;
  }
  return 0;
}

// ---- export ------------------------------------------------------------------------------------

// The model of a checkpoint (or model file) in one of the export formats (export.h): one file at
// --out, or, for a format of several files (hf), a folder --out holding them.
int cmd_export(const Args& args) {
  if (!args.has("ckpt") || !args.has("out"))
    throw Error("export needs --ckpt FILE (a checkpoint or model file) and --out PATH (where to write the export)");
  const std::string in = args.str("ckpt", ""), out = args.str("out", "");
  const exporter::Format format = exporter::parse_format(args.str("format", "safetensors"));
  exporter::Options o;
  o.gguf_type = gguf::parse_type(args.str("dtype", "f32"));
  if (args.has("dtype") && format != exporter::Format::gguf) throw Error("--dtype is for --format gguf");
  const auto t = load_model_or_checkpoint(in);
  const std::vector<exporter::File> files = exporter::export_model(*t, format, o);
  if (files.size() == 1 && format != exporter::Format::hf) {
    io::write_file(out, files[0].bytes);
  } else {
    for (const exporter::File& f : files) {
      const std::filesystem::path path = std::filesystem::path(out) / f.path;
      std::error_code ec;
      std::filesystem::create_directories(path.parent_path(), ec);
      if (ec) throw Error("cannot create the folder " + path.parent_path().string() + ": " + ec.message());
      io::write_file(path.string(), f.bytes);
    }
  }
  uint64_t bytes = 0;
  for (const exporter::File& f : files) bytes += f.bytes.size();
  std::printf("exported %s (%s, step %lld, %lld parameters) to %s as %s (%llu bytes)\n", in.c_str(), model_kind_name(t->kind()),
              (long long)t->steps_done(), (long long)t->num_parameters(), out.c_str(), exporter::format_name(format),
              (unsigned long long)bytes);
  return 0;
}

// ---- data --------------------------------------------------------------------------------------

int cmd_data(const Args& args) {
  const std::vector<std::string>& p = args.positional;
  const std::string what = p.empty() ? "" : p[0];
  if (what == "stats" && p.size() == 2) return cli::data_stats(p[1]);
  if (what == "pack" && p.size() == 2) {
    if (!args.has("out")) throw Error("data pack needs --out DIR (the folder to write the shards to)");
    std::string name = args.str("name", "");
    if (name.empty()) {
      name = p[1].substr(p[1].find_last_of('/') + 1);
      name = name.substr(0, name.find('.'));
      if (name.empty()) name = "data";
    }
    const long per_shard = args.integer("shard_tokens", 100'000'000);
    if (per_shard < 1) throw Error("--shard_tokens must be >= 1");
    return cli::data_pack(p[1], args.str("out", ""), name, uint64_t(per_shard), args.str("tokenizer", ""));
  }
  throw Error("data expects 'stats FILE|DIR' or 'pack TEXT --out DIR'");
}

// ---- hidden --------------------------------------------------------------------------------------

// The units of a recurrent model that follow each pattern on a text (hidden.h): what the page's
// hidden-state view searches, as a table.
int cmd_hidden(const Args& args) {
  set_threads(args);
  if (!args.has("ckpt")) throw Error("hidden needs --ckpt FILE (a checkpoint or model file of an rnn, gru or lstm run)");
  auto trainer = load_model_or_checkpoint(args.str("ckpt", ""));
  if (!is_recurrent(trainer->kind()))
    throw Error(std::string("this is a ") + model_kind_name(trainer->kind()) + " model: the hidden-state view is for rnn, gru and lstm models");
  std::vector<uint8_t> text;
  if (args.has("text")) {
    text = io::read_file(args.str("text", ""));
  } else {
    const std::vector<uint8_t> all = io::read_file(std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt");
    const data::Dataset d(all);
    text.assign(all.begin() + int64_t(d.train_size()), all.begin() + int64_t(std::min(all.size(), d.train_size() + 2000)));
  }
  const hidden::Trace tr = trainer->trace_hidden(text.data(), text.size());
  const long top = args.integer("top", 5);
  if (top < 1) throw Error("--top must be >= 1");
  const bool tokens = trainer->tokenizer() != nullptr;  // a BPE model: positions are tokens, a pattern taken at each one's last byte
  std::printf("%s, %d layers of %d units, traced over %d %s\n", tr.kind.c_str(), tr.L, tr.H, tr.T, tokens ? "tokens" : "bytes");
  for (const hidden::PatternInfo& p : hidden::patterns()) {
    if (args.has("pattern") && args.str("pattern", "") != p.name) continue;
    const std::vector<float> sig = hidden::token_signal(hidden::signal(p.name, text.data(), text.size()), tr.ends);
    std::printf("\n%s (%s):\n", p.name, p.description);
    for (const hidden::UnitMatch& u : hidden::search_units(tr, sig, int(top)))
      std::printf("  layer %d unit %3d %s   r = %+.3f\n", u.layer, u.unit, u.state.c_str(), double(u.correlation));
  }
  if (args.has("pattern")) hidden::signal(args.str("pattern", ""), text.data(), 0);  // an unknown name: say which exist
  return 0;
}

// ---- tokenizer ---------------------------------------------------------------------------------

int cmd_tokenizer(const Args& args) {
  const std::vector<std::string>& p = args.positional;
  const std::string what = p.empty() ? "" : p[0];
  if (what == "train" && p.size() == 2) {
    if (!args.has("vocab")) throw Error("tokenizer train needs --vocab N (256 to 65,536)");
    if (!args.has("out")) throw Error("tokenizer train needs --out FILE (FILE.json: Hugging Face's tokenizer.json)");
    return cli::tokenizer_train(p[1], int(args.integer("vocab", 0)), args.str("out", ""));
  }
  if (what == "encode" && (p.size() == 2 || (p.size() == 1 && args.has("text")))) {
    if (!args.has("tokenizer")) throw Error("tokenizer encode needs --tokenizer FILE");
    const std::string text = args.str("text", "");
    if (p.size() == 2 && args.has("text")) throw Error("tokenizer encode: give a file or --text, not both");
    return cli::tokenizer_encode(args.str("tokenizer", ""), p.size() == 2 ? p[1] : "", args.has("text") ? &text : nullptr);
  }
  throw Error("tokenizer expects 'train TEXT --vocab N --out FILE' or 'encode --tokenizer FILE TEXT'");
}

// ---- bench -------------------------------------------------------------------------------------

int cmd_bench(const Args& args) {
  set_threads(args);
  const long steps = args.integer("steps", 20);
  if (steps < 1) throw Error("--steps must be >= 1");
  const std::vector<uint8_t> corpus = io::read_file(std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt");
  const std::string only = args.str("preset", "all");
  std::vector<const Preset*> chosen;
  for (const Preset& p : presets())  // all: the language models (a translator needs pairs)
    if ((only == "all" && is_language_model(preset_config(p.name).model)) || only == p.name) chosen.push_back(&p);
  if (chosen.empty()) preset_config(only);  // throws, listing the presets
  std::printf("tinygpt bench: %s kernels, %d thread(s), %ld timed steps after 3 warm-up steps\n", simd_backend(),
              num_threads(), steps);
  std::printf("%-32s %10s %12s %10s %14s\n", "preset", "params", "train tok/s", "ms/step", "generate B/s");
  for (const Preset* p : chosen) {
    Config c = preset_config(p->name);
    c.max_iters = int(steps) + 3;
    c.warmup_iters = 1;
    train::Trainer t(c);
    t.set_corpus(corpus);
    for (int i = 0; i < 3; i++) t.step();
    const auto t0 = Clock::now();
    for (long i = 0; i < steps; i++) t.step();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    const double tok_s = double(steps) * double(t.tokens_per_step()) / dt;
    if (!is_language_model(c.model)) throw Error("bench trains the language models on tiny Shakespeare: " + std::string(p->name) + " is a translator");
    // generation: several windows' worth of bytes (default window policy: rebuild every half context)
    std::optional<sample::Generator> made;
    if (is_recurrent(c.model)) made.emplace(t.recurrent(), sample::Options{});
    else made.emplace(t.model(), sample::Options{});
    sample::Generator& gen = *made;
    gen.set_prompt("\n");
    const int n_gen = 4 * c.block_size + 64;
    const auto g0 = Clock::now();
    for (int i = 0; i < n_gen; i++) gen.next();
    const double gdt = std::chrono::duration<double>(Clock::now() - g0).count();
    char name[64];
    if (is_recurrent(c.model))
      std::snprintf(name, sizeof name, "%-9s (%dL %du ctx%d b%d)", p->name, c.n_layer, c.n_hidden, c.block_size, c.batch_size);
    else
      std::snprintf(name, sizeof name, "%-4s (%dL %dH %dw ctx%d b%d)", p->name, c.n_layer, c.n_head, c.n_embd, c.block_size,
                    c.batch_size);
    std::printf("%-32s %10lld %12.0f %10.2f %14.0f\n", name, (long long)t.num_parameters(), tok_s,
                1000.0 * dt / double(steps), n_gen / gdt);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc >= 2 ? argv[1] : "";
  if (cmd.empty() || cmd == "-h" || cmd == "--help" || cmd == "help") {
    const std::string topic = argc >= 3 ? argv[2] : "";
    const bool known = topic == "train" || topic == "config" || topic == "sample" || topic == "translate" ||
                       topic == "export" || topic == "bench" || topic == "data" || topic == "hidden" || topic == "tokenizer";
    std::fputs(usage(known ? topic : "").c_str(), cmd.empty() ? stderr : stdout);
    return cmd.empty() ? 2 : 0;
  }
  struct CommandEntry {
    const char* name;
    Command bit;
    bool config_fields;
    int (*run)(const Args&);
  };
  const CommandEntry commands[] = {
      {"train", kTrain, true, cmd_train},
      {"config", kConfig, true, cmd_config},
      {"sample", kSample, false, cmd_sample},
      {"translate", kTranslate, false, cmd_translate},
      {"export", kExport, false, cmd_export},
      {"bench", kBench, false, cmd_bench},
      {"data", kData, false, cmd_data},
      {"hidden", kHidden, false, cmd_hidden},
      {"tokenizer", kTokenizer, false, cmd_tokenizer},
  };
  for (const CommandEntry& c : commands) {
    if (cmd != c.name) continue;
    try {
      const Args args = parse_args(argc, argv, c.bit, c.config_fields);
      if (args.help) {
        std::fputs(usage(cmd).c_str(), stdout);
        return 0;
      }
      return c.run(args);
    } catch (const Error& e) {
      std::fprintf(stderr, "tinygpt %s: %s\n", cmd.c_str(), e.what());
      return 1;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "tinygpt %s: out of memory\n", cmd.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "unknown command '%s'\n%s", cmd.c_str(), usage("").c_str());
  return 2;
}
