// test_tokenizer_run.cpp — a BPE vocabulary in the models, the trainer, checkpoints and model files
// (the second half of docs/tokenizer.md): the models' sizes, bits per byte by hand, the checkpoint's
// tokenizer section and its damage, generation and translation on token ids.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tinygpt/checkpoint.h"
#include "tinygpt/config.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/estimate.h"
#include "tinygpt/hidden.h"
#include "tinygpt/safetensors.h"
#include "tinygpt/share.h"
#include "tinygpt/tokenizer.h"
#include "tinygpt/trainer.h"
#include "tinygpt/watch.h"

using namespace tinygpt;

namespace {

// A text of words that repeat (so that a few hundred merges are learnable), 24 kB: some English,
// and 120 made-up words of one to three syllables.
const std::vector<uint8_t>& text() {
  static const std::vector<uint8_t> t = [] {
    std::vector<std::string> words = {"the", "king", "and", "queen", "of", "hearts", "sang", "low,", "lower", "lowest.\n"};
    const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vi", "do", "pe", "gu", "zo"};
    data::Rng rng(5);
    for (int w = 0; w < 120; w++) {
      std::string word;
      for (uint64_t k = 0, n = 1 + rng.below(3); k < n; k++) word += syllables[rng.below(12)];
      words.push_back(word);
    }
    std::string s;
    while (s.size() < 24000) s += words[size_t(rng.below(words.size()))] + " ";
    return std::vector<uint8_t>(s.begin(), s.end());
  }();
  return t;
}

std::shared_ptr<const tok::Tokenizer> tokenizer(int vocab) {
  const data::MemorySource src(text());
  return std::make_shared<const tok::Tokenizer>(*tok::train_bpe(src, vocab));
}

Config bpe_config(ModelKind kind, int vocab) {
  Config c;
  c.model = kind;
  c.tokenizer = TokenizerKind::bpe;
  c.vocab_size = vocab;
  c.n_layer = 1, c.n_enc_layer = 1, c.n_dec_layer = 1, c.n_head = 2, c.n_embd = 16, c.n_hidden = 16, c.d_ff = 32;
  c.block_size = 16, c.batch_size = 4, c.max_iters = 20, c.warmup_iters = 2, c.eval_iters = 2, c.seed = 3;
  return c;
}

const model::ParamInfo& param(const train::Trainer& t, const std::string& name) {
  for (const model::ParamInfo& p : t.param_table())
    if (p.name == name) return p;
  FAIL("no parameter " << name);
  throw;
}

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return "(nothing thrown)";
}

// The checkpoint with its CRC-32 written again after a change.
void fix_checksum(std::vector<uint8_t>& b) {
  const uint32_t c = ckpt::crc32(b.data(), b.size() - 4);
  for (int i = 0; i < 4; i++) b[b.size() - 4 + size_t(i)] = uint8_t(c >> (8 * i));
}

}  // namespace

TEST_CASE("a BPE model's embedding and head have vocab_size rows, for every model kind", "[tokenizer][model]") {
  const int V = 300, C = 16, H = 16;
  for (ModelKind kind : {ModelKind::gpt, ModelKind::rnn, ModelKind::gru, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    const Config c = bpe_config(kind, V);
    train::Trainer t(c);
    CHECK(param(t, "wte").shape.numel() == int64_t(V) * C);
    CHECK(param(t, "lm_head.bias").shape.numel() == V);
    CHECK(t.num_parameters() == num_parameters(c));
    // 44 more tokens than bytes: 44 rows of wte (C = E = 16), 44 columns of the head (C = H = 16)
    // and 44 biases, by hand
    Config bytes = c;
    bytes.tokenizer = TokenizerKind::bytes, bytes.vocab_size = 256;
    CHECK(num_parameters(c) - num_parameters(bytes) == 44 * (C + H + 1));
  }
  // the translators share one vocabulary between source and target, and add BOS, EOS, PAD: V + 3
  for (ModelKind kind : {ModelKind::seq2seq, ModelKind::lstm_seq2seq}) {
    INFO(model_kind_name(kind));
    const Config c = bpe_config(kind, V);
    CHECK(model_vocab(c) == V + 3);
    train::Trainer t(c);
    CHECK(param(t, "proj.bias").shape.numel() == V + 3);
    CHECK(t.num_parameters() == num_parameters(c));
    Config bytes = c;
    bytes.tokenizer = TokenizerKind::bytes, bytes.vocab_size = 256;
    CHECK(model_vocab(bytes) == data::kPairVocab);
    // source and target embeddings (2 x 44 rows of E = 16), the projection's 44 columns of 16 (or H = 16) and 44 biases
    CHECK(num_parameters(c) - num_parameters(bytes) == 44 * (2 * 16 + 16 + 1));
  }
}

TEST_CASE("the config refuses a vocabulary that does not fit its tokenizer", "[tokenizer][config]") {
  Config c;
  c.vocab_size = 1024;  // tokenizer bytes
  REQUIRE(!config_problems(c).empty());
  CHECK(config_problems(c).front().code == "config.bytes_vocab");
  c.tokenizer = TokenizerKind::bpe;
  CHECK(config_problems(c).empty());
  c.vocab_size = 256;
  REQUIRE(!config_problems(c).empty());
  CHECK(config_problems(c).front().code == "config.bpe_vocab");
  c.vocab_size = 65537;
  CHECK(config_problems(c).front().code == "config.range");
  CHECK(field_text(Config{}, field("tokenizer")) == "bytes");
}

TEST_CASE("bits per byte is nats per token times tokens per byte over ln 2, worked by hand", "[tokenizer][trainer]") {
  // 2 nats per token on a text of 10 bytes in 4 tokens: 2 x 0.4 / ln 2 = 1.1541560327 bits per byte
  CHECK(train::bits_per_byte(2.0, 0.4) == Approx(1.1541560327).epsilon(1e-10));
  // bytes: a byte is a token, bits per byte is nats / ln 2
  CHECK(train::bits_per_byte(std::log(256.0), 1.0) == Approx(8.0).epsilon(1e-12));

  // the trainer measures tokens per byte on the validation split: its tokens over their bytes
  auto tok = tokenizer(300);
  train::Trainer t(bpe_config(ModelKind::gpt, 300));
  CHECK(t.tokens_per_byte() == 0.0);  // no corpus yet
  t.set_tokenizer(tok);
  t.set_corpus(text());
  const std::vector<int32_t> ids = tok->encode(std::string(text().begin(), text().end()));
  const size_t val_begin = ids.size() - size_t(double(ids.size()) * 0.1);
  uint64_t bytes = 0;
  for (size_t i = val_begin; i < ids.size(); i++) bytes += tok->token_bytes(ids[i]).size();
  CHECK(t.corpus_size() == ids.size());
  CHECK(t.tokens_per_byte() == Approx(double(ids.size() - val_begin) / double(bytes)).epsilon(1e-12));
  CHECK(t.tokens_per_byte() < 0.5);  // a vocabulary of 300 on these words: more than two bytes a token
  const train::ValPoint v = t.evaluate();
  CHECK(v.bits_per_byte == Approx(v.loss * t.tokens_per_byte() / std::log(2.0)).epsilon(1e-6));
  // a fresh model guesses about uniformly over the 300 tokens: ln 300 nats per token
  CHECK(v.loss == Approx(std::log(300.0)).margin(0.1));

  // bytes: one token per byte, whatever the text
  Config bc = bpe_config(ModelKind::gpt, 256);
  bc.tokenizer = TokenizerKind::bytes;
  train::Trainer by(bc);
  by.set_corpus(text());
  CHECK(by.tokens_per_byte() == 1.0);
  CHECK(by.bits_per_byte(std::log(2.0)) == Approx(1.0));
}

TEST_CASE("a BPE run reads text only through its tokenizer, and only through one that fits", "[tokenizer][trainer]") {
  train::Trainer t(bpe_config(ModelKind::gpt, 300));
  CHECK(code_of([&] { t.set_corpus(text()); }) == "tokenizer.missing");
  CHECK(code_of([&] { t.generate("the", 3, {}); }) == "tokenizer.missing");
  CHECK(code_of([&] { t.set_tokenizer(tokenizer(299)); }) == "tokenizer.config_mismatch");
  Config bytes;
  train::Trainer b(bytes);
  CHECK(code_of([&] { b.set_tokenizer(tokenizer(300)); }) == "tokenizer.config_mismatch");
  // a corpus given before the tokenizer is read again through it
  t.set_tokenizer(tokenizer(300));
  t.set_corpus(text());
  const uint64_t tokens = t.corpus_size();
  t.set_tokenizer(tokenizer(300));
  CHECK(t.corpus_size() == tokens);
  CHECK(tokens < text().size() / 2);
}

TEST_CASE("a BPE model generates and inspects token ids, labelled by the tokenizer", "[tokenizer][sample]") {
  for (ModelKind kind : {ModelKind::gpt, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    auto tok = tokenizer(320);
    train::Trainer t(bpe_config(kind, 320));
    t.set_tokenizer(tok);
    t.set_corpus(text());
    for (int i = 0; i < 5; i++) t.step();
    sample::Options o;
    o.seed = 9;
    o.top_k = 300;  // top-k reaches past the bytes
    const std::vector<sample::Token> out = t.generate("the king", 12, o);
    REQUIRE(out.size() == 12);
    bool merged = false;
    for (const sample::Token& s : out) {
      CHECK(s.id >= 0);
      CHECK(s.id < 320);
      CHECK(s.top_ids[0] < 320);
      merged = merged || s.id >= 256;
      CHECK(t.token_bytes(s.id) == tok->token_bytes(s.id));
    }
    CHECK(merged);  // trained on words, it writes merged tokens
    o.top_k = 321;
    CHECK(code_of([&] { t.generate("x", 1, o); }) == "sample.top_k");
    const std::string prompt = "the queen of hearts sang lower ";
    const train::Inspection r = t.inspect(reinterpret_cast<const uint8_t*>(prompt.data()), prompt.size());
    const std::vector<int32_t> all = tok->encode(prompt);  // 17 tokens: the last block_size = 16 are read
    REQUIRE(all.size() == 17);
    CHECK(r.tokens == std::vector<int32_t>(all.begin() + 1, all.end()));
    CHECK(r.T == 16);
    CHECK(r.probs.size() == size_t(r.T) * 320);
    CHECK(t.token_text(r.tokens[0]) == tok->token_text(r.tokens[0]));
  }
}

TEST_CASE("a BPE run's checkpoint carries its tokenizer and resumes bit for bit", "[tokenizer][checkpoint]") {
  auto tok = tokenizer(300);
  train::Trainer a(bpe_config(ModelKind::gpt, 300));
  a.set_tokenizer(tok);
  a.set_corpus(text());
  for (int i = 0; i < 4; i++) a.step();
  a.evaluate();
  const std::vector<uint8_t> bytes = a.save();
  const ckpt::Summary s = ckpt::describe(bytes.data(), bytes.size());
  CHECK(s.tokenizer_fingerprint == tok->fingerprint());
  CHECK(s.tokens_per_byte == a.tokens_per_byte());
  auto b = train::Trainer::load(bytes.data(), bytes.size());
  REQUIRE(b->tokenizer());
  CHECK(b->tokenizer()->fingerprint() == tok->fingerprint());
  CHECK(b->tokenizer()->merges()[0].count == tok->merges()[0].count);  // the compact form keeps the counts
  CHECK(b->tokens_per_byte() == a.tokens_per_byte());
  CHECK(b->val_losses().back().bits_per_byte == a.val_losses().back().bits_per_byte);  // known before any corpus
  b->set_corpus(text());
  CHECK(b->corpus_matches_checkpoint());
  for (int i = 0; i < 3; i++) CHECK(a.step() == b->step());
  CHECK(std::memcmp(a.params(), b->params(), size_t(a.num_parameters()) * sizeof(float)) == 0);
}

TEST_CASE("a checkpoint whose tokenizer is missing or damaged is refused with what is wrong", "[tokenizer][checkpoint]") {
  train::Trainer a(bpe_config(ModelKind::gpt, 300));
  a.set_tokenizer(tokenizer(300));
  a.set_corpus(text());
  a.step();
  const std::vector<uint8_t> good = a.save();
  // the section renamed (a file without it): the run cannot read text
  std::vector<uint8_t> missing = good;
  const std::string name = "\x09tokenizerb";  // its entry: length, name, dtype
  auto at = std::search(missing.begin(), missing.end(), name.begin(), name.end());
  REQUIRE(at != missing.end());
  at[9] = 'X';  // "tokenizeX": a section this build does not know is skipped
  fix_checksum(missing);
  CHECK(code_of([&] { train::Trainer::load(missing.data(), missing.size()); }) == "checkpoint.tokenizer_missing");
  CHECK(code_of([&] { ckpt::describe(missing.data(), missing.size()); }) == "checkpoint.tokenizer_missing");
  // a byte of the tokenizer flipped, the file's checksum made right: the tokenizer's own checksum tells
  std::vector<uint8_t> damaged = good;
  const std::string magic = "TGPTTOKN";
  auto blob = std::search(damaged.begin(), damaged.end(), magic.begin(), magic.end());
  REQUIRE(blob != damaged.end());
  blob[60] ^= 0x10;
  fix_checksum(damaged);
  CHECK(code_of([&] { train::Trainer::load(damaged.data(), damaged.size()); }) == "checkpoint.tokenizer_damaged");
  // without the fix the file's own checksum refuses it first
  std::vector<uint8_t> flipped = good;
  std::search(flipped.begin(), flipped.end(), magic.begin(), magic.end())[60] ^= 0x10;
  CHECK(code_of([&] { train::Trainer::load(flipped.data(), flipped.size()); }) == "checkpoint.corrupt");
  // a bytes run with a tokenizer section is inconsistent
  Config bc = bpe_config(ModelKind::gpt, 256);
  bc.tokenizer = TokenizerKind::bytes;
  train::Trainer by(bc);
  std::vector<uint8_t> plain = by.save();
  CHECK(ckpt::describe(plain.data(), plain.size()).tokenizer_fingerprint == 0);
}

TEST_CASE("a BPE model file carries tokenizer.json and starts a run with it", "[tokenizer][safetensors]") {
  auto tok = tokenizer(300);
  train::Trainer a(bpe_config(ModelKind::gpt, 300));
  a.set_tokenizer(tok);
  a.set_corpus(text());
  a.step();
  const std::vector<uint8_t> file = safetensors::export_model(a);
  const safetensors::File f = safetensors::parse(file.data(), file.size());
  REQUIRE(f.metadata.count(safetensors::kTokenizerKey));
  CHECK(f.metadata.at("tokenizer") == "bpe");
  CHECK(f.metadata.at("vocab_size") == "300");
  auto b = safetensors::start_run(f, safetensors::config_from_metadata(f.metadata));
  REQUIRE(b->tokenizer());
  CHECK(b->tokenizer()->fingerprint() == tok->fingerprint());
  // without its tokenizer.json the file cannot start a run that reads text
  safetensors::File no_tok = f;
  no_tok.metadata.erase(safetensors::kTokenizerKey);
  CHECK(code_of([&] { safetensors::start_run(no_tok, safetensors::config_from_metadata(no_tok.metadata)); }) ==
        "safetensors.tokenizer_missing");
  no_tok.metadata[safetensors::kTokenizerKey] = "{\"model\": 3}";
  CHECK(code_of([&] { safetensors::start_run(no_tok, safetensors::config_from_metadata(no_tok.metadata)); }) ==
        "tokenizer.bad_json");
}

TEST_CASE("the translators read BPE pairs: BOS, EOS and PAD follow the text tokens", "[tokenizer][seq2seq]") {
  // pairs of words and their reverse, as a TSV
  std::string tsv;
  data::Rng rng(2);
  const char* words[] = {"king", "queen", "hearts", "lower", "lowest", "the", "and", "sang"};
  for (int i = 0; i < 300; i++) {
    std::string s = std::string(words[rng.below(8)]) + " " + words[rng.below(8)];
    tsv += s + "\t" + std::string(s.rbegin(), s.rend()) + "\n";
  }
  const std::vector<uint8_t> bytes(tsv.begin(), tsv.end());
  const data::MemorySource src(bytes);
  auto tok = std::make_shared<const tok::Tokenizer>(*tok::train_bpe(src, 280));
  for (ModelKind kind : {ModelKind::seq2seq, ModelKind::lstm_seq2seq}) {
    INFO(model_kind_name(kind));
    train::Trainer t(bpe_config(kind, 280));
    t.set_tokenizer(tok);
    t.set_corpus(bytes);
    const data::PairDataset& d = t.pairs();
    CHECK(d.tokens().bos() == 280);
    CHECK(d.tokens().eos() == tok->special_id(tok::Special::eos));
    CHECK(d.tokens().pad() == tok->special_id(tok::Special::pad));
    CHECK(d.source_tokens(0) == tok->encode(d.source(0)));
    data::PairBatch batch;
    d.val_batch(0, 2, batch);
    CHECK(batch.tgt_in[0] == 280);  // BOS
    const std::vector<int32_t>& tgt = d.target_tokens(d.val_index(0));
    CHECK(batch.tgt_out[tgt.size()] == 281);  // EOS after the target's tokens
    for (int i = 0; i < 3; i++) t.step();
    const train::ValPoint v = t.evaluate();
    CHECK(std::isfinite(v.bits_per_byte));
    // tokens per byte of the held-out targets, each with its EOS
    uint64_t n_tok = 0, n_bytes = 0;
    for (size_t k = 0; k < d.val_size(); k++) n_tok += d.target_tokens(d.val_index(k)).size() + 1, n_bytes += d.target(d.val_index(k)).size();
    CHECK(t.tokens_per_byte() == Approx(double(n_tok) / double(n_bytes)));
    const sample::Translation out = t.translate("king and", {});
    CHECK(out.text == tok->decode(out.tokens));
    for (int32_t id : out.tokens) CHECK(id < 280);
    const train::TranslationInspection r = t.inspect_translation("king and", "dna gnik");
    CHECK(r.src == tok->encode("king and"));
    CHECK(r.tgt_in[0] == 280);
    CHECK(r.probs.size() == size_t(r.T) * 283);
  }
}

TEST_CASE("entropy baselines of BPE tokens count pairs sparsely, as the dense count does on bytes", "[tokenizer][watch]") {
  const std::vector<uint8_t> t = text();
  const std::vector<int32_t> ids(t.begin(), t.end());
  const watch::Baselines dense = watch::entropy_baselines(t.data(), t.size());
  const watch::Baselines sparse = watch::token_baselines(ids.data(), ids.size());
  CHECK(sparse.unigram == Approx(dense.unigram).epsilon(1e-12));
  CHECK(sparse.bigram == Approx(dense.bigram).epsilon(1e-12));
  CHECK(sparse.distinct == dense.distinct);
  // by hand: a b a b -> unigram ln 2; bigram: a is always followed by b, b by a: 0
  const std::vector<int32_t> abab = {700, 9000, 700, 9000};
  const watch::Baselines h = watch::token_baselines(abab.data(), abab.size());
  CHECK(h.unigram == Approx(std::log(2.0)));
  CHECK(h.bigram == Approx(0.0).margin(1e-15));
  CHECK(h.distinct == 2);
  // a BPE run's baselines are of its tokens, with its tokens per byte
  train::Trainer r(bpe_config(ModelKind::gpt, 300));
  r.set_tokenizer(tokenizer(300));
  r.set_corpus(t);
  const watch::Baselines b = r.baselines();
  CHECK(b.tokens_per_byte == r.tokens_per_byte());
  std::vector<int32_t> train(size_t(r.dataset().train_size()));
  r.dataset().read(0, train.size(), train.data());
  const watch::Baselines direct = watch::token_baselines(train.data(), train.size());
  CHECK(b.tokens == train.size());
  CHECK(b.distinct == direct.distinct);
  CHECK(b.unigram == Approx(direct.unigram).epsilon(1e-12));
  CHECK(b.bigram == Approx(direct.bigram).epsilon(1e-12));
  bool merged = false;
  for (int32_t id : train) merged = merged || id >= 256;
  CHECK(merged);
}

TEST_CASE("a pre-flight of a BPE config knows the text's tokens per byte", "[tokenizer][estimate]") {
  const Config c = bpe_config(ModelKind::gpt, 300);
  // with the run's tokenizer: its tokens per byte on the validation split, and bytes per second from it
  auto tok = tokenizer(300);
  const Preflight p = preflight(c, text().data(), text().size(), 50.0, kDefaultMemoryLimit, tok);
  train::Trainer t(c);
  t.set_tokenizer(tok);
  t.set_corpus(text());
  CHECK(p.tokens_per_byte == t.tokens_per_byte());
  CHECK(p.bytes_per_s == Approx(p.tokens_per_s / p.tokens_per_byte));
  CHECK(p.bytes_per_s > p.tokens_per_s);  // a token holds more than a byte
  // without one, a stand-in learned from the text's beginning (here: all of it, the same vocabulary)
  const Preflight q = preflight(c, text().data(), text().size(), 50.0);
  CHECK(q.tokens_per_byte == p.tokens_per_byte);
  // bytes: a byte a token
  Config b = c;
  b.tokenizer = TokenizerKind::bytes, b.vocab_size = 256;
  CHECK(preflight(b, text().data(), text().size(), 20.0).tokens_per_byte == 1.0);
}

TEST_CASE("a BPE run's link carries its tokenizer and its replay check speaks in bits per byte", "[tokenizer][share]") {
  auto tok = tokenizer(300);
  train::Trainer t(bpe_config(ModelKind::gpt, 300));
  t.set_tokenizer(tok);
  t.set_corpus(text());
  for (int i = 0; i < 3; i++) t.step();
  share::Link made{t.config(), share::build_variant(), {}, t.train_losses(), tok->fingerprint(), t.tokens_per_byte()};
  made.corpus.fingerprint = 1, made.corpus.size = text().size();
  const share::Link link = share::parse_link(share::make_link(made, "https://x/"));
  CHECK(link.config.tokenizer == TokenizerKind::bpe);
  CHECK(link.config.vocab_size == 300);
  CHECK(link.tokenizer == tok->fingerprint());
  CHECK(link.tokens_per_byte == Approx(t.tokens_per_byte()).epsilon(1e-8));
  CHECK(share::check_tokenizer(link, tok->fingerprint()).text.empty());
  CHECK(share::check_tokenizer(link, tokenizer(299)->fingerprint()).code == "share.other_tokenizer");
  // the same losses match; another one differs, said in bits per byte: loss x tokens per byte / ln 2
  std::vector<float> losses = t.train_losses();
  CHECK(share::check_replay(link, losses.data(), losses.size(), share::build_variant()).status == share::Replay::matches);
  losses[1] += 0.25f;
  const share::Replay r = share::check_replay(link, losses.data(), losses.size(), share::build_variant());
  CHECK(r.code == "replay.diverged_bpb");
  CHECK(r.diverged_at == 2);
  CHECK(r.run_bpb == Approx(losses[1] * link.tokens_per_byte / std::log(2.0)));
  CHECK(r.run_bpb - r.link_bpb == Approx(0.25 * link.tokens_per_byte / std::log(2.0)).epsilon(1e-4));
  // a link whose settings say bpe without its tokenizer is refused
  std::string url = share::make_link(made, "https://x/");
  url = url.substr(0, url.find("&tok="));
  CHECK(code_of([&] { share::parse_link(url); }) == "share.bad_tokenizer");
}

TEST_CASE("the hidden-state view reads a BPE model's tokens, each labelled by its bytes' place in the text", "[tokenizer][hidden]") {
  for (ModelKind kind : {ModelKind::lstm, ModelKind::gru}) {
    INFO(model_kind_name(kind));
    auto tok = tokenizer(320);
    train::Trainer t(bpe_config(kind, 320));
    t.set_tokenizer(tok);
    t.set_corpus(text());
    for (int i = 0; i < 3; i++) t.step();
    // longer than block_size tokens: windows carried over, as generation does
    const std::string s = "the \"king\" and queen of hearts sang low, lower, \"lowest\".\nthe kalo queen sang";
    const hidden::Trace tr = t.trace_hidden(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    const std::vector<int32_t> ids = tok->encode(s);
    REQUIRE(tr.T == int(ids.size()));
    CHECK(tr.T < int(s.size()) * 3 / 4);  // merges made: fewer positions than bytes (46 of 77 at 64 merges)
    CHECK(tr.tokens == ids);
    REQUIRE(tr.ends.size() == ids.size());
    for (size_t k = 0; k < ids.size(); k++) {
      const size_t from = k ? size_t(tr.ends[k - 1]) : 0;
      CHECK(s.substr(from, size_t(tr.ends[k]) - from) == tok->token_bytes(ids[k]));
    }
    CHECK(tr.ends.back() == int(s.size()));
    CHECK(tr.h.size() == size_t(tr.L) * tr.T * tr.H);
    // a token's pattern value is the byte pattern's at its last byte
    const std::vector<float> bytes = hidden::signal("quote", reinterpret_cast<const uint8_t*>(s.data()), s.size());
    const std::vector<float> per = hidden::token_signal(bytes, tr.ends);
    REQUIRE(per.size() == ids.size());
    for (size_t k = 0; k < ids.size(); k++) CHECK(per[k] == bytes[size_t(tr.ends[k]) - 1]);
    CHECK(!hidden::search_units(tr, per, 3).empty());
    // a byte model's trace: one position per byte, ends t + 1
    train::Trainer b([&] {
      Config c = bpe_config(kind, 256);
      c.tokenizer = TokenizerKind::bytes;
      return c;
    }());
    b.set_corpus(text());
    const hidden::Trace bt = b.trace_hidden(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    REQUIRE(bt.T == int(s.size()));
    CHECK(bt.ends.back() == int(s.size()));
    CHECK(bt.tokens[4] == int32_t(uint8_t(s[4])));
    CHECK(hidden::token_signal(bytes, bt.ends) == bytes);
  }
}

TEST_CASE("a BPE language model keeps a history in tokens: probe, map and losses, through a checkpoint", "[tokenizer][watch]") {
  for (ModelKind kind : {ModelKind::gpt, ModelKind::lstm}) {
    INFO(model_kind_name(kind));
    auto tok = tokenizer(320);
    train::Trainer t(bpe_config(kind, 320));
    t.set_tokenizer(tok);
    t.set_corpus(text());
    t.start_history();
    const watch::History& h = t.history();
    REQUIRE(h.enabled());
    REQUIRE(!h.tokens().empty());
    const watch::Layout& l = h.layout();
    CHECK(l.T == 16);  // min(kMaxProbe, block_size) tokens of the validation split
    const std::vector<int32_t> probe = h.probe_tokens(), map = h.map_tokens();
    REQUIRE(int(probe.size()) == l.T);
    REQUIRE(int(map.size()) == l.N);
    CHECK(l.N > 64);  // merged tokens among the map's rows
    CHECK(l.N <= watch::kMapTokens);
    CHECK(std::is_sorted(map.begin(), map.end()));
    CHECK(std::any_of(map.begin(), map.end(), [](int32_t id) { return id >= 256; }));
    // the probe's text is its tokens' bytes, and encodes back to them (it starts on a line)
    CHECK(std::string(h.probe().begin(), h.probe().end()) == tok->decode(probe));
    for (const int32_t id : probe) CHECK((id >= 0 && id < 320));
    // a given probe is encoded by the run's tokenizer
    const std::string given = "the king sang low, lower";
    const std::vector<uint8_t> given_bytes(given.begin(), given.end());
    t.start_history(given_bytes);
    const std::vector<int32_t> ids = tok->encode(given);
    REQUIRE(t.history().probe_tokens() == ids);
    for (int i = 0; i < 3; i++) t.step();
    t.record_snapshot();
    t.step();
    t.record_snapshot();
    REQUIRE(h.snapshots().size() == 2);
    const watch::Snapshot& s = h.snapshots().back();
    const int T = int(ids.size());
    CHECK(s.embedding.size() == size_t(h.layout().N) * 2);
    REQUIRE(s.probe_loss.size() == size_t(T));
    CHECK(std::isnan(s.probe_loss[0]));
    // the probe's loss at t is -ln p(token t | tokens before), over the model's whole vocabulary
    const train::Inspection in = t.inspect(given_bytes.data(), given_bytes.size());
    REQUIRE(in.tokens == ids);
    const size_t V = in.probs.size() / size_t(in.T);
    for (int k = 1; k < T; k++) {
      const float p = in.probs[size_t(k - 1) * V + size_t(ids[size_t(k)])];
      CHECK(s.probe_loss[size_t(k)] == Approx(-std::log(p)).margin(1e-4));
    }
    // through a checkpoint (format 2: history.tokens) unchanged
    const std::vector<uint8_t> file = ckpt::serialize(t);
    auto back = ckpt::deserialize(file.data(), file.size(), int64_t(1) << 30);
    const watch::History& r = back->history();
    CHECK(r.tokens() == h.tokens());
    CHECK(r.probe() == h.probe());
    CHECK(r.layout() == h.layout());
    const std::vector<float>& rl = r.snapshots().back().probe_loss;
    CHECK(std::vector<float>(rl.begin() + 1, rl.end()) == std::vector<float>(s.probe_loss.begin() + 1, s.probe_loss.end()));  // 0: NaN
    CHECK(r.pack().meta[0] == 2);
  }
  // a byte run's history stays format 1, without tokens
  Config bytes = bpe_config(ModelKind::gpt, 256);
  bytes.tokenizer = TokenizerKind::bytes;
  train::Trainer b(bytes);
  b.set_corpus(text());
  b.start_history();
  CHECK(b.history().tokens().empty());
  CHECK(b.history().pack().meta[0] == 1);
  CHECK(b.history().map_tokens().size() == b.history().bytes().size());
}
