// simd.h — the one place that knows which vector instructions exist.
//
// Kernels are written once against this small vocabulary:
//   vf            a vector of W floats
//   load/store    unaligned memory access
//   splat         broadcast a scalar
//   + - * /       lane-wise arithmetic (GCC/Clang vector extensions)
//   fma(a, b, c)  a * b + c (fused on AVX2+FMA; mul + add elsewhere: SIMD128 has no FMA)
//   vmax, vmin, vsqrt, hsum, hmax, vexp, vtanh
//
// Each translation unit gets one backend at compile time; a portable x86-64 build compiles the
// kernels three times (SSE2, AVX2, AVX-512) and picks one at run time (kernels_isa.h, dispatch.cpp):
//   AVX-512 F/DQ/BW/VL + FMA -> 16 lanes ("avx512")
//   AVX2 + FMA  -> 8 lanes   ("avx2")
//   SIMD128     -> 4 lanes   ("simd128", Emscripten with -msimd128)
//   SSE2        -> 4 lanes   ("sse2", the portable x86-64 default)
//   NEON        -> 4 lanes   ("neon")
//   otherwise   -> 1 lane    ("scalar", e.g. the wasm build without -msimd128)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__FMA__)
// GCC 12's AVX-512 intrinsics initialise their "undefined" operands from themselves and trip
// -Wmaybe-uninitialized (or, fully unrolled, -Wuninitialized) wherever they are inlined; the
// warning is about the header, not us.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#define TINYGPT_SIMD_AVX512 1
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define TINYGPT_SIMD_AVX2 1
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

// TINYGPT_ISA names the backend; it is also a namespace, so that one program can hold the
// kernels compiled several times (baseline, AVX2, AVX-512, see kernels_isa.h) without their
// definitions colliding.
#if defined(TINYGPT_SIMD_AVX512)
#define TINYGPT_ISA avx512
#elif defined(TINYGPT_SIMD_AVX2)
#define TINYGPT_ISA avx2
#elif defined(__wasm_simd128__)
#define TINYGPT_ISA simd128
#elif defined(__SSE2__)
#define TINYGPT_ISA sse2
#elif defined(__ARM_NEON)
#define TINYGPT_ISA neon
#else
#define TINYGPT_ISA scalar
#endif
#define TINYGPT_STR2(x) #x
#define TINYGPT_STR(x) TINYGPT_STR2(x)

namespace tinygpt::simd {
inline namespace TINYGPT_ISA {

#if defined(TINYGPT_SIMD_AVX512)
constexpr int W = 16;
#elif defined(TINYGPT_SIMD_AVX2)
constexpr int W = 8;
#elif defined(__wasm_simd128__) || defined(__SSE2__) || defined(__ARM_NEON)
constexpr int W = 4;
#else
constexpr int W = 1;
#endif
constexpr const char* kBackend = TINYGPT_STR(TINYGPT_ISA);

// A vector of W floats and the matching vector of W int32 lanes.
typedef float vf __attribute__((vector_size(W * 4)));
typedef int32_t vi __attribute__((vector_size(W * 4)));

inline vf load(const float* p) { vf v; std::memcpy(&v, p, sizeof v); return v; }
inline void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
inline vf splat(float x) {
#if defined(TINYGPT_SIMD_AVX512)
  return (vf)_mm512_set1_ps(x);
#elif defined(TINYGPT_SIMD_AVX2)
  return (vf)_mm256_set1_ps(x);
#elif defined(__wasm_simd128__)
  return (vf)wasm_f32x4_splat(x);
#elif defined(__SSE2__)
  return (vf)_mm_set1_ps(x);
#else
  vf v;
  for (int i = 0; i < W; i++) v[i] = x;
  return v;
#endif
}
inline vf zero() { return vf{}; }

inline vf fma(vf a, vf b, vf c) {
#if defined(TINYGPT_SIMD_AVX512)
  return (vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(TINYGPT_SIMD_AVX2)
  return (vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return a * b + c;  // -ffp-contract=off keeps this a separate mul and add
#endif
}

inline vi as_int(vf v) { vi r; std::memcpy(&r, &v, sizeof r); return r; }
inline vf as_float(vi v) { vf r; std::memcpy(&r, &v, sizeof r); return r; }
// mask ? a : b, where mask lanes are all-ones or all-zeros (as comparisons produce)
inline vf select(vi mask, vf a, vf b) { return as_float((mask & as_int(a)) | (~mask & as_int(b))); }
// A row's last, partial vector (0 < n < W): lanes [0, n) from p, the rest `fill`; and its store,
// which writes lanes [0, n) only. One vector op instead of n scalar ones (libm calls, for exp
// and fmax), and nothing read or written past the row.
inline vf load_n(const float* p, int n, float fill) {
#if defined(TINYGPT_SIMD_AVX512)
  return (vf)_mm512_mask_loadu_ps(_mm512_set1_ps(fill), __mmask16((1u << n) - 1), p);
#else
  vf v = splat(fill);
  for (int i = 0; i < W; i++)  // a fixed trip count: unrolled, never a call to memcpy
    if (i < n) v[i] = p[i];
  return v;
#endif
}
inline void store_n(float* p, vf v, int n) {
#if defined(TINYGPT_SIMD_AVX512)
  _mm512_mask_storeu_ps(p, __mmask16((1u << n) - 1), (__m512)v);
#else
  for (int i = 0; i < W; i++)
    if (i < n) p[i] = v[i];
#endif
}
// v with lanes [n, W) set to 0 (0 < n < W), without a round trip through memory (a load that
// reads a masked store waits for it to reach the cache instead of taking its data from the
// store queue)
inline vf first_n(vf v, int n) {
#if defined(TINYGPT_SIMD_AVX512)
  return (vf)_mm512_maskz_mov_ps(__mmask16((1u << n) - 1), (__m512)v);
#else
  vi lane;
  for (int i = 0; i < W; i++) lane[i] = i;
  return as_float(as_int(v) & (lane < n));
#endif
}
#if defined(TINYGPT_SIMD_AVX512)
// vmaxps/vminps return the second operand when the comparison is false (NaN): same as below
inline vf vmax(vf a, vf b) { return (vf)_mm512_max_ps((__m512)a, (__m512)b); }
inline vf vmin(vf a, vf b) { return (vf)_mm512_min_ps((__m512)a, (__m512)b); }
#else
inline vf vmax(vf a, vf b) { return select(a > b, a, b); }
inline vf vmin(vf a, vf b) { return select(a < b, a, b); }
#endif

inline vf vsqrt(vf v) {
#if defined(TINYGPT_SIMD_AVX512)
  return (vf)_mm512_sqrt_ps((__m512)v);
#elif defined(TINYGPT_SIMD_AVX2)
  return (vf)_mm256_sqrt_ps((__m256)v);
#elif defined(__wasm_simd128__)
  return (vf)wasm_f32x4_sqrt((v128_t)v);
#elif defined(__SSE2__)
  return (vf)_mm_sqrt_ps((__m128)v);
#elif defined(__ARM_NEON) && defined(__aarch64__)
  return (vf)vsqrtq_f32((float32x4_t)v);
#else
  vf r;
  for (int i = 0; i < W; i++) r[i] = std::sqrt(v[i]);
  return r;
#endif
}

#if defined(TINYGPT_SIMD_AVX512)
// 16 lanes: halve the vector three times (16 -> 8 -> 4 -> 2), then add the last two; a fixed
// order, so the result is the same on every run.
inline float hsum(vf v) {
  __m256 h8 = _mm256_add_ps(_mm512_castps512_ps256((__m512)v), _mm512_extractf32x8_ps((__m512)v, 1));
  __m128 h4 = _mm_add_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
  __m128 h2 = _mm_add_ps(h4, _mm_movehl_ps(h4, h4));
  return _mm_cvtss_f32(_mm_add_ss(h2, _mm_movehdup_ps(h2)));
}
inline float hmax(vf v) { return _mm512_reduce_max_ps((__m512)v); }
#else
inline float hsum(vf v) {
  float s = 0.0f;
  for (int i = 0; i < W; i++) s += v[i];
  return s;
}
inline float hmax(vf v) {
  float m = v[0];
  for (int i = 1; i < W; i++) m = v[i] > m ? v[i] : m;
  return m;
}
#endif

// e^x, lane-wise, within ~2 ulp of expf for x in [-87.3, 88.7] (inputs are clamped to
// that range, so exp(-inf) gives ~1e-38, not 0: harmless after a softmax's max-subtraction).
// Cephes-style: x = n ln2 + r with |r| <= ln2/2, e^r by a degree-7 polynomial, 2^n by bits.
inline vf vexp(vf x) {
  x = vmin(vmax(x, splat(-87.3f)), splat(88.7f));
  const vf magic = splat(12582912.0f);                 // 1.5 * 2^23: round to nearest
  vf t = fma(x, splat(1.44269504088896341f), magic);   // x / ln2 + magic
  vf n = t - magic;
  vf r = fma(n, splat(-0.693359375f), x);              // ln2 split into hi + lo
  r = fma(n, splat(2.12194440e-4f), r);
  vf p = splat(1.9875691500e-4f);
  p = fma(p, r, splat(1.3981999507e-3f));
  p = fma(p, r, splat(8.3334519073e-3f));
  p = fma(p, r, splat(4.1665795894e-2f));
  p = fma(p, r, splat(1.6666665459e-1f));
  p = fma(p, r, splat(5.0000001201e-1f));
  p = fma(p, r * r, r) + splat(1.0f);
  vi pow2n = (as_int(t) - as_int(magic) + 127) << 23;  // 2^n as float bits
  return p * as_float(pow2n);
}

// tanh(u) = 1 - 2 / (e^{2u} + 1): saturates cleanly to +-1; absolute error ~1e-7 near 0.
inline vf vtanh(vf u) { return splat(1.0f) - splat(2.0f) / (vexp(u + u) + splat(1.0f)); }

}  // namespace TINYGPT_ISA
}  // namespace tinygpt::simd
