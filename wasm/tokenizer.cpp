// tokenizer.cpp — the tokenizer feature: a byte-level BPE vocabulary (core tokenizer.h) as the
// Tokenizer class: learned from a text or a corpus read a window at a time (with a progress
// callback that can stop it), read from tokenizer.json / GPT-2's files / its compact form, and a
// corpus's BPE tokens for sessions (tokenizeCorpus).
#include <cstdio>

#include "common.h"
#include "data.h"
#include "tinygpt/tokenizer.h"
#include "tokenizer.h"

namespace tinygpt::js {

namespace {

// progress(info) for a JS callback (or null): info {phase: 'counting' | 'merging', done, total,
// pieces}; a callback that returns false stops.
std::function<bool(const tok::TrainProgress&)> train_progress(const val& progress) {
  if (progress.isNull() || progress.isUndefined()) return {};
  if (progress.typeOf().as<std::string>() != "function") throw Error("the progress callback must be a function or null");
  return [progress](const tok::TrainProgress& p) {
    val info = val::object();
    info.set("phase", std::string(p.phase == tok::TrainProgress::counting ? "counting" : "merging"));
    info.set("done", double(p.done));
    info.set("total", double(p.total));
    info.set("pieces", double(p.pieces));
    const val r = progress(info);
    return !(r.typeOf().as<std::string>() == "boolean" && !r.as<bool>());
  };
}

val train_on(const data::ByteSource& text, int vocab, const val& progress) {
  std::optional<tok::Tokenizer> t = tok::train_bpe(text, vocab, train_progress(progress));
  if (!t) return val::null();
  return val(Tokenizer{std::make_shared<const tok::Tokenizer>(std::move(*t))});
}

// trainTokenizer(bytes, vocabSize, progress | null) -> Tokenizer | null (stopped)
val train_tokenizer(const val& bytes, int vocab, const val& progress) {
  return guarded([&] {
    const data::MemorySource text(bytes_from(bytes, "trainTokenizer: the text"), "the text");
    return train_on(text, vocab, progress);
  });
}

// trainTokenizerOnCorpus(corpus, vocabSize, progress | null): a text read a window at a time
val train_tokenizer_on_corpus(const Corpus& corpus, int vocab, const val& progress) {
  return guarded([&] {
    const auto* text = dynamic_cast<const data::ByteSource*>(corpus.corpus.train.get());
    if (!text || corpus.corpus.val)
      throw Error(coded("tokenizer.not_text", {}, "a vocabulary is learned from a text, and these are token shards"));
    return train_on(*text, vocab, progress);
  });
}

// trainTokenizerForRun(corpus, vocabSize, progress | null): a run's tokenizer, learned from the
// training split of its text only (tok::train_on_training_split: the bytes before the last tenth), as
// `tinygpt train --vocab_size N` learns it: the same text gives the same tokenizer in both.
val train_tokenizer_for_run(const Corpus& corpus, int vocab, const val& progress) {
  return guarded([&] {
    auto text = std::dynamic_pointer_cast<const data::ByteSource>(corpus.corpus.train);
    if (!text || corpus.corpus.val)
      throw Error(coded("tokenizer.not_text", {}, "a vocabulary is learned from a text, and these are token shards"));
    std::optional<tok::Tokenizer> t = tok::train_on_training_split(text, vocab, train_progress(progress));
    if (!t) return val::null();
    return val(Tokenizer{std::make_shared<const tok::Tokenizer>(std::move(*t))});
  });
}

Tokenizer tokenizer_from_json(const std::string& json) {
  return guarded([&] { return Tokenizer{std::make_shared<const tok::Tokenizer>(tok::Tokenizer::from_hf_json(json))}; });
}

Tokenizer tokenizer_from_gpt2(const std::string& vocab, const std::string& merges) {
  return guarded([&] { return Tokenizer{std::make_shared<const tok::Tokenizer>(tok::Tokenizer::from_gpt2(vocab, merges))}; });
}

Tokenizer tokenizer_from_bytes(const val& blob) {
  return guarded([&] {
    const std::vector<uint8_t> b = bytes_from(blob, "tokenizerFromBytes: the tokenizer");
    return Tokenizer{std::make_shared<const tok::Tokenizer>(tok::Tokenizer::deserialize(b.data(), b.size()))};
  });
}

// tokenizeCorpus(corpus, tokenizer, progress | null) -> Corpus | null: the text's BPE tokens, encoded
// once (2 bytes a token in wasm memory); progress({done, total}) in bytes, false stops.
val tokenize_corpus(const Corpus& corpus, const Tokenizer& tokenizer, const val& progress) {
  return guarded([&] {
    auto text = std::dynamic_pointer_cast<const data::ByteSource>(corpus.corpus.train);
    if (!text || corpus.corpus.val)
      throw Error(coded("tokenizer.not_text", {}, "a tokenizer encodes a text, and these are token shards"));
    std::function<bool(uint64_t, uint64_t)> p;
    if (!progress.isNull() && !progress.isUndefined()) {
      p = [progress](uint64_t done, uint64_t total) {
        val info = val::object();
        info.set("done", double(done));
        info.set("total", double(total));
        const val r = progress(info);
        return !(r.typeOf().as<std::string>() == "boolean" && !r.as<bool>());
      };
    }
    const auto tokens = tok::TokenSource::in_memory(tokenizer.t, text, p);
    if (!tokens) return val::null();
    return val(Corpus{data::Corpus{tokens, nullptr}});
  });
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_tokenizer) {
  using namespace tinygpt::js;
  emscripten::class_<Tokenizer>("Tokenizer")
      .constructor<>()
      .function("vocabSize", &Tokenizer::vocabSize)
      .function("idCount", &Tokenizer::idCount)
      .function("encode", &Tokenizer::encode)
      .function("decode", &Tokenizer::decode)
      .function("tokenText", &Tokenizer::tokenText)
      .function("tokenBytes", &Tokenizer::tokenBytes)
      .function("merges", &Tokenizer::merges)
      .function("specials", &Tokenizer::specials)
      .function("trainingStats", &Tokenizer::trainingStats)
      .function("pieces", &Tokenizer::pieces)
      .function("toJson", &Tokenizer::toJson)
      .function("serialize", &Tokenizer::serialize)
      .function("fingerprint", &Tokenizer::fingerprint)
      .function("prefix", &Tokenizer::prefix)
      .function("tokenTexts", &Tokenizer::tokenTexts);
  emscripten::function("trainTokenizer", &train_tokenizer);
  emscripten::function("trainTokenizerOnCorpus", &train_tokenizer_on_corpus);
  emscripten::function("trainTokenizerForRun", &train_tokenizer_for_run);
  emscripten::function("tokenizerFromJson", &tokenizer_from_json);
  emscripten::function("tokenizerFromGpt2", &tokenizer_from_gpt2);
  emscripten::function("tokenizerFromBytes", &tokenizer_from_bytes);
  emscripten::function("tokenizeCorpus", &tokenize_corpus);
}
