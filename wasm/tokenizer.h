// tokenizer.h — the tokenizer feature's class for JS (wasm/tokenizer.cpp binds it): a byte-level BPE
// vocabulary (core tokenizer.h) shared with the Session that reads text through it (setTokenizer).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "common.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::js {

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
  // The tokenizer of the first r merges (a tokenizer learned here: merge i makes token 256 + i), for
  // stepping through the merges: how a text splits after r of them. Throws for a loaded vocabulary
  // that numbers its tokens otherwise (GPT-2's).
  Tokenizer prefix(int r) const {
    return guarded([&] {
      const auto& m = t->merges();
      if (r < 0 || r > int(m.size())) throw Error("prefix: r must be between 0 and " + std::to_string(m.size()));
      std::vector<std::pair<int32_t, int32_t>> pairs;
      std::vector<uint64_t> counts;
      for (int i = 0; i < r; i++) {
        if (m[size_t(i)].id != 256 + i) throw Error("prefix: this vocabulary numbers its merges otherwise (GPT-2's): step through it by id");
        pairs.push_back({m[size_t(i)].left, m[size_t(i)].right});
        counts.push_back(m[size_t(i)].count);
      }
      for (int b = 0; b < 256; b++)
        if (t->token_bytes(b) != std::string(1, char(b))) throw Error("prefix: this vocabulary numbers its bytes otherwise (GPT-2's)");
      return Tokenizer{std::make_shared<const tok::Tokenizer>(tok::Tokenizer::from_merges(pairs, counts))};
    });
  }
  // Labels of many tokens at once (token_text), for the page's chips and axes.
  val tokenTexts(const val& ids) const {
    return guarded([&] {
      val out = val::array();
      const size_t n = ids["length"].as<size_t>();
      for (size_t i = 0; i < n; i++) out.call<void>("push", t->token_text(ids[i].as<int32_t>()));
      return out;
    });
  }
  std::string fingerprint() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", (unsigned long long)t->fingerprint());
    return b;
  }
};


}  // namespace tinygpt::js
