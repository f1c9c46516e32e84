// kernels_rnn_ref.cpp — plain scalar loops for the recurrent kernels (kernels_rnn.cpp): the
// reference the fast versions are tested against. Each step reads like the equations in
// kernel_list.h: the gate pre-activations a_t first, in torch's gate order, then the cell.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.h"

namespace tinygpt::kernels::ref {

namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline int gate_blocks(int cell) { return cell == 0 ? 1 : cell == 1 ? 3 : 4; }
}  // namespace

void rnn_forward(float* h, float* c, float* gates, const float* xg, const float* w_hh, const float* b_hh,
                 const float* h0, const float* c0, int cell, int B, int T, int H) {
  const int G = gate_blocks(cell), GH = G * H;
  std::vector<float> a(static_cast<size_t>(GH));  // h_{t-1} W_hh^T + b_hh of one row
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) {
      const float* hp = t > 0 ? h + (int64_t(b) * T + t - 1) * H : h0 ? h0 + int64_t(b) * H : nullptr;
      // c is null but for the lstm (no offset from a null pointer)
      const float* cp = !c ? nullptr : t > 0 ? c + (int64_t(b) * T + t - 1) * H : c0 ? c0 + int64_t(b) * H : nullptr;
      for (int r = 0; r < GH; r++) {
        float s = 0.0f;
        if (hp)
          for (int k = 0; k < H; k++) s += hp[k] * w_hh[int64_t(r) * H + k];
        a[size_t(r)] = s + b_hh[r];
      }
      const float* x = xg + (int64_t(b) * T + t) * GH;
      float* ht = h + (int64_t(b) * T + t) * H;
      float* g = gates ? gates + (int64_t(b) * T + t) * 4 * H : nullptr;
      for (int j = 0; j < H; j++) {
        const float prev = hp ? hp[j] : 0.0f;
        if (cell == 0) {
          ht[j] = std::tanh(x[j] + a[size_t(j)]);
        } else if (cell == 1) {
          const float r = sigmoid(x[j] + a[size_t(j)]);
          const float z = sigmoid(x[H + j] + a[size_t(H + j)]);
          const float hn = a[size_t(2 * H + j)];
          const float n = std::tanh(x[2 * H + j] + r * hn);
          ht[j] = (1.0f - z) * n + z * prev;
          g[j] = r, g[H + j] = z, g[2 * H + j] = n, g[3 * H + j] = hn;
        } else {
          const float i = sigmoid(x[j] + a[size_t(j)]);
          const float f = sigmoid(x[H + j] + a[size_t(H + j)]);
          const float gg = std::tanh(x[2 * H + j] + a[size_t(2 * H + j)]);
          const float o = sigmoid(x[3 * H + j] + a[size_t(3 * H + j)]);
          const float ct = f * (cp ? cp[j] : 0.0f) + i * gg;
          c[(int64_t(b) * T + t) * H + j] = ct;
          ht[j] = o * std::tanh(ct);
          g[j] = i, g[H + j] = f, g[2 * H + j] = gg, g[3 * H + j] = o;
        }
      }
    }
}

void rnn_backward(float* dgx, float* dgh, float* dh0, float* dc0, const float* dh, const float* dc, const float* h,
                  const float* c, const float* gates, const float* w_hh, const float* h0, const float* c0, int cell,
                  int B, int T, int H) {
  const int G = gate_blocks(cell), GH = G * H;
  std::vector<float> dh_t(static_cast<size_t>(H)), carry_h(dh_t), carry_c(dh_t);
  for (int b = 0; b < B; b++) {
    std::fill(carry_h.begin(), carry_h.end(), 0.0f);  // the gradient reaching h_t through step t + 1
    std::fill(carry_c.begin(), carry_c.end(), 0.0f);  // ... and c_t (lstm)
    for (int t = T - 1; t >= 0; t--) {
      const int64_t row = int64_t(b) * T + t;
      for (int j = 0; j < H; j++) dh_t[size_t(j)] = dh[row * H + j] + carry_h[size_t(j)];
      const float* hp = t > 0 ? h + (row - 1) * H : h0 ? h0 + int64_t(b) * H : nullptr;
      const float* cp = !c ? nullptr : t > 0 ? c + (row - 1) * H : c0 ? c0 + int64_t(b) * H : nullptr;
      float* gx = dgx + row * GH;
      float* gh = cell == 1 ? dgh + row * GH : gx;  // the recurrent part's gradient
      const float* g = gates ? gates + row * 4 * H : nullptr;
      for (int j = 0; j < H; j++) {
        const float d = dh_t[size_t(j)];
        if (cell == 0) {
          const float y = h[row * H + j];
          gx[j] = d * (1.0f - y * y);  // forward: h_t = tanh(a_t)
          carry_h[size_t(j)] = 0.0f;
        } else if (cell == 1) {
          // forward: h_t = (1 - z) n + z h_{t-1}, n = tanh(xg_n + r hn)
          const float r = g[j], z = g[H + j], n = g[2 * H + j], hn = g[3 * H + j];
          const float prev = hp ? hp[j] : 0.0f;
          const float dn = d * (1.0f - z) * (1.0f - n * n);
          gx[j] = dn * hn * r * (1.0f - r);
          gx[H + j] = d * (prev - n) * z * (1.0f - z);
          gx[2 * H + j] = dn;
          gh[j] = gx[j], gh[H + j] = gx[H + j], gh[2 * H + j] = dn * r;
          carry_h[size_t(j)] = d * z;  // the direct path z h_{t-1}
        } else {
          // forward: c_t = f c_{t-1} + i g, h_t = o tanh(c_t)
          const float i = g[j], f = g[H + j], gg = g[2 * H + j], o = g[3 * H + j];
          const float tc = std::tanh(c[row * H + j]);
          const float dct = carry_c[size_t(j)] + (dc ? dc[row * H + j] : 0.0f) + d * o * (1.0f - tc * tc);
          gx[j] = dct * gg * i * (1.0f - i);
          gx[H + j] = dct * (cp ? cp[j] : 0.0f) * f * (1.0f - f);
          gx[2 * H + j] = dct * i * (1.0f - gg * gg);
          gx[3 * H + j] = d * tc * o * (1.0f - o);
          carry_c[size_t(j)] = dct * f;
          carry_h[size_t(j)] = 0.0f;
        }
      }
      // forward: a_t = ... + h_{t-1} W_hh^T  ->  dh_{t-1} += da_t W_hh
      for (int r = 0; r < GH; r++)
        for (int j = 0; j < H; j++) carry_h[size_t(j)] += gh[r] * w_hh[int64_t(r) * H + j];
    }
    if (dh0)
      for (int j = 0; j < H; j++) dh0[int64_t(b) * H + j] += carry_h[size_t(j)];
    if (dc0 && cell == 2)
      for (int j = 0; j < H; j++) dc0[int64_t(b) * H + j] += carry_c[size_t(j)];
  }
}

void tanh_forward(float* out, const float* inp, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = std::tanh(inp[i]);
}

void tanh_backward(float* dinp, const float* out, const float* dout, int64_t n) {
  for (int64_t i = 0; i < n; i++) dinp[i] += (1.0f - out[i] * out[i]) * dout[i];
}

}  // namespace tinygpt::kernels::ref
