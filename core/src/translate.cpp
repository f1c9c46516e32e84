// translate.cpp — greedy, sampled and beam-search decoding for the translators (model::Seq2Seq,
// model::LstmSeq2Seq: the same code over their decoding caches), and evaluation.
#include "tinygpt/translate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tinygpt/error.h"
#include "tinygpt/rng.h"
#include "tinygpt/tokenizer.h"

namespace tinygpt::sample {

using tinygpt::Error;

namespace {

// The decoder's tokens: text tokens 0 .. V_text-1 (bytes, or a BPE vocabulary), then BOS, EOS, PAD
// (pairs.h: PairTokens); an output's text is its tokens' bytes.
struct Vocab {
  int V = data::kPairVocab;  // the model's vocabulary: text tokens + BOS, EOS, PAD
  data::PairTokens ids;
  const tok::Tokenizer* tokenizer = nullptr;
  // The tokens an output may contain: the text tokens and EOS.
  bool allowed(int v) const { return v < ids.text || v == ids.eos(); }
  void append(std::string& text, int v) const {
    if (tokenizer) text += tokenizer->token_bytes(v);
    else text.push_back(char(uint8_t(v)));
  }
};

template <class M>
Vocab vocab_of(const M& m, const tok::Tokenizer* tokenizer) {
  Vocab v;
  v.V = m.dims().vocab_size;
  v.ids = m.dims().tokens();
  v.tokenizer = tokenizer;
  if (tokenizer && tokenizer->vocab_size() != v.ids.text)
    throw Error(coded("tokenizer.model_mismatch", {{"tokens", std::to_string(tokenizer->vocab_size())}, {"vocab", std::to_string(v.ids.text)}},
                      "the tokenizer has " + std::to_string(tokenizer->vocab_size()) + " tokens, the model's vocabulary " +
                          std::to_string(v.ids.text)));
  if (!tokenizer && v.ids.text != 256) throw Error("internal: a BPE translator decodes with its tokenizer");
  return v;
}

// logp (V) = log softmax(logits) over the allowed tokens (-inf elsewhere), in double
void log_softmax_allowed(const Vocab& voc, double* logp, const float* logits) {
  const int V = voc.V;
  double maxv = -INFINITY;
  for (int v = 0; v < V; v++)
    if (voc.allowed(v)) maxv = std::max(maxv, double(logits[v]));
  double sum = 0.0;
  for (int v = 0; v < V; v++)
    if (voc.allowed(v)) sum += std::exp(double(logits[v]) - maxv);
  const double lse = maxv + std::log(sum);
  for (int v = 0; v < V; v++) logp[v] = voc.allowed(v) ? double(logits[v]) - lse : -INFINITY;
}

// the most likely allowed token (ties: the lower token)
int argmax_allowed(const Vocab& voc, const double* logp) {
  int best = 0;
  for (int v = 1; v < voc.V; v++)
    if (logp[v] > logp[best]) best = v;
  return best;
}

// a token drawn from softmax(logp / temperature) restricted to the top_k most likely
int sample_allowed(const Vocab& voc, const double* logp, float temperature, int top_k, data::Rng& rng) {
  std::vector<int> order;
  order.reserve(size_t(voc.V));
  for (int v = 0; v < voc.V; v++)
    if (voc.allowed(v)) order.push_back(v);
  int n = int(order.size());
  std::sort(order.begin(), order.end(), [&](int a, int b) { return logp[a] != logp[b] ? logp[a] > logp[b] : a < b; });
  if (top_k > 0 && top_k < n) n = top_k;
  std::vector<double> w(static_cast<size_t>(n));
  double total = 0.0;
  for (int i = 0; i < n; i++) total += w[size_t(i)] = std::exp((logp[order[size_t(i)]] - logp[order[0]]) / temperature);
  double r = rng.uniform() * total;
  for (int i = 0; i < n; i++) {
    r -= w[size_t(i)];
    if (r < 0.0) return order[size_t(i)];
  }
  return order[size_t(n - 1)];
}

std::vector<int32_t> source_tokens(const std::string& source, int block_size, const tok::Tokenizer* tokenizer) {
  if (source.empty()) throw Error(coded("translate.empty", {}, "translate: the source is empty"));
  std::vector<int32_t> ids = data::text_tokens(source, tokenizer);
  if (ids.size() > size_t(block_size))
    throw Error(coded("translate.source_long", {{"bytes", std::to_string(ids.size())}, {"limit", std::to_string(block_size)}},
                      "translate: the source has " + std::to_string(ids.size()) + (tokenizer ? " tokens" : " bytes") +
                          "; this model reads at most " + std::to_string(block_size)));
  return ids;
}

double normalised(double log_prob, size_t tokens, float length_penalty) {
  return log_prob / std::pow(double(std::max<size_t>(tokens, 1)), double(length_penalty));
}

template <class M>
Translation beam_search(const M& m, const Vocab& voc, const std::vector<int32_t>& src, int max_len, int N, float length_penalty) {
  BeamSearch beam(voc.V, voc.ids, voc.tokenizer, src, max_len, N, length_penalty);
  typename M::Cache cache;
  m.start_decoding(cache, src.data(), int(src.size()), N, /*shared_source=*/true);
  while (true) {
    beam.advance(m.decode_step(cache, beam.next_tokens().data()));  // (N, V)
    if (beam.done()) break;
    m.reorder_rows(cache, beam.parent().data());
  }
  return beam.result();
}

}  // namespace

void TranslateOptions::validate(int block_size, int tokens) const {
  if (max_len < 0 || max_len > block_size - 1)
    throw Error(coded("translate.max_len", {{"max", std::to_string(block_size - 1)}},
                      "max_len must be between 0 (the model's limit) and " + std::to_string(block_size - 1)));
  if (beam < 1 || beam > 64) throw Error(coded("translate.beam", {}, "beam width must be between 1 and 64"));
  if (!(temperature >= 0.0f && temperature <= 100.0f))
    throw Error(coded("sample.temperature", {}, "temperature must be between 0 and 100"));
  if (temperature > 0.0f && beam > 1)
    throw Error(coded("translate.sampling_and_beam", {}, "sampling (temperature > 0) and beam search exclude each other"));
  if (top_k < 0 || top_k > tokens)
    throw Error(coded("sample.top_k", {{"max", std::to_string(tokens)}}, "top-k must be between 0 (off) and " + std::to_string(tokens)));
  if (!(length_penalty >= 0.0f && length_penalty <= 10.0f))
    throw Error(coded("translate.length_penalty", {}, "length penalty must be between 0 and 10"));
}

namespace {

template <class M>
Translation translate_impl(const M& m, const std::string& source, const TranslateOptions& o, const tok::Tokenizer* tokenizer) {
  const int block_size = m.dims().block_size;
  const Vocab voc = vocab_of(m, tokenizer);
  o.validate(block_size, voc.ids.text + 1);
  const std::vector<int32_t> src = source_tokens(source, block_size, tokenizer);
  const int max_len = o.max_len ? o.max_len : block_size - 1;
  if (o.beam > 1) return beam_search(m, voc, src, max_len, o.beam, o.length_penalty);

  // greedy or sampled: the one-row stepper (the one the GPU drives for sampling), on the KV cache
  typename M::Cache cache;
  m.start_decoding(cache, src.data(), int(src.size()), 1, false);
  BeamSearch one(voc.V, voc.ids, voc.tokenizer, src, max_len, o.temperature, o.top_k, o.seed);
  while (!one.done()) one.advance(m.decode_step(cache, one.next_tokens().data()));
  return one.result();
}

template <class M>
std::vector<Translation> translate_greedy_impl(const M& m, const std::vector<std::string>& sources, int max_len,
                                               const tok::Tokenizer* tokenizer) {
  const int block_size = m.dims().block_size;
  if (max_len < 0 || max_len > block_size - 1)
    throw Error(coded("translate.max_len", {{"max", std::to_string(block_size - 1)}},
                      "max_len must be between 0 (the model's limit) and " + std::to_string(block_size - 1)));
  if (max_len == 0) max_len = block_size - 1;
  const int R = int(sources.size());
  std::vector<Translation> out(sources.size());
  if (R == 0) return out;
  const Vocab voc = vocab_of(m, tokenizer);
  const int V = voc.V;
  int S = 0;
  std::vector<std::vector<int32_t>> ids;
  for (const std::string& s : sources) {
    ids.push_back(source_tokens(s, block_size, tokenizer));
    S = std::max(S, int(ids.back().size()));
  }
  std::vector<int32_t> src(size_t(R) * S, voc.ids.pad());
  for (int r = 0; r < R; r++) std::copy(ids[size_t(r)].begin(), ids[size_t(r)].end(), src.begin() + std::ptrdiff_t(size_t(r) * S));
  typename M::Cache cache;
  m.start_decoding(cache, src.data(), S, R, false);
  std::vector<int32_t> tokens(size_t(R), voc.ids.bos());
  std::vector<bool> done(size_t(R), false);
  std::vector<double> logp(static_cast<size_t>(V));
  int left = R;
  for (int step = 0; step <= max_len && left > 0; step++) {
    const float* logits = m.decode_step(cache, tokens.data());
    for (int r = 0; r < R; r++) {
      if (done[size_t(r)]) continue;
      Translation& t = out[size_t(r)];
      log_softmax_allowed(voc, logp.data(), logits + size_t(r) * V);
      const int v = argmax_allowed(voc, logp.data());
      if (step == max_len && v != voc.ids.eos()) {
        done[size_t(r)] = true, left--;
        continue;
      }
      t.probs.push_back(float(std::exp(logp[size_t(v)])));
      t.log_prob += logp[size_t(v)];
      t.score = t.log_prob;
      if (v == voc.ids.eos()) {
        t.finished = true;
        done[size_t(r)] = true, left--;
        continue;
      }
      voc.append(t.text, v);
      t.tokens.push_back(v);
      tokens[size_t(r)] = v;
    }
  }
  return out;
}

template <class M>
data::TranslationScore evaluate_impl(const M& m, const data::PairDataset& pairs, int max_pairs, const tok::Tokenizer* tokenizer) {
  const size_t n = max_pairs > 0 ? std::min(pairs.val_size(), size_t(max_pairs)) : pairs.val_size();
  constexpr size_t kRows = 64;  // sources decoded side by side
  data::TranslationScore score;
  std::vector<std::string> sources;
  for (size_t k0 = 0; k0 < n; k0 += kRows) {
    const size_t k1 = std::min(n, k0 + kRows);
    sources.clear();
    for (size_t k = k0; k < k1; k++) sources.push_back(pairs.source(pairs.val_index(k)));
    const std::vector<Translation> out = translate_greedy_impl(m, sources, 0, tokenizer);
    for (size_t k = k0; k < k1; k++) score.add(out[k - k0].text, pairs.target(pairs.val_index(k)));
  }
  return score;
}

}  // namespace

BeamSearch::BeamSearch(int vocab_size, data::PairTokens ids, const tok::Tokenizer* tokenizer, std::vector<int32_t> src,
                       int max_len, int beam, float length_penalty)
    : V_(vocab_size), max_len_(max_len), length_penalty_(length_penalty), ids_(ids), tokenizer_(tokenizer), src_(std::move(src)) {
  if (beam < 2) throw Error("BeamSearch: a beam of at least 2 (1 is greedy decoding)");
  start(beam);
}

// `rows` rows, each starting with BOS; only the first is a real hypothesis yet
void BeamSearch::start(int rows) {
  alive_.assign(size_t(rows), Translation{});
  score_.assign(size_t(rows), -INFINITY);
  score_[0] = 0.0;
  tokens_.assign(size_t(rows), ids_.bos());
  parent_.assign(size_t(rows), 0);
}

BeamSearch::BeamSearch(int vocab_size, data::PairTokens ids, const tok::Tokenizer* tokenizer, std::vector<int32_t> src,
                       int max_len, float temperature, int top_k, uint64_t seed)
    : V_(vocab_size), max_len_(max_len), one_row_(true), temperature_(temperature), top_k_(top_k), rng_(seed), ids_(ids),
      tokenizer_(tokenizer), src_(std::move(src)) {
  if (!(temperature >= 0.0f)) throw Error("BeamSearch: the temperature must be >= 0");
  start(1);
}

namespace {
// the stepper translate() would run for these options: the sampled decoding or the beam search
BeamSearch stepper(int V, data::PairTokens ids, const tok::Tokenizer* tokenizer, std::vector<int32_t> src, int max_len,
                   const TranslateOptions& o) {
  if (o.temperature > 0.0f) return BeamSearch(V, ids, tokenizer, std::move(src), max_len, o.temperature, o.top_k, o.seed);
  return BeamSearch(V, ids, tokenizer, std::move(src), max_len, o.beam, o.length_penalty);
}
}  // namespace

BeamSearch::BeamSearch(const model::Seq2Seq& m, const std::string& source, const TranslateOptions& o,
                       const tok::Tokenizer* tokenizer)
    : BeamSearch(stepper(vocab_of(m, tokenizer).V, m.dims().tokens(), tokenizer,
                         (o.validate(m.dims().block_size, m.dims().tokens().text + 1), source_tokens(source, m.dims().block_size, tokenizer)),
                         o.max_len ? o.max_len : m.dims().block_size - 1, o)) {}

// One step of translate()'s greedy or sampled decoding: the most likely token, or one drawn from
// softmax(logp / temperature) over the top_k most likely; at max_len only EOS can still end the
// output (else it stays unfinished).
void BeamSearch::advance_one_row(const float* logits) {
  const Vocab voc{V_, ids_, tokenizer_};
  std::vector<double> logp(static_cast<size_t>(V_));
  log_softmax_allowed(voc, logp.data(), logits);
  const int v = temperature_ > 0.0f ? sample_allowed(voc, logp.data(), temperature_, top_k_, rng_) : argmax_allowed(voc, logp.data());
  Translation& t = alive_[0];
  const bool ends = v == voc.ids.eos();
  if (step_ < max_len_ || ends) {
    t.probs.push_back(float(std::exp(logp[size_t(v)])));
    t.log_prob += logp[size_t(v)];
  }
  if (ends || step_ == max_len_) {
    t.finished = ends;
    t.score = t.log_prob;
    ended_.push_back(t);
    done_ = true;
    return;
  }
  voc.append(t.text, v);
  t.tokens.push_back(v);
  tokens_[0] = v;
  step_++;
}

std::vector<int32_t> BeamSearch::history(int r) const {
  if (r < 0 || r >= rows() || score_[size_t(r)] == -INFINITY || done_) return {};
  std::vector<int32_t> h{ids_.bos()};
  h.insert(h.end(), alive_[size_t(r)].tokens.begin(), alive_[size_t(r)].tokens.end());
  return h;
}

// One step of the search: every live row may end here (with EOS), and the N best continuations by
// one token (ties: lower row, then lower token) make the next beam. It stops at max_len, when no
// continuation is left, or when no live output can beat the best ended one.
void BeamSearch::advance(const float* logits) {
  if (done_) throw Error("BeamSearch: the search is over");
  if (one_row_) return advance_one_row(logits);
  const Vocab voc{V_, ids_, tokenizer_};
  const int V = V_, N = rows();
  const size_t rows = size_t(N);
  std::vector<double> logp(rows * size_t(V));
  struct Candidate {
    double score;
    int row, token;
  };
  std::vector<Candidate> cands;
  // ends row r's output here: with EOS (its probability counted), or unfinished
  auto end_row = [&](int r, bool with_eos) {
    Translation t = alive_[size_t(r)];
    t.log_prob = score_[size_t(r)];
    if (with_eos) {
      const double lp_eos = logp[size_t(r) * V + voc.ids.eos()];
      t.probs.push_back(float(std::exp(lp_eos)));
      t.log_prob += lp_eos;
      t.finished = true;
    }
    t.score = normalised(t.log_prob, t.probs.size(), length_penalty_);
    ended_.push_back(std::move(t));
  };
  const int step = step_;
  for (int r = 0; r < N; r++) {
    if (score_[size_t(r)] == -INFINITY) continue;
    double* lp = &logp[size_t(r) * V];
    log_softmax_allowed(voc, lp, logits + size_t(r) * V);
    if (step == max_len_) {  // the last position: only EOS can end the output, if the model prefers it
      end_row(r, argmax_allowed(voc, lp) == voc.ids.eos());
      continue;
    }
    end_row(r, true);  // every hypothesis in the beam may end here
    for (int v = 0; v < voc.ids.text; v++) cands.push_back({score_[size_t(r)] + lp[v], r, v});
  }
  if (step == max_len_) {
    done_ = true;
    return;
  }
  const size_t keep = std::min(cands.size(), rows);
  std::partial_sort(cands.begin(), cands.begin() + std::ptrdiff_t(keep), cands.end(), [](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score > b.score : (a.row != b.row ? a.row < b.row : a.token < b.token);
  });
  const double longest = std::pow(double(max_len_ + 1), double(length_penalty_));
  std::vector<Translation> next(rows);
  double best_possible = -INFINITY;  // no hypothesis in the beam can score more than this when it ends
  for (size_t k = 0; k < rows; k++) {
    if (k < keep) {
      const Candidate& c = cands[k];
      Translation t = alive_[size_t(c.row)];
      t.probs.push_back(float(std::exp(logp[size_t(c.row) * V + c.token])));
      voc.append(t.text, c.token);
      t.tokens.push_back(c.token);
      next[k] = std::move(t);
      parent_[k] = c.row, tokens_[k] = c.token, score_[k] = c.score;
      // log p only falls as the output grows; the longest output divides it the most
      best_possible = std::max(best_possible, c.score / longest);
    } else {  // fewer candidates than rows: the rest stay empty
      parent_[k] = 0, tokens_[k] = voc.ids.eos(), score_[k] = -INFINITY;
    }
  }
  double best_ended = -INFINITY;
  for (const Translation& t : ended_) best_ended = std::max(best_ended, t.score);
  if (keep == 0 || best_ended >= best_possible) {
    done_ = true;
    return;
  }
  alive_.swap(next);
  step_++;
}

Translation BeamSearch::result() const {
  if (!done_ || ended_.empty()) throw Error("BeamSearch: the search is not over");
  // the best score; ties: the one that ended first
  return *std::max_element(ended_.begin(), ended_.end(), [](const Translation& a, const Translation& b) { return a.score < b.score; });
}

Translation translate(const model::Seq2Seq& m, const std::string& source, const TranslateOptions& o, const tok::Tokenizer* tokenizer) {
  return translate_impl(m, source, o, tokenizer);
}
Translation translate(const model::LstmSeq2Seq& m, const std::string& source, const TranslateOptions& o,
                      const tok::Tokenizer* tokenizer) {
  return translate_impl(m, source, o, tokenizer);
}
std::vector<int32_t> translation_source(const std::string& source, int block_size, const tok::Tokenizer* tokenizer) {
  return source_tokens(source, block_size, tokenizer);
}

Translation greedy_translation(const model::Seq2Seq& m, const std::vector<int32_t>& picks, const std::vector<float>& probs,
                               int max_len, const tok::Tokenizer* tokenizer) {
  const Vocab voc = vocab_of(m, tokenizer);
  if (max_len == 0) max_len = m.dims().block_size - 1;
  if (max_len < 0 || max_len > m.dims().block_size - 1 || picks.size() != probs.size() || picks.size() < size_t(max_len) + 1)
    throw Error("greedy_translation: " + std::to_string(picks.size()) + " steps do not cover max_len " + std::to_string(max_len));
  Translation t;
  for (int step = 0; step <= max_len; step++) {  // translate_impl's loop, the picks given
    const int v = picks[size_t(step)];
    if (!voc.allowed(v)) throw Error("greedy_translation: token " + std::to_string(v) + " cannot be in an output");
    if (step == max_len && v != voc.ids.eos()) break;
    t.probs.push_back(probs[size_t(step)]);
    t.log_prob += std::log(double(probs[size_t(step)]));
    if (v == voc.ids.eos()) {
      t.finished = true;
      break;
    }
    voc.append(t.text, v);
    t.tokens.push_back(v);
  }
  t.score = t.log_prob;
  return t;
}

std::vector<Translation> translate_greedy(const model::Seq2Seq& m, const std::vector<std::string>& sources, int max_len,
                                          const tok::Tokenizer* tokenizer) {
  return translate_greedy_impl(m, sources, max_len, tokenizer);
}
std::vector<Translation> translate_greedy(const model::LstmSeq2Seq& m, const std::vector<std::string>& sources,
                                          int max_len, const tok::Tokenizer* tokenizer) {
  return translate_greedy_impl(m, sources, max_len, tokenizer);
}
data::TranslationScore evaluate_translation(const model::Seq2Seq& m, const data::PairDataset& pairs, int max_pairs,
                                            const tok::Tokenizer* tokenizer) {
  return evaluate_impl(m, pairs, max_pairs, tokenizer);
}
data::TranslationScore evaluate_translation(const model::LstmSeq2Seq& m, const data::PairDataset& pairs, int max_pairs,
                                            const tok::Tokenizer* tokenizer) {
  return evaluate_impl(m, pairs, max_pairs, tokenizer);
}

}  // namespace tinygpt::sample
