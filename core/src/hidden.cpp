// hidden.cpp — traces of a recurrent model's units over a text, the patterns, and the unit search (hidden.h).
#include "tinygpt/hidden.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tinygpt/error.h"

namespace tinygpt::hidden {

Trace trace(model::Recurrent& m, nn::Arena& arena, const uint8_t* text, size_t n) {
  const std::vector<int32_t> tokens(text, text + std::min<size_t>(n, kMaxTraceBytes));
  const std::vector<int32_t> ones(tokens.size(), 1);
  return trace(m, arena, tokens.data(), ones.data(), tokens.size());
}

Trace trace(model::Recurrent& m, nn::Arena& arena, const int32_t* ids, const int32_t* lengths, size_t n) {
  if (n == 0) throw Error(coded("inspect.empty", {}, "inspect: give at least one byte of text"));
  const int T = int(std::min<size_t>(n, kMaxTraceBytes));
  const int L = m.layers(), H = m.hidden(), W = m.config().block_size;
  const int cell = m.cell();
  Trace r;
  r.T = T, r.L = L, r.H = H, r.G = cell == 2 ? 4 : cell == 1 ? 3 : 0;
  r.kind = model_kind_name(m.config().model);
  r.h.resize(size_t(L) * T * H);
  if (cell == 2) r.c.resize(size_t(L) * T * H);
  r.gates.resize(size_t(L) * T * r.G * H);
  nn::GradMode no_grad(false);
  std::vector<int32_t> tokens(ids, ids + T);
  r.tokens = tokens;
  r.ends.resize(size_t(T));
  for (int t = 0, at = 0; t < T; t++) r.ends[size_t(t)] = at += lengths[t];
  model::RecurrentState state;
  bool started = false;
  // window after window of block_size tokens, the state carried: what generation sees
  for (int t0 = 0; t0 < T; t0 += W) {
    const int len = std::min(W, T - t0);
    arena.reset();
    m.forward_logits(arena, tokens.data() + t0, 1, len, started ? &state : nullptr, &state);
    started = true;
    for (int l = 0; l < L; l++) {
      const size_t at = (size_t(l) * T + t0) * H;
      std::memcpy(r.h.data() + at, m.last_hidden(l).data(), size_t(len) * H * sizeof(float));
      if (cell == 2) std::memcpy(r.c.data() + at, m.last_cell(l).data(), size_t(len) * H * sizeof(float));
      if (r.G == 0) continue;
      const float* g = m.last_gates(l).data();  // (1, len, 4H): the first G blocks of H
      for (int t = 0; t < len; t++)
        std::memcpy(r.gates.data() + ((size_t(l) * T + t0 + t) * r.G) * H, g + size_t(t) * 4 * H,
                    size_t(r.G) * H * sizeof(float));
    }
  }
  arena.reset();
  return r;
}

const std::vector<PatternInfo>& patterns() {
  static const std::vector<PatternInfo> list = {
      {"quote", "inside \"double quotes\""},
      {"line_position", "bytes since the start of the line"},
      {"word_position", "bytes since the last space or newline"},
      {"vowel", "a vowel: a e i o u"},
      {"space", "a space or a newline"},
      {"upper", "a capital letter A-Z"},
      {"punctuation", "punctuation: . , ; : ! ? ' \" - ( )"},
      {"newline_next", "the next byte is a newline"},
  };
  return list;
}

std::vector<float> signal(const std::string& pattern, const uint8_t* text, size_t n) {
  std::vector<float> s(n, 0.0f);
  auto is = [](uint8_t b, const char* set) { return b != 0 && std::strchr(set, b) != nullptr; };
  if (pattern == "quote") {
    bool inside = false;
    for (size_t i = 0; i < n; i++) {
      if (text[i] == '"' && inside) inside = false;  // the closing quote is outside
      else if (text[i] == '"') inside = true;        // the opening one inside
      s[i] = inside ? 1.0f : 0.0f;
    }
  } else if (pattern == "line_position" || pattern == "word_position") {
    const char* breaks = pattern == "line_position" ? "\n" : " \n";
    float k = 0.0f;
    for (size_t i = 0; i < n; i++) {
      s[i] = k;
      k = is(text[i], breaks) ? 0.0f : k + 1.0f;
    }
  } else if (pattern == "vowel") {
    for (size_t i = 0; i < n; i++) s[i] = is(text[i], "aeiouAEIOU");
  } else if (pattern == "space") {
    for (size_t i = 0; i < n; i++) s[i] = is(text[i], " \n");
  } else if (pattern == "upper") {
    for (size_t i = 0; i < n; i++) s[i] = text[i] >= 'A' && text[i] <= 'Z';
  } else if (pattern == "punctuation") {
    for (size_t i = 0; i < n; i++) s[i] = is(text[i], ".,;:!?'\"-()");
  } else if (pattern == "newline_next") {
    for (size_t i = 0; i + 1 < n; i++) s[i] = text[i + 1] == '\n';
  } else {
    std::string names;
    for (const PatternInfo& p : patterns()) names += (names.empty() ? "" : ", ") + std::string(p.name);
    throw Error("unknown pattern '" + pattern + "' (patterns: " + names + ")");
  }
  return s;
}

std::vector<float> token_signal(const std::vector<float>& byte_signal, const std::vector<int32_t>& ends) {
  std::vector<float> s(ends.size());
  for (size_t t = 0; t < ends.size(); t++) {
    if (ends[t] < 1 || size_t(ends[t]) > byte_signal.size())
      throw Error("token_signal: a token ends at byte " + std::to_string(ends[t]) + " of a signal of " + std::to_string(byte_signal.size()));
    s[t] = byte_signal[size_t(ends[t]) - 1];
  }
  return s;
}

double correlation(const float* x, const float* y, int n, int stride_x) {
  if (n < 2) return 0.0;
  double mx = 0, my = 0;
  for (int i = 0; i < n; i++) mx += x[int64_t(i) * stride_x], my += y[i];
  mx /= n, my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (int i = 0; i < n; i++) {
    const double dx = x[int64_t(i) * stride_x] - mx, dy = y[i] - my;
    sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
  }
  if (sxx <= 1e-24 || syy <= 1e-24) return 0.0;  // a constant unit or pattern tracks nothing
  return sxy / std::sqrt(sxx * syy);
}

std::vector<UnitMatch> search_units(const Trace& tr, const std::vector<float>& sig, int k) {
  if (int(sig.size()) != tr.T) throw Error("search_units: the signal has " + std::to_string(sig.size()) + " values for " + std::to_string(tr.T) + " bytes");
  std::vector<UnitMatch> all;
  for (const char* state : {"h", "c"}) {
    const std::vector<float>& v = state[0] == 'h' ? tr.h : tr.c;
    if (v.empty()) continue;
    for (int l = 0; l < tr.L; l++)
      for (int u = 0; u < tr.H; u++) {
        const float* x = v.data() + size_t(l) * tr.T * tr.H + u;  // (T) with stride H
        all.push_back({l, u, state, float(correlation(x, sig.data(), tr.T, tr.H))});
      }
  }
  // |r| largest first; stable: on ties h before c, then lower layer, then unit (the order built above)
  std::stable_sort(all.begin(), all.end(), [](const UnitMatch& a, const UnitMatch& b) {
    return std::fabs(a.correlation) > std::fabs(b.correlation);
  });
  all.resize(std::min(all.size(), size_t(std::max(k, 0))));
  return all;
}

}  // namespace tinygpt::hidden
