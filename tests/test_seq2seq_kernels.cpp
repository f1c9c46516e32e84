// test_seq2seq_kernels.cpp — the encoder-decoder's kernels (kernels_seq2seq.cpp) against their
// scalar twins (kernels_seq2seq_ref.cpp) on awkward lengths, for every SIMD backend the build
// carries, and their independence from the thread count. Compiled with Emscripten and run under
// Node, the same file checks the SIMD128 path.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernel_checks.h"
#include "kernels.h"
#include "test_util.h"

using namespace tinygpt;

using testutil::for_each_backend;
using testutil::kSizes;
using testutil::random_vector;
using testutil::require_close;

namespace {

// A key-padding mask (B, Tk): element b has its last b % 3 keys padded (at least one real key),
// and, for b % 4 == 3, a padding key in the middle too (masks need not be right-aligned).
std::vector<uint8_t> padding(int B, int Tk) {
  std::vector<uint8_t> pad(size_t(B) * Tk, 0);
  for (int b = 0; b < B; b++) {
    for (int j = std::max(1, Tk - b % 3); j < Tk; j++) pad[size_t(b) * Tk + j] = 1;
    if (b % 4 == 3 && Tk > 2) pad[size_t(b) * Tk + Tk / 2] = 1;
  }
  return pad;
}

struct AttentionCase {
  kernels::AttentionShape s;
  bool fused;  // q, k, v side by side in one (B, T, 3C) buffer (self-attention), else q and kv apart
};

// Runs the fast and the reference kernel on the same inputs; compares out, att, dq, dk, dv.
void compare_attention(const AttentionCase& c, const uint8_t* pad) {
  kernels::AttentionShape s = c.s;
  const int C = s.C;
  std::vector<float> qbuf, kvbuf;
  const float *q, *k, *v;
  if (c.fused) {
    s.q_row = s.kv_row = 3 * C;
    s.q_batch = s.kv_batch = int64_t(s.Tq) * 3 * C;
    qbuf = random_vector(size_t(s.B) * s.Tq * 3 * C, 1);
    q = qbuf.data(), k = q + C, v = q + 2 * C;
  } else {
    s.q_row = C, s.kv_row = 2 * C;
    s.q_batch = int64_t(s.Tq) * C, s.kv_batch = int64_t(s.Tk) * 2 * C;
    qbuf = random_vector(size_t(s.B) * s.Tq * C, 1);
    kvbuf = random_vector(size_t(s.B) * s.Tk * 2 * C, 2);
    q = qbuf.data(), k = kvbuf.data(), v = k + C;
  }
  const size_t n_out = size_t(s.B) * s.Tq * C, n_att = size_t(s.B) * s.NH * s.Tq * s.Tk;
  std::vector<float> out(n_out), att(n_att, 7.0f), out_ref(n_out), att_ref(n_att, -7.0f);
  kernels::mha_forward(out.data(), att.data(), q, k, v, pad, s);
  kernels::ref::mha_forward(out_ref.data(), att_ref.data(), q, k, v, pad, s);
  require_close(att, att_ref, 1e-6, 1e-5, "att");
  require_close(out, out_ref, 1e-5, 1e-4, "out");

  const std::vector<float> dout = random_vector(n_out, 3);
  // added to what the buffers hold (random), then written over them (NaN: every element must be set)
  for (bool accumulate : {true, false}) {
    INFO("accumulate " << accumulate);
    std::vector<float> dq = accumulate ? random_vector(qbuf.size(), 4) : std::vector<float>(qbuf.size(), NAN);
    std::vector<float> dkv = accumulate ? random_vector(kvbuf.size(), 5) : std::vector<float>(kvbuf.size(), NAN);
    std::vector<float> dq_ref = dq, dkv_ref = dkv;
    if (c.fused) {
      kernels::mha_backward(dq.data(), dq.data() + C, dq.data() + 2 * C, dout.data(), q, k, v, att_ref.data(), pad, s,
                            accumulate);
      kernels::ref::mha_backward(dq_ref.data(), dq_ref.data() + C, dq_ref.data() + 2 * C, dout.data(), q, k, v,
                                 att_ref.data(), pad, s, accumulate);
    } else {
      kernels::mha_backward(dq.data(), dkv.data(), dkv.data() + C, dout.data(), q, k, v, att_ref.data(), pad, s,
                            accumulate);
      kernels::ref::mha_backward(dq_ref.data(), dkv_ref.data(), dkv_ref.data() + C, dout.data(), q, k, v,
                                 att_ref.data(), pad, s, accumulate);
    }
    require_close(dq, dq_ref, 1e-5, 1e-4, "dq (and dk, dv when fused)");
    require_close(dkv, dkv_ref, 1e-5, 1e-4, "dk, dv");
  }
}

}  // namespace

TEST_CASE("masked multi-head attention matches the reference: self, causal, cross, padded, awkward sizes",
          "[seq2seq][simd]") {
  for_each_backend([&] {
    for (int T : {1, 3, 15, 17, 33, 65}) {
      for (int NH : {1, 3}) {
        const int C = 6 * NH;  // head size 6: a vector and a tail
        for (bool causal : {false, true}) {
          for (bool padded : {false, true}) {
            INFO("self-attention T " << T << " heads " << NH << " causal " << causal << " padded " << padded);
            AttentionCase c{};
            c.s.B = 5, c.s.Tq = T, c.s.Tk = T, c.s.C = C, c.s.NH = NH, c.s.causal = causal;
            c.fused = true;
            const std::vector<uint8_t> pad = padding(5, T);
            compare_attention(c, padded ? pad.data() : nullptr);
          }
        }
      }
    }
    for (int Tq : {1, 16, 34})
      for (int Tk : {1, 5, 17, 40}) {
        INFO("cross-attention Tq " << Tq << " Tk " << Tk);
        AttentionCase c{};
        c.s.B = 4, c.s.Tq = Tq, c.s.Tk = Tk, c.s.C = 16, c.s.NH = 2;
        c.fused = false;
        const std::vector<uint8_t> pad = padding(4, Tk);
        compare_attention(c, pad.data());
        compare_attention(c, nullptr);
        c.s.causal = true;  // bottom-right aligned: query i sees keys j <= i + Tk - Tq (a decode step)
        compare_attention(c, pad.data());
      }
  });
}

TEST_CASE("a query whose keys are all padding gets zero weights and output, not NaN", "[seq2seq][simd]") {
  for_each_backend([&] {
    kernels::AttentionShape s;
    s.B = 2, s.Tq = 3, s.Tk = 19, s.C = 8, s.NH = 2;
    s.q_row = s.C, s.kv_row = 2 * s.C, s.q_batch = int64_t(s.Tq) * s.C, s.kv_batch = int64_t(s.Tk) * 2 * s.C;
    std::vector<uint8_t> pad(size_t(s.B) * s.Tk, 1);  // element 0: every key is padding
    for (int j = 0; j < s.Tk; j++) pad[size_t(s.Tk) + j] = j % 2;  // element 1: even keys are real
    const std::vector<float> q = random_vector(size_t(s.B) * s.Tq * s.C, 1);
    const std::vector<float> kv = random_vector(size_t(s.B) * s.Tk * 2 * s.C, 2);
    std::vector<float> out(size_t(s.B) * s.Tq * s.C, 5.0f), att(size_t(s.B) * s.NH * s.Tq * s.Tk, 5.0f);
    kernels::mha_forward(out.data(), att.data(), q.data(), kv.data(), kv.data() + s.C, pad.data(), s);
    for (int i = 0; i < s.Tq * s.C; i++) CHECK(out[size_t(i)] == 0.0f);
    for (int i = 0; i < s.NH * s.Tq * s.Tk; i++) CHECK(att[size_t(i)] == 0.0f);
    // element 1: rows sum to 1 over the real keys, exactly 0 on the padding keys
    for (int row = 0; row < s.NH * s.Tq; row++) {
      const float* a = &att[size_t(s.NH * s.Tq + row) * s.Tk];
      double sum = 0;
      for (int j = 0; j < s.Tk; j++) {
        if (j % 2) CHECK(a[j] == 0.0f);
        sum += a[j];
      }
      CHECK(sum == Approx(1.0).margin(1e-6));
    }
    for (float x : out) CHECK(std::isfinite(x));
    std::vector<float> dq(q.size(), 0.0f), dkv(kv.size(), 0.0f);
    const std::vector<float> dout = random_vector(out.size(), 3);
    kernels::mha_backward(dq.data(), dkv.data(), dkv.data() + s.C, dout.data(), q.data(), kv.data(), kv.data() + s.C,
                          att.data(), pad.data(), s, true);
    for (int i = 0; i < s.Tq * s.C; i++) CHECK(dq[size_t(i)] == 0.0f);
    for (float x : dq) CHECK(std::isfinite(x));
    for (float x : dkv) CHECK(std::isfinite(x));
  });
}

TEST_CASE("relu forward and backward match the reference", "[seq2seq][simd]") {
  for_each_backend([&] {
    for (int n : kSizes) {
      std::vector<float> x = random_vector(size_t(n), 1), dout = random_vector(size_t(n), 2);
      if (n > 2) x[1] = 0.0f;  // the kink: no gradient at exactly 0
      std::vector<float> out(static_cast<size_t>(n)), out_ref(static_cast<size_t>(n));
      kernels::relu_forward(out.data(), x.data(), n);
      kernels::ref::relu_forward(out_ref.data(), x.data(), n);
      require_close(out, out_ref, 1e-30, 0, "relu_forward");  // exact
      std::vector<float> dx = random_vector(size_t(n), 3), dx_ref = dx;
      kernels::relu_backward(dx.data(), x.data(), dout.data(), n);
      kernels::ref::relu_backward(dx_ref.data(), x.data(), dout.data(), n);
      require_close(dx, dx_ref, 1e-30, 0, "relu_backward");  // exact
      // in place from the output: what relu_backward adds to zeros
      std::vector<float> d = dout, d_ref = dout, zeros(size_t(n), 0.0f);
      kernels::relu_mask(d.data(), out.data(), n);
      kernels::ref::relu_mask(d_ref.data(), out.data(), n);
      CHECK(d == d_ref);
      kernels::relu_backward(zeros.data(), x.data(), dout.data(), n);
      CHECK(d == zeros);
    }
  });
}

TEST_CASE("cross-entropy with ignored targets matches the reference and skips padding rows", "[seq2seq][simd]") {
  for_each_backend([&] {
    for (int V : kSizes) {
      const int N = 7;
      const std::vector<float> z = random_vector(size_t(N) * V, 1, 3.0f);
      std::vector<int32_t> t(static_cast<size_t>(N));
      for (int n = 0; n < N; n++) t[size_t(n)] = n % 3 == 2 ? -1 : (n * 5) % V;
      std::vector<float> losses(size_t(N), 9.0f), probs(size_t(N) * V, 9.0f), losses_ref(static_cast<size_t>(N)),
          probs_ref(size_t(N) * V, 9.0f);
      kernels::crossentropy_ignore_forward(losses.data(), probs.data(), z.data(), t.data(), N, V);
      kernels::ref::crossentropy_ignore_forward(losses_ref.data(), probs_ref.data(), z.data(), t.data(), N, V);
      require_close(losses, losses_ref, 1e-6, 1e-5, "losses");
      require_close(probs, probs_ref, 1e-7, 1e-5, "probs");
      for (int n = 0; n < N; n++)
        if (t[size_t(n)] < 0) CHECK(losses[size_t(n)] == 0.0f);
      std::vector<float> dz(size_t(N) * V, 0.0f), dz_ref(size_t(N) * V, 0.0f);
      kernels::crossentropy_ignore_backward(dz.data(), probs_ref.data(), t.data(), 0.25f, N, V);
      kernels::ref::crossentropy_ignore_backward(dz_ref.data(), probs_ref.data(), t.data(), 0.25f, N, V);
      require_close(dz, dz_ref, 1e-7, 1e-5, "dlogits");
      for (int n = 0; n < N; n++)
        if (t[size_t(n)] < 0)
          for (int v = 0; v < V; v++) CHECK(dz[size_t(n) * V + v] == 0.0f);
    }
  });
}

TEST_CASE("masked attention gives bit-identical results with one and two threads", "[seq2seq][threads]") {
  kernels::AttentionShape s;
  s.B = 6, s.Tq = 40, s.Tk = 40, s.C = 32, s.NH = 4, s.causal = true;
  s.q_row = s.kv_row = 3 * s.C, s.q_batch = s.kv_batch = int64_t(s.Tq) * 3 * s.C;
  const std::vector<float> qkv = random_vector(size_t(s.B) * s.Tq * 3 * s.C, 1);
  const std::vector<float> dout = random_vector(size_t(s.B) * s.Tq * s.C, 2);
  const std::vector<uint8_t> pad = padding(s.B, s.Tk);
  auto run = [&] {
    std::vector<float> out(size_t(s.B) * s.Tq * s.C), att(size_t(s.B) * s.NH * s.Tq * s.Tk), dqkv(qkv.size(), 0.0f);
    const float* q = qkv.data();
    kernels::mha_forward(out.data(), att.data(), q, q + s.C, q + 2 * s.C, pad.data(), s);
    kernels::mha_backward(dqkv.data(), dqkv.data() + s.C, dqkv.data() + 2 * s.C, dout.data(), q, q + s.C, q + 2 * s.C,
                          att.data(), pad.data(), s, false);
    out.insert(out.end(), att.begin(), att.end());
    out.insert(out.end(), dqkv.begin(), dqkv.end());
    return out;
  };
  testutil::require_thread_independent(run, 2);
}
