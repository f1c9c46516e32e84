// kernels_rnn.cpp — the recurrent layers' kernels (rnn.h): one layer of a tanh RNN, a GRU or an
// LSTM over T steps, forward and backward through time, with every step's product with W_hh and
// the cell's arithmetic fused. Compiled once per ISA like kernels.cpp (see kernels_isa.h); each
// has a plain twin in kernels_rnn_ref.cpp.
//
// Forward, step t: the units are cut into blocks of W (one vector per gate). A task owns a block:
// it keeps the block's G gate vectors for R rows of the batch in registers while it streams the
// block's slice of W_hh (packed once per call, [block][k][gate][W], so the stream is contiguous
// and the slice, H * G * W floats, stays in L1/L2 across the batch's rows), then adds xg and b_hh
// and applies the cell, and stores h (and c and the gates) straight from the registers.
// Backward, step t (from T-1 down): a task owns a block of 16 or 32 units of dh_{t-1}: it computes
// da_{t+1} W_hh for its units (W_hh's columns of the block packed once per call, [block][G*H][units],
// so they stream contiguously), adds the gradient from above, and runs the cell's backward for its
// units, which needs nothing of the other units.
// Every element is computed by one task in a fixed order, so results do not depend on the thread
// count; a step is one parallel pass (the tasks of step t need all of step t + 1).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels_isa.h"
#include "threadpool.h"

#if defined(TINYGPT_SIMD_AVX512) && defined(__GNUC__) && !defined(__clang__)
// GCC 12's _mm512_max_ps / _mm512_min_ps (vexp's clamp, inlined into the cells) read an
// "undefined" operand they never use and warn about it here (see simd.h)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace tinygpt::kernels::TINYGPT_ISA {

using simd::vf;
using simd::W;

namespace {

template <int CELL>
constexpr int gate_blocks() {
  return CELL == 0 ? 1 : CELL == 1 ? 3 : 4;
}

// Rows of the forward register tile: R rows x G gate vectors of accumulators, G vectors of W_hh
// and a broadcast must fit the register file (16 vector registers; 32 with AVX-512).
template <int G>
constexpr int fwd_rows() {
#if defined(TINYGPT_SIMD_AVX512)
  return G == 4 ? 6 : 8;
#else
  return G == 4 ? 2 : G == 3 ? 3 : 6;
#endif
}

// Units per backward task and rows of its register tile: R rows x NV vectors of accumulators, NV
// vectors of the packed W_hh and a broadcast (two vectors a row: a load of W_hh serves R rows).
#if defined(TINYGPT_SIMD_AVX512)
constexpr int kBwdUnits = 2 * W;  // 32 units
constexpr int kBwdRows = 8;
#elif defined(TINYGPT_SIMD_AVX2)
constexpr int kBwdUnits = 2 * W;  // 16 units
constexpr int kBwdRows = 6;
#else
constexpr int kBwdUnits = W >= 16 ? W : 16;
constexpr int kBwdRows = 2;
#endif
constexpr int NV = kBwdUnits / W;

// Below this many rows x steps the forward reads W_hh as stored (dot products) instead of
// packing it first: generation feeds one token at a time.
constexpr int kPackRows = 4;

inline vf vsigmoid(vf x) { return simd::splat(1.0f) / (simd::splat(1.0f) + simd::vexp(-x)); }

// n <= W floats, the rest zero / not written: the last block of units when W does not divide H
inline vf load_n(const float* p, int n) {
  if (n == W) return simd::load(p);
  float tmp[W] = {};
  std::memcpy(tmp, p, size_t(n) * sizeof(float));
  return simd::load(tmp);
}
inline void store_n(float* p, vf v, int n) {
  if (n == W) return simd::store(p, v);
  float tmp[W];
  simd::store(tmp, v);
  std::memcpy(p, tmp, size_t(n) * sizeof(float));
}

struct Fwd {
  float *h, *c, *gates;  // (B, T, H), (B, T, H), (B, T, 4H)
  const float *xg, *w_hh, *b_hh, *h0, *c0;
  const float* packed;   // (blocks, H, G, W) or nullptr: W_hh read as stored
  int B, T, H;
  const float* h_prev(int b, int t) const {
    return t > 0 ? h + (int64_t(b) * T + t - 1) * H : h0 ? h0 + int64_t(b) * H : nullptr;
  }
  const float* c_prev(int b, int t) const {
    return t > 0 ? c + (int64_t(b) * T + t - 1) * H : c0 ? c0 + int64_t(b) * H : nullptr;
  }
};

// The cell on units [j0, j0 + n) of row b at step t, given acc[g] = (h_{t-1} W_hh^T)[g*H + j0 ..].
template <int CELL>
void fwd_cell(const Fwd& f, int b, int t, int j0, int n, const vf* acc) {
  constexpr int G = gate_blocks<CELL>();
  const int H = f.H;
  const int64_t row = int64_t(b) * f.T + t;
  const float* x = f.xg + row * G * H + j0;
  const float* bias = f.b_hh + j0;
  float* ht = f.h + row * H + j0;
  const vf one = simd::splat(1.0f);
  if constexpr (CELL == 0) {
    store_n(ht, simd::vtanh(acc[0] + load_n(bias, n) + load_n(x, n)), n);
  } else if constexpr (CELL == 1) {
    float* g = f.gates + row * 4 * H + j0;
    const float* hp = f.h_prev(b, t);
    const vf r = vsigmoid(acc[0] + load_n(bias, n) + load_n(x, n));
    const vf z = vsigmoid(acc[1] + load_n(bias + H, n) + load_n(x + H, n));
    const vf hn = acc[2] + load_n(bias + 2 * H, n);
    const vf nn = simd::vtanh(simd::fma(r, hn, load_n(x + 2 * H, n)));
    const vf prev = hp ? load_n(hp + j0, n) : simd::zero();
    store_n(ht, (one - z) * nn + z * prev, n);
    store_n(g, r, n), store_n(g + H, z, n), store_n(g + 2 * H, nn, n), store_n(g + 3 * H, hn, n);
  } else {
    float* g = f.gates + row * 4 * H + j0;
    const float* cp = f.c_prev(b, t);
    const vf i = vsigmoid(acc[0] + load_n(bias, n) + load_n(x, n));
    const vf fg = vsigmoid(acc[1] + load_n(bias + H, n) + load_n(x + H, n));
    const vf gg = simd::vtanh(acc[2] + load_n(bias + 2 * H, n) + load_n(x + 2 * H, n));
    const vf o = vsigmoid(acc[3] + load_n(bias + 3 * H, n) + load_n(x + 3 * H, n));
    const vf ct = simd::fma(fg, cp ? load_n(cp + j0, n) : simd::zero(), i * gg);
    store_n(f.c + row * H + j0, ct, n);
    store_n(ht, o * simd::vtanh(ct), n);
    store_n(g, i, n), store_n(g + H, fg, n), store_n(g + 2 * H, gg, n), store_n(g + 3 * H, o, n);
  }
}

// Rows [b0, b0 + R) of block blk at step t, from the packed slice of W_hh.
template <int CELL, int R>
void fwd_tile(const Fwd& f, int t, int blk, int b0) {
  constexpr int G = gate_blocks<CELL>();
  const int H = f.H, j0 = blk * W, n = std::min(W, H - j0);
  vf acc[R][G];
  for (int r = 0; r < R; r++)
    for (int g = 0; g < G; g++) acc[r][g] = simd::zero();
  if (f.h_prev(b0, t)) {
    const float* hp[R];
    for (int r = 0; r < R; r++) hp[r] = f.h_prev(b0 + r, t);
    const float* w = f.packed + int64_t(blk) * H * G * W;  // (H, G, W)
    for (int k = 0; k < H; k++, w += G * W) {
      vf wk[G];
      for (int g = 0; g < G; g++) wk[g] = simd::load(w + g * W);
      for (int r = 0; r < R; r++) {
        const vf a = simd::splat(hp[r][k]);
        for (int g = 0; g < G; g++) acc[r][g] = simd::fma(a, wk[g], acc[r][g]);
      }
    }
  }
  for (int r = 0; r < R; r++) fwd_cell<CELL>(f, b0 + r, t, j0, n, acc[r]);
}

// fwd_tile for the first `rows` (1 .. R) rows: the batch's last tile may be short.
template <int CELL, int R>
void fwd_tile_rows(const Fwd& f, int t, int blk, int b0, int rows) {
  if constexpr (R > 1) {
    if (rows < R) return fwd_tile_rows<CELL, R - 1>(f, t, blk, b0, rows);
  }
  fwd_tile<CELL, R>(f, t, blk, b0);
}

// Few rows (generation): W_hh as stored, one dot product per gate row.
template <int CELL>
void fwd_direct(const Fwd& f, int t, int blk, int b) {
  constexpr int G = gate_blocks<CELL>();
  const int H = f.H, j0 = blk * W, n = std::min(W, H - j0);
  const float* hp = f.h_prev(b, t);
  vf acc[G];
  for (int g = 0; g < G; g++) {
    float s[W] = {};
    if (hp)
      for (int u = 0; u < n; u++) {
        const float* w = f.w_hh + (int64_t(g) * H + j0 + u) * H;
        vf d = simd::zero();
        int k = 0;
        for (; k + W <= H; k += W) d = simd::fma(simd::load(hp + k), simd::load(w + k), d);
        float sum = simd::hsum(d);
        for (; k < H; k++) sum += hp[k] * w[k];
        s[u] = sum;
      }
    acc[g] = simd::load(s);
  }
  fwd_cell<CELL>(f, b, t, j0, n, acc);
}

template <int CELL>
void forward(const Fwd& f) {
  constexpr int G = gate_blocks<CELL>();
  constexpr int R = fwd_rows<G>();
  const int H = f.H, blocks = (H + W - 1) / W;
  const int64_t step_work = int64_t(f.B) * G * H * H;
  for (int t = 0; t < f.T; t++) {
    tp::parallel_for(blocks, [&](int k0, int k1, int) {
      for (int blk = k0; blk < k1; blk++) {
        if (!f.packed) {
          for (int b = 0; b < f.B; b++) fwd_direct<CELL>(f, t, blk, b);
          continue;
        }
        for (int b0 = 0; b0 < f.B; b0 += R) fwd_tile_rows<CELL, R>(f, t, blk, b0, std::min(R, f.B - b0));
      }
    }, step_work);
  }
}

// packed[blk][k][g][u] = W_hh[g*H + blk*W + u][k] (0 past the last unit)
void pack_w_hh(float* packed, const float* w_hh, int G, int H) {
  const int blocks = (H + W - 1) / W;
  tp::parallel_for(blocks, [&](int k0, int k1, int) {
    for (int blk = k0; blk < k1; blk++) {
      float* p = packed + int64_t(blk) * H * G * W;
      for (int g = 0; g < G; g++)
        for (int u = 0; u < W; u++) {
          const int j = blk * W + u;
          const float* w = w_hh + (int64_t(g) * H + j) * H;
          for (int k = 0; k < H; k++) p[(int64_t(k) * G + g) * W + u] = j < H ? w[k] : 0.0f;
        }
    }
  }, int64_t(G) * H * H);
}

// ---- backward ----------------------------------------------------------------------------------

struct Bwd {
  float *dgx, *dgh;            // (B, T, G*H); dgh: the GRU only
  float *carry_h, *carry_c;    // (B, H): gradient reaching h_t directly (GRU: z) and c_t, from step t + 1
  const float *dh, *dc, *h, *c, *gates, *w_hh, *h0, *c0;
  const float* packed;         // (blocks, G*H, kBwdUnits): W_hh's columns of each block of units, 0 past H
  int B, T, H, G;
  const float* rec(int b, int t) const {  // the recurrent part's gradient of row b at step t
    return (G == 3 ? dgh : dgx) + (int64_t(b) * T + t) * G * H;
  }
};

// acc[r][v] = sum_q da_{t+1}[b0 + r, q] W_hh[q, j0 + v*W ..]: the gradient reaching h_t through
// step t + 1, for the units of block j0 / kBwdUnits (its packed slice of W_hh streams contiguously).
template <int R>
void bwd_through_w(const Bwd& f, int t, int b0, int j0, vf (*out)[NV]) {
  vf acc[R][NV];  // in registers: `out` may alias the float data the loop reads
  for (int r = 0; r < R; r++)
    for (int v = 0; v < NV; v++) acc[r][v] = simd::zero();
  if (t + 1 < f.T) {
    const int GH = f.G * f.H;
    const float* da[R];
    for (int r = 0; r < R; r++) da[r] = f.rec(b0 + r, t + 1);
    const float* w = f.packed + int64_t(j0 / kBwdUnits) * GH * kBwdUnits;  // (G*H, kBwdUnits)
    for (int q = 0; q < GH; q++, w += kBwdUnits) {
      vf wq[NV];
      for (int v = 0; v < NV; v++) wq[v] = simd::load(w + v * W);
      for (int r = 0; r < R; r++) {
        const vf a = simd::splat(da[r][q]);
        for (int v = 0; v < NV; v++) acc[r][v] = simd::fma(a, wq[v], acc[r][v]);
      }
    }
  }
  for (int r = 0; r < R; r++)
    for (int v = 0; v < NV; v++) out[r][v] = acc[r][v];
}

// packed[blk][q][u] = W_hh[q][blk*kBwdUnits + u] (0 past the last unit)
void pack_w_hh_columns(float* packed, const float* w_hh, int GH, int H) {
  const int blocks = (H + kBwdUnits - 1) / kBwdUnits;
  tp::parallel_for(blocks, [&](int k0, int k1, int) {
    for (int blk = k0; blk < k1; blk++) {
      const int j0 = blk * kBwdUnits, n = std::min(kBwdUnits, H - j0);
      float* p = packed + int64_t(blk) * GH * kBwdUnits;
      for (int q = 0; q < GH; q++) {
        std::memcpy(p + int64_t(q) * kBwdUnits, w_hh + int64_t(q) * H + j0, size_t(n) * sizeof(float));
        std::memset(p + int64_t(q) * kBwdUnits + n, 0, size_t(kBwdUnits - n) * sizeof(float));
      }
    }
  }, int64_t(GH) * H);
}

// The cell's backward on units [j, j + n) (n <= W) of row b at step t, given the gradient
// reaching h_t through step t + 1 (`through`): writes the row's dgx (and dgh), updates the carries.
template <int CELL>
void bwd_cell(const Bwd& f, int b, int t, int j, int n, vf through) {
  const int H = f.H;
  const int64_t row = int64_t(b) * f.T + t;
  const vf one = simd::splat(1.0f);
  float* ch = f.carry_h + int64_t(b) * H + j;
  const vf d = through + load_n(f.dh + row * H + j, n) + (CELL == 1 ? load_n(ch, n) : simd::zero());
  if constexpr (CELL == 0) {
    const vf y = load_n(f.h + row * H + j, n);
    store_n(f.dgx + row * H + j, d * (one - y * y), n);  // forward: h_t = tanh(a_t)
  } else if constexpr (CELL == 1) {
    // forward: h_t = (1 - z) n + z h_{t-1}, n = tanh(xg_n + r hn)
    const float* g = f.gates + row * 4 * H + j;
    const vf r = load_n(g, n), z = load_n(g + H, n), nn = load_n(g + 2 * H, n), hn = load_n(g + 3 * H, n);
    const float* hp = t > 0 ? f.h + (row - 1) * H + j : f.h0 ? f.h0 + int64_t(b) * H + j : nullptr;
    const vf prev = hp ? load_n(hp, n) : simd::zero();
    const vf dn = d * (one - z) * (one - nn * nn);
    const vf dr = dn * hn * r * (one - r), dz = d * (prev - nn) * z * (one - z);
    float* gx = f.dgx + row * 3 * H + j;
    float* gh = f.dgh + row * 3 * H + j;
    store_n(gx, dr, n), store_n(gx + H, dz, n), store_n(gx + 2 * H, dn, n);
    store_n(gh, dr, n), store_n(gh + H, dz, n), store_n(gh + 2 * H, dn * r, n);
    store_n(ch, d * z, n);  // the direct path z h_{t-1}
  } else {
    // forward: c_t = f c_{t-1} + i g, h_t = o tanh(c_t)
    const float* g = f.gates + row * 4 * H + j;
    const vf i = load_n(g, n), fg = load_n(g + H, n), gg = load_n(g + 2 * H, n), o = load_n(g + 3 * H, n);
    const vf tc = simd::vtanh(load_n(f.c + row * H + j, n));
    const float* cp = t > 0 ? f.c + (row - 1) * H + j : f.c0 ? f.c0 + int64_t(b) * H + j : nullptr;
    float* cc = f.carry_c + int64_t(b) * H + j;
    vf dct = load_n(cc, n) + d * o * (one - tc * tc);
    if (f.dc) dct = dct + load_n(f.dc + row * H + j, n);
    float* gx = f.dgx + row * 4 * H + j;
    store_n(gx, dct * gg * i * (one - i), n);
    store_n(gx + H, dct * (cp ? load_n(cp, n) : simd::zero()) * fg * (one - fg), n);
    store_n(gx + 2 * H, dct * i * (one - gg * gg), n);
    store_n(gx + 3 * H, d * tc * o * (one - o), n);
    store_n(cc, dct * fg, n);
  }
}

template <int CELL, int R>
void bwd_tile(const Bwd& f, int t, int blk, int b0) {
  const int j0 = blk * kBwdUnits, n = std::min(kBwdUnits, f.H - j0);
  vf acc[R][NV];
  bwd_through_w<R>(f, t, b0, j0, acc);
  for (int r = 0; r < R; r++)
    for (int v = 0; v < NV && v * W < n; v++) bwd_cell<CELL>(f, b0 + r, t, j0 + v * W, std::min(W, n - v * W), acc[r][v]);
}

template <int CELL, int R>
void bwd_tile_rows(const Bwd& f, int t, int blk, int b0, int rows) {
  if constexpr (R > 1) {
    if (rows < R) return bwd_tile_rows<CELL, R - 1>(f, t, blk, b0, rows);
  }
  bwd_tile<CELL, R>(f, t, blk, b0);
}

// dh0 += the gradient reaching h_{-1} (through step 0, and the GRU's direct path), dc0 += carry_c
template <int R>
void bwd_initial_tile(const Bwd& f, float* dh0, float* dc0, int blk, int b0) {
  const int j0 = blk * kBwdUnits, n = std::min(kBwdUnits, f.H - j0);
  vf acc[R][NV];
  bwd_through_w<R>(f, -1, b0, j0, acc);
  for (int r = 0; r < R; r++) {
    const int64_t at = int64_t(b0 + r) * f.H + j0;
    for (int v = 0; v < NV && v * W < n; v++) {
      const int m = std::min(W, n - v * W);
      if (dh0) {
        vf g = acc[r][v] + (f.G == 3 ? load_n(f.carry_h + at + v * W, m) : simd::zero());
        store_n(dh0 + at + v * W, load_n(dh0 + at + v * W, m) + g, m);
      }
      if (dc0 && f.G == 4) store_n(dc0 + at + v * W, load_n(dc0 + at + v * W, m) + load_n(f.carry_c + at + v * W, m), m);
    }
  }
}

template <int R>
void bwd_initial_rows(const Bwd& f, float* dh0, float* dc0, int blk, int b0, int rows) {
  if constexpr (R > 1) {
    if (rows < R) return bwd_initial_rows<R - 1>(f, dh0, dc0, blk, b0, rows);
  }
  bwd_initial_tile<R>(f, dh0, dc0, blk, b0);
}

template <int CELL>
void backward(const Bwd& f, float* dh0, float* dc0) {
  const int blocks = (f.H + kBwdUnits - 1) / kBwdUnits;
  const int64_t step_work = int64_t(f.B) * f.G * f.H * f.H;
  for (int t = f.T - 1; t >= 0; t--) {
    tp::parallel_for(blocks, [&](int k0, int k1, int) {
      for (int blk = k0; blk < k1; blk++)
        for (int b0 = 0; b0 < f.B; b0 += kBwdRows) bwd_tile_rows<CELL, kBwdRows>(f, t, blk, b0, std::min(kBwdRows, f.B - b0));
    }, step_work);
  }
  if (!dh0 && !dc0) return;
  tp::parallel_for(blocks, [&](int k0, int k1, int) {
    for (int blk = k0; blk < k1; blk++)
      for (int b0 = 0; b0 < f.B; b0 += kBwdRows) bwd_initial_rows<kBwdRows>(f, dh0, dc0, blk, b0, std::min(kBwdRows, f.B - b0));
  }, step_work);
}

}  // namespace

void rnn_forward(float* h, float* c, float* gates, const float* xg, const float* w_hh, const float* b_hh,
                 const float* h0, const float* c0, int cell, int B, int T, int H) {
  const int G = cell == 0 ? 1 : cell == 1 ? 3 : 4;
  Fwd f{h, c, gates, xg, w_hh, b_hh, h0, c0, nullptr, B, T, H};
  if (int64_t(B) * T >= kPackRows) {
    const int blocks = (H + W - 1) / W;
    float* packed = shared_scratch(kRnnWeights, size_t(blocks) * H * G * W);
    pack_w_hh(packed, w_hh, G, H);
    f.packed = packed;
  }
  if (cell == 0) forward<0>(f);
  else if (cell == 1) forward<1>(f);
  else forward<2>(f);
}

void rnn_backward(float* dgx, float* dgh, float* dh0, float* dc0, const float* dh, const float* dc, const float* h,
                  const float* c, const float* gates, const float* w_hh, const float* h0, const float* c0, int cell,
                  int B, int T, int H) {
  const int G = cell == 0 ? 1 : cell == 1 ? 3 : 4;
  float* carry = shared_scratch(kRnnCarry, size_t(2) * B * H);  // (2, B, H)
  std::memset(carry, 0, size_t(2) * B * H * sizeof(float));
  const int blocks = (H + kBwdUnits - 1) / kBwdUnits;
  float* packed = shared_scratch(kRnnWeights, size_t(blocks) * G * H * kBwdUnits);
  pack_w_hh_columns(packed, w_hh, G * H, H);
  const Bwd f{dgx, dgh, carry, carry + int64_t(B) * H, dh, dc, h, c, gates, w_hh, h0, c0, packed, B, T, H, G};
  if (cell == 0) backward<0>(f, dh0, dc0);
  else if (cell == 1) backward<1>(f, dh0, dc0);
  else backward<2>(f, dh0, dc0);
}

// ---- tanh ----------------------------------------------------------------------------------------

void tanh_forward(float* out, const float* inp, int64_t n) {
  constexpr int64_t kChunk = 4096;
  const int tasks = int((n + kChunk - 1) / kChunk);
  tp::parallel_for(tasks, [&](int b, int e, int) {
    const int64_t lo = b * kChunk, hi = std::min(n, e * kChunk);
    int64_t i = lo;
    for (; i + W <= hi; i += W) simd::store(out + i, simd::vtanh(simd::load(inp + i)));
    for (; i < hi; i++) out[i] = std::tanh(inp[i]);
  }, 8 * n);
}

void tanh_backward(float* dinp, const float* out, const float* dout, int64_t n) {
  constexpr int64_t kChunk = 4096;
  const int tasks = int((n + kChunk - 1) / kChunk);
  tp::parallel_for(tasks, [&](int b, int e, int) {
    const int64_t lo = b * kChunk, hi = std::min(n, e * kChunk);
    const vf one = simd::splat(1.0f);
    int64_t i = lo;
    for (; i + W <= hi; i += W) {
      const vf y = simd::load(out + i);
      simd::store(dinp + i, simd::fma(one - y * y, simd::load(dout + i), simd::load(dinp + i)));
    }
    for (; i < hi; i++) dinp[i] += (1.0f - out[i] * out[i]) * dout[i];
  }, 8 * n);
}

}  // namespace tinygpt::kernels::TINYGPT_ISA
