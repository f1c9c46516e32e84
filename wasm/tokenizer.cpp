// tokenizer.cpp — the tokenizer feature: a byte-level BPE vocabulary (core tokenizer.h) as the
// Tokenizer class: learned from a text or a corpus read a window at a time (with a progress
// callback that can stop it), read from tokenizer.json / GPT-2's files / its compact form, and a
// corpus's BPE tokens for sessions (tokenizeCorpus).
#include <cstdio>

#include "common.h"
#include "data.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::js {

namespace {

struct Tokenizer {
  std::shared_ptr<const tok::Tokenizer> t = std::make_shared<const tok::Tokenizer>();

  double vocabSize() const { return t->vocab_size(); }
  double idCount() const { return t->id_count(); }
  val encode(const val& bytes) const {
    return guarded([&] {
      const std::vector<uint8_t> b = bytes_from(bytes, "encode: the text");
      std::vector<int32_t> ids;
      ids.reserve(b.size() / 3 + 1);
      t->encode(b.data(), b.size(), ids);
      return copy_to_js("Int32Array", ids.data(), ids.size());
    });
  }
  val decode(const val& ids) const {
    return guarded([&] {
      if (!ids.instanceof(val::global("Int32Array")) && !ids.isArray()) throw Error("decode: the ids must be an Int32Array or an array of numbers");
      std::vector<int32_t> v(ids["length"].as<size_t>());
      for (size_t i = 0; i < v.size(); i++) v[i] = ids[i].as<int32_t>();
      const std::string b = t->decode(v);
      return copy_to_js("Uint8Array", reinterpret_cast<const uint8_t*>(b.data()), b.size());
    });
  }
  std::string tokenText(int id) const {
    return guarded([&] { return t->token_text(id); });
  }
  val tokenBytes(int id) const {
    return guarded([&] {
      const std::string& b = t->token_bytes(id);
      return copy_to_js("Uint8Array", reinterpret_cast<const uint8_t*>(b.data()), b.size());
    });
  }
  // {left, right, id, count}: the merges in the order learned, as parallel arrays
  val merges() const {
    const auto& m = t->merges();
    std::vector<int32_t> left(m.size()), right(m.size()), id(m.size());
    std::vector<double> count(m.size());
    for (size_t i = 0; i < m.size(); i++) left[i] = m[i].left, right[i] = m[i].right, id[i] = m[i].id, count[i] = double(m[i].count);
    val o = val::object();
    o.set("left", copy_to_js("Int32Array", left.data(), left.size()));
    o.set("right", copy_to_js("Int32Array", right.data(), right.size()));
    o.set("id", copy_to_js("Int32Array", id.data(), id.size()));
    o.set("count", copy_to_js("Float64Array", count.data(), count.size()));
    return o;
  }
  val specials() const {
    val out = val::array();
    for (const tok::SpecialToken& s : t->specials()) {
      val o = val::object();
      o.set("text", s.text);
      o.set("id", s.id);
      out.call<void>("push", o);
    }
    return out;
  }
  val trainingStats() const {
    val o = val::object();
    o.set("bytes", double(t->training_stats().bytes));
    o.set("tokens", double(t->training_stats().tokens));
    return o;
  }
  // [begin0, end0, begin1, end1, ...]: where the pre-tokenization rule cuts the text
  val pieces(const val& bytes) const {
    return guarded([&] {
      const std::vector<uint8_t> b = bytes_from(bytes, "pieces: the text");
      std::vector<int32_t> out;
      for (const auto& [s, e] : tok::pretokenize(std::string_view(reinterpret_cast<const char*>(b.data()), b.size())))
        out.push_back(int32_t(s)), out.push_back(int32_t(e));
      return copy_to_js("Int32Array", out.data(), out.size());
    });
  }
  std::string toJson() const { return t->to_hf_json(); }
  val serialize() const {
    const std::vector<uint8_t> b = t->serialize();
    return copy_to_js("Uint8Array", b.data(), b.size());
  }
  std::string fingerprint() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", (unsigned long long)t->fingerprint());
    return b;
  }
};

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
      .function("fingerprint", &Tokenizer::fingerprint);
  emscripten::function("trainTokenizer", &train_tokenizer);
  emscripten::function("trainTokenizerOnCorpus", &train_tokenizer_on_corpus);
  emscripten::function("tokenizerFromJson", &tokenizer_from_json);
  emscripten::function("tokenizerFromGpt2", &tokenizer_from_gpt2);
  emscripten::function("tokenizerFromBytes", &tokenizer_from_bytes);
  emscripten::function("tokenizeCorpus", &tokenize_corpus);
}
