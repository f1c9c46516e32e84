// data.cpp — the data feature: "what is this file?" (the sniffer), the built-in translation tasks,
// and a TSV of pairs read as a seq2seq session would read it.
#include "common.h"
#include "tinygpt/data.h"
#include "tinygpt/pairs.h"
#include "tinygpt/sniff.h"

namespace tinygpt::js {

namespace {

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

EMSCRIPTEN_BINDINGS(tinygpt_data) {
  using namespace tinygpt::js;
  emscripten::function("sniff", &sniff_file);
  emscripten::function("builtinTasks", &builtin_tasks);
  emscripten::function("builtinTask", &builtin_task);
  emscripten::function("pairsReport", &pairs_report);
}
