// data.cpp — the data feature: "what is this file?" (the sniffer), the built-in translation tasks,
// a TSV of pairs read as a seq2seq session would read it, and corpora read a window at a time
// through a JS reader (the page's File or its OPFS copy; a file in Node): a Corpus, given to any
// number of sessions (Session.useCorpus), that never holds the file in wasm memory.
#include "data.h"

#include <cmath>
#include <cstdio>

#include "common.h"
#include "tinygpt/pairs.h"
#include "tinygpt/sniff.h"

namespace tinygpt::js {

namespace {

// A JS reader {name, size, read(at, n, into: Uint8Array) -> null | {code, message}} as a byte
// source. `into` is a view of wasm memory: the reader fills it and returns null, or says why it
// could not (corpus.file_changed / file_gone / file_unreadable). It must not throw.
std::shared_ptr<const data::ByteSource> reader_source(const val& reader) {
  if (reader.typeOf().as<std::string>() != "object" || reader.isNull() || reader["read"].typeOf().as<std::string>() != "function")
    throw Error("a corpus reader is an object {name, size, read(at, n, into)}");
  const double size = reader["size"].isNumber() ? reader["size"].as<double>() : -1;
  if (!(size >= 0 && size <= 9007199254740991.0) || size != std::floor(size))
    throw Error("a corpus reader's size must be a whole number of bytes");
  const std::string name = reader["name"].isString() ? reader["name"].as<std::string>() : "the corpus";
  auto read = [reader, name](uint64_t at, size_t n, uint8_t* out) {
    const val r = reader.call<val>("read", double(at), double(n), val(emscripten::typed_memory_view(n, out)));
    if (r.isNull() || r.isUndefined()) return;
    std::string code = r["code"].isString() ? r["code"].as<std::string>() : "";
    if (code != "corpus.file_changed" && code != "corpus.file_gone") code = "corpus.file_unreadable";
    const std::string why = r["message"].isString() ? r["message"].as<std::string>() : "";
    const std::string text = code == "corpus.file_gone"      ? "the data file " + name + " is gone: training paused, nothing was lost"
                             : code == "corpus.file_changed" ? "the data file " + name + " changed while training: training paused, nothing was lost"
                                                             : "cannot read the data file " + name + (why.empty() ? "" : ": " + why);
    throw Error(coded(code, {{"path", name}}, text));
  };
  return std::make_shared<const data::CallbackSource>(uint64_t(size), read, name);
}

std::string hex16(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
  return b;
}

// corpusFromReader(reader) -> Corpus: a text read a window at a time.
Corpus corpus_from_reader(const val& reader) {
  return guarded([&] {
    auto text = reader_source(reader);
    if (text->size() == 0) throw Error(coded("corpus.empty", {}, "the corpus is empty: give a file with some text in it"));
    return Corpus{data::Corpus{std::move(text), nullptr}};
  });
}

// corpusFromShards(readers) -> Corpus: llm.c shards (files named *_train_*.bin, *_val_*.bin).
Corpus corpus_from_shards(const val& readers) {
  return guarded([&] {
    if (!readers.isArray()) throw Error("corpusFromShards: give an array of readers");
    std::vector<std::pair<std::string, std::shared_ptr<const data::ByteSource>>> files;
    const size_t n = readers["length"].as<size_t>();
    for (size_t i = 0; i < n; i++) {
      auto s = reader_source(readers[i]);
      files.emplace_back(s->describe(), std::move(s));
    }
    const data::ShardCorpus c = data::shard_corpus(std::move(files));
    if (!c.train)
      throw Error(coded("shard.none", {}, "these are validation shards only: a corpus needs *_train_*.bin shards to train on"));
    return Corpus{data::Corpus{c.train, c.val}};
  });
}

// sniff(head: Uint8Array, totalSize, name) -> {kind, encoding, message, code, args, counts...}
val sniff_file(const val& head, double total_size, const std::string& name) {
  return guarded([&] {
    if (!head.instanceof(val::global("Uint8Array"))) throw Error("sniff: head must be a Uint8Array");
    const std::vector<uint8_t> bytes = bytes_from(head, "head");
    const io::Sniffed s = io::sniff(bytes.data(), bytes.size(), uint64_t(total_size), name);
    val o = coded_to_js(s.message, s.code, s.args);  // the message's code and args, for the page's wording
    o.set("kind", s.kind_name);
    o.set("encoding", s.encoding);
    o.set("bytesLookedAt", double(s.bytes_looked_at));
    o.set("invalidUtf8", double(s.invalid_utf8));
    o.set("nulBytes", double(s.nul_bytes));
    o.set("controlBytes", double(s.control_bytes));
    o.set("highBytes", double(s.high_bytes));
    o.set("tsvLines", double(s.tsv_lines));
    o.set("lines", double(s.lines));
    o.set("badLines", double(s.bad_lines));
    val numbers = val::array();
    for (size_t n : s.bad_line_numbers) numbers.call<void>("push", double(n));
    o.set("badLineNumbers", numbers);
    o.set("distinctBytes", double(s.distinct_bytes));
    o.set("entropyBits", s.entropy_bits);
    o.set("lowVariety", s.low_variety);
    return o;
  });
}

// The built-in translation tasks: [{name, description, pairs, longest}].
val builtin_tasks() {
  val out = val::array();
  for (const data::TaskInfo& t : data::builtin_tasks()) {
    val o = val::object();
    o.set("name", std::string(t.name));
    o.set("description", std::string(t.description));
    o.set("pairs", t.default_count);
    o.set("longest", t.longest);
    out.call<void>("push", o);
  }
  return out;
}

// A built-in task's pairs as TSV bytes (the same bytes `tinygpt train --task NAME` trains on).
val builtin_task(const std::string& name, double seed) {
  return guarded([&] {
    const std::vector<uint8_t> tsv = data::builtin_task(name, uint64_t(seed));
    return copy_to_js("Uint8Array", tsv.data(), tsv.size());
  });
}

// A TSV of pairs read as a seq2seq session with this block_size would read it (Session.setCorpus),
// without a model: {pairs, trainPairs, valPairs, longestSource, longestTarget, report: {message,
// code, args}}. Throws the core's message (which lines, and why) when no line is a usable pair. The
// page shows the report before a model exists, and checks a dropped file with it.
val pairs_report(const val& bytes, int block_size) {
  return guarded([&] {
    const data::PairDataset d(bytes_from(bytes, "the pairs"), block_size);
    val o = val::object();
    o.set("pairs", double(d.size()));
    o.set("trainPairs", double(d.train_size()));
    o.set("valPairs", double(d.val_size()));
    o.set("longestSource", d.max_source_len());
    o.set("longestTarget", d.max_target_len());
    o.set("report", coded_to_js(d.report().summary(), "pairs.report", d.report().args()));
    return o;
  });
}

}  // namespace

}  // namespace tinygpt::js

namespace tinygpt::js {

double Corpus::trainSize() const { return double(corpus.val ? corpus.train->size() : corpus.size() - uint64_t(double(corpus.size()) * 0.1)); }

std::string Corpus::fingerprint() const { return hex16(corpus.fingerprint()); }

std::string Corpus::describe() const { return corpus.train ? corpus.train->describe() : ""; }

// [{name, split: 'train' | 'val', version, tokens}] for shards; [] for a text.
val Corpus::shards() const {
  val out = val::array();
  for (const auto& [split, part] : {std::pair{"train", corpus.train}, std::pair{"val", corpus.val}}) {
    const auto* s = dynamic_cast<const data::ShardSource*>(part.get());
    if (!s) continue;
    for (const data::ShardInfo& i : s->shards()) {
      val o = val::object();
      o.set("name", i.path);
      o.set("split", std::string(split));
      o.set("version", i.version);
      o.set("tokens", double(i.tokens));
      out.call<void>("push", o);
    }
  }
  return out;
}

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_data) {
  using namespace tinygpt::js;
  emscripten::class_<Corpus>("Corpus")
      .function("size", &Corpus::size)
      .function("trainSize", &Corpus::trainSize)
      .function("fingerprint", &Corpus::fingerprint)
      .function("describe", &Corpus::describe)
      .function("shards", &Corpus::shards);
  emscripten::function("corpusFromReader", &corpus_from_reader);
  emscripten::function("corpusFromShards", &corpus_from_shards);
  emscripten::function("sniff", &sniff_file);
  emscripten::function("builtinTasks", &builtin_tasks);
  emscripten::function("builtinTask", &builtin_task);
  emscripten::function("pairsReport", &pairs_report);
}
