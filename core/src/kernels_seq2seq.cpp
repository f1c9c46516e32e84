// kernels_seq2seq.cpp — the kernels the encoder-decoder adds: general multi-head attention with
// causal and key-padding masks over separate query and key/value inputs, ReLU, and
// cross-entropy that ignores padding targets. Compiled once per ISA like kernels.cpp (see
// kernels_isa.h); each has a plain twin in kernels_seq2seq_ref.cpp.
//
// Work is split across the thread pool so that every output is computed by exactly one task in
// a fixed order: results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels_attention.h"
#include "kernels_isa.h"
#include "kernels_rows.h"
#include "threadpool.h"

namespace tinygpt::kernels::TINYGPT_ISA {

using simd::vf;
using simd::W;

// ---- attention -------------------------------------------------------------------------------
// One task per (batch, head). Inside a task the products are small GEMMs on the calling thread
// (sgemm_serial) over the head's strided slices, by blocks of kRowBlock query rows; a block only
// multiplies against the keys some row of it can see:
//   - key padding at the end of a sequence (the usual right padding) is never computed: keys
//     [kend, Tk) after the last real key are skipped;
//   - with the causal mask, rows [i0, i1) see keys [0, i1 + Tk - Tq) at most.
// Padding keys inside the computed range get -inf before the softmax and weight exactly 0 after.

namespace {
constexpr int kRowBlock = 32;

// keys [0, kend) hold every real key of batch element b (1 + the last one that is not padding)
inline int keys_end(const uint8_t* pad_b, int Tk) {
  int kend = Tk;
  if (pad_b)
    while (kend > 0 && pad_b[kend - 1]) kend--;
  return kend;
}

// keys [0, n) of query row i are not hidden by the causal mask or the end of the real keys
inline int visible_keys(const AttentionShape& s, int kend, int i) {
  const int n = s.causal ? std::min(kend, i + s.Tk - s.Tq + 1) : kend;
  return std::max(n, 0);
}

// row[0 .. Tk) holds raw scores q . k in [0, n); becomes the attention weights:
// softmax(scale * score + mask) over [0, n), exactly 0 on masked keys and on [n, Tk).
inline void masked_softmax_row(float* row, int n, int Tk, float scale, const uint8_t* pad_b) {
  if (n > 0) {
    scale_row(row, scale, n);
    if (pad_b)
      for (int j = 0; j < n; j++)
        if (pad_b[j]) row[j] = -INFINITY;  // the mask, added before the softmax
    const float m = row_max(row, n);
    if (m == -INFINITY) {
      n = 0;  // every visible key is padding: no weights (and no NaN)
    } else {
      // exp(-inf - m) is ~1e-38 in the vector exp (its input is clamped), 0 in the tail: against
      // the max's own term 1 it cannot change the sum; the masked weights are set to exactly 0.
      const float sum = exp_shift_sum(row, row, m, n);
      scale_row(row, 1.0f / sum, n);
      if (pad_b)
        for (int j = 0; j < n; j++)
          if (pad_b[j]) row[j] = 0.0f;
    }
  }
  std::memset(row + n, 0, size_t(Tk - n) * sizeof(float));
}

float* attn_scratch(size_t n) { return scratch(kAttentionRow, n); }

// Asks for head `task`'s (b * NH + h) rows of q, k and v while the head before it computes
// (prefetch_rows, kernels_rows.h)
void prefetch_head(const float* q, const float* k, const float* v, const AttentionShape& s, int task) {
  const int b = task / s.NH, h = task % s.NH, HS = s.C / s.NH;
  prefetch_rows(q + b * s.q_batch + h * HS, s.q_row, s.Tq, HS);
  prefetch_rows(k + b * s.kv_batch + h * HS, s.kv_row, s.Tk, HS);
  prefetch_rows(v + b * s.kv_batch + h * HS, s.kv_row, s.Tk, HS);
}
}  // namespace

void mha_forward(float* out, float* att, const float* q, const float* k, const float* v, const uint8_t* key_pad,
                 const AttentionShape& s) {
  const int B = s.B, Tq = s.Tq, Tk = s.Tk, C = s.C, NH = s.NH, HS = C / NH;
  const float scale = 1.0f / std::sqrt(float(HS));
  const int64_t work = int64_t(B) * Tq * Tk * C * 2;
  tp::parallel_for(B * NH, [&](int task_begin, int task_end, int) {
    // (HS, <= kFusedKeyVectors * W): this head's K^T, zero past the real keys
    float* kt = fused_attention_fits(Tk) ? scratch(kAttentionKeys, size_t(HS) * kFusedKeyVectors * W) : nullptr;
    for (int task = task_begin; task < task_end; task++) {
      const int b = task / NH, h = task % NH;
      const float* q_bh = q + b * s.q_batch + h * HS;   // (Tq, HS), row stride q_row
      const float* k_bh = k + b * s.kv_batch + h * HS;  // (Tk, HS), row stride kv_row
      const float* v_bh = v + b * s.kv_batch + h * HS;  // (Tk, HS), row stride kv_row
      const uint8_t* pad_b = key_pad ? key_pad + int64_t(b) * Tk : nullptr;
      float* att_bh = att + int64_t(task) * Tq * Tk;     // (Tq, Tk)
      float* out_bh = out + int64_t(b) * Tq * C + h * HS;  // (Tq, HS), row stride C
      const int kend = keys_end(pad_b, Tk);
      if (task + 1 < task_end) prefetch_head(q, k, v, s, task + 1);
      // the softmax masks only padding among the real keys (rare: padding is usually all at the end)
      const uint8_t* inner_pad = pad_b && std::any_of(pad_b, pad_b + kend, [](uint8_t p) { return p != 0; }) ? pad_b : nullptr;
      if (kt) {  // rows of a few key vectors: the scores and the softmax fused (kernels_attention.h)
        transpose_keys(kt, k_bh, s.kv_row, HS, kend);
        simd::vi pad_mask[kFusedKeyVectors];
        if (inner_pad)
          for (int v = 0; v * W < kend; v++)
            for (int l = 0; l < W; l++) pad_mask[v][l] = v * W + l < kend && inner_pad[v * W + l] ? -1 : 0;
        for (int i0 = 0; i0 < Tq; i0 += kRowBlock) {
          const int i1 = std::min(Tq, i0 + kRowBlock), rows = i1 - i0;
          fused_scores_softmax(att_bh + int64_t(i0) * Tk, Tk, q_bh + int64_t(i0) * s.q_row, s.q_row, kt, key_stride(kend),
                               HS, rows, [&](int r) { return visible_keys(s, kend, i0 + r); },
                               inner_pad ? pad_mask : nullptr, scale);
          // out_i = sum_j att_ij v_j   (kb = 0: a zero product)
          sgemm_serial(false, false, rows, HS, visible_keys(s, kend, i1 - 1), att_bh + int64_t(i0) * Tk, Tk, v_bh,
                       s.kv_row, out_bh + int64_t(i0) * C, C, false);
        }
        continue;
      }
      for (int i0 = 0; i0 < Tq; i0 += kRowBlock) {
        const int i1 = std::min(Tq, i0 + kRowBlock), rows = i1 - i0;
        const int kb = visible_keys(s, kend, i1 - 1);  // the block's last row sees the most keys
        // scores q_i . k_j for the block's rows and keys [0, kb), and up to a whole vector past kb
        // (keys the softmax then zeroes): whole-vector stores, which the softmax's loads can take
        // straight from the store queue
        const int kw = std::min(Tk, (kb + W - 1) / W * W);
        sgemm_serial(false, true, rows, kw, HS, q_bh + int64_t(i0) * s.q_row, s.q_row, k_bh, s.kv_row,
                     att_bh + int64_t(i0) * Tk, Tk, false);
        for (int i = i0; i < i1; i++)
          masked_softmax_row(att_bh + int64_t(i) * Tk, visible_keys(s, kend, i), Tk, scale, inner_pad);
        // out_i = sum_j att_ij v_j   (kb = 0: a zero product)
        sgemm_serial(false, false, rows, HS, kb, att_bh + int64_t(i0) * Tk, Tk, v_bh, s.kv_row,
                     out_bh + int64_t(i0) * C, C, false);
      }
    }
  }, work);
}

void mha_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k, const float* v,
                  const float* att, const uint8_t* key_pad, const AttentionShape& s, bool accumulate) {
  const int B = s.B, Tq = s.Tq, Tk = s.Tk, C = s.C, NH = s.NH, HS = C / NH;
  const float scale = 1.0f / std::sqrt(float(HS));
  const int64_t work = int64_t(B) * Tq * Tk * C * 4;
  tp::parallel_for(B * NH, [&](int task_begin, int task_end, int) {
    float* ds = attn_scratch(size_t(Tq) * Tk);  // (Tq, kend): datt, then ds in place
    // (HS, <= kFusedKeyVectors * W): this head's V^T, zero past the real keys
    float* vt = fused_attention_fits(Tk) ? scratch(kAttentionKeys, size_t(HS) * kFusedKeyVectors * W) : nullptr;
    for (int task = task_begin; task < task_end; task++) {
      const int b = task / NH, h = task % NH;
      const float* q_bh = q + b * s.q_batch + h * HS;
      const float* k_bh = k + b * s.kv_batch + h * HS;
      const float* v_bh = v + b * s.kv_batch + h * HS;
      float* dq_bh = dq + b * s.q_batch + h * HS;
      float* dk_bh = dk + b * s.kv_batch + h * HS;
      float* dv_bh = dv + b * s.kv_batch + h * HS;
      const uint8_t* pad_b = key_pad ? key_pad + int64_t(b) * Tk : nullptr;
      const float* att_bh = att + int64_t(task) * Tq * Tk;          // (Tq, Tk)
      const float* dout_bh = dout + int64_t(b) * Tq * C + h * HS;   // (Tq, HS), row stride C
      const int kend = keys_end(pad_b, Tk);
      if (task + 1 < task_end) {  // the next head's inputs, with its dout and attention weights
        prefetch_head(q, k, v, s, task + 1);
        const int nb = (task + 1) / NH, nh = (task + 1) % NH;
        prefetch_rows(dout + int64_t(nb) * Tq * C + nh * HS, C, Tq, HS);
        prefetch_rows(att + int64_t(task + 1) * Tq * Tk, Tk, Tq, Tk);
      }
      // Writing (accumulate false): rows that get no product are set to 0 here; the products
      // write the rest, each element once: dq's rows one block's product each, dk's and dv's
      // rows one key block's product each.
      auto zero_rows = [&](float* x, int row, int first, int last) {
        if (!accumulate)
          for (int i = first; i < last; i++) std::memset(x + int64_t(i) * row, 0, size_t(HS) * sizeof(float));
      };
      zero_rows(dk_bh, s.kv_row, kend, Tk);  // padding after the last real key: no gradient
      zero_rows(dv_bh, s.kv_row, kend, Tk);
      if (kend == 0) {  // no real key: nothing reached the output
        zero_rows(dq_bh, s.q_row, 0, Tq);
        continue;
      }
      if (vt) {  // rows of a few key vectors: datt and the softmax's backward fused (kernels_attention.h)
        transpose_keys(vt, v_bh, s.kv_row, HS, kend);
        for (int i0 = 0; i0 < Tq; i0 += kRowBlock) {
          const int i1 = std::min(Tq, i0 + kRowBlock), rows = i1 - i0;
          fused_softmax_backward(ds + int64_t(i0) * kend, kend, kend, att_bh + int64_t(i0) * Tk, Tk,
                                 dout_bh + int64_t(i0) * C, C, vt, key_stride(kend), HS, rows,
                                 [&](int r) { return visible_keys(s, kend, i0 + r); }, scale);
          // forward: s_ij = q_i . k_j  ->  dq_i += sum_j ds_ij k_j
          sgemm_serial(false, false, rows, HS, visible_keys(s, kend, i1 - 1), ds + int64_t(i0) * kend, kend, k_bh,
                       s.kv_row, dq_bh + int64_t(i0) * s.q_row, s.q_row, accumulate);
        }
      } else {
        for (int i0 = 0; i0 < Tq; i0 += kRowBlock) {
          const int i1 = std::min(Tq, i0 + kRowBlock), rows = i1 - i0;
          const int kb = visible_keys(s, kend, i1 - 1);
          // forward: out_i = sum_j att_ij v_j  ->  datt_ij = dout_i . v_j
          sgemm_serial(false, true, rows, kb, HS, dout_bh + int64_t(i0) * C, C, v_bh, s.kv_row, ds + int64_t(i0) * kend,
                       kend, false);
          // forward: att_i = softmax(scale s_i + mask)  ->  ds_ij = scale att_ij (datt_ij - sum_k att_ik datt_ik)
          // (masked and invisible keys have att_ij = 0, so they get no gradient)
          for (int i = i0; i < i1; i++) {
            const float* p = att_bh + int64_t(i) * Tk;
            float* d = ds + int64_t(i) * kend;
            const int n = visible_keys(s, kend, i);
            const float dotp = dot(p, d, n);
            int j = 0;
            const vf vd = simd::splat(dotp), vs = simd::splat(scale);
            for (; j + W <= n; j += W) simd::store(d + j, simd::load(p + j) * (simd::load(d + j) - vd) * vs);
            for (; j < n; j++) d[j] = p[j] * (d[j] - dotp) * scale;
            std::memset(d + n, 0, size_t(kend - n) * sizeof(float));
          }
          // forward: s_ij = q_i . k_j  ->  dq_i += sum_j ds_ij k_j
          sgemm_serial(false, false, rows, HS, kb, ds + int64_t(i0) * kend, kend, k_bh, s.kv_row,
                       dq_bh + int64_t(i0) * s.q_row, s.q_row, accumulate);
        }
      }
      // Key blocks [j0, j1) collect from every query that can see them (causal: i >= j0 - (Tk - Tq)):
      //   dk_j += sum_i ds_ij q_i,   dv_j += sum_i att_ij dout_i
      for (int j0 = 0; j0 < kend; j0 += kRowBlock) {
        const int j1 = std::min(kend, j0 + kRowBlock), cols = j1 - j0;
        const int i_first = s.causal ? std::max(0, j0 - (Tk - Tq)) : 0, nq = Tq - i_first;
        if (nq <= 0) {  // no query sees these keys
          zero_rows(dk_bh, s.kv_row, j0, j1);
          zero_rows(dv_bh, s.kv_row, j0, j1);
          continue;
        }
        sgemm_serial(true, false, cols, HS, nq, ds + int64_t(i_first) * kend + j0, kend, q_bh + int64_t(i_first) * s.q_row,
                     s.q_row, dk_bh + int64_t(j0) * s.kv_row, s.kv_row, accumulate);
        sgemm_serial(true, false, cols, HS, nq, att_bh + int64_t(i_first) * Tk + j0, Tk, dout_bh + int64_t(i_first) * C,
                     C, dv_bh + int64_t(j0) * s.kv_row, s.kv_row, accumulate);
      }
    }
  }, work);
}

// ---- ReLU --------------------------------------------------------------------------------------

namespace {
constexpr int64_t kChunk = 4096;  // elements per task for elementwise kernels

template <class F>
void for_chunks(int64_t n, F&& f) {  // f(begin, end) over [0, n) in kChunk pieces
  const int tasks = int((n + kChunk - 1) / kChunk);
  tp::parallel_for(tasks, [&](int b, int e, int) { f(b * kChunk, std::min(n, e * kChunk)); }, 8 * n);
}
}  // namespace

void relu_forward(float* out, const float* inp, int64_t n) {
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf zero = simd::zero();
    for (; i + W <= e; i += W) simd::store(out + i, simd::vmax(simd::load(inp + i), zero));
    for (; i < e; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
  });
}

void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  // forward: out = max(x, 0)  ->  dx += dout where x > 0
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf zero = simd::zero();
    for (; i + W <= e; i += W) {
      const vf g = simd::select(simd::load(inp + i) > zero, simd::load(dout + i), zero);
      simd::store(dinp + i, simd::load(dinp + i) + g);
    }
    for (; i < e; i++)
      if (inp[i] > 0.0f) dinp[i] += dout[i];
  });
}

void relu_mask(float* d, const float* out, int64_t n) {
  // forward: out = max(x, 0), so out > 0 exactly where x > 0
  for_chunks(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
    const vf zero = simd::zero();
    for (; i + W <= e; i += W) simd::store(d + i, simd::select(simd::load(out + i) > zero, simd::load(d + i), zero));
    for (; i < e; i++) d[i] = out[i] > 0.0f ? d[i] : 0.0f;
  });
}

// ---- cross-entropy with ignored (padding) targets ----------------------------------------------

void crossentropy_ignore_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N,
                                 int V) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      if (targets[n] < 0) {
        losses[n] = 0.0f;
        continue;
      }
      losses[n] = softmax_crossentropy_row(probs + int64_t(n) * V, logits + int64_t(n) * V, targets[n], V);
    }
  }, int64_t(N) * V);
}

void crossentropy_ignore_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N,
                                  int V) {
  tp::parallel_for(N, [&](int b, int e, int) {
    for (int n = b; n < e; n++) {
      if (targets[n] < 0) continue;
      float* dz = dlogits + int64_t(n) * V;
      axpy(dz, dloss, probs + int64_t(n) * V, V);
      dz[targets[n]] -= dloss;
    }
  }, int64_t(N) * V);
}

}  // namespace tinygpt::kernels::TINYGPT_ISA
