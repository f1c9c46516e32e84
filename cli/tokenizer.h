// tokenizer.h (cli) — `tinygpt tokenizer train TEXT --vocab N --out FILE` and `tinygpt tokenizer
// encode --tokenizer FILE TEXT`; the BPE tokens of a text for `data pack --tokenizer FILE`.
#pragma once

#include <memory>
#include <string>

#include "tinygpt/source.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::cli {

// Learns a vocabulary of `vocab` tokens from the file (a progress line while it reads and merges)
// and writes it to `out`: Hugging Face's tokenizer.json when out ends in .json, else the compact form.
int tokenizer_train(const std::string& text_path, int vocab, const std::string& out);
// Prints the ids of a file's bytes ("-": standard input), or of `literal` when given, on one line;
// tokens per byte on standard error.
int tokenizer_encode(const std::string& tokenizer_path, const std::string& text_path, const std::string* literal);
// A tokenizer of `vocab` tokens learned from the training split of a run's text (a progress line).
std::shared_ptr<const tok::Tokenizer> tokenizer_for_run(const std::shared_ptr<const data::ByteSource>& text, int vocab);
// A translator's tokenizer: learned from its whole pairs file (sources and targets share it), since
// the held-out pairs are chosen once they are tokens.
std::shared_ptr<const tok::Tokenizer> tokenizer_for_pairs(const std::shared_ptr<const data::ByteSource>& tsv, int vocab);
// The text's BPE tokens, encoded once into a token cache file at cache_path (a progress line).
std::shared_ptr<const data::Source> bpe_tokens(const std::string& tokenizer_path, std::shared_ptr<const data::ByteSource> text,
                                               const std::string& cache_path);

}  // namespace tinygpt::cli
