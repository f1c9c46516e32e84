// kernels_seq2seq_ref.cpp — plain scalar loops for the encoder-decoder's kernels
// (kernels_seq2seq.cpp): the reference the fast versions are tested against. Each loop reads
// like the equation in kernels.h; the mask is literally -inf added to the score.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels.h"

namespace tinygpt::kernels::ref {

namespace {
// is key j hidden from query i of batch element b?
bool masked(const AttentionShape& s, const uint8_t* key_pad, int b, int i, int j) {
  if (key_pad && key_pad[int64_t(b) * s.Tk + j]) return true;
  return s.causal && j > i + (s.Tk - s.Tq);
}
}  // namespace

void mha_forward(float* out, float* att, const float* q, const float* k, const float* v, const uint8_t* key_pad,
                 const AttentionShape& s) {
  const int HS = s.C / s.NH;
  const float scale = 1.0f / std::sqrt(float(HS));
  for (int b = 0; b < s.B; b++)
    for (int h = 0; h < s.NH; h++)
      for (int i = 0; i < s.Tq; i++) {
        const float* q_i = q + b * s.q_batch + int64_t(i) * s.q_row + h * HS;
        float* att_i = att + ((int64_t(b) * s.NH + h) * s.Tq + i) * s.Tk;
        float maxv = -INFINITY;
        for (int j = 0; j < s.Tk; j++) {
          const float* k_j = k + b * s.kv_batch + int64_t(j) * s.kv_row + h * HS;
          float dotp = 0.0f;
          for (int d = 0; d < HS; d++) dotp += q_i[d] * k_j[d];
          att_i[j] = dotp * scale + (masked(s, key_pad, b, i, j) ? -INFINITY : 0.0f);
          maxv = std::fmax(maxv, att_i[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j < s.Tk; j++) {
          att_i[j] = maxv == -INFINITY ? 0.0f : std::exp(att_i[j] - maxv);  // exp(-inf) = 0
          sum += att_i[j];
        }
        for (int j = 0; j < s.Tk; j++) att_i[j] = sum > 0.0f ? att_i[j] / sum : 0.0f;  // all masked: zeros
        float* out_i = out + (int64_t(b) * s.Tq + i) * s.C + h * HS;
        for (int d = 0; d < HS; d++) {
          float y = 0.0f;
          for (int j = 0; j < s.Tk; j++) y += att_i[j] * v[b * s.kv_batch + int64_t(j) * s.kv_row + h * HS + d];
          out_i[d] = y;
        }
      }
}

void mha_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k, const float* v,
                  const float* att, const uint8_t* key_pad, const AttentionShape& s, bool accumulate) {
  const int HS = s.C / s.NH;
  if (!accumulate)
    for (int b = 0; b < s.B; b++) {
      for (int i = 0; i < s.Tq; i++) std::fill_n(dq + b * s.q_batch + int64_t(i) * s.q_row, s.C, 0.0f);
      for (int j = 0; j < s.Tk; j++) {
        std::fill_n(dk + b * s.kv_batch + int64_t(j) * s.kv_row, s.C, 0.0f);
        std::fill_n(dv + b * s.kv_batch + int64_t(j) * s.kv_row, s.C, 0.0f);
      }
    }
  const float scale = 1.0f / std::sqrt(float(HS));
  std::vector<float> datt(size_t(s.Tk));
  for (int b = 0; b < s.B; b++)
    for (int h = 0; h < s.NH; h++)
      for (int i = 0; i < s.Tq; i++) {
        const float* att_i = att + ((int64_t(b) * s.NH + h) * s.Tq + i) * s.Tk;
        const float* dout_i = dout + (int64_t(b) * s.Tq + i) * s.C + h * HS;
        const float* q_i = q + b * s.q_batch + int64_t(i) * s.q_row + h * HS;
        float* dq_i = dq + b * s.q_batch + int64_t(i) * s.q_row + h * HS;
        // forward: out_i = sum_j att_ij v_j  ->  datt_ij = dout_i . v_j,  dv_j += att_ij dout_i
        // forward: att_i = softmax(scale s_i + mask)  ->  ds_ij = att_ij (datt_ij - sum_k att_ik datt_ik)
        // forward: s_ij = q_i . k_j  ->  dq_i += scale ds_ij k_j,  dk_j += scale ds_ij q_i
        float dotp = 0.0f;
        for (int j = 0; j < s.Tk; j++) {
          const float* v_j = v + b * s.kv_batch + int64_t(j) * s.kv_row + h * HS;
          float* dv_j = dv + b * s.kv_batch + int64_t(j) * s.kv_row + h * HS;
          float acc = 0.0f;
          for (int d = 0; d < HS; d++) {
            acc += dout_i[d] * v_j[d];
            dv_j[d] += att_i[j] * dout_i[d];
          }
          datt[size_t(j)] = acc;
          dotp += att_i[j] * acc;
        }
        for (int j = 0; j < s.Tk; j++) {
          const float ds = att_i[j] * (datt[size_t(j)] - dotp) * scale;
          const float* k_j = k + b * s.kv_batch + int64_t(j) * s.kv_row + h * HS;
          float* dk_j = dk + b * s.kv_batch + int64_t(j) * s.kv_row + h * HS;
          for (int d = 0; d < HS; d++) {
            dq_i[d] += ds * k_j[d];
            dk_j[d] += ds * q_i[d];
          }
        }
      }
}

void relu_forward(float* out, const float* inp, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void relu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  for (int64_t i = 0; i < n; i++) dinp[i] += inp[i] > 0.0f ? dout[i] : 0.0f;
}

void relu_mask(float* d, const float* out, int64_t n) {
  for (int64_t i = 0; i < n; i++) d[i] = out[i] > 0.0f ? d[i] : 0.0f;
}

void crossentropy_ignore_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N,
                                 int V) {
  for (int n = 0; n < N; n++) {
    if (targets[n] < 0) {
      losses[n] = 0.0f;  // padding: no loss, probs row untouched
      continue;
    }
    crossentropy_forward(losses + n, probs + int64_t(n) * V, logits + int64_t(n) * V, targets + n, 1, V);
  }
}

void crossentropy_ignore_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N,
                                  int V) {
  for (int n = 0; n < N; n++)
    if (targets[n] >= 0)
      crossentropy_backward(dlogits + int64_t(n) * V, probs + int64_t(n) * V, targets + n, dloss, 1, V);
}

}  // namespace tinygpt::kernels::ref
