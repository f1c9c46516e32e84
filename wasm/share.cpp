// share.cpp — the share feature: runs as links (core/include/tinygpt/share.h). The page makes,
// parses and checks links with the same functions as `tinygpt train --from-link URL`. A link in JS:
//   {config, variant, corpus: {builtin, fingerprint (16 hex digits), size, name}, losses: Float32Array,
//    tokenizer: '' or 16 hex digits (a BPE run's tokenizer fingerprint), tokensPerByte (0: not given)}
#include <cstdio>
#include <cstdlib>

#include "common.h"
#include "tinygpt/share.h"

namespace tinygpt::js {

namespace {

val link_to_js(const share::Link& l) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)l.corpus.fingerprint);
  val corpus = val::object();
  corpus.set("builtin", l.corpus.builtin);
  corpus.set("fingerprint", std::string(l.corpus.builtin.empty() ? hex : ""));
  corpus.set("size", double(l.corpus.size));
  corpus.set("name", l.corpus.name);
  val o = val::object();
  o.set("config", config_to_js(l.config));
  o.set("variant", l.variant);
  o.set("corpus", corpus);
  o.set("losses", copy_to_js("Float32Array", l.losses.data(), l.losses.size()));
  char tok[17] = "";
  if (l.tokenizer) std::snprintf(tok, sizeof tok, "%016llx", (unsigned long long)l.tokenizer);
  o.set("tokenizer", std::string(tok));
  o.set("tokensPerByte", l.tokens_per_byte);
  return o;
}

// {builtin} or {fingerprint, size, name}
share::Corpus corpus_from_js(const val& c) {
  if (c.isUndefined() || c.isNull()) throw Error("the link needs a corpus: {builtin} or {fingerprint, size, name}");
  share::Corpus corpus;
  if (!c["builtin"].isUndefined() && !c["builtin"].isNull()) corpus.builtin = c["builtin"].as<std::string>();
  if (corpus.builtin.empty()) {
    const std::string hex = c["fingerprint"].isString() ? c["fingerprint"].as<std::string>() : "";
    char* end = nullptr;
    corpus.fingerprint = std::strtoull(hex.c_str(), &end, 16);
    if (hex.size() != 16 || *end) throw Error("the link's corpus.fingerprint must be 16 hex digits");
    corpus.size = uint64_t(number_field(c, "size", 0));
    if (!c["name"].isUndefined()) corpus.name = c["name"].as<std::string>();
  }
  return corpus;
}

share::Link link_from_js(const val& o) {
  if (o.isUndefined() || o.isNull() || o.typeOf().as<std::string>() != "object") throw Error("the link must be an object");
  share::Link l;
  l.config = parse_config(o["config"]).config;
  if (!o["variant"].isUndefined()) l.variant = o["variant"].as<std::string>();
  l.corpus = corpus_from_js(o["corpus"]);
  const val losses = o["losses"];
  if (!losses.isUndefined() && !losses.isNull()) l.losses = floats_from(losses, "the link's losses");
  if (o["tokenizer"].isString() && !o["tokenizer"].as<std::string>().empty()) {
    const std::string hex = o["tokenizer"].as<std::string>();
    char* end = nullptr;
    l.tokenizer = std::strtoull(hex.c_str(), &end, 16);
    if (hex.size() != 16 || *end) throw Error("the link's tokenizer must be 16 hex digits");
  }
  l.tokens_per_byte = number_field(o, "tokensPerByte", 0);
  return l;
}

std::string build_variant_js() { return share::build_variant(); }

// checkTokenizer(link, fingerprint: 16 hex digits | '') -> null, or {message, code, args}: another tokenizer
val check_tokenizer_js(const val& link, const std::string& fingerprint) {
  return guarded([&] {
    const share::Link l = link_from_js(link);
    const Message m = share::check_tokenizer(l, fingerprint.empty() ? 0 : std::strtoull(fingerprint.c_str(), nullptr, 16));
    return m.text.empty() ? val::null() : coded_to_js(m.text, m.code, m.args);
  });
}

std::string make_share_link(const val& link, const std::string& base) {
  return guarded([&] { return share::make_link(link_from_js(link), base); });
}

val parse_share_link(const std::string& url) {
  return guarded([&] { return link_to_js(share::parse_link(url)); });
}

// checkReplay(link, losses: Float32Array, variant) -> {status: 'pending'|'matches'|'diverged', compared, expected,
// divergedAt, linkLoss, runLoss, sameVariant, maxDifference, final, message, code?, args?}
val check_replay_js(const val& link, const val& losses, const std::string& variant) {
  return guarded([&] {
    const share::Link l = link_from_js(link);
    const std::vector<float> run = floats_from(losses, "the losses");
    const share::Replay r = share::check_replay(l, run.data(), run.size(), variant.empty() ? share::build_variant() : variant);
    static const char* status[] = {"pending", "matches", "diverged"};
    val o = coded_to_js(r.message, r.code, r.args);
    o.set("status", std::string(status[int(r.status)]));
    o.set("compared", double(r.compared));
    o.set("expected", double(r.expected));
    o.set("divergedAt", double(r.diverged_at));
    o.set("linkLoss", r.link_loss);
    o.set("runLoss", r.run_loss);
    o.set("linkBitsPerByte", r.link_bpb);
    o.set("runBitsPerByte", r.run_bpb);
    o.set("sameVariant", r.same_variant);
    o.set("maxDifference", r.max_difference);
    o.set("final", r.final);
    return o;
  });
}

}  // namespace

}  // namespace tinygpt::js

EMSCRIPTEN_BINDINGS(tinygpt_share) {
  using namespace tinygpt::js;
  emscripten::function("buildVariant", &build_variant_js);
  emscripten::function("makeShareLink", &make_share_link);
  emscripten::function("parseShareLink", &parse_share_link);
  emscripten::function("checkReplay", &check_replay_js);
  emscripten::function("checkTokenizer", &check_tokenizer_js);
}
