// sample.cpp — sampling from logits and KV-cached generation.
#include "tinygpt/sample.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tinygpt/error.h"

namespace tinygpt::sample {

using tinygpt::Error;

void Options::validate(int block_size, int vocab) const {
  if (!(temperature >= 0.0f && temperature <= 100.0f)) throw Error(coded("sample.temperature", {}, "temperature must be between 0 and 100"));
  if (top_k < 0 || top_k > vocab)
    throw Error(coded("sample.top_k", {{"max", std::to_string(vocab)}}, "top-k must be between 0 (off) and " + std::to_string(vocab)));
  if (!(top_p > 0.0f && top_p <= 1.0f)) throw Error(coded("sample.top_p", {}, "top-p must be in (0, 1] (1 = off)"));
  if (window_keep < 0 || window_keep > block_size)
    throw Error(coded("sample.window_keep", {{"max", std::to_string(block_size)}},
                      "window_keep must be between 0 (default: half the context) and the context (" + std::to_string(block_size) + ")"));
}

namespace {
// probs (V) = softmax(logits / temperature), computed in double for stable sums
void softmax_t(float* probs, const float* logits, int V, float temperature) {
  float maxv = logits[0];
  for (int v = 1; v < V; v++) maxv = std::max(maxv, logits[v]);
  double sum = 0.0;
  for (int v = 0; v < V; v++) {
    probs[v] = float(std::exp(double(logits[v] - maxv) / temperature));
    sum += probs[v];
  }
  for (int v = 0; v < V; v++) probs[v] = float(probs[v] / sum);
}
}  // namespace

int sample_logits(const float* logits, int V, const Options& o, data::Rng& rng, float* scratch) {
  if (o.temperature <= 0.0f) {  // greedy: the first of the largest
    return int(std::max_element(logits, logits + V) - logits);
  }
  float* probs = scratch;  // (V)
  softmax_t(probs, logits, V, o.temperature);
  const bool truncate = (o.top_k > 0 && o.top_k < V) || o.top_p < 1.0f;
  if (!truncate) {
    double r = rng.uniform(), cum = 0.0;
    for (int v = 0; v < V; v++) {
      cum += probs[v];
      if (r < cum) return v;
    }
    return V - 1;  // rounding: r fell past the last bucket
  }
  // rank by probability (ties: lower token first), keep top-k, then the top-p nucleus
  thread_local std::vector<int32_t> ranks;  // (V), kept between calls: a steady generation allocates nothing
  ranks.resize(size_t(V));
  int32_t* order = ranks.data();
  std::iota(order, order + V, 0);
  std::sort(order, order + V, [&](int a, int b) { return probs[a] != probs[b] ? probs[a] > probs[b] : a < b; });
  int keep = (o.top_k > 0 && o.top_k < V) ? o.top_k : V;
  double kept_mass = 0.0;
  for (int i = 0; i < keep; i++) kept_mass += probs[order[i]];
  if (o.top_p < 1.0f) {
    double cum = 0.0;
    for (int i = 0; i < keep; i++) {
      cum += probs[order[i]] / kept_mass;
      if (cum >= o.top_p) {
        keep = i + 1;
        break;
      }
    }
    kept_mass = 0.0;
    for (int i = 0; i < keep; i++) kept_mass += probs[order[i]];
  }
  double r = rng.uniform() * kept_mass, cum = 0.0;
  for (int i = 0; i < keep; i++) {
    cum += probs[order[i]];
    if (r < cum) return order[i];
  }
  return order[keep - 1];
}

Generator::Generator(const model::TinyGPT& model, const Options& options)
    : model_(&model), block_size_(model.config().block_size), vocab_(model.config().vocab_size), options_(options),
      rng_(options.seed) {
  options_.validate(block_size_, vocab_);
  if (options_.window_keep == 0) options_.window_keep = std::max(1, block_size_ / 2);
  model_->reset_cache(cache_);
  context_.reserve(size_t(block_size_));
  probs_.resize(size_t(vocab_));
  scratch_.resize(2 * size_t(vocab_));
}

Generator::Generator(const model::Recurrent& model, const Options& options)
    : rnn_(&model), block_size_(model.config().block_size), vocab_(model.config().vocab_size), options_(options),
      rng_(options.seed) {
  options_.validate(block_size_, vocab_);
  rnn_->reset_state(state_);
  probs_.resize(size_t(vocab_));
  scratch_.resize(2 * size_t(vocab_));
}

void Generator::set_prompt(const uint8_t* bytes, size_t n) {
  std::vector<int32_t> tokens(bytes, bytes + n);
  set_prompt_tokens(tokens.data(), tokens.size());
}

void Generator::set_prompt_tokens(const int32_t* tokens, size_t n) {
  static const int32_t kNewline = '\n';  // a newline is token 10 in bytes and in every BPE vocabulary here
  if (n == 0) {
    tokens = &kNewline;
    n = 1;
  }
  if (rnn_) {  // the whole prompt: the state has no window
    context_.assign(tokens, tokens + n);
    rnn_->reset_state(state_);
    logits_ = rnn_->decode(state_, context_.data(), int(context_.size()));
    context_.clear();
    return;
  }
  const size_t T = size_t(block_size_);
  const size_t start = n > T ? n - T : 0;
  context_.assign(tokens + start, tokens + n);
  model_->reset_cache(cache_);
  logits_ = model_->decode(cache_, context_.data(), int(context_.size()));
}

void Generator::append(int32_t token) {
  if (rnn_) {
    logits_ = rnn_->decode(state_, &token, 1);
    return;
  }
  const int T = block_size_;
  if (int(context_.size()) == T) {
    // the window is full: rebuild the cache from the last window_keep bytes
    const int keep = options_.window_keep;
    context_.erase(context_.begin(), context_.end() - (keep - 1));
    context_.push_back(token);
    cache_.length = 0;
    logits_ = model_->decode(cache_, context_.data(), int(context_.size()));
    return;
  }
  context_.push_back(token);
  logits_ = model_->decode(cache_, &context_.back(), 1);
}

Token Generator::next() {
  if (!logits_) set_prompt_tokens(nullptr, 0);
  const int V = vocab_;
  softmax_t(probs_.data(), logits_, V, 1.0f);
  Token tok;
  const int chosen = sample_logits(logits_, V, options_, rng_, scratch_.data());
  tok.id = chosen;
  tok.prob = probs_[size_t(chosen)];
  // the five most likely tokens (ties: lower token first)
  int32_t top[5];
  int n_top = 0;
  for (int v = 0; v < V; v++) {
    int pos = n_top;
    while (pos > 0 && probs_[size_t(top[pos - 1])] < probs_[size_t(v)]) pos--;
    if (pos >= 5) continue;
    if (n_top < 5) n_top++;
    for (int i = n_top - 1; i > pos; i--) top[i] = top[i - 1];
    top[pos] = v;
  }
  for (int i = 0; i < 5; i++) {
    tok.top_ids[i] = top[i];
    tok.top_probs[i] = probs_[size_t(top[i])];
  }
  append(chosen);
  return tok;
}

namespace {
template <class M>
std::vector<Token> generate_with(const M& model, const std::vector<int32_t>& prompt, int n, const Options& options) {
  if (n < 0) throw Error(coded("sample.negative_length", {}, "the number of bytes to generate must be >= 0"));
  Generator gen(model, options);
  gen.set_prompt_tokens(prompt.data(), prompt.size());
  std::vector<Token> out;
  out.reserve(size_t(n));
  for (int i = 0; i < n; i++) out.push_back(gen.next());
  return out;
}
}  // namespace


std::vector<Token> generate(const model::TinyGPT& model, const std::string& prompt, int n, const Options& options) {
  std::vector<int32_t> ids(prompt.size());
  for (size_t i = 0; i < prompt.size(); i++) ids[i] = uint8_t(prompt[i]);
  return generate_with(model, ids, n, options);
}
std::vector<Token> generate(const model::Recurrent& model, const std::string& prompt, int n, const Options& options) {
  std::vector<int32_t> ids(prompt.size());
  for (size_t i = 0; i < prompt.size(); i++) ids[i] = uint8_t(prompt[i]);
  return generate_with(model, ids, n, options);
}
std::vector<Token> generate(const model::TinyGPT& model, const std::vector<int32_t>& prompt, int n, const Options& options) {
  return generate_with(model, prompt, n, options);
}
std::vector<Token> generate(const model::Recurrent& model, const std::vector<int32_t>& prompt, int n, const Options& options) {
  return generate_with(model, prompt, n, options);
}

}  // namespace tinygpt::sample
