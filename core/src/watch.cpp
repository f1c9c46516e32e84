// watch.cpp — entropy baselines, PCA, the run's history of snapshots and the branch tree (watch.h).
#include "tinygpt/watch.h"

#include "tinygpt/tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "tinygpt/error.h"

namespace tinygpt::watch {

using tinygpt::Error;

// ---- entropy baselines -------------------------------------------------------------------------

namespace {

// From counts of tokens (V) and of consecutive pairs (V, V): the entropies of Baselines.
Baselines from_counts(const std::vector<uint64_t>& unigram, const std::vector<uint64_t>& pairs, int V) {
  Baselines b;
  uint64_t total = 0;
  for (uint64_t c : unigram) total += c;
  b.tokens = total;
  double h1 = 0.0;
  for (uint64_t c : unigram) {
    if (!c) continue;
    b.distinct++;
    const double p = double(c) / double(total);
    h1 -= p * std::log(p);
  }
  b.unigram = h1;
  b.uniform = b.distinct > 0 ? std::log(double(b.distinct)) : 0.0;
  // H(X' | X) = -sum_ab c(a,b)/M ln(c(a,b) / c(a)), c(a) = sum_b c(a,b), M = sum_ab c(a,b)
  uint64_t m = 0;
  double h2 = 0.0;
  for (int a = 0; a < V; a++) {
    const uint64_t* row = pairs.data() + size_t(a) * V;  // (V)
    uint64_t ca = 0;
    for (int c = 0; c < V; c++) ca += row[c];
    if (!ca) continue;
    m += ca;
    for (int c = 0; c < V; c++)
      if (row[c]) h2 -= double(row[c]) * std::log(double(row[c]) / double(ca));
  }
  b.bigram = m ? h2 / double(m) : 0.0;
  return b;
}

// The same from sparse counts (any vocabulary): keys in increasing order, so the sums are deterministic.
class SparseCounts {
 public:
  void add(int32_t prev, int32_t next) {
    unigram_[next]++;
    if (prev >= 0) pairs_[(uint64_t(uint32_t(prev)) << 32) | uint32_t(next)]++;
  }
  Baselines baselines() const {
    Baselines b;
    std::vector<std::pair<int32_t, uint64_t>> uni(unigram_.begin(), unigram_.end());
    std::sort(uni.begin(), uni.end());
    for (const auto& u : uni) b.tokens += u.second;
    for (const auto& u : uni) {
      b.distinct++;
      const double p = double(u.second) / double(b.tokens);
      b.unigram -= p * std::log(p);
    }
    b.uniform = b.distinct > 0 ? std::log(double(b.distinct)) : 0.0;
    std::vector<std::pair<uint64_t, uint64_t>> pairs(pairs_.begin(), pairs_.end());
    std::sort(pairs.begin(), pairs.end());
    // rows in order: c(a) = sum_b c(a, b), then -sum_b c(a, b) ln(c(a, b) / c(a))
    uint64_t m = 0;
    double h2 = 0.0;
    for (size_t i = 0; i < pairs.size();) {
      size_t j = i;
      uint64_t ca = 0;
      while (j < pairs.size() && (pairs[j].first >> 32) == (pairs[i].first >> 32)) ca += pairs[j++].second;
      m += ca;
      for (size_t k = i; k < j; k++) h2 -= double(pairs[k].second) * std::log(double(pairs[k].second) / double(ca));
      i = j;
    }
    b.bigram = m ? h2 / double(m) : 0.0;
    return b;
  }

 private:
  std::unordered_map<int32_t, uint64_t> unigram_;
  std::unordered_map<uint64_t, uint64_t> pairs_;
};

}  // namespace

Baselines token_baselines(const int32_t* tokens, size_t n) {
  SparseCounts counts;
  for (size_t i = 0; i < n; i++) counts.add(i ? tokens[i - 1] : -1, tokens[i]);
  return counts.baselines();
}

Baselines entropy_baselines(const uint8_t* bytes, size_t n) {
  const int V = 256;
  std::vector<uint64_t> unigram(V, 0), pairs(size_t(V) * V, 0);
  for (size_t i = 0; i < n; i++) unigram[bytes[i]]++;
  for (size_t i = 0; i + 1 < n; i++) pairs[size_t(bytes[i]) * V + bytes[i + 1]]++;
  return from_counts(unigram, pairs, V);
}

uint64_t baseline_tokens(const data::Dataset& data) {
  return data.corpus().memory_bytes() ? kBaselineTokens : kSourceBaselineTokens;
}

Baselines entropy_baselines(const data::Dataset& data, uint64_t most) {
  if (data.corpus().train && data.corpus().train->vocab() != 256) {  // BPE tokens (or shards)
    SparseCounts counts;
    const uint64_t n = std::min<uint64_t>(data.train_size(), most);
    std::vector<int32_t> ids;
    int32_t prev = -1;
    for (uint64_t at = 0; at < n; at += uint64_t(1) << 20) {
      ids.resize(size_t(std::min<uint64_t>(uint64_t(1) << 20, n - at)));
      data.read(at, ids.size(), ids.data());
      for (const int32_t id : ids) counts.add(prev, id), prev = id;
    }
    return counts.baselines();
  }
  const int V = 256;
  std::vector<uint64_t> unigram(V, 0), pairs(size_t(V) * V, 0);
  const uint64_t n = std::min<uint64_t>(data.train_size(), most);
  const uint64_t chunk = uint64_t(1) << 20;
  int prev = -1;  // the byte before the chunk: its pair with the chunk's first
  for (uint64_t at = 0; at < n; at += chunk) {
    const std::vector<uint8_t> b = data.read_bytes(at, size_t(std::min(chunk, n - at)));
    for (const uint8_t c : b) {
      unigram[c]++;
      if (prev >= 0) pairs[size_t(prev) * V + c]++;
      prev = c;
    }
  }
  return from_counts(unigram, pairs, V);
}

std::vector<uint8_t> distinct_bytes(const data::Dataset& data, uint64_t most) {
  bool seen[256] = {};
  const uint64_t n = std::min<uint64_t>(data.size(), most);
  const uint64_t chunk = uint64_t(1) << 20;
  for (uint64_t at = 0; at < n; at += chunk)
    for (const uint8_t c : data.read_bytes(at, size_t(std::min(chunk, n - at)))) seen[c] = true;
  std::vector<uint8_t> out;
  for (int b = 0; b < 256; b++)
    if (seen[b]) out.push_back(uint8_t(b));
  return out;
}

Baselines entropy_baselines(const data::TextStats& s) {
  return from_counts(std::vector<uint64_t>(s.counts.begin(), s.counts.end()), s.pairs, 256);
}

Baselines target_baselines(const data::PairDataset& pairs) {
  const data::PairTokens ids = pairs.tokens();
  if (ids.text != 256) {  // BPE targets
    SparseCounts counts;
    for (size_t k = 0; k < pairs.train_size(); k++) {
      int32_t prev = ids.bos();
      for (const int32_t t : pairs.target_tokens(pairs.train_index(k))) counts.add(prev, t), prev = t;
      counts.add(prev, ids.eos());
    }
    return counts.baselines();
  }
  const int V = data::kPairVocab;
  std::vector<uint64_t> unigram(V, 0), pair(size_t(V) * V, 0);
  for (size_t k = 0; k < pairs.train_size(); k++) {
    const std::string& t = pairs.target(pairs.train_index(k));
    int32_t prev = data::kBos;
    for (size_t i = 0; i <= t.size(); i++) {
      const int32_t next = i < t.size() ? int32_t(uint8_t(t[i])) : data::kEos;
      unigram[size_t(next)]++;
      pair[size_t(prev) * V + size_t(next)]++;
      prev = next;
    }
  }
  return from_counts(unigram, pair, V);
}

// ---- PCA ------------------------------------------------------------------------------------------

void symmetric_eigen(std::vector<double>& a, int n, std::vector<double>& values, std::vector<double>& vectors) {
  if (n < 0 || a.size() != size_t(n) * n) throw Error("symmetric_eigen: the matrix must be n x n");
  std::vector<double> v(size_t(n) * n, 0.0);  // (n, n) accumulated rotations: column k = eigenvector k
  for (int i = 0; i < n; i++) v[size_t(i) * n + i] = 1.0;
  auto A = [&](int i, int j) -> double& { return a[size_t(i) * n + j]; };
  double total = 0.0;
  for (double x : a) total += x * x;
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0.0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += A(p, q) * A(p, q);
    if (off <= 1e-26 * total || off == 0.0) break;
    for (int p = 0; p < n; p++) {
      for (int q = p + 1; q < n; q++) {
        const double apq = A(p, q);
        if (apq == 0.0) continue;
        // the rotation J (c at pp and qq, s at pq, -s at qp) that zeroes A(p, q) in J^T A J:
        // t = s / c is the smaller root of t^2 + 2 theta t - 1 = 0
        const double theta = (A(q, q) - A(p, p)) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; k++) {  // A <- A J
          const double akp = A(k, p), akq = A(k, q);
          A(k, p) = c * akp - s * akq;
          A(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {  // A <- J^T A
          const double apk = A(p, k), aqk = A(q, k);
          A(p, k) = c * apk - s * aqk;
          A(q, k) = s * apk + c * aqk;
        }
        for (int k = 0; k < n; k++) {  // V <- V J
          double* row = v.data() + size_t(k) * n;
          const double vkp = row[p], vkq = row[q];
          row[p] = c * vkp - s * vkq;
          row[q] = s * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int i, int j) { return A(i, i) > A(j, j); });
  values.assign(size_t(n), 0.0);
  vectors.assign(size_t(n) * n, 0.0);
  for (int k = 0; k < n; k++) {
    values[size_t(k)] = A(order[size_t(k)], order[size_t(k)]);
    for (int i = 0; i < n; i++) vectors[size_t(i) * n + k] = v[size_t(i) * n + order[size_t(k)]];
  }
}

Projection pca_2d(const float* x, int N, int C, const float* previous) {
  if (N < 0 || C < 1) throw Error("pca_2d: needs C >= 1");
  Projection r;
  r.xy.assign(size_t(N) * 2, 0.0f);
  if (N < 2) return r;
  // centred rows, in double
  std::vector<double> mean(size_t(C), 0.0), xc(size_t(N) * C);  // (C), (N, C)
  for (int i = 0; i < N; i++)
    for (int c = 0; c < C; c++) mean[size_t(c)] += x[size_t(i) * C + c];
  for (double& m : mean) m /= N;
  for (int i = 0; i < N; i++)
    for (int c = 0; c < C; c++) xc[size_t(i) * C + c] = double(x[size_t(i) * C + c]) - mean[size_t(c)];
  const int n = std::min(N, C);  // the smaller of the Gram (N, N) and covariance (C, C) matrices
  std::vector<double> m(size_t(n) * n, 0.0), values, vectors;
  if (N <= C) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j <= i; j++) {
        double s = 0.0;
        for (int c = 0; c < C; c++) s += xc[size_t(i) * C + c] * xc[size_t(j) * C + c];
        m[size_t(i) * n + j] = m[size_t(j) * n + i] = s;
      }
  } else {
    for (int a = 0; a < C; a++)
      for (int b = 0; b <= a; b++) {
        double s = 0.0;
        for (int i = 0; i < N; i++) s += xc[size_t(i) * C + a] * xc[size_t(i) * C + b];
        m[size_t(a) * n + b] = m[size_t(b) * n + a] = s;
      }
  }
  double trace = 0.0;
  for (int i = 0; i < n; i++) trace += m[size_t(i) * n + i];
  symmetric_eigen(m, n, values, vectors);
  r.total_variance = trace / N;
  std::vector<double> coord(static_cast<size_t>(N));
  for (int k = 0; k < 2 && k < n; k++) {
    const double lambda = std::max(0.0, values[size_t(k)]);
    r.variance[k] = lambda / N;
    if (N <= C) {
      // Gram: X_c X_c^T u = lambda u, and X_c v = sqrt(lambda) u for the unit axis v = X_c^T u / sqrt(lambda)
      for (int i = 0; i < N; i++) coord[size_t(i)] = vectors[size_t(i) * n + k] * std::sqrt(lambda);
    } else {
      for (int i = 0; i < N; i++) {
        double s = 0.0;
        for (int c = 0; c < C; c++) s += xc[size_t(i) * C + c] * vectors[size_t(c) * n + k];
        coord[size_t(i)] = s;
      }
    }
    // the sign: agree with the previous frame; else a positive third moment; else the first
    // clearly non-zero coordinate positive
    double scale = 0.0;
    for (double c : coord) scale = std::max(scale, std::fabs(c));
    int sign = 0;
    if (previous) {
      double dot = 0.0, norm = 0.0;
      for (int i = 0; i < N; i++) dot += coord[size_t(i)] * previous[size_t(i) * 2 + k], norm += std::fabs(coord[size_t(i)]);
      if (std::fabs(dot) > 1e-12 * norm * norm) sign = dot > 0 ? 1 : -1;
    }
    if (!sign) {
      double m3 = 0.0, a3 = 0.0;
      for (double c : coord) m3 += c * c * c, a3 += std::fabs(c * c * c);
      if (std::fabs(m3) > 1e-9 * a3) sign = m3 > 0 ? 1 : -1;
    }
    if (!sign) {
      sign = 1;
      for (double c : coord)
        if (std::fabs(c) > 1e-9 * scale) {
          sign = c > 0 ? 1 : -1;
          break;
        }
    }
    for (int i = 0; i < N; i++) r.xy[size_t(i) * 2 + k] = float(sign * coord[size_t(i)]);
  }
  return r;
}

// ---- snapshots and the history -----------------------------------------------------------------

uint8_t quantise_weight(float p) {
  const float c = std::min(1.0f, std::max(0.0f, p));
  return uint8_t(std::lround(std::sqrt(c) * 255.0f));
}

float dequantise_weight(uint8_t q) {
  const float s = float(q) / 255.0f;
  return s * s;
}

Layout layout_of(const Config& c) {
  Layout l;
  l.kind = c.model;
  switch (c.model) {
    case ModelKind::gpt: l.L = c.n_layer, l.NH = c.n_head; break;
    case ModelKind::rnn:
    case ModelKind::gru:
    case ModelKind::lstm: l.L = c.n_layer, l.NH = 0; break;  // no attention
    case ModelKind::seq2seq: l.L = c.n_dec_layer, l.NH = c.n_head, l.Le = c.n_enc_layer; break;
    case ModelKind::lstm_seq2seq: l.L = 1, l.NH = 1; break;  // one map: the decoder's attention on the source
  }
  return l;
}

int64_t Layout::attention_bytes() const {
  const int64_t causal = int64_t(T) * (T + 1) / 2;
  if (is_language_model(kind)) return int64_t(L) * NH * causal;  // recurrent: NH = 0
  if (kind == ModelKind::lstm_seq2seq) return int64_t(L) * NH * T * S;
  return int64_t(L) * NH * T * S + int64_t(L) * NH * causal + int64_t(Le) * NH * S * S;
}

int64_t Layout::snapshot_bytes() const { return 8 + attention_bytes() + 8 * int64_t(N) + 4 * int64_t(T) + 4 * int64_t(P); }

int64_t History::size_bytes() const { return int64_t(snapshots_.size()) * layout_.snapshot_bytes(); }

void History::start(const Layout& layout, std::vector<uint8_t> probe, std::vector<uint8_t> probe_source,
                    std::vector<uint8_t> bytes, std::vector<int32_t> tokens) {
  const bool text = is_language_model(layout.kind);
  const bool by_token = !tokens.empty();
  if (layout.T < 1 || layout.L < 1 || (layout.NH < 1 && !is_recurrent(layout.kind)) || layout.P < 1 ||
      layout.N != int(by_token ? tokens.size() - size_t(layout.T) : bytes.size()))
    throw Error("history: a layout needs a probe, layers, heads and positions");
  if (by_token && (!text || !bytes.empty() || tokens.size() < size_t(layout.T)))
    throw Error("history: a token history is a language model's, with its probe's and its map's tokens");
  const size_t want = text ? size_t(layout.T) : size_t(layout.T - 1);
  if ((!by_token && probe.size() != want) || (!text && probe_source.size() != size_t(layout.S)))
    throw Error("history: the probe does not match the layout");
  const Baselines b = baselines_;
  *this = History();
  baselines_ = b;
  layout_ = layout;
  probe_ = std::move(probe);
  probe_source_ = std::move(probe_source);
  bytes_ = std::move(bytes);
  tokens_ = std::move(tokens);
}

std::vector<int32_t> History::probe_tokens() const {
  if (!tokens_.empty()) return std::vector<int32_t>(tokens_.begin(), tokens_.begin() + layout_.T);
  return std::vector<int32_t>(probe_.begin(), probe_.end());
}

std::vector<int32_t> History::map_tokens() const {
  if (!tokens_.empty()) return std::vector<int32_t>(tokens_.begin() + layout_.T, tokens_.end());
  return std::vector<int32_t>(bytes_.begin(), bytes_.end());
}

void History::add(Snapshot s) {
  if (!enabled()) throw Error("history: start() it before adding snapshots");
  const Layout& l = layout_;
  if (int64_t(s.attention.size()) != l.attention_bytes() || s.embedding.size() != size_t(l.N) * 2 ||
      s.probe_loss.size() != size_t(l.T) || s.position_loss.size() != size_t(l.P))
    throw Error("history: the snapshot does not match the layout");
  if (!snapshots_.empty() && snapshots_.back().step >= s.step) {
    if (snapshots_.back().step > s.step) throw Error("history: snapshots must come in step order");
    snapshots_.back() = std::move(s);  // evaluated again at the same step
    return;
  }
  snapshots_.push_back(std::move(s));
  // thin: keep every second one (the first among them) and the newest
  while (size_bytes() > kBudgetBytes && snapshots_.size() > 2) {
    std::vector<Snapshot> kept;
    const size_t K = snapshots_.size();
    for (size_t i = 0; i < K; i++)
      if (i % 2 == 0 || i == K - 1) kept.push_back(std::move(snapshots_[i]));
    snapshots_ = std::move(kept);
  }
}

void History::drop_after(int64_t step) {
  while (!snapshots_.empty() && snapshots_.back().step > step) snapshots_.pop_back();
}

History::Pieces History::pieces() const {
  Pieces p;
  for (const Snapshot& s : snapshots_) {
    p.attention.push_back({s.attention.data(), s.attention.size() * sizeof(s.attention[0])});
    p.embedding.push_back({s.embedding.data(), s.embedding.size() * sizeof(s.embedding[0])});
    p.probe_loss.push_back({s.probe_loss.data(), s.probe_loss.size() * sizeof(s.probe_loss[0])});
    p.position_loss.push_back({s.position_loss.data(), s.position_loss.size() * sizeof(s.position_loss[0])});
  }
  return p;
}

History::Packed History::pack(bool snapshots) const {
  Packed p;
  const Layout& l = layout_;
  p.meta = {tokens_.empty() ? 1 : 2, int64_t(l.kind), l.L, l.NH, l.Le, l.S, l.T, l.N, l.P};
  p.tokens.assign(tokens_.begin(), tokens_.end());
  p.probe = probe_source_;
  p.probe.insert(p.probe.end(), probe_.begin(), probe_.end());
  p.bytes = bytes_;
  p.baselines = {float(baselines_.unigram), float(baselines_.bigram), float(baselines_.uniform), float(baselines_.distinct),
                 float(baselines_.tokens)};
  for (const Snapshot& s : snapshots_) {
    p.steps.push_back(s.step);
    if (!snapshots) continue;
    p.attention.insert(p.attention.end(), s.attention.begin(), s.attention.end());
    p.embedding.insert(p.embedding.end(), s.embedding.begin(), s.embedding.end());
    p.probe_loss.insert(p.probe_loss.end(), s.probe_loss.begin(), s.probe_loss.end());
    p.position_loss.insert(p.position_loss.end(), s.position_loss.begin(), s.position_loss.end());
  }
  return p;
}

History History::unpack(const Packed& p, int64_t last_step) {
  const std::string bad = "checkpoint has a damaged run history: ";
  if (p.meta.size() != 9) throw Error(bad + "history.meta holds " + std::to_string(p.meta.size()) + " numbers, expected 9");
  if (p.meta[0] != 1 && p.meta[0] != 2)
    throw Error("checkpoint's run history is in format " + std::to_string(p.meta[0]) +
                ", this build reads formats 1 and 2: it was written by a newer version");
  const bool by_token = p.meta[0] == 2;  // a BPE language model's: tokens, not bytes
  Layout l;
  const int64_t kind = p.meta[1];
  if (kind < 0 || kind >= kModelKinds) throw Error(bad + "unknown model kind " + std::to_string(kind));
  l.kind = ModelKind(kind);
  const bool text = is_language_model(l.kind);
  auto dim = [&](int64_t v, const char* name, int64_t lo, int64_t hi) {
    if (v < lo || v > hi) throw Error(bad + name + " is " + std::to_string(v));
    return int(v);
  };
  l.L = dim(p.meta[2], "the layer count", 1, 96);
  l.NH = dim(p.meta[3], "the head count", is_recurrent(l.kind) ? 0 : 1, is_recurrent(l.kind) ? 0 : 128);
  l.Le = dim(p.meta[4], "the encoder layer count", 0, 64);
  l.S = dim(p.meta[5], "the probe's source length", 0, 8192);
  l.T = dim(p.meta[6], "the probe's length", 1, 8192);
  l.N = dim(p.meta[7], "the number of mapped tokens", 0, by_token ? kMapTokens : 256);
  l.P = dim(p.meta[8], "the number of positions", 1, 8192);
  if (text && (l.S != 0 || l.Le != 0)) throw Error(bad + "a language model's history with a source");
  const size_t probe_len = text ? size_t(l.T) : size_t(l.S) + size_t(l.T) - 1;
  if (by_token) {
    if (!text) throw Error(bad + "a translator's history in tokens");
    if (!p.bytes.empty() || p.tokens.size() != size_t(l.T) + size_t(l.N))
      throw Error(bad + "history.tokens holds " + std::to_string(p.tokens.size()) + " tokens, expected " + std::to_string(l.T + l.N));
    for (size_t i = 0; i < p.tokens.size(); i++)
      if (p.tokens[i] < 0 || p.tokens[i] > 65535 + 3) throw Error(bad + "a token id is out of range");
    for (size_t i = size_t(l.T) + 1; i < p.tokens.size(); i++)
      if (p.tokens[i] <= p.tokens[i - 1]) throw Error(bad + "the mapped tokens are not in ascending order");
  } else {
    if (p.probe.size() != probe_len) throw Error(bad + "the probe has " + std::to_string(p.probe.size()) + " bytes, expected " + std::to_string(probe_len));
    if (p.bytes.size() != size_t(l.N)) throw Error(bad + "the mapped bytes do not match their count");
    if (!p.tokens.empty()) throw Error(bad + "a byte history with tokens");
  }
  for (size_t i = 1; i < p.bytes.size(); i++)
    if (p.bytes[i] <= p.bytes[i - 1]) throw Error(bad + "the mapped bytes are not in ascending order");
  if (p.baselines.size() != 5) throw Error(bad + "history.baselines holds " + std::to_string(p.baselines.size()) + " numbers, expected 5");
  for (float v : p.baselines)
    if (!std::isfinite(v) || v < 0) throw Error(bad + "a baseline is negative or not finite");
  // the counts among them: distinct tokens within the largest vocabulary, tokens within a uint64
  if (p.baselines[3] > 65536.0f || p.baselines[4] >= 1.8e19f) throw Error(bad + "a baseline's count is out of range");
  const uint64_t K = p.steps.size();
  const uint64_t A = uint64_t(l.attention_bytes());
  auto check = [&](uint64_t have, uint64_t per, const char* what) {
    if (have != K * per)
      throw Error(bad + what + " holds " + std::to_string(have) + " values for " + std::to_string(K) + " snapshots of " +
                  std::to_string(per));
  };
  check(p.attention.size(), A, "history.attention");
  check(p.embedding.size(), uint64_t(l.N) * 2, "history.embedding");
  check(p.probe_loss.size(), uint64_t(l.T), "history.probe_loss");
  check(p.position_loss.size(), uint64_t(l.P), "history.position_loss");
  for (uint64_t k = 0; k < K; k++) {
    if (p.steps[k] < 0 || p.steps[k] > last_step || (k > 0 && p.steps[k] <= p.steps[k - 1]))
      throw Error(bad + "its snapshot steps are not increasing within the run's " + std::to_string(last_step) + " steps");
  }
  for (float v : p.embedding)
    if (!std::isfinite(v)) throw Error(bad + "the embedding map holds NaN or Inf");
  for (const std::vector<float>* losses : {&p.probe_loss, &p.position_loss})
    for (float v : *losses)
      if (std::isinf(v) || v < 0) throw Error(bad + "a loss is negative or infinite");
  History h;
  h.layout_ = l;
  h.probe_source_.assign(p.probe.begin(), p.probe.begin() + (text ? 0 : l.S));
  h.probe_.assign(p.probe.begin() + (text ? 0 : l.S), p.probe.end());
  h.bytes_ = p.bytes;
  h.tokens_.assign(p.tokens.begin(), p.tokens.end());
  h.baselines_ = {p.baselines[0], p.baselines[1], p.baselines[2], int(p.baselines[3]), uint64_t(p.baselines[4])};
  for (uint64_t k = 0; k < K; k++) {
    Snapshot s;
    s.step = p.steps[k];
    s.attention.assign(p.attention.begin() + int64_t(k * A), p.attention.begin() + int64_t((k + 1) * A));
    s.embedding.assign(p.embedding.begin() + int64_t(k * l.N * 2), p.embedding.begin() + int64_t((k + 1) * l.N * 2));
    s.probe_loss.assign(p.probe_loss.begin() + int64_t(k * l.T), p.probe_loss.begin() + int64_t((k + 1) * l.T));
    s.position_loss.assign(p.position_loss.begin() + int64_t(k * l.P), p.position_loss.begin() + int64_t((k + 1) * l.P));
    h.snapshots_.push_back(std::move(s));
  }
  return h;
}

std::vector<uint8_t> distinct_bytes(const uint8_t* bytes, size_t n) {
  bool seen[256] = {};
  for (size_t i = 0; i < n; i++) seen[bytes[i]] = true;
  std::vector<uint8_t> out;
  for (int b = 0; b < 256; b++)
    if (seen[b]) out.push_back(uint8_t(b));
  return out;
}

std::vector<uint8_t> choose_probe(const data::Dataset& data, int block_size) {
  const uint64_t n = data.size();
  const size_t T = size_t(std::min(kMaxProbe, block_size));
  if (n < T) throw Error("the corpus is shorter than the probe (" + std::to_string(T) + " bytes)");
  // what the choice looks at: from the validation split's start, a few hundred bytes and a probe
  const uint64_t val = data.train_size();
  const uint64_t lo = std::min<uint64_t>(val, n - T), hi = std::min<uint64_t>(n, val + 512 + T + 3);
  const std::vector<uint8_t> b = data.read_bytes(lo, size_t(hi - lo));  // b[i] is byte lo + i
  const auto at = [&](uint64_t i) { return b[size_t(i - lo)]; };
  uint64_t start = val;
  // from the first line start within a few hundred bytes, when there is room
  for (uint64_t i = start; i < n && i < start + 512; i++)
    if (at(i) == '\n' && i + 1 + T <= n) {
      start = i + 1;
      break;
    }
  if (start + T > n) start = n - T;
  // start on a character, not inside a UTF-8 sequence
  for (int k = 0; k < 3 && start + T < n && (at(start) & 0xC0) == 0x80; k++) start++;
  return std::vector<uint8_t>(b.begin() + int64_t(start - lo), b.begin() + int64_t(start - lo + T));
}

std::vector<int32_t> choose_probe_tokens(const data::Dataset& data, int block_size, const tok::Tokenizer& tokenizer) {
  const uint64_t n = data.size();
  const size_t T = size_t(std::min(kMaxProbe, block_size));
  if (n < T) throw Error("the corpus is shorter than the probe (" + std::to_string(T) + " tokens)");
  const uint64_t val = data.train_size();
  const uint64_t lo = std::min<uint64_t>(val, n - T), hi = std::min<uint64_t>(n, val + 512 + T + 1);
  std::vector<int32_t> t(size_t(hi - lo));  // t[i] is token lo + i
  data.read(lo, t.size(), t.data());
  uint64_t start = lo;
  // from the token after the first one that ends a line, within a few hundred tokens, when there is room
  for (uint64_t i = lo; i < hi && i < lo + 512; i++) {
    const int32_t id = t[size_t(i - lo)];
    if (id >= tokenizer.vocab_size()) continue;
    const std::string& b = tokenizer.token_bytes(id);
    if (!b.empty() && b.back() == '\n' && i + 1 + T <= hi) {
      start = i + 1;
      break;
    }
  }
  return std::vector<int32_t>(t.begin() + int64_t(start - lo), t.begin() + int64_t(start - lo + T));
}

std::vector<int32_t> frequent_tokens(const data::Dataset& data, int vocab, int most, uint64_t count) {
  const uint64_t n = std::min<uint64_t>(data.train_size(), count);
  std::vector<uint64_t> seen(size_t(std::max(vocab, 1)), 0);
  const uint64_t chunk = uint64_t(1) << 20;
  std::vector<int32_t> buf;
  for (uint64_t at = 0; at < n; at += chunk) {
    buf.resize(size_t(std::min(chunk, n - at)));
    data.read(at, buf.size(), buf.data());
    for (const int32_t id : buf)
      if (id >= 0 && size_t(id) < seen.size()) seen[size_t(id)]++;
  }
  std::vector<int32_t> ids;
  for (size_t id = 0; id < seen.size(); id++)
    if (seen[id]) ids.push_back(int32_t(id));
  // the most frequent first (ties: the lower id), cut, then in id order
  std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return seen[size_t(a)] > seen[size_t(b)]; });
  if (ids.size() > size_t(most)) ids.resize(size_t(most));
  std::sort(ids.begin(), ids.end());
  return ids;
}

void choose_probe(const data::PairDataset& pairs, std::vector<uint8_t>& source, std::vector<uint8_t>& target) {
  if (pairs.size() == 0) throw Error("no pairs to take a probe from");
  // the first held-out pair that fits the probe's limit, else the first one, cut
  size_t pick = pairs.val_size() ? pairs.val_index(0) : pairs.train_index(0);
  for (size_t k = 0; k < pairs.val_size(); k++) {
    const size_t i = pairs.val_index(k);
    if (pairs.source(i).size() <= size_t(kMaxProbe) && pairs.target(i).size() < size_t(kMaxProbe)) {
      pick = i;
      break;
    }
  }
  const std::string& s = pairs.source(pick);
  const std::string& t = pairs.target(pick);
  source.assign(s.begin(), s.begin() + int64_t(std::min(s.size(), size_t(kMaxProbe))));
  target.assign(t.begin(), t.begin() + int64_t(std::min(t.size(), size_t(kMaxProbe - 1))));
}

void token_losses(float* out, const float* logits, const int32_t* targets, int rows, int V) {
  for (int r = 0; r < rows; r++) {
    const float* z = logits + size_t(r) * V;  // (V)
    if (targets[r] < 0 || targets[r] >= V) {
      out[r] = NAN;
      continue;
    }
    float maxv = z[0];
    for (int v = 1; v < V; v++) maxv = std::max(maxv, z[v]);
    double sum = 0.0;
    for (int v = 0; v < V; v++) sum += std::exp(double(z[v] - maxv));
    out[r] = float(std::log(sum) - double(z[targets[r]] - maxv));
  }
}

// ---- nearest neighbours --------------------------------------------------------------------------

Neighbours nearest_neighbours(const float* x, int N, int C, int k) {
  if (N < 0 || C < 1 || k < 0) throw Error("nearest_neighbours: needs N >= 0, C >= 1 and k >= 0");
  Neighbours out;
  out.k = std::min(k, std::max(0, N - 1));
  std::vector<double> norm(static_cast<size_t>(N));  // (N) |x_i|, in double: the cosines of near-parallel rows differ in the 7th digit
  for (int i = 0; i < N; i++) {
    double s = 0.0;
    for (int c = 0; c < C; c++) s += double(x[size_t(i) * C + c]) * x[size_t(i) * C + c];
    norm[size_t(i)] = std::sqrt(s);
  }
  out.index.resize(size_t(N) * out.k);
  out.similarity.resize(size_t(N) * out.k);
  std::vector<double> cosine(static_cast<size_t>(N));  // (N) of row i against every row
  std::vector<int32_t> order;
  for (int i = 0; i < N; i++) {
    const float* xi = x + size_t(i) * C;
    for (int j = 0; j < N; j++) {
      const float* xj = x + size_t(j) * C;
      double dot = 0.0;
      for (int c = 0; c < C; c++) dot += double(xi[c]) * xj[c];
      const double denom = norm[size_t(i)] * norm[size_t(j)];
      cosine[size_t(j)] = denom > 0.0 ? dot / denom : 0.0;
    }
    order.clear();  // (N - 1) the other rows
    for (int j = 0; j < N; j++)
      if (j != i) order.push_back(j);
    // most alike first; stable on ties, so the lower index wins
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return cosine[size_t(a)] > cosine[size_t(b)]; });
    for (int r = 0; r < out.k; r++) {
      out.index[size_t(i) * out.k + r] = order[size_t(r)];
      out.similarity[size_t(i) * out.k + r] = float(cosine[size_t(order[size_t(r)])]);
    }
  }
  return out;
}

namespace {
Neighbours table_neighbours(const float* table, int C, const std::vector<int32_t>& tokens, int k) {
  const int N = int(tokens.size());
  std::vector<float> rows(size_t(N) * C);  // (N, C) the embeddings of the mapped tokens
  for (int i = 0; i < N; i++) std::memcpy(rows.data() + size_t(i) * C, table + size_t(tokens[size_t(i)]) * C, size_t(C) * sizeof(float));
  return nearest_neighbours(rows.data(), N, C, k);
}
}  // namespace

Neighbours embedding_neighbours(const model::TinyGPT& m, const std::vector<int32_t>& bytes, int k) {
  return table_neighbours(m.params() + m.param_info("wte").offset, m.config().n_embd, bytes, k);
}
Neighbours embedding_neighbours(const model::Seq2Seq& m, const std::vector<int32_t>& bytes, int k) {
  return table_neighbours(m.params() + m.param_info("src_embed.weight").offset, m.dims().n_embd, bytes, k);
}
Neighbours embedding_neighbours(const model::Recurrent& m, const std::vector<int32_t>& bytes, int k) {
  return table_neighbours(m.params() + m.param_info("wte").offset, m.config().n_embd, bytes, k);
}
Neighbours embedding_neighbours(const model::LstmSeq2Seq& m, const std::vector<int32_t>& bytes, int k) {
  return table_neighbours(m.params() + m.param_info("src_embed.weight").offset, m.dims().n_embd, bytes, k);
}

namespace {

// Rows (N) of an embedding table (V, C) at the given token values, then their projection.
std::vector<float> embedding_map(const float* table, int C, const std::vector<int32_t>& bytes, const History& h) {
  const int N = int(bytes.size());
  std::vector<float> rows(size_t(N) * C);  // (N, C)
  for (int i = 0; i < N; i++) std::memcpy(rows.data() + size_t(i) * C, table + size_t(bytes[size_t(i)]) * C, size_t(C) * sizeof(float));
  const float* previous = h.snapshots().empty() ? nullptr : h.snapshots().back().embedding.data();
  return pca_2d(rows.data(), N, C, previous).xy;
}

// Quantised copies of attention maps: full (rows, cols) blocks, or the causal triangle of square ones.
void append_full(std::vector<uint8_t>& out, const float* att, size_t n) {
  for (size_t i = 0; i < n; i++) out.push_back(quantise_weight(att[i]));
}
void append_causal(std::vector<uint8_t>& out, const float* att, int T) {  // att (T, T)
  for (int q = 0; q < T; q++)
    for (int k = 0; k <= q; k++) out.push_back(quantise_weight(att[size_t(q) * T + k]));
}

// Mean over rows of losses (rows, P), skipping NaN; NaN where a position has none.
void mean_positions(float* out, const float* losses, int rows, int P_have, int P) {
  for (int t = 0; t < P; t++) {
    double sum = 0.0;
    int n = 0;
    for (int r = 0; r < rows && t < P_have; r++) {
      const float v = losses[size_t(r) * P_have + t];
      if (std::isnan(v)) continue;
      sum += v, n++;
    }
    out[t] = n ? float(sum / n) : NAN;
  }
}

// The views of a language model (TinyGPT, Recurrent): the probe's per-token losses, the per-position
// loss curve over fixed validation windows, the embedding map. `probe_done` runs right after the
// probe's forward pass, while the model still holds what it computed (the GPT's attention maps).
template <class M, class ProbeDone>
Snapshot language_model_snapshot(M& m, const data::Dataset& data, nn::Arena& arena, const History& h, ProbeDone&& probe_done) {
  const Layout& lay = h.layout();
  const int T = lay.T, V = m.config().vocab_size;  // a BPE model's: its vocabulary
  nn::GradMode no_grad(false);
  Snapshot s;
  const std::vector<int32_t> tokens = h.probe_tokens();
  arena.reset();
  nn::Tensor logits = m.forward_logits(arena, tokens.data(), 1, T);  // (1, T, V)
  probe_done(s);
  s.probe_loss.assign(size_t(T), NAN);
  if (T > 1) token_losses(s.probe_loss.data() + 1, logits.data(), tokens.data() + 1, T - 1, V);
  // the per-position loss curve: fixed validation windows
  const int W = m.config().block_size, rows = std::min(kPositionWindows, m.config().batch_size);
  data::Batch batch;
  data.val_batch(0, rows, W, batch);
  arena.reset();
  nn::Tensor val_logits = m.forward_logits(arena, batch.x.data(), rows, W);  // (rows, W, V)
  std::vector<float> losses(size_t(rows) * W);                               // (rows, W)
  token_losses(losses.data(), val_logits.data(), batch.y.data(), rows * W, V);
  arena.reset();
  s.position_loss.resize(size_t(lay.P));
  mean_positions(s.position_loss.data(), losses.data(), rows, W, lay.P);
  // the embedding map
  s.embedding = embedding_map(m.params() + m.param_info("wte").offset, m.config().n_embd, h.map_tokens(), h);
  return s;
}

// The same for a translator (the encoder-decoder, the LSTM one): the probe pair's target losses,
// probe_done(snapshot) while the probe's attention is the model's last (cross-attention first), the
// per-position losses over held-out pairs (positions past a target's EOS do not count), and the map
// of the source embedding.
template <class M, class ProbeDone>
Snapshot translator_snapshot(M& m, const data::PairDataset& pairs, nn::Arena& arena, const History& h, ProbeDone&& probe_done) {
  const Layout& lay = h.layout();
  const int S = lay.S, T = lay.T, V = data::kPairVocab;
  nn::GradMode no_grad(false);
  Snapshot s;
  std::vector<int32_t> src(h.probe_source().begin(), h.probe_source().end());
  std::vector<int32_t> tgt_in{data::kBos}, tgt_out;
  for (uint8_t b : h.probe()) tgt_in.push_back(b), tgt_out.push_back(b);
  tgt_out.push_back(data::kEos);
  arena.reset();
  nn::Tensor logits = m.forward_logits(arena, src.data(), tgt_in.data(), 1, S, T);  // (1, T, V)
  probe_done(s);
  s.probe_loss.resize(size_t(T));
  token_losses(s.probe_loss.data(), logits.data(), tgt_out.data(), T, V);
  data::PairBatch batch;
  pairs.val_batch(0, std::min(kPositionWindows, std::max(1, int(pairs.val_size()))), batch);
  arena.reset();
  nn::Tensor val_logits = m.forward_logits(arena, batch.src.data(), batch.tgt_in.data(), batch.B, batch.S, batch.T);  // (B, T, V)
  std::vector<float> losses(size_t(batch.B) * batch.T);  // (B, T)
  token_losses(losses.data(), val_logits.data(), batch.tgt_out.data(), batch.B * batch.T, V);
  arena.reset();
  s.position_loss.resize(size_t(lay.P));
  mean_positions(s.position_loss.data(), losses.data(), batch.B, batch.T, lay.P);
  s.embedding = embedding_map(m.params() + m.param_info("src_embed.weight").offset, m.dims().n_embd, h.map_tokens(), h);
  return s;
}

}  // namespace

Snapshot take_snapshot(model::TinyGPT& m, const data::Dataset& data, nn::Arena& arena, const History& h) {
  const Layout& lay = h.layout();
  return language_model_snapshot(m, data, arena, h, [&](Snapshot& s) {
    const int T = lay.T, NH = lay.NH;
    s.attention.reserve(size_t(lay.attention_bytes()));
    for (int l = 0; l < lay.L; l++)
      for (int hd = 0; hd < NH; hd++) append_causal(s.attention, m.last_attention(l).data() + size_t(hd) * T * T, T);
  });
}

Snapshot take_snapshot(model::Seq2Seq& m, const data::PairDataset& pairs, nn::Arena& arena, const History& h) {
  const Layout& lay = h.layout();
  return translator_snapshot(m, pairs, arena, h, [&](Snapshot& s) {
    const int S = lay.S, T = lay.T, NH = lay.NH;
    s.attention.reserve(size_t(lay.attention_bytes()));
    for (int l = 0; l < lay.L; l++) append_full(s.attention, m.last_attention(model::AttentionKind::cross, l).data(), size_t(NH) * T * S);
    for (int l = 0; l < lay.L; l++)
      for (int hd = 0; hd < NH; hd++)
        append_causal(s.attention, m.last_attention(model::AttentionKind::decoder_self, l).data() + size_t(hd) * T * T, T);
    for (int l = 0; l < lay.Le; l++)
      append_full(s.attention, m.last_attention(model::AttentionKind::encoder_self, l).data(), size_t(NH) * S * S);
  });
}

Snapshot take_snapshot(model::Recurrent& m, const data::Dataset& data, nn::Arena& arena, const History& h) {
  // no attention: the probe's losses, the per-position curve and the embedding map
  return language_model_snapshot(m, data, arena, h, [](Snapshot&) {});
}

Snapshot take_snapshot(model::LstmSeq2Seq& m, const data::PairDataset& pairs, nn::Arena& arena, const History& h) {
  const Layout& lay = h.layout();
  return translator_snapshot(m, pairs, arena, h, [&](Snapshot& s) {
    append_full(s.attention, m.last_attention().data(), size_t(lay.T) * lay.S);  // (1, 1, T, S)
  });
}

// ---- the branch tree -----------------------------------------------------------------------------

struct BranchTree::Impl {
  virtual ~Impl() = default;
  virtual ModelKind kind() const = 0;
  virtual int vocab() const = 0;
  // Logits after `child` (a new node whose parent is in the tree); text: the tokens of the
  // child's path (gpt: the whole text, prompt included; seq2seq: the target tokens).
  virtual const float* grow(const BranchTree& tree, int parent, int child, const std::vector<int32_t>& text,
                            int64_t& positions) = 0;
  // translators: the longest output (block_size - 1 bytes); language models: no limit
  virtual int max_output() const { return INT32_MAX; }
  // gpt: the window's length (block_size); the recurrent models have none
  virtual int window() const { return 0; }
  // translators: BOS, EOS, PAD after the text tokens
  virtual data::PairTokens specials() const { return {}; }
  uint64_t clock = 0;
};

namespace {

// Whether `ancestor` is on the path from the root to `node` (node itself included).
bool on_path(const BranchTree& tree, int node, int ancestor) {
  const int depth = tree.node(ancestor).depth;
  while (node >= 0 && tree.node(node).depth > depth) node = tree.node(node).parent;
  return node == ancestor;
}

// Picks a slot to (re)use: a free one, else the least recently used one other than `keep`.
template <class Slot>
Slot& victim(std::vector<Slot>& slots, const void* keep) {
  Slot* best = nullptr;
  for (Slot& s : slots) {
    if (&s == keep) continue;
    if (s.tip < 0) return s;
    if (!best || s.used < best->used) best = &s;
  }
  return *best;
}

struct GptImpl final : BranchTree::Impl {
  struct Slot {
    model::KVCache cache;
    int tip = -1;    // the node whose text the cache ends at (-1: free)
    int start = 0;   // the text position of the cache's first entry (the window's start)
    uint64_t used = 0;
  };
  const model::TinyGPT& m;
  std::vector<Slot> slots;
  GptImpl(const model::TinyGPT& model) : m(model), slots(BranchTree::kMaxCaches) {}
  ModelKind kind() const override { return ModelKind::gpt; }
  int vocab() const override { return m.config().vocab_size; }
  int window() const override { return m.config().block_size; }

  const float* grow(const BranchTree& tree, int parent, int child, const std::vector<int32_t>& text,
                    int64_t& positions) override {
    const BranchTree::Node& cn = tree.node(child);
    const int w = cn.window_start, d = cn.depth;  // the child's window is text[w, d)
    Slot* use = nullptr;
    if (parent >= 0 && w == tree.node(parent).window_start) {
      const BranchTree::Node& pn = tree.node(parent);
      // a cache of this window that ends at the parent, or passes through it
      Slot* through = nullptr;
      for (Slot& s : slots) {
        if (s.tip < 0 || s.start != w) continue;
        if (s.tip == parent) use = &s;
        else if (!through && on_path(tree, s.tip, parent)) through = &s;
      }
      if (!use && through) {
        use = &victim(slots, through);
        use->cache = through->cache;  // keys and values of the shared prefix
        use->cache.length = pn.depth - w;
        use->start = w;
      }
    }
    const float* logits;
    if (use) {
      logits = m.decode(use->cache, &text[size_t(d - 1)], 1);
      positions += 1;
    } else {
      use = &victim(slots, nullptr);
      if (use->cache.k.empty()) m.reset_cache(use->cache);
      use->cache.length = 0;
      use->start = w;
      logits = m.decode(use->cache, text.data() + w, d - w);
      positions += d - w;
    }
    use->tip = child;
    use->used = ++clock;
    return logits;
  }
};

struct Seq2SeqImpl final : BranchTree::Impl {
  struct Slot {
    model::Seq2SeqCache cache;
    bool started = false;
    int tip = -1;
    uint64_t used = 0;
  };
  const model::Seq2Seq& m;
  std::vector<int32_t> source;
  std::vector<Slot> slots;
  Seq2SeqImpl(const model::Seq2Seq& model, std::vector<int32_t> src) : m(model), source(std::move(src)), slots(BranchTree::kMaxCaches) {}
  ModelKind kind() const override { return ModelKind::seq2seq; }
  int vocab() const override { return m.dims().vocab_size; }
  data::PairTokens specials() const override { return m.dims().tokens(); }
  int max_output() const override { return m.dims().block_size - 1; }

  const float* grow(const BranchTree& tree, int parent, int child, const std::vector<int32_t>& text,
                    int64_t& positions) override {
    // a node at depth d has been fed BOS and its d tokens: cache length d + 1
    const int d = tree.node(child).depth;
    Slot* use = nullptr;
    Slot* through = nullptr;
    if (parent >= 0)
      for (Slot& s : slots) {
        if (s.tip < 0) continue;
        if (s.tip == parent) use = &s;
        else if (!through && on_path(tree, s.tip, parent)) through = &s;
      }
    auto start = [&](Slot& s) {
      if (!s.started) m.start_decoding(s.cache, source.data(), int(source.size()), 1, false);  // the encoder, once per slot
      s.started = true;
    };
    if (!use && through) {
      use = &victim(slots, through);
      start(*use);
      use->cache.self_k = through->cache.self_k;  // (Ld, 1, block_size, C) of the shared prefix
      use->cache.self_v = through->cache.self_v;
      use->cache.length = d;  // BOS + the parent's d - 1 tokens
    }
    const float* logits;
    if (use) {
      const int32_t token = text[size_t(d - 1)];
      logits = m.decode_step(use->cache, &token);
      positions += 1;
    } else {
      use = &victim(slots, nullptr);
      start(*use);
      use->cache.length = 0;
      int32_t token = m.dims().tokens().bos();
      logits = m.decode_step(use->cache, &token);
      for (int i = 0; i < d; i++) logits = m.decode_step(use->cache, &text[size_t(i)]);
      positions += d + 1;
    }
    use->tip = child;
    use->used = ++clock;
    return logits;
  }
};

// The recurrent models keep the state after every node (L x H floats, and c): growing any node
// costs one step, and the root costs the prompt (or BOS).
struct RecurrentImpl final : BranchTree::Impl {
  const model::Recurrent& m;
  model::RecurrentState work;
  std::vector<std::vector<float>> h, c;  // per node
  RecurrentImpl(const model::Recurrent& model) : m(model) { m.reset_state(work); }
  ModelKind kind() const override { return m.config().model; }
  int vocab() const override { return m.config().vocab_size; }
  const float* grow(const BranchTree& tree, int parent, int child, const std::vector<int32_t>& text,
                    int64_t& positions) override {
    const float* logits;
    if (parent < 0) {
      m.reset_state(work);
      logits = m.decode(work, text.data(), int(text.size()));
      positions += int64_t(text.size());
    } else {
      work.h = h[size_t(parent)];
      work.c = c[size_t(parent)];
      logits = m.decode(work, &text.back(), 1);
      positions += 1;
    }
    if (h.size() <= size_t(child)) h.resize(size_t(child) + 1), c.resize(size_t(child) + 1);
    h[size_t(child)] = work.h;
    c[size_t(child)] = work.c;
    return logits;
  }
};

struct LstmSeq2SeqImpl final : BranchTree::Impl {
  const model::LstmSeq2Seq& m;
  model::LstmSeq2SeqCache cache;
  std::vector<std::vector<float>> h, c;  // the decoder's state after each node
  LstmSeq2SeqImpl(const model::LstmSeq2Seq& model, const std::vector<int32_t>& source) : m(model) {
    m.start_decoding(cache, source.data(), int(source.size()), 1, false);  // the encoder, once
    h.push_back(cache.h), c.push_back(cache.c);                           // its state before BOS
  }
  ModelKind kind() const override { return ModelKind::lstm_seq2seq; }
  int vocab() const override { return m.dims().vocab_size; }
  data::PairTokens specials() const override { return m.dims().tokens(); }
  int max_output() const override { return m.dims().block_size - 1; }
  const float* grow(const BranchTree& tree, int parent, int child, const std::vector<int32_t>& text,
                    int64_t& positions) override {
    // node 0 (BOS) starts from the encoder's state, stored at index 0 before it is replaced below
    const int from = parent < 0 ? 0 : parent;
    cache.h = h[size_t(from)], cache.c = c[size_t(from)];
    cache.length = tree.node(child).depth;
    const int32_t token = parent < 0 ? m.dims().tokens().bos() : text.back();
    const float* logits = m.decode_step(cache, &token);
    positions += 1;
    if (h.size() <= size_t(child)) h.resize(size_t(child) + 1), c.resize(size_t(child) + 1);
    h[size_t(child)] = cache.h, c[size_t(child)] = cache.c;
    return logits;
  }
};

}  // namespace

// ---- BranchTree -----------------------------------------------------------------------------------

namespace {
std::vector<int32_t> ids_of(const uint8_t* bytes, size_t n) { return std::vector<int32_t>(bytes, bytes + n); }
void check_top_k(int top_k, int V) {
  if (top_k < 1 || top_k > V) throw Error("top-k must be between 1 and " + std::to_string(V));
}
}  // namespace

BranchTree::BranchTree(const model::Recurrent& model, const uint8_t* prompt, size_t n, int top_k)
    : BranchTree(model, ids_of(prompt, n), top_k) {}
BranchTree::BranchTree(const model::LstmSeq2Seq& model, const uint8_t* source, size_t n, int top_k)
    : BranchTree(model, ids_of(source, n), top_k) {}
BranchTree::BranchTree(const model::TinyGPT& model, const uint8_t* prompt, size_t n, int top_k, int window_keep)
    : BranchTree(model, ids_of(prompt, n), top_k, window_keep) {}
BranchTree::BranchTree(const model::Seq2Seq& model, const uint8_t* source, size_t n, int top_k)
    : BranchTree(model, ids_of(source, n), top_k) {}

BranchTree::BranchTree(const model::Recurrent& model, std::vector<int32_t> prompt, int top_k)
    : impl_(std::make_unique<RecurrentImpl>(model)), top_k_(top_k) {
  check_top_k(top_k, model.config().vocab_size);
  if (prompt.empty()) prompt = {'\n'};  // as sample::Generator
  prompt_ = std::move(prompt);
  Node root;
  root.depth = int(prompt_.size());
  nodes_.push_back(root);
  set_top(nodes_[0], impl_->grow(*this, -1, 0, prompt_, positions_));
}

namespace {
void check_source(size_t n, int limit) {
  if (n == 0) throw Error("give a source text to translate");
  if (int(n) > limit) throw Error("the source is " + std::to_string(n) + " tokens, longer than block_size (" + std::to_string(limit) + ")");
}
}  // namespace

BranchTree::BranchTree(const model::LstmSeq2Seq& model, std::vector<int32_t> source, int top_k) : top_k_(top_k) {
  check_top_k(top_k, model.dims().vocab_size);
  check_source(source.size(), model.dims().block_size);
  prompt_ = std::move(source);
  impl_ = std::make_unique<LstmSeq2SeqImpl>(model, prompt_);
  nodes_.push_back(Node{});
  set_top(nodes_[0], impl_->grow(*this, -1, 0, {}, positions_));
}

BranchTree::BranchTree(const model::TinyGPT& model, std::vector<int32_t> prompt, int top_k, int window_keep)
    : impl_(std::make_unique<GptImpl>(model)), top_k_(top_k) {
  const int T = model.config().block_size;
  check_top_k(top_k, model.config().vocab_size);
  if (window_keep < 0 || window_keep > T)
    throw Error("window_keep must be between 0 (default: half the context) and the context (" + std::to_string(T) + ")");
  keep_ = window_keep ? window_keep : std::max(1, T / 2);
  if (prompt.empty()) prompt = {'\n'};  // as sample::Generator
  prompt_ = std::move(prompt);
  const int n = int(prompt_.size());
  Node root;
  root.depth = n;
  root.window_start = n > T ? n - T : 0;
  nodes_.push_back(root);
  std::vector<int32_t> text = prompt_;
  set_top(nodes_[0], impl_->grow(*this, -1, 0, text, positions_));
}

BranchTree::BranchTree(const model::Seq2Seq& model, std::vector<int32_t> source, int top_k) : top_k_(top_k) {
  check_top_k(top_k, model.dims().vocab_size);
  check_source(source.size(), model.dims().block_size);
  prompt_ = std::move(source);
  impl_ = std::make_unique<Seq2SeqImpl>(model, prompt_);
  nodes_.push_back(Node{});
  nodes_[0].depth = 0;
  set_top(nodes_[0], impl_->grow(*this, -1, 0, {}, positions_));
}

BranchTree::~BranchTree() = default;

ModelKind BranchTree::kind() const { return impl_->kind(); }

const BranchTree::Node& BranchTree::node(int id) const {
  if (id < 0 || id >= int(nodes_.size())) throw Error("no node " + std::to_string(id) + " in this tree (it has " + std::to_string(nodes_.size()) + ")");
  return nodes_[size_t(id)];
}

std::vector<int> BranchTree::path(int id) const {
  node(id);
  std::vector<int> p;
  for (int n = id; n >= 0; n = nodes_[size_t(n)].parent) p.push_back(n);
  std::reverse(p.begin(), p.end());
  return p;
}

std::vector<uint8_t> BranchTree::text(int id) const {
  std::vector<uint8_t> out;
  for (const int32_t t : tokens(id))
    if (t >= 0 && t < 256) out.push_back(uint8_t(t));
  return out;
}

std::vector<int32_t> BranchTree::tokens(int id) const {
  std::vector<int32_t> out;
  if (is_language_model(kind())) out = prompt_;
  const int32_t text_tokens = is_translator(kind()) ? impl_->specials().text : impl_->vocab();
  for (int n : path(id))
    if (n > 0 && nodes_[size_t(n)].token >= 0 && nodes_[size_t(n)].token < text_tokens) out.push_back(nodes_[size_t(n)].token);
  return out;
}

int BranchTree::extend(int parent, int32_t token) {
  const Node& p = node(parent);
  const bool s2s = is_translator(kind());
  const int V = impl_->vocab();
  const data::PairTokens sp = impl_->specials();
  if (token < 0 || token >= V || (s2s && (token == sp.bos() || token == sp.pad())))
    throw Error("token " + std::to_string(token) + " cannot be generated (" +
                (s2s ? "text tokens 0-" + std::to_string(sp.text - 1) + " or EOS " + std::to_string(sp.eos())
                     : "tokens 0-" + std::to_string(V - 1)) + ")");
  if (s2s && p.token == sp.eos()) throw Error("this output has ended (EOS): branch from an earlier token");
  for (int c : p.children)
    if (nodes_[size_t(c)].token == token) return c;
  Node c;
  c.parent = parent;
  c.token = token;
  c.depth = p.depth + 1;
  c.prob = p.probs[size_t(token)];
  if (s2s) {
    const int limit = impl_->max_output();
    if (token != sp.eos() && c.depth > limit)
      throw Error("the output is at its longest (block_size - 1 = " + std::to_string(limit) + " bytes): only EOS can follow");
  } else if (const int T = impl_->window()) {
    c.window_start = p.depth - p.window_start == T ? p.depth + 1 - keep_ : p.window_start;  // sample::Generator's rebuild
  }
  const int id = int(nodes_.size());
  nodes_.push_back(c);
  nodes_[size_t(parent)].children.push_back(id);
  if (s2s && token == sp.eos()) return id;  // nothing follows EOS
  std::vector<int32_t> tokens;
  if (!s2s) tokens.assign(prompt_.begin(), prompt_.end());
  for (int n : path(id))
    if (n > 0) tokens.push_back(nodes_[size_t(n)].token);
  set_top(nodes_[size_t(id)], impl_->grow(*this, parent, id, tokens, positions_));
  return id;
}

void BranchTree::set_top(Node& n, const float* logits) {
  const int V = impl_->vocab();
  const bool s2s = is_translator(kind());
  // temperature-1 probabilities (seq2seq: over the text tokens and EOS, as translate() decodes)
  const data::PairTokens sp = impl_->specials();
  auto allowed = [&](int v) { return !s2s || (v != sp.bos() && v != sp.pad()); };
  float maxv = -INFINITY;
  for (int v = 0; v < V; v++)
    if (allowed(v)) maxv = std::max(maxv, logits[v]);
  n.probs.assign(size_t(V), 0.0f);
  double sum = 0.0;
  for (int v = 0; v < V; v++)
    if (allowed(v)) sum += std::exp(double(logits[v] - maxv));
  for (int v = 0; v < V; v++)
    if (allowed(v)) n.probs[size_t(v)] = float(std::exp(double(logits[v] - maxv)) / sum);
  std::vector<int32_t> order(static_cast<size_t>(V));
  std::iota(order.begin(), order.end(), 0);
  const int k = std::min(top_k_, s2s ? V - 2 : V);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int32_t a, int32_t b) {
    return n.probs[size_t(a)] != n.probs[size_t(b)] ? n.probs[size_t(a)] > n.probs[size_t(b)] : a < b;
  });
  n.top_tokens.assign(order.begin(), order.begin() + k);
  n.top_probs.clear();
  for (int32_t t : n.top_tokens) n.top_probs.push_back(n.probs[size_t(t)]);
}

}  // namespace tinygpt::watch
