// runs.cpp — the runs feature: a session's checkpoint saved and loaded, what a checkpoint holds
// (from its header), and a new session from a .safetensors model file.
#include <cstdio>

#include "common.h"
#include "tinygpt/checkpoint.h"
#include "tinygpt/safetensors.h"
#include "session.h"

namespace tinygpt::js {

val Session::save() const {
  // written piece by piece into a JS buffer: the checkpoint (10-15 MB for config S with its
  // history) is never held whole on the wasm heap, which would grow for it and stay grown
  struct ToJs : ckpt::Sink {
    val out = val::null();
    size_t at = 0;
    void begin(size_t total) override { out = val::global("Uint8Array").new_(total); }
    void write(const uint8_t* b, size_t n) override {
      out.call<void>("set", emscripten::typed_memory_view(n, b), at);
      at += n;
    }
  } sink;
  return guarded([&] {
    ckpt::serialize_to(*trainer_, sink);
    return sink.out;
  });
}

namespace {

// Gives t the corpus of `from` when both read the same kind of data: a text (gpt, rnn, gru, lstm)
// or pairs (seq2seq, lstm_seq2seq); shared, not copied: it can be a 4 GB file's reader or 100 MB
// in memory. On an error `from` keeps it.
void carry_corpus(train::Trainer& from, train::Trainer& t) {
  if (!from.has_corpus() || is_language_model(t.kind()) != is_language_model(from.kind())) return;
  const int ctx = t.config().block_size;
  if (is_language_model(t.kind()) && from.corpus_size() < uint64_t(ctx) + 1)
    throw Error(coded("checkpoint.corpus_short", {{"needed", std::to_string(ctx + 1)}},
                      "the current corpus is shorter than this checkpoint's block_size + 1 (" + std::to_string(ctx + 1) +
                          " bytes)"));
  data::Corpus c = from.take_corpus();
  try {
    t.set_corpus(c);  // pairs: parsing with the checkpoint's block_size may still refuse them
  } catch (...) {
    from.set_corpus(std::move(c));
    throw;
  }
}

}  // namespace

// Replaces the model, optimizer and history with a checkpoint's; keeps the data when the model
// kind is the same (a checkpoint of the other kind starts without: give it a text or pairs).
// On any error the session is exactly as before.
void Session::load(const val& bytes) {
  guarded([&] {
    std::vector<uint8_t> b = bytes_from(bytes, "the checkpoint");
    std::unique_ptr<train::Trainer> t = train::Trainer::load(b.data(), b.size(), memory_limit_);
    carry_corpus(*trainer_, *t);
    replace_trainer(std::move(t));
  });
}

void bind_runs(const SessionClass& c) {
  c.function("save", &Session::save).function("load", &Session::load);
}

namespace {

// What a checkpoint holds, from its header: {version, config, step, corpusFingerprint (16 hex
// digits), corpusSize, parameters, historySnapshots, tokenizerFingerprint ('' for bytes),
// tokensPerByte}. Throws the loader's message for a bad file (a BPE run without its tokenizer too).
val describe_checkpoint(const val& bytes) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the checkpoint");
    const ckpt::Summary s = ckpt::describe(b.data(), b.size());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)s.corpus_fingerprint);
    val o = val::object();
    o.set("version", s.version);
    o.set("config", config_to_js(s.config));
    o.set("step", double(s.step));
    o.set("corpusFingerprint", std::string(hex));
    o.set("corpusSize", double(s.corpus_size));
    o.set("parameters", double(s.num_parameters));
    o.set("historySnapshots", double(s.history_snapshots));
    char tok[17] = "";
    if (s.tokenizer_fingerprint) std::snprintf(tok, sizeof tok, "%016llx", (unsigned long long)s.tokenizer_fingerprint);
    o.set("tokenizerFingerprint", std::string(tok));
    o.set("tokensPerByte", s.tokens_per_byte);
    return o;
  });
}

// A file written by `tinygpt export` or python/tinygpt (safetensors.h: the weights, the config in
// the metadata) starts a new run: step 0, AdamW moments zero, the config from the file. The page
// calls this when a dropped file starts with a safetensors header instead of TGPTCKPT.
// {memory_limit_mb} as in the Session constructor. Throws the core's message for a file that is
// not a tinygpt model file (safetensors::parse, config_from_metadata, load_model).
Session* session_from_safetensors(const val& bytes, const val& options) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(bytes, "the model file");
    const safetensors::File file = safetensors::parse(b.data(), b.size());
    const int64_t memory_limit = int64_t(number_field(options, "memory_limit_mb", double(kDefaultMemoryLimit >> 20))) << 20;
    auto trainer = safetensors::start_run(file, safetensors::config_from_metadata(file.metadata), memory_limit);
    return new Session(std::move(trainer), memory_limit);  // the caller (JS) owns it: session.delete()
  });
}

Session* session_from_safetensors_defaults(const val& bytes) { return session_from_safetensors(bytes, val::undefined()); }

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_runs) {
  using namespace tinygpt::js;
  emscripten::function("describeCheckpoint", &describe_checkpoint);
  // two overloads: Embind calls need every argument, and the options are optional
  emscripten::function("sessionFromSafetensors", &session_from_safetensors_defaults, emscripten::allow_raw_pointers());
  emscripten::function("sessionFromSafetensors", &session_from_safetensors, emscripten::allow_raw_pointers());
}
