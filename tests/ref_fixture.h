// ref_fixture.h — reading a PyTorch reference fixture (tests/ref/make_ref.py's TGREF001 format)
// and comparing the core's numbers with it, for tests/test_ref.cpp (TinyGPT) and
// tests/test_seq2seq_ref.cpp (the encoder-decoder).
//
// Each compared tensor prints one line that is easy to grep:
//   [ref] grad/h.0.attn.c_attn.weight max_abs 1.2e-09 max_rel 3.4e-07 n 3072 atol 1e-07 rtol 1e-04 ok
// max_rel is |a - b| / max(|b|, atol): relative error, with tiny reference values measured
// against the absolute floor rather than themselves. An element passes when
// |a - b| <= atol + rtol * |b|; any failing element fails the test.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace reftest {

struct Tol {
  double atol, rtol;
};

struct Record {
  uint32_t dtype = 0;  // 0 = float32, 1 = int32
  std::vector<int64_t> dims;
  std::vector<float> f;
  std::vector<int32_t> i;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

struct Fixture {
  std::vector<std::string> order;  // record names in file order
  std::map<std::string, Record> records;

  const Record& at(const std::string& name) const {
    auto it = records.find(name);
    if (it == records.end()) FAIL("the fixture has no record named '" << name << "'");
    return it->second;
  }
  const std::vector<float>& floats(const std::string& name) const {
    const Record& r = at(name);
    REQUIRE(r.dtype == 0u);
    return r.f;
  }
  const std::vector<int32_t>& ints(const std::string& name) const {
    const Record& r = at(name);
    REQUIRE(r.dtype == 1u);
    return r.i;
  }
};

inline uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

inline Fixture load_fixture(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) FAIL("cannot open " << path << " (regenerate with /usr/bin/python3 tests/ref/make_ref.py)");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  auto take = [&](size_t n) {
    if (pos + n > bytes.size()) FAIL(path << " is truncated at byte " << pos);
    const unsigned char* p = bytes.data() + pos;
    pos += n;
    return p;
  };
  auto u32 = [&] { return le32(take(4)); };
  if (std::memcmp(take(8), "TGREF001", 8) != 0) FAIL(path << " does not start with TGREF001");
  Fixture fx;
  const uint32_t count = u32();
  for (uint32_t k = 0; k < count; k++) {
    const uint32_t name_len = u32();
    const unsigned char* name_p = take(name_len);
    std::string name(reinterpret_cast<const char*>(name_p), name_len);
    Record r;
    r.dtype = u32();
    if (r.dtype > 1) FAIL("record " << name << " has unknown dtype " << r.dtype);
    const uint32_t ndim = u32();
    for (uint32_t d = 0; d < ndim; d++) r.dims.push_back(u32());
    const int64_t n = r.numel();
    const unsigned char* data = take(size_t(n) * 4);
    for (int64_t e = 0; e < n; e++) {
      const uint32_t bits = le32(data + 4 * e);
      if (r.dtype == 0) {
        float v;
        std::memcpy(&v, &bits, 4);
        r.f.push_back(v);
      } else {
        r.i.push_back(int32_t(bits));
      }
    }
    if (fx.records.count(name)) FAIL("duplicate record " << name);
    fx.order.push_back(name);
    fx.records.emplace(name, std::move(r));
  }
  if (pos != bytes.size()) FAIL(path << " has " << bytes.size() - pos << " trailing bytes");
  return fx;
}

struct Stats {
  double max_abs = 0, max_rel = 0;
  int64_t n = 0, bad = 0;
  int64_t slack_used = 0;  // elements that passed only thanks to their per-element slack
  double max_abs_plain = 0;  // max |a - b| over the elements that passed without slack
  int64_t worst = -1;  // first failing element
  float worst_got = 0, worst_want = 0;
  void merge(const Stats& o) {
    max_abs = std::max(max_abs, o.max_abs);
    max_rel = std::max(max_rel, o.max_rel);
    n += o.n;
    bad += o.bad;
    slack_used += o.slack_used;
    max_abs_plain = std::max(max_abs_plain, o.max_abs_plain);
  }
};

// slack (optional, n elements): an extra allowance per element on top of atol + rtol |b|.
inline Stats compare(const float* got, const float* want, int64_t n, Tol tol, const double* slack = nullptr) {
  Stats s;
  s.n = n;
  for (int64_t i = 0; i < n; i++) {
    const double a = got[i], b = want[i];
    const double err = std::fabs(a - b);
    const double bound = tol.atol + tol.rtol * std::fabs(b);
    const bool ok = err <= bound + (slack ? slack[i] : 0.0);  // false for NaN too
    if (err <= bound) s.max_abs_plain = std::max(s.max_abs_plain, err);
    else if (ok) s.slack_used++;
    s.max_abs = std::max(s.max_abs, std::isnan(err) ? INFINITY : err);
    s.max_rel = std::max(s.max_rel, std::isnan(err) ? INFINITY : err / std::max(std::fabs(b), tol.atol));
    if (!ok && s.bad++ == 0) {
      s.worst = i;
      s.worst_got = got[i];
      s.worst_want = want[i];
    }
  }
  return s;
}

inline void report(const std::string& name, const Stats& s, Tol tol) {
  char extra[96] = "";
  if (s.slack_used)
    std::snprintf(extra, sizeof extra, " (%lld within slack; max_abs of the others %.3e)", (long long)s.slack_used,
                  s.max_abs_plain);
  std::printf("[ref] %s max_abs %.3e max_rel %.3e n %lld atol %.0e rtol %.0e %s%s\n", name.c_str(), s.max_abs,
              s.max_rel, (long long)s.n, tol.atol, tol.rtol, s.bad ? "FAIL" : "ok", extra);
  std::fflush(stdout);
}

// Compare, print the report line, and fail the test (naming the first bad element) on any drift.
inline Stats check_close(const std::string& name, const float* got, const float* want, int64_t n, Tol tol,
                  const double* slack = nullptr) {
  Stats s = compare(got, want, n, tol, slack);
  report(name, s, tol);
  INFO(name << ": " << s.bad << " of " << s.n << " elements out of tolerance; first at index " << s.worst
            << ": got " << s.worst_got << ", PyTorch " << s.worst_want);
  CHECK(s.bad == 0);
  return s;
}

// Adam's first update is u(g) = (m / bc1) / (sqrt(v / bc2) + eps) = g / (|g| + eps): essentially
// sign(g), with slope eps / (|g| + eps)^2 that reaches 1 / eps = 1e8 near g = 0. Where the
// gradient is at the float32 noise floor — e.g. an attention key bias, whose gradient is exactly 0 in
// exact arithmetic because softmax ignores a per-query constant, or any gradient near eps — two correct
// implementations legitimately move the parameter by different fractions of lr. The slack is
// the most the gradient error that grad_tol allows (delta, clipped like g) can change lr * u:
//   lr * min(2, delta * eps / (max(|g| - delta, 0) + eps)^2)
// It is ~0 for |g| >= 1e-5 and reaches 2 lr only for gradients below ~1e-7.
inline std::vector<double> step1_slack(const std::vector<float>& g_ref, float clip_coef, float lr, float eps,
                                       Tol grad_tol) {
  std::vector<double> slack(g_ref.size());
  for (size_t i = 0; i < g_ref.size(); i++) {
    const double g = std::fabs(double(g_ref[i])) * clip_coef;
    const double delta = (grad_tol.atol + grad_tol.rtol * g) * clip_coef;
    const double denom = std::max(g - delta, 0.0) + eps;
    slack[i] = double(lr) * std::min(2.0, delta * eps / (denom * denom));
  }
  return slack;
}

}  // namespace reftest
