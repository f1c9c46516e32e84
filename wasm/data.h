// data.h — the binding's Corpus: a data::Corpus the page holds and gives to sessions
// (Session.useCorpus): a text read through a JS reader, or llm.c shards (data.cpp).
#pragma once

#include <emscripten/val.h>

#include <string>

#include "tinygpt/data.h"

namespace tinygpt::js {

struct Corpus {
  data::Corpus corpus;
  double size() const { return double(corpus.size()); }  // tokens (a text's bytes)
  double trainSize() const;                                // tokens of the training split
  std::string fingerprint() const;                         // 16 hex digits (data::Corpus::fingerprint)
  std::string describe() const;
  emscripten::val shards() const;
};

}  // namespace tinygpt::js
