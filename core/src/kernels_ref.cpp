// kernels_ref.cpp — plain scalar loops, one per kernel: the reference every fast kernel is
// tested against. Written for clarity: each loop reads like the equation in kernels.h.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels.h"

namespace tinygpt::kernels::ref {

void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
           float* C, int ldc, bool accumulate) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      float sum = 0.0f;
      for (int k = 0; k < K; k++) {
        float a = transA ? A[k * lda + i] : A[i * lda + k];
        float b = transB ? B[j * ldb + k] : B[k * ldb + j];
        sum += a * b;
      }
      C[i * ldc + j] = accumulate ? C[i * ldc + j] + sum : sum;
    }
  }
}

void sgemm_serial(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                  float* C, int ldc, bool accumulate) {
  sgemm(transA, transB, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC) {
  for (int n = 0; n < N; n++) {
    for (int o = 0; o < OC; o++) {
      float sum = bias ? bias[o] : 0.0f;
      for (int i = 0; i < IC; i++) sum += inp[n * IC + i] * weight[i * OC + o];
      out[n * OC + o] = sum;
    }
  }
}

void matmul_forward_residual(float* out, const float* inp, const float* weight, const float* bias,
                             const float* residual, int N, int IC, int OC) {
  matmul_forward(out, inp, weight, bias, N, IC, OC);
  for (int64_t i = 0; i < int64_t(N) * OC; i++) out[i] = out[i] + residual[i];
}

void matmul_forward_act(float* out, float* slope, const float* inp, const float* weight, const float* bias, int N,
                        int IC, int OC, int act) {
  matmul_forward(out, inp, weight, bias, N, IC, OC);
  const int64_t n = int64_t(N) * OC;
  if (act == kActRelu) relu_forward(out, out, n);
  else if (slope) gelu_forward_slope(out, slope, out, n);
  else gelu_forward(out, out, n);
}

void matmul_backward_dinp_act(float* dinp, const float* aux, const float* dout, const float* weight, int N, int IC,
                              int OC, int act) {
  const int64_t n = int64_t(N) * IC;
  for (int64_t i = 0; i < n; i++) dinp[i] = 0.0f;
  matmul_backward(dinp, nullptr, nullptr, dout, nullptr, weight, N, IC, OC);
  if (act == kActRelu) relu_mask(dinp, aux, n);
  else
    for (int64_t i = 0; i < n; i++) dinp[i] = dinp[i] * aux[i];
}

void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int IC, int OC) {
  for (int n = 0; n < N; n++) {
    const float* dout_n = dout + n * OC;
    for (int i = 0; i < IC; i++) {
      if (dinp) {
        float sum = 0.0f;
        for (int o = 0; o < OC; o++) sum += dout_n[o] * weight[i * OC + o];
        dinp[n * IC + i] += sum;
      }
      if (dweight)
        for (int o = 0; o < OC; o++) dweight[i * OC + o] += inp[n * IC + i] * dout_n[o];
    }
    if (dbias)
      for (int o = 0; o < OC; o++) dbias[o] += dout_n[o];
  }
}

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps) {
  for (int n = 0; n < N; n++) {
    const float* x = inp + n * C;
    float m = 0.0f;
    for (int c = 0; c < C; c++) m += x[c];
    m /= C;
    float var = 0.0f;
    for (int c = 0; c < C; c++) var += (x[c] - m) * (x[c] - m);
    var /= C;
    float s = 1.0f / std::sqrt(var + eps);
    for (int c = 0; c < C; c++) out[n * C + c] = (x[c] - m) * s * weight[c] + bias[c];
    mean[n] = m;
    rstd[n] = s;
  }
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C, bool accumulate) {
  for (int n = 0; n < N; n++) {
    const float* x = inp + n * C;
    const float* dy = dout + n * C;
    // xhat = (x - mean) * rstd;  dxhat = dy * w
    // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
    float dxhat_mean = 0.0f, dxhat_xhat_mean = 0.0f;
    for (int c = 0; c < C; c++) {
      float xhat = (x[c] - mean[n]) * rstd[n];
      float dxhat = dy[c] * weight[c];
      dxhat_mean += dxhat;
      dxhat_xhat_mean += dxhat * xhat;
    }
    dxhat_mean /= C;
    dxhat_xhat_mean /= C;
    for (int c = 0; c < C; c++) {
      float xhat = (x[c] - mean[n]) * rstd[n];
      float dxhat = dy[c] * weight[c];
      if (dinp) {
        const float g = rstd[n] * (dxhat - dxhat_mean - xhat * dxhat_xhat_mean);
        dinp[n * C + c] = accumulate ? dinp[n * C + c] + g : g;
      }
      if (dweight) dweight[c] += dy[c] * xhat;
      if (dbias) dbias[c] += dy[c];
    }
  }
}

static const float kGeluScale = 0.7978845608028654f;  // sqrt(2 / pi)

void gelu_forward(float* out, const float* inp, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float x = inp[i];
    out[i] = 0.5f * x * (1.0f + std::tanh(kGeluScale * (x + 0.044715f * x * x * x)));
  }
}

void gelu_forward_slope(float* out, float* slope, const float* inp, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float x = inp[i];
    float t = std::tanh(kGeluScale * (x + 0.044715f * x * x * x));
    float du_dx = kGeluScale * (1.0f + 3.0f * 0.044715f * x * x);
    out[i] = 0.5f * x * (1.0f + t);
    slope[i] = 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du_dx;
  }
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float x = inp[i];
    float u = kGeluScale * (x + 0.044715f * x * x * x);
    float t = std::tanh(u);
    float du_dx = kGeluScale * (1.0f + 3.0f * 0.044715f * x * x);
    float grad = 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du_dx;
    dinp[i] += grad * dout[i];
  }
}

void softmax_forward(float* out, const float* inp, int N, int C) {
  for (int n = 0; n < N; n++) {
    const float* x = inp + n * C;
    float maxv = x[0];
    for (int c = 1; c < C; c++) maxv = std::fmax(maxv, x[c]);
    float sum = 0.0f;
    for (int c = 0; c < C; c++) {
      out[n * C + c] = std::exp(x[c] - maxv);
      sum += out[n * C + c];
    }
    for (int c = 0; c < C; c++) out[n * C + c] /= sum;
  }
}

void softmax_backward(float* dinp, const float* out, const float* dout, int N, int C) {
  for (int n = 0; n < N; n++) {
    float dot = 0.0f;
    for (int c = 0; c < C; c++) dot += dout[n * C + c] * out[n * C + c];
    for (int c = 0; c < C; c++) dinp[n * C + c] += out[n * C + c] * (dout[n * C + c] - dot);
  }
}

void crossentropy_forward(float* losses, float* probs, const float* logits, const int32_t* targets, int N, int V) {
  softmax_forward(probs, logits, N, V);
  for (int n = 0; n < N; n++) {
    // log p = (z_y - max) - log(sum exp(z - max)): stable even when p underflows
    const float* z = logits + n * V;
    float maxv = z[0];
    for (int v = 1; v < V; v++) maxv = std::fmax(maxv, z[v]);
    float sum = 0.0f;
    for (int v = 0; v < V; v++) sum += std::exp(z[v] - maxv);
    losses[n] = std::log(sum) - (z[targets[n]] - maxv);
  }
}

void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, float dloss, int N, int V) {
  for (int n = 0; n < N; n++)
    for (int v = 0; v < V; v++)
      dlogits[n * V + v] += dloss * (probs[n * V + v] - (v == targets[n] ? 1.0f : 0.0f));
}

void attention_forward(float* out, float* att, const float* qkv, int B, int T, int C, int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(float(HS));
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++)
      for (int i = 0; i < T; i++) {
        const float* q_i = qkv + (b * T + i) * 3 * C + h * HS;
        float* att_i = att + ((b * NH + h) * T + i) * T;
        float maxv = -INFINITY;
        for (int j = 0; j <= i; j++) {
          const float* k_j = qkv + (b * T + j) * 3 * C + C + h * HS;
          float s = 0.0f;
          for (int d = 0; d < HS; d++) s += q_i[d] * k_j[d];
          att_i[j] = s * scale;
          maxv = std::fmax(maxv, att_i[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j <= i; j++) {
          att_i[j] = std::exp(att_i[j] - maxv);
          sum += att_i[j];
        }
        for (int j = 0; j < T; j++) att_i[j] = j <= i ? att_i[j] / sum : 0.0f;  // mask j > i
        float* out_i = out + (b * T + i) * C + h * HS;
        for (int d = 0; d < HS; d++) {
          float y = 0.0f;
          for (int j = 0; j <= i; j++) y += att_i[j] * qkv[(b * T + j) * 3 * C + 2 * C + h * HS + d];
          out_i[d] = y;
        }
      }
}

void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* att, int B, int T, int C,
                        int NH, bool accumulate) {
  const int HS = C / NH;
  if (!accumulate) std::fill(dqkv, dqkv + int64_t(B) * T * 3 * C, 0.0f);
  const float scale = 1.0f / std::sqrt(float(HS));
  std::vector<float> datt(T);
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++)
      for (int i = 0; i < T; i++) {
        const float* att_i = att + ((b * NH + h) * T + i) * T;
        const float* dout_i = dout + (b * T + i) * C + h * HS;
        const float* q_i = qkv + (b * T + i) * 3 * C + h * HS;
        float* dq_i = dqkv + (b * T + i) * 3 * C + h * HS;
        // forward: out_i = sum_j att_ij v_j  ->  datt_ij = dout_i . v_j,  dv_j += att_ij dout_i
        // forward: att_i = softmax(s_i)      ->  ds_ij = att_ij (datt_ij - sum_k att_ik datt_ik)
        // forward: s_ij = scale q_i . k_j     ->  dq_i += scale ds_ij k_j,  dk_j += scale ds_ij q_i
        float dot = 0.0f;
        for (int j = 0; j <= i; j++) {
          const float* v_j = qkv + (b * T + j) * 3 * C + 2 * C + h * HS;
          float* dv_j = dqkv + (b * T + j) * 3 * C + 2 * C + h * HS;
          float s = 0.0f;
          for (int d = 0; d < HS; d++) {
            s += dout_i[d] * v_j[d];
            dv_j[d] += att_i[j] * dout_i[d];
          }
          datt[j] = s;
          dot += att_i[j] * s;
        }
        for (int j = 0; j <= i; j++) {
          float ds = att_i[j] * (datt[j] - dot) * scale;
          const float* k_j = qkv + (b * T + j) * 3 * C + C + h * HS;
          float* dk_j = dqkv + (b * T + j) * 3 * C + C + h * HS;
          for (int d = 0; d < HS; d++) {
            dq_i[d] += ds * k_j[d];
            dk_j[d] += ds * q_i[d];
          }
        }
      }
}

void attention_decode(float* out, const float* qkv, const float* k_cache, const float* v_cache, int p0, int n, int C,
                      int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(float(HS));
  std::vector<float> s(size_t(p0 + n));
  for (int h = 0; h < NH; h++)
    for (int i = 0; i < n; i++) {
      const float* q_i = qkv + i * 3 * C + h * HS;
      const int visible = p0 + i + 1;  // the new position sees the cache and itself
      float maxv = -INFINITY;
      for (int j = 0; j < visible; j++) {
        const float* k_j = k_cache + j * C + h * HS;
        float dot = 0.0f;
        for (int d = 0; d < HS; d++) dot += q_i[d] * k_j[d];
        s[j] = dot * scale;
        maxv = std::fmax(maxv, s[j]);
      }
      float sum = 0.0f;
      for (int j = 0; j < visible; j++) {
        s[j] = std::exp(s[j] - maxv);
        sum += s[j];
      }
      float* out_i = out + i * C + h * HS;
      for (int d = 0; d < HS; d++) {
        float y = 0.0f;
        for (int j = 0; j < visible; j++) y += s[j] / sum * v_cache[j * C + h * HS + d];
        out_i[d] = y;
      }
    }
}

void add_forward(float* out, const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

void mul_forward(float* out, const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = a[i] * b[i];
}

void accumulate(float* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] += src[i];
}

double sum_squares(const float* x, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; i++) sum += double(x[i]) * x[i];
  return sum;
}

void scale(float* x, float s, int64_t n) {
  for (int64_t i = 0; i < n; i++) x[i] *= s;
}

void adamw_update(float* params, const float* grads, float* m, float* v, int64_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, float bias_correction1, float bias_correction2,
                  float grad_scale) {
  for (int64_t i = 0; i < n; i++) {
    float g = grads[i] * grad_scale;
    m[i] = beta1 * m[i] + (1.0f - beta1) * g;
    v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
    float mhat = m[i] / bias_correction1;
    float vhat = v[i] / bias_correction2;
    params[i] = params[i] * (1.0f - lr * weight_decay) - lr * mhat / (std::sqrt(vhat) + eps);
  }
}

}  // namespace tinygpt::kernels::ref
