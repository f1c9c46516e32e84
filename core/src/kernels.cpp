// kernels.cpp — the production kernels: SIMD through simd.h, split across the thread pool
// in ranges that never overlap, so results are identical for any thread count.
// Each has a plain twin in kernels_ref.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.h"
#include "simd.h"
#include "threadpool.h"

namespace kernels {

using simd::vf;
using simd::W;

const char* simd_backend() { return simd::kBackend; }

namespace {
constexpr int64_t kChunk = 4096;  // elements per task for elementwise kernels

template <class F>
void for_chunks(int64_t n, F&& f) {  // f(begin, end) over [0, n) in kChunk pieces
  const int tasks = int((n + kChunk - 1) / kChunk);
  tp::parallel_for(tasks, [&](int b, int e, int) { f(b * kChunk, std::min(n, e * kChunk)); });
}

// Row helpers (x has n floats)
inline float row_max(const float* x, int n) {
  int i = 0;
  float m = -INFINITY;
  if (n >= W) {
    vf vm = simd::load(x);
    for (i = W; i + W <= n; i += W) vm = simd::vmax(vm, simd::load(x + i));
    m = simd::hmax(vm);
  }
  for (; i < n; i++) m = std::fmax(m, x[i]);
  return m;
}

// out[i] = exp(x[i] - shift); returns the sum
inline float exp_shift_sum(float* out, const float* x, float shift, int n) {
  int i = 0;
  vf vs = simd::zero();
  const vf vshift = simd::splat(shift);
  for (; i + W <= n; i += W) {
    vf e = simd::vexp(simd::load(x + i) - vshift);
    simd::store(out + i, e);
    vs = vs + e;
  }
  float s = simd::hsum(vs);
  for (; i < n; i++) {
    out[i] = std::exp(x[i] - shift);
    s += out[i];
  }
  return s;
}

inline void scale_row(float* x, float s, int n) {
  int i = 0;
  const vf vsc = simd::splat(s);
  for (; i + W <= n; i += W) simd::store(x + i, simd::load(x + i) * vsc);
  for (; i < n; i++) x[i] *= s;
}

inline float dot(const float* a, const float* b, int n) {
  int i = 0;
  vf acc = simd::zero();
  for (; i + W <= n; i += W) acc = simd::fma(simd::load(a + i), simd::load(b + i), acc);
  float s = simd::hsum(acc);
  for (; i < n; i++) s += a[i] * b[i];
  return s;
}

// y += a * x
inline void axpy(float* y, float a, const float* x, int n) {
  int i = 0;
  const vf va = simd::splat(a);
  for (; i + W <= n; i += W) simd::store(y + i, simd::fma(va, simd::load(x + i), simd::load(y + i)));
  for (; i < n; i++) y[i] += a * x[i];
}
}  // namespace

// ---- linear --------------------------------------------------------------------------------

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC) {
  if (bias) {
    tp::parallel_for(N, [&](int b, int e, int) {
      for (int n = b; n < e; n++) std::memcpy(out + int64_t(n) * OC, bias, size_t(OC) * sizeof(float));
    });
  }
  // out (N, OC) [+]= inp (N, IC) @ weight (IC, OC)
  sgemm(false, false, N, OC, IC, inp, IC, weight, OC, out, OC, bias != nullptr);
}

void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int IC, int OC) {
  // forward: out = inp @ weight + bias
  if (dinp) sgemm(false, true, N, IC, OC, dout, OC, weight, OC, dinp, IC, true);       // dout @ weight^T
  if (dweight) sgemm(true, false, IC, OC, N, inp, IC, dout, OC, dweight, OC, true);    // inp^T @ dout
  if (dbias) {
    // column sums, split by column ranges so each thread owns its outputs
    const int pieces = (OC + 63) / 64;
    tp::parallel_for(pieces, [&](int b, int e, int) {
      const int c0 = b * 64, c1 = std::min(OC, e * 64);
      for (int n = 0; n < N; n++) accumulate(dbias + c0, dout + int64_t(n) * OC + c0, c1 - c0);
    });
  }
}

// ---- LayerNorm -----------------------------------------------------------------------------

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* x = inp + int64_t(n) * C;
      float* y = out + int64_t(n) * C;
      float m = 0.0f;
      {
        int c = 0;
        vf acc = simd::zero();
        for (; c + W <= C; c += W) acc = acc + simd::load(x + c);
        m = simd::hsum(acc);
        for (; c < C; c++) m += x[c];
        m /= C;
      }
      float var = 0.0f;
      {
        int c = 0;
        vf acc = simd::zero();
        const vf vm = simd::splat(m);
        for (; c + W <= C; c += W) {
          vf d = simd::load(x + c) - vm;
          acc = simd::fma(d, d, acc);
        }
        var = simd::hsum(acc);
        for (; c < C; c++) var += (x[c] - m) * (x[c] - m);
        var /= C;
      }
      const float s = 1.0f / std::sqrt(var + eps);
      int c = 0;
      const vf vm = simd::splat(m), vs = simd::splat(s);
      for (; c + W <= C; c += W)
        simd::store(y + c, simd::fma((simd::load(x + c) - vm) * vs, simd::load(weight + c), simd::load(bias + c)));
      for (; c < C; c++) y[c] = (x[c] - m) * s * weight[c] + bias[c];
      mean[n] = m;
      rstd[n] = s;
    }
  });
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C) {
  // forward: y = xhat * w + b, xhat = (x - mean) * rstd
  // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),  dxhat = dy * w
  if (dinp) {
    tp::parallel_for(N, [&](int b, int e, int) {
      for (int n = b; n < e; n++) {
        const float* x = inp + int64_t(n) * C;
        const float* dy = dout + int64_t(n) * C;
        float* dx = dinp + int64_t(n) * C;
        const float m = mean[n], s = rstd[n];
        const vf vm = simd::splat(m), vs = simd::splat(s);
        vf a1 = simd::zero(), a2 = simd::zero();
        int c = 0;
        for (; c + W <= C; c += W) {
          vf xhat = (simd::load(x + c) - vm) * vs;
          vf dxhat = simd::load(dy + c) * simd::load(weight + c);
          a1 = a1 + dxhat;
          a2 = simd::fma(dxhat, xhat, a2);
        }
        float dxhat_mean = simd::hsum(a1), dxhat_xhat_mean = simd::hsum(a2);
        for (; c < C; c++) {
          float xhat = (x[c] - m) * s, dxhat = dy[c] * weight[c];
          dxhat_mean += dxhat;
          dxhat_xhat_mean += dxhat * xhat;
        }
        dxhat_mean /= C;
        dxhat_xhat_mean /= C;
        const vf v1 = simd::splat(dxhat_mean), v2 = simd::splat(dxhat_xhat_mean);
        c = 0;
        for (; c + W <= C; c += W) {
          vf xhat = (simd::load(x + c) - vm) * vs;
          vf dxhat = simd::load(dy + c) * simd::load(weight + c);
          simd::store(dx + c, simd::fma(vs, dxhat - v1 - xhat * v2, simd::load(dx + c)));
        }
        for (; c < C; c++) {
          float xhat = (x[c] - m) * s, dxhat = dy[c] * weight[c];
          dx[c] += s * (dxhat - dxhat_mean - xhat * dxhat_xhat_mean);
        }
      }
    });
  }
  if (dweight || dbias) {
    // reductions over rows, split by column ranges
    const int pieces = (C + 63) / 64;
    tp::parallel_for(pieces, [&](int b, int e, int) {
      const int c0 = b * 64, c1 = std::min(C, e * 64);
      for (int n = 0; n < N; n++) {
        const float* x = inp + int64_t(n) * C;
        const float* dy = dout + int64_t(n) * C;
        const float m = mean[n], s = rstd[n];
        int c = c0;
        const vf vm = simd::splat(m), vs = simd::splat(s);
        for (; c + W <= c1; c += W) {
          vf g = simd::load(dy + c);
          if (dweight) simd::store(dweight + c, simd::fma(g, (simd::load(x + c) - vm) * vs, simd::load(dweight + c)));
          if (dbias) simd::store(dbias + c, simd::load(dbias + c) + g);
        }
        for (; c < c1; c++) {
          if (dweight) dweight[c] += dy[c] * (x[c] - m) * s;
          if (dbias) dbias[c] += dy[c];
        }
      }
    });
  }
}

// ---- GELU ------------------------------------------------------------------------------------

static const float kGeluScale = 0.7978845608028654f;  // sqrt(2 / pi)

void gelu_forward(float* out, const float* inp, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf k = simd::splat(kGeluScale), c = simd::splat(0.044715f), half = simd::splat(0.5f), one = simd::splat(1.0f);
    for (; i + W <= e; i += W) {
      vf x = simd::load(inp + i);
      vf t = simd::vtanh(k * simd::fma(c * x, x * x, x));
      simd::store(out + i, half * x * (one + t));
    }
    for (; i < e; i++) {
      float x = inp[i];
      out[i] = 0.5f * x * (1.0f + std::tanh(kGeluScale * (x + 0.044715f * x * x * x)));
    }
  });
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  // d/dx [0.5 x (1 + tanh u)] = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) du/dx,
  // u = k (x + c x^3), du/dx = k (1 + 3 c x^2)
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf k = simd::splat(kGeluScale), c = simd::splat(0.044715f), c3 = simd::splat(3.0f * 0.044715f);
    const vf half = simd::splat(0.5f), one = simd::splat(1.0f);
    for (; i + W <= e; i += W) {
      vf x = simd::load(inp + i);
      vf x2 = x * x;
      vf t = simd::vtanh(k * simd::fma(c * x, x2, x));
      vf du = k * simd::fma(c3, x2, one);
      vf g = half * (one + t) + half * x * (one - t * t) * du;
      simd::store(dinp + i, simd::fma(g, simd::load(dout + i), simd::load(dinp + i)));
    }
    for (; i < e; i++) {
      float x = inp[i];
      float t = std::tanh(kGeluScale * (x + 0.044715f * x * x * x));
      float du = kGeluScale * (1.0f + 3.0f * 0.044715f * x * x);
      dinp[i] += (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du) * dout[i];
    }
  });
}

// ---- softmax ---------------------------------------------------------------------------------

void softmax_forward(float* out, const float* inp, int N, int C) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* x = inp + int64_t(n) * C;
      float* y = out + int64_t(n) * C;
      float sum = exp_shift_sum(y, x, row_max(x, C), C);
      scale_row(y, 1.0f / sum, C);
    }
  });
}

void softmax_backward(float* dinp, const float* out, const float* dout, int N, int C) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* y = out + int64_t(n) * C;
      const float* dy = dout + int64_t(n) * C;
      float* dx = dinp + int64_t(n) * C;
      const float d = dot(dy, y, C);
      int c = 0;
      const vf vd = simd::splat(d);
      for (; c + W <= C; c += W)
        simd::store(dx + c, simd::fma(simd::load(y + c), simd::load(dy + c) - vd, simd::load(dx + c)));
      for (; c < C; c++) dx[c] += y[c] * (dy[c] - d);
    }
  });
}

// ---- cross-entropy ---------------------------------------------------------------------------

void crossentropy_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      const float* z = logits + int64_t(n) * V;
      float* p = probs + int64_t(n) * V;
      const float maxv = row_max(z, V);
      const float sum = exp_shift_sum(p, z, maxv, V);
      scale_row(p, 1.0f / sum, V);
      // -log p_y = log(sum) - (z_y - max): exact even where p_y underflows
      losses[n] = std::log(sum) - (z[targets[n]] - maxv);
    }
  });
}

void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      float* dz = dlogits + int64_t(n) * V;
      axpy(dz, dloss, probs + int64_t(n) * V, V);
      dz[targets[n]] -= dloss;
    }
  });
}

// ---- attention -------------------------------------------------------------------------------
// One task per (batch, head). For each head the keys (forward) or values (backward) are
// first packed transposed, (HS, Tp) with Tp = T rounded up to W, so that a query's scores
// against keys j .. j+W-1 are one vector FMA per head channel. Only j <= i is computed:
// the masked half costs nothing.

namespace {
thread_local std::vector<float> tl_attn_scratch;

float* attn_scratch(size_t n) {
  if (tl_attn_scratch.size() < n) tl_attn_scratch.resize(n);
  return tl_attn_scratch.data();
}

// kt (HS, Tp): kt[d * Tp + j] = src_j[d], src_j = base + j * stride; zero padding past T
void pack_transposed(float* kt, const float* base, int stride, int T, int Tp, int HS) {
  for (int j = 0; j < T; j++)
    for (int d = 0; d < HS; d++) kt[d * Tp + j] = base[int64_t(j) * stride + d];
  for (int d = 0; d < HS; d++)
    for (int j = T; j < Tp; j++) kt[d * Tp + j] = 0.0f;
}

// s[j] = scale * (x . cols_j) for j in [0, n), columns of the packed (HS, Tp) matrix
inline void scores_row(float* s, const float* x, const float* packed, int Tp, int HS, int n, float scale) {
  const vf vscale = simd::splat(scale);
  for (int j = 0; j < n; j += W) {
    vf acc = simd::zero();
    for (int d = 0; d < HS; d++) acc = simd::fma(simd::splat(x[d]), simd::load(packed + d * Tp + j), acc);
    simd::store(s + j, acc * vscale);
  }
}
}  // namespace

void attention_forward(float* out, float* att, const float* qkv, int B, int T, int C, int NH) {
  const int HS = C / NH, C3 = 3 * C;
  const int Tp = (T + W - 1) / W * W;
  const float scale = 1.0f / std::sqrt(float(HS));
  tp::parallel_for(B * NH, [&](int task_begin, int task_end, int) {
    float* kt = attn_scratch(size_t(HS) * Tp + Tp);  // (HS, Tp) keys, then one score row
    float* srow = kt + size_t(HS) * Tp;
    for (int task = task_begin; task < task_end; task++) {
      const int b = task / NH, h = task % NH;
      const float* qkv_b = qkv + int64_t(b) * T * C3;
      pack_transposed(kt, qkv_b + C + h * HS, C3, T, Tp, HS);
      for (int i = 0; i < T; i++) {
        const float* q_i = qkv_b + int64_t(i) * C3 + h * HS;
        float* att_i = att + (int64_t(task) * T + i) * T;
        const int n = i + 1;                       // keys 0..i are visible
        scores_row(srow, q_i, kt, Tp, HS, n, scale);  // fills up to n rounded up to W
        const float maxv = row_max(srow, n);
        const float sum = exp_shift_sum(att_i, srow, maxv, n);
        scale_row(att_i, 1.0f / sum, n);
        std::memset(att_i + n, 0, size_t(T - n) * sizeof(float));  // the mask: j > i
        // out_i = sum_j att_ij v_j
        float* out_i = out + (int64_t(b) * T + i) * C + h * HS;
        std::memset(out_i, 0, size_t(HS) * sizeof(float));
        for (int j = 0; j < n; j++) axpy(out_i, att_i[j], qkv_b + int64_t(j) * C3 + 2 * C + h * HS, HS);
      }
    }
  });
}

void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C,
                        int NH) {
  const int HS = C / NH, C3 = 3 * C;
  const int Tp = (T + W - 1) / W * W;
  const float scale = 1.0f / std::sqrt(float(HS));
  tp::parallel_for(B * NH, [&](int task_begin, int task_end, int) {
    float* vt = attn_scratch(size_t(HS) * Tp + Tp);  // (HS, Tp) values, then one datt row
    float* datt = vt + size_t(HS) * Tp;
    for (int task = task_begin; task < task_end; task++) {
      const int b = task / NH, h = task % NH;
      const float* qkv_b = qkv + int64_t(b) * T * C3;
      float* dqkv_b = dqkv + int64_t(b) * T * C3;
      pack_transposed(vt, qkv_b + 2 * C + h * HS, C3, T, Tp, HS);
      for (int i = 0; i < T; i++) {
        const float* att_i = att + (int64_t(task) * T + i) * T;
        const float* dout_i = dout + (int64_t(b) * T + i) * C + h * HS;
        const float* q_i = qkv_b + int64_t(i) * C3 + h * HS;
        float* dq_i = dqkv_b + int64_t(i) * C3 + h * HS;
        const int n = i + 1;
        // forward: out_i = sum_j att_ij v_j  ->  datt_ij = dout_i . v_j,  dv_j += att_ij dout_i
        scores_row(datt, dout_i, vt, Tp, HS, n, 1.0f);
        const float d = dot(att_i, datt, n);
        for (int j = 0; j < n; j++) {
          axpy(dqkv_b + int64_t(j) * C3 + 2 * C + h * HS, att_i[j], dout_i, HS);
          // forward: att_i = softmax(s_i)   ->  ds_ij = att_ij (datt_ij - sum_k att_ik datt_ik)
          // forward: s_ij = scale q_i . k_j  ->  dq_i += scale ds_ij k_j,  dk_j += scale ds_ij q_i
          const float ds = att_i[j] * (datt[j] - d) * scale;
          axpy(dq_i, ds, qkv_b + int64_t(j) * C3 + C + h * HS, HS);
          axpy(dqkv_b + int64_t(j) * C3 + C + h * HS, ds, q_i, HS);
        }
      }
    }
  });
}

void attention_decode(float* out, const float* qkv, const float* k_cache, const float* v_cache, int p0, int n, int C,
                      int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(float(HS));
  tp::parallel_for(NH, [&](int h_begin, int h_end, int) {
    float* s = attn_scratch(size_t(p0 + n));
    for (int h = h_begin; h < h_end; h++)
      for (int i = 0; i < n; i++) {
        const float* q_i = qkv + int64_t(i) * 3 * C + h * HS;
        const int visible = p0 + i + 1;
        for (int j = 0; j < visible; j++) s[j] = dot(q_i, k_cache + int64_t(j) * C + h * HS, HS) * scale;
        const float sum = exp_shift_sum(s, s, row_max(s, visible), visible);
        float* out_i = out + int64_t(i) * C + h * HS;
        std::memset(out_i, 0, size_t(HS) * sizeof(float));
        for (int j = 0; j < visible; j++) axpy(out_i, s[j] / sum, v_cache + int64_t(j) * C + h * HS, HS);
      }
  });
}

// ---- small vector ops ------------------------------------------------------------------------

void add_forward(float* out, const float* a, const float* b, int64_t n) {
  for_chunks(n, [&](int64_t lo, int64_t hi) {
    int64_t i = lo;
    for (; i + W <= hi; i += W) simd::store(out + i, simd::load(a + i) + simd::load(b + i));
    for (; i < hi; i++) out[i] = a[i] + b[i];
  });
}

void accumulate(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) simd::store(dst + i, simd::load(dst + i) + simd::load(src + i));
  for (; i < n; i++) dst[i] += src[i];
}

double sum_squares(const float* x, int64_t n) {
  // fixed order and double partial sums per 4096-element block: same answer for any thread count
  double total = 0.0;
  for (int64_t b = 0; b < n; b += kChunk) {
    const int64_t e = std::min(n, b + kChunk);
    vf acc = simd::zero();
    int64_t i = b;
    for (; i + W <= e; i += W) acc = simd::fma(simd::load(x + i), simd::load(x + i), acc);
    double s = simd::hsum(acc);
    for (; i < e; i++) s += double(x[i]) * x[i];
    total += s;
  }
  return total;
}

void scale(float* x, float s, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) { scale_row(x + b, s, int(e - b)); });
}

// ---- AdamW ---------------------------------------------------------------------------------

void adamw_update(float* params, const float* grads, float* m, float* v, int64_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, float bias_correction1, float bias_correction2) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    const vf b1 = simd::splat(beta1), b2 = simd::splat(beta2);
    const vf omb1 = simd::splat(1.0f - beta1), omb2 = simd::splat(1.0f - beta2);
    const vf decay = simd::splat(1.0f - lr * weight_decay), vlr = simd::splat(lr), veps = simd::splat(eps);
    const vf rbc1 = simd::splat(1.0f / bias_correction1), rbc2 = simd::splat(1.0f / bias_correction2);
    int64_t i = b;
    for (; i + W <= e; i += W) {
      vf g = simd::load(grads + i);
      vf mi = b1 * simd::load(m + i) + omb1 * g;
      vf vi = b2 * simd::load(v + i) + omb2 * g * g;
      simd::store(m + i, mi);
      simd::store(v + i, vi);
      vf update = (mi * rbc1) / (simd::vsqrt(vi * rbc2) + veps);
      simd::store(params + i, simd::load(params + i) * decay - vlr * update);
    }
    for (; i < e; i++) {
      float g = grads[i];
      m[i] = beta1 * m[i] + (1.0f - beta1) * g;
      v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
      float update = (m[i] * (1.0f / bias_correction1)) / (std::sqrt(v[i] * (1.0f / bias_correction2)) + eps);
      params[i] = params[i] * (1.0f - lr * weight_decay) - lr * update;
    }
  });
}

}  // namespace kernels
