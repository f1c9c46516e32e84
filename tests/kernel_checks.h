// kernel_checks.h — what the kernel tests share (test_kernels.cpp, test_seq2seq_kernels.cpp,
// test_rnn.cpp): lengths that exercise the vector tails, the closeness check against a scalar
// reference, and running a check once per SIMD backend the build carries.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "kernels.h"

namespace testutil {

// around the vector widths (4, 8, 16 lanes) and their multiples
inline constexpr int kSizes[] = {1, 3, 15, 16, 17, 63, 64, 65};

// max |got - want| / (atol + rtol |want|) must stay <= 1 (NaN fails); names the worst element
inline void require_close(const std::vector<float>& got, const std::vector<float>& want, double atol, double rtol,
                          const char* what) {
  REQUIRE(got.size() == want.size());
  if (got.empty()) return;
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); i++) {
    const double r = std::fabs(double(got[i]) - want[i]) / (atol + rtol * std::fabs(double(want[i])));
    if (!(r <= worst)) {  // also catches NaN
      worst = r;
      at = i;
    }
  }
  INFO(what << ": worst element " << at << " got " << got[at] << " want " << want[at]);
  CHECK(worst <= 1.0);
}

// Runs body once per SIMD backend this build carries (a portable x86-64 build: avx512, avx2 and
// sse2 where the CPU has them), then restores the default.
template <class F>
void for_each_backend(F body) {
  const std::string saved = tinygpt::kernels::simd_backend();
  const std::string all = tinygpt::kernels::available_backends() + " ";
  std::string name;
  for (char ch : all) {
    if (ch != ' ') {
      name += ch;
      continue;
    }
    REQUIRE(tinygpt::kernels::use_backend(name));
    INFO("backend " << name);
    body();
    name.clear();
  }
  tinygpt::kernels::use_backend(saved);
}

}  // namespace testutil
