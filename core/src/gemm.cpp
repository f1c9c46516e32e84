// gemm.cpp — packed, register-blocked single-precision matrix multiply.
//
// C (M, N) = [C +] op(A) (M, K) @ op(B) (K, N), written once against simd.h (GotoBLAS
// structure, as in BLIS):
//   for each NC-wide column block of B and KC-deep slice of K:
//     pack B into NR-wide panels laid out [k][NR]          (shared by all threads)
//     for each MC-high row block of A (split across threads):
//       pack A into MR-high panels laid out [k][MR]        (per thread)
//       for each (MR x NR) tile: the micro-kernel keeps the tile in MR * NR/W registers and
//       streams one packed A column (MR broadcasts) and one packed B row (NR/W vectors) per k.
// Packing turns the transposed variants that backward needs (dout @ W^T, inp^T @ dout)
// into the same contiguous, unit-stride inner loop as the forward product.
//
// The block of C is split across threads in tasks of MC rows x a few NR-wide panels (more
// column blocks the more threads there are, so that 16 threads find work even when C has few
// rows): every element of C is computed by exactly one task in a fixed order, so the result
// does not depend on the thread count.
#include <algorithm>
#include <cstring>

#include "kernels_isa.h"
#include "kernels_rows.h"
#include "threadpool.h"

namespace tinygpt::kernels::TINYGPT_ISA {

using simd::vf;
using simd::W;

namespace {

// The register tile (MR rows x NRV vectors) is sized to the register file: it must hold
// MR*NRV accumulators, NRV B vectors, a broadcast and (without FMA) a product.
//   AVX2+FMA, 16 ymm:           6 x 2 -> 12 accumulators + 2 + 1
//   SIMD128 in V8, 16 xmm with one reserved as scratch: 2 x 4 -> 8 + 4 + 1 + 1
//     (measured: 6 x 2 spills and reaches ~50% of the mul+add peak; 2 x 4 reaches ~90%)
//   SSE2 (two-operand, needs copies): 4 x 2
#if !defined(TINYGPT_GEMM_MR)
#if defined(TINYGPT_SIMD_AVX512)
#define TINYGPT_GEMM_MR 6
#define TINYGPT_GEMM_NRV 4
#elif defined(TINYGPT_SIMD_AVX2)
#define TINYGPT_GEMM_MR 6
#define TINYGPT_GEMM_NRV 2
#elif defined(__wasm_simd128__)
#define TINYGPT_GEMM_MR 2
#define TINYGPT_GEMM_NRV 4
#else
#define TINYGPT_GEMM_MR 4
#define TINYGPT_GEMM_NRV 2
#endif
#endif
constexpr int MR = TINYGPT_GEMM_MR;        // rows of a register tile
constexpr int NRV = TINYGPT_GEMM_NRV;      // vectors per tile row
constexpr int NR = NRV * W;                // columns of a register tile
#if !defined(TINYGPT_GEMM_KC)
#define TINYGPT_GEMM_KC 256
#endif
constexpr int KC = TINYGPT_GEMM_KC;        // depth of a packed slice (A and B panels stay in L1/L2)
constexpr int MC = (96 / MR) * MR;         // rows of A packed at once per thread
constexpr int NC = 128 * NR;               // columns of B packed at once

// op(A)(i, k) and op(B)(k, j) in terms of the stored matrices
inline float a_at(const float* A, int lda, bool transA, int i, int k) { return transA ? A[k * lda + i] : A[i * lda + k]; }
inline float b_at(const float* B, int ldb, bool transB, int k, int j) { return transB ? B[j * ldb + k] : B[k * ldb + j]; }

// Pack rows [i0, i0 + mc) x cols [k0, k0 + kc) of op(A) into MR-row panels: pa[panel][k][MR].
void pack_a(float* pa, const float* A, int lda, bool transA, int i0, int mc, int k0, int kc) {
  for (int ir = 0; ir < mc; ir += MR) {
    const int mr = std::min(MR, mc - ir);
    float* dst = pa + ir * kc;
    if (transA && mr == MR) {
      for (int k = 0; k < kc; k++) std::memcpy(dst + k * MR, A + (k0 + k) * lda + i0 + ir, MR * sizeof(float));
      continue;
    }
    for (int k = 0; k < kc; k++)
      for (int i = 0; i < MR; i++) dst[k * MR + i] = i < mr ? a_at(A, lda, transA, i0 + ir + i, k0 + k) : 0.0f;
  }
}

// Pack rows [k0, k0 + kc) x cols [j0, j0 + nc) of op(B) into NR-column panels: pb[panel][k][NR].
void pack_b_panels(float* pb, const float* B, int ldb, bool transB, int k0, int kc, int j0, int nc, int p_begin,
                   int p_end) {
  for (int p = p_begin; p < p_end; p++) {
    const int jr = p * NR, nr = std::min(NR, nc - jr);
    float* dst = pb + jr * kc;
    if (!transB && nr == NR) {
      for (int k = 0; k < kc; k++) std::memcpy(dst + k * NR, B + (k0 + k) * ldb + j0 + jr, NR * sizeof(float));
      continue;
    }
    if (transB && nr == NR) {
      // op(B)(k, j) = B[j][k] (a weight read as W^T): 4 stored rows at a time read along k and
      // written down the panel by 4 x 4 vector transposes (kernels_rows.h). Element by element with
      // a bounds test this copy took ~6% of a seq2seq step; element by element in blocks of 16 k,
      // 5.1% (perf); by 4 x 4 blocks 4.1%, and the step 2% faster (AVX-512, one thread).
      copy_transposed(dst, NR, B + int64_t(j0 + jr) * ldb + k0, ldb, kc, NR);
      continue;
    }
    for (int k = 0; k < kc; k++)
      for (int j = 0; j < NR; j++) dst[k * NR + j] = j < nr ? b_at(B, ldb, transB, k0 + k, j0 + jr + j) : 0.0f;
  }
}

// What a tile's store adds besides its products, both optional:
//   bias (the tile's first column of a row vector): C starts from it instead of from C or zero;
//     bias[j] + sum is the same operation as C = bias first and C += sum after;
//   res (the tile's corner in a matrix of row stride ldr, only in the product's last K slice): added
//     to the finished sum, C = sum + res, as a separate addition after the product would.
struct Epilogue {
  const float* bias = nullptr;
  const float* res = nullptr;
  int ldr = 0;
};

// C[0:mr, 0:nr] = [C or bias +] tile[0:mr, 0:nr] [+ res] (row stride tn): by whole vectors and one
// partial one, the same operations per element as a whole tile's store (scalar stores here would
// also keep the next full-vector load of these rows, attention's softmax, from being forwarded)
__attribute__((noinline)) void store_ragged(const float* tile, int tn, float* C, int ldc, bool accumulate, int mr,
                                            int nr, Epilogue ep) {
  for (int i = 0; i < mr; i++)
    for (int j = 0; j < nr; j += W) {
      float* c = C + i * ldc + j;
      const int n = std::min(W, nr - j);
      const vf t = simd::load(tile + i * tn + j);
      const float* from = ep.bias ? ep.bias + j : accumulate ? c : nullptr;  // what the sum adds to
      vf r = from ? (n == W ? simd::load(from) : simd::load_n(from, n, 0.0f)) + t : t;
      if (ep.res) {
        const float* res = ep.res + i * ep.ldr + j;
        r = r + (n == W ? simd::load(res) : simd::load_n(res, n, 0.0f));
      }
      if (n == W) simd::store(c, r);
      else simd::store_n(c, r, n);
    }
}

// C[0:mr, 0:nr] (+)= sum_k op(A)(i, k) b[k][0:TR * W]: a TM x TR-vector register tile; a points
// at op(A)(0, 0) of the tile, b at its first column (row stride ldb); ep: the store's bias and
// residual (Epilogue)
template <bool TransA, int TM, int TR>
inline void direct_kernel(int kc, const float* __restrict a, int lda, const float* __restrict b, int ldb, float* C,
                          int ldc, bool accumulate, int mr, int nr, Epilogue ep = {}) {
  constexpr int TN = TR * W;
  // op(A)(i, k) of the tile's row i, moved a step per k below; rows past mr repeat the last one
  // (computed, never stored)
  const float* ap[TM];
  for (int i = 0; i < TM; i++) ap[i] = TransA ? a + std::min(i, mr - 1) : a + std::min(i, mr - 1) * lda;
  vf acc[TM][TR];
  for (int i = 0; i < TM; i++)
    for (int v = 0; v < TR; v++) acc[i][v] = simd::zero();
  // The loop moves a pointer into B and op(A)'s pointers a step per k, reads at constant offsets
  // from them and ends on B's pointer: wasm loads take only constant offsets, and indexed by k
  // (k * ldb, row[k]) the SIMD128 build's loop spent 8 integer instructions a k beside its 22
  // vector ones (V8 on a Zen 3 issues ~6 a cycle for 4 multiply/add units); this way 4, and its
  // products ran 1.03-1.11x faster, the same bits (docs/simd_and_kernels.md). Unrolled by 2 or 4,
  // clang hoisted the products ahead of their additions and they ran 0.6-0.9x.
  const float* bp = b;
  const int da = TransA ? lda : 1;  // op(A)(i, k) -> op(A)(i, k + 1)
  for (const float* const b_end = b + int64_t(kc) * ldb; bp != b_end;) {
    vf bk[TR];
    for (int v = 0; v < TR; v++) bk[v] = simd::load(bp + v * W);
    if constexpr (TransA) __builtin_prefetch(ap[0] + TM, 0);
    for (int i = 0; i < TM; i++) {
      const vf ai = simd::splat(*ap[i]);
      for (int v = 0; v < TR; v++) acc[i][v] = simd::fma(ai, bk[v], acc[i][v]);
      ap[i] += da;
    }
    bp += ldb;
  }
  if (mr == TM && nr == TN) {
    for (int i = 0; i < TM; i++)
      for (int v = 0; v < TR; v++) {
        float* c = C + i * ldc + v * W;
        vf r = ep.bias ? simd::load(ep.bias + v * W) + acc[i][v] : accumulate ? simd::load(c) + acc[i][v] : acc[i][v];
        if (ep.res) r = r + simd::load(ep.res + i * ep.ldr + v * W);
        simd::store(c, r);
      }
    return;
  }
  // a ragged tile, out of the loop's way (inline here, it made the SIMD128 build's products ~4%
  // slower in the GPT's step, bench/pool.mjs)
  float tile[TM * TN];
  for (int i = 0; i < TM; i++)
    for (int v = 0; v < TR; v++) simd::store(tile + i * TN + v * W, acc[i][v]);
  store_ragged(tile, TN, C, ldc, accumulate, mr, nr, ep);
}

// A panel's tile, narrowed to the vectors its columns need: the last panel of a product whose N is
// not a multiple of NR (the translator's logits, 259 = 4 x 64 + 3 columns) computed a whole
// MR x NR tile for its few columns; it reads the first TR vectors of the same packed rows, with
// the same operations per element (the same bits). Out of line: with the narrow kernels inlined
// beside the full one, the SIMD128 build's transposed products ran ~20% slower (kernels_bench).
template <bool TransA, int TM, int TR = 1>
__attribute__((noinline)) void narrow_panel(int kc, const float* a, int lda, const float* b, int ldb, float* C, int ldc,
                                            bool accumulate, int mr, int nr, Epilogue ep) {
  if constexpr (TR + 1 < NRV) {
    if (nr > TR * W) return narrow_panel<TransA, TM, TR + 1>(kc, a, lda, b, ldb, C, ldc, accumulate, mr, nr, ep);
  }
  direct_kernel<TransA, TM, TR>(kc, a, lda, b, ldb, C, ldc, accumulate, mr, nr, ep);
}
template <bool TransA, int TM>
__attribute__((always_inline)) inline void panel_kernel(int kc, const float* a, int lda, const float* b, int ldb, float* C,
                                                        int ldc, bool accumulate, int mr, int nr,
                                                        Epilogue ep = {}) {
  if (NRV == 1 || nr > (NRV - 1) * W) direct_kernel<TransA, TM, NRV>(kc, a, lda, b, ldb, C, ldc, accumulate, mr, nr, ep);
  else if constexpr (NRV > 1) narrow_panel<TransA, TM>(kc, a, lda, b, ldb, C, ldc, accumulate, mr, nr, ep);
}

// Whether the threaded path packs A (the GotoBLAS way) or reads it in place. In place, the
// micro-kernel broadcasts op(A)(i, k) from the MR rows (or, transposed, from one row) of the
// stored A, which the rows of a linear layer's products (a few hundred, K up to 512) keep in
// L1/L2: natively that measured ~4% faster on the seq2seq step (AVX-512, CPU time), the same bits.
#if !defined(TINYGPT_GEMM_PACK_A)
#define TINYGPT_GEMM_PACK_A 0
#endif
constexpr bool kPackA = TINYGPT_GEMM_PACK_A;
// SIMD128 packs op(A) all the same for the transposed products (the weight gradients, inp^T @ dout)
// whose stored rows are kPackTransALda floats or more apart. Read in place, each k step of its
// 2-row tile touches another line of A, a row stride away, for 8 multiply-adds: S's fcproj weight
// gradient, (768x512)^T @ 768x128, ran at 47 GFLOP/s in Node, 60 packed, and the LSTM's
// (768x1024)^T @ 768x256 at 29, 61 packed (bench/gemm.mjs). Packed with rows 128 floats apart too,
// those products moved by -5% to +6% and the GPT's step at two threads got slower (0.95x: the
// tasks of 8 rows that packing needs).
// AVX2 packs them too. In place, a 6 x 16 tile's kc = 256 steps touch 256 lines of A (16 KB)
// beside its 16 KB B panel: a 32 KB L1 (Zen 3) does not hold both, and the next tile fetches the
// same lines again. On such a machine, packed: S's (768x512)^T @ 768x128 1.56x, the LSTM's
// (768x1024)^T @ 768x256 1.37x; with rows 128 floats apart 0.92-0.99x, so those stay in place
// (bench/results/gemm-2026-11-28T023005Z.json). S2S's step 1.06x with one thread (1.11x by CPU
// time) and 1.10x with two (seq2seq-2026-11-28T023850Z.json). Since AVX2 runs a task's tiles row
// strip after row strip (for_tiles, below), it packs them at any stride: timed step by step in one
// process against packing from 256 floats apart, S2S's step 1.02-1.04x and GPT S's 1.04x (1 thread)
// and 1.03x (2 threads; docs/simd_and_kernels.md). AVX-512's 6 x 64 tile does 24 multiply-adds
// per line of A, and on the 48 KB L1 where it was measured packing was slower: it reads A in place.
#if defined(__wasm_simd128__) || defined(TINYGPT_SIMD_AVX2)
constexpr bool kPackTransA = true;
#else
constexpr bool kPackTransA = kPackA;
#endif
#if !defined(TINYGPT_GEMM_PACK_TRANS_A_LDA)  // the row stride from which op(A) = A^T is packed
#if defined(TINYGPT_SIMD_AVX2)
#define TINYGPT_GEMM_PACK_TRANS_A_LDA 0
#else
#define TINYGPT_GEMM_PACK_TRANS_A_LDA 256
#endif
#endif
constexpr int kPackTransALda = kPackA ? 0 : TINYGPT_GEMM_PACK_TRANS_A_LDA;
// The order of a task's tiles. AVX2 runs each MR-row strip of op(A) against the task's B panels
// in turn (rows outer): the strip (6 rows x kc, 3-6 KB) stays in L1 while the packed panels,
// contiguous, stream from L2 as one sequential read, in groups of at most kRowsOuterGroup floats
// (128 KB, half of L2) so that the next strip finds them there. Columns outer (each panel against
// every strip of the task's MC = 96 rows), the panel stays in L1 and op(A) streams from L2 as six
// rows read in place. On a Zen 3 (32 KB L1), rows outer: the S2S step 1.03x with one thread and
// 1.05x with two (best of 7, bench/results/seq2seq-2026-11-28T051913Z.json), 1.13x and 1.07x
// timed step by step in one process (docs/simd_and_kernels.md). SIMD128 in Node did not move
// either way, and AVX-512 (a 6 x 64 tile) was measured columns outer, so they keep it. Each tile
// computes the same sums whatever the order: the bits do not change.
#if !defined(TINYGPT_GEMM_ROWS_OUTER)
#if defined(TINYGPT_SIMD_AVX2)
#define TINYGPT_GEMM_ROWS_OUTER 1
#else
#define TINYGPT_GEMM_ROWS_OUTER 0
#endif
#endif
constexpr bool kRowsOuter = TINYGPT_GEMM_ROWS_OUTER;
constexpr int kRowsOuterGroup = 32 * 1024;

// Calls tile(ir, jr) for the tiles of rows [0, mc) x columns [j_begin, j_end) of a task's block,
// in the order above.
template <class Tile>
__attribute__((always_inline)) inline void for_tiles(int mc, int j_begin, int j_end, int kc, Tile&& tile) {
  if constexpr (kRowsOuter) {
    const int group = std::max(1, kRowsOuterGroup / (kc * NR)) * NR;  // columns of B per group
    for (int jg = j_begin; jg < j_end; jg += group)
      for (int ir = 0; ir < mc; ir += MR)
        for (int jr = jg; jr < std::min(j_end, jg + group); jr += NR) tile(ir, jr);
  } else {
    for (int jr = j_begin; jr < j_end; jr += NR)
      for (int ir = 0; ir < mc; ir += MR) tile(ir, jr);
  }
}

struct GemmJob {
  const float* packed_b;  // (NC/NR panels of KC x NR) for the current block
  bool transA, transB;
  int M, N, K;
  const float* A;
  int lda;
  const float* B;
  int ldb;
  float* C;
  int ldc;
  // the current (jc, pc) block
  int jc, nc, pc, kc;
  bool accumulate;
  const float* bias = nullptr;  // (N) row added to every row of C; in the packed path: in the first K slice
  const float* residual = nullptr;  // (M, N), row stride ldr, added to the finished C; in the packed path: in the last K slice
  int ldr = 0;
};

bool packs_a(const GemmJob& g) { return g.transA ? kPackTransA && g.lda >= kPackTransALda : kPackA; }

// The current (jc, pc) block is cut into tasks: blocks of `block_rows` rows of C (MC, or fewer
// when C has too few rows for the threads) times column blocks of `block_panels` NR-wide panels
// (task = row_block * col_blocks + col_block). Every task computes its tiles exactly as any
// other split would (tile boundaries are multiples of MR and NR from the corner of C), so the
// split may follow the thread count without changing a bit.
struct TaskGrid {
  int block_rows;    // rows per row block: a multiple of MR, at most MC
  int row_blocks;
  int block_panels;  // NR-wide panels per column block
  int col_blocks;    // column blocks per row block
  int tasks() const { return row_blocks * col_blocks; }
};

// About 8 tasks per thread, so that the pool's chunks balance: first by splitting the columns,
// and when even single panels are too few (the dW products have few rows), by smaller row blocks.
// When A is packed, tasks are cut by rows only: a task packs its rows of A once for all its
// panels (a task per claim, so tasks sharing a row block would each pack it again).
TaskGrid task_grid(int M, int n_panels, int threads, bool packs_a) {
  TaskGrid grid{MC, (M + MC - 1) / MC, n_panels, 1};
  if (threads == 1) return grid;
  const int target = 8 * threads;
  if (packs_a) {
    grid.block_rows = std::max(MR, std::min(MC, (M / target) / MR * MR));
    grid.row_blocks = (M + grid.block_rows - 1) / grid.block_rows;
    return grid;
  }
  if (grid.row_blocks * n_panels < target / 2) {
    const int want_row_blocks = (target / 2 + n_panels - 1) / n_panels;
    grid.block_rows = std::max(MR, (M / want_row_blocks) / MR * MR);
    grid.row_blocks = (M + grid.block_rows - 1) / grid.block_rows;
  }
  const int want_col_blocks = std::min(n_panels, (target + grid.row_blocks - 1) / grid.row_blocks);
  grid.block_panels = (n_panels + want_col_blocks - 1) / want_col_blocks;
  grid.col_blocks = (n_panels + grid.block_panels - 1) / grid.block_panels;
  return grid;
}

// Tasks [task_begin, task_end): consecutive tasks in one row block share one packing of A.
void compute_tasks(const GemmJob& g, const TaskGrid& grid, int task_begin, int task_end) {
  if (!packs_a(g)) {
    for (int task = task_begin; task < task_end; task++) {
      const int rb = task / grid.col_blocks, cb = task % grid.col_blocks;
      const int ic = rb * grid.block_rows, mc = std::min(grid.block_rows, g.M - ic);
      const int j_begin = cb * grid.block_panels * NR, j_end = std::min(g.nc, j_begin + grid.block_panels * NR);
      for_tiles(mc, j_begin, j_end, g.kc, [&](int ir, int jr) {
        const int nr = std::min(NR, g.nc - jr);
        const float* pb = g.packed_b + jr * g.kc;
        const float* bias = g.bias ? g.bias + g.jc + jr : nullptr;
        const float* res = g.residual ? g.residual + g.jc + jr : nullptr;
        const int mr = std::min(MR, mc - ir), i = ic + ir;
        float* c = g.C + i * g.ldc + g.jc + jr;
        // The tile of C is stored (or read and stored) after its kc multiply-adds: ask for its
        // lines now so that they arrive meanwhile. A seq2seq step's activations (~50 MB with
        // their gradients) do not stay in the caches; with C out of cache this measured up to
        // 20% faster on the forward products (K = 128). No-op where there is no prefetch (wasm).
        for (int r = 0; r < mr; r++)
          for (int v = 0; v < nr; v += 16) __builtin_prefetch(c + int64_t(r) * g.ldc + v, 1);
        const Epilogue ep{bias, res ? res + int64_t(i) * g.ldr : nullptr, g.ldr};
        if (g.transA)
          panel_kernel<true, MR>(g.kc, g.A + int64_t(g.pc) * g.lda + i, g.lda, pb, NR, c, g.ldc, g.accumulate, mr, nr, ep);
        else
          panel_kernel<false, MR>(g.kc, g.A + int64_t(i) * g.lda + g.pc, g.lda, pb, NR, c, g.ldc, g.accumulate, mr, nr, ep);
      });
    }
    return;
  }
  float* pa = scratch(kGemmAPanels, size_t(MC) * KC);  // this thread's A panels
  int packed_row_block = -1;
  for (int task = task_begin; task < task_end; task++) {
    const int rb = task / grid.col_blocks, cb = task % grid.col_blocks;
    const int ic = rb * grid.block_rows, mc = std::min(grid.block_rows, g.M - ic);
    if (rb != packed_row_block) {
      pack_a(pa, g.A, g.lda, g.transA, ic, mc, g.pc, g.kc);
      packed_row_block = rb;
    }
    const int j_begin = cb * grid.block_panels * NR, j_end = std::min(g.nc, j_begin + grid.block_panels * NR);
    for_tiles(mc, j_begin, j_end, g.kc, [&](int ir, int jr) {
      const int nr = std::min(NR, g.nc - jr), mr = std::min(MR, mc - ir);
      // a packed panel [k][MR] is op(A)^T stored with a row stride of MR: the in-place kernel's
      // transposed read, with the same operations (rows past mr are computed, never stored)
      panel_kernel<true, MR>(g.kc, pa + ir * g.kc, MR, g.packed_b + jr * g.kc, NR, g.C + (ic + ir) * g.ldc + g.jc + jr,
                             g.ldc, g.accumulate, mr, nr);
    });
  }
}

// Few rows (generation's one-token products): no packing, stream B once.
// C[i, :] (+)= sum_k op(A)(i, k) * op(B)(k, :)
void small_m(const GemmJob& g, int j_begin, int j_end) {
  for (int i = 0; i < g.M; i++) {
    float* c = g.C + i * g.ldc;
    if (!g.transB) {
      // axpy over rows of B: vectorised along N
      int j = j_begin;
      for (; j + 4 * W <= j_end; j += 4 * W) {
        vf s0 = simd::zero(), s1 = s0, s2 = s0, s3 = s0;
        for (int k = 0; k < g.K; k++) {
          const vf a = simd::splat(a_at(g.A, g.lda, g.transA, i, k));
          const float* b = g.B + k * g.ldb + j;
          s0 = simd::fma(a, simd::load(b), s0);
          s1 = simd::fma(a, simd::load(b + W), s1);
          s2 = simd::fma(a, simd::load(b + 2 * W), s2);
          s3 = simd::fma(a, simd::load(b + 3 * W), s3);
        }
        vf s[4] = {s0, s1, s2, s3};
        for (int v = 0; v < 4; v++) {
          float* cv = c + j + v * W;
          simd::store(cv, g.accumulate ? simd::load(cv) + s[v] : s[v]);
        }
      }
      for (; j < j_end; j++) {
        float s = 0.0f;
        for (int k = 0; k < g.K; k++) s += a_at(g.A, g.lda, g.transA, i, k) * g.B[k * g.ldb + j];
        c[j] = g.accumulate ? c[j] + s : s;
      }
    } else {
      // dot products with rows of B (stored N x K)
      for (int j = j_begin; j < j_end; j++) {
        const float* b = g.B + j * g.ldb;
        float s = 0.0f;
        if (!g.transA) s = dot(g.A + i * g.lda, b, g.K);  // kernels_rows.h
        else
          for (int k = 0; k < g.K; k++) s += a_at(g.A, g.lda, g.transA, i, k) * b[k];
        c[j] = g.accumulate ? c[j] + s : s;
      }
    }
  }
}

// ---- small products on the calling thread, without packing A --------------------------------
// Attention's per-head products (a 32-row block against 32 keys of a 32-wide head) are too small
// to pay for packing: packing A and B costs as much as the multiply-adds at these sizes. Here A
// is read in place (its MR rows broadcast straight from memory), and B too when it is stored
// K x N with whole tiles; only a transposed or ragged B is copied, once, into zero-padded rows.
// The tile may be narrower than the packed path's (AVX-512: 8 x 32 instead of 6 x 64, since
// heads are 32 wide). Each element still sums its products in k order in KC-deep slices, the
// same operations as the packed path: the results are the same bits.
#if defined(TINYGPT_SIMD_AVX512)
constexpr int DMR = 8, DNRV = 2;
#else
constexpr int DMR = MR, DNRV = NRV;
#endif
constexpr int DNR = DNRV * W;

// Products small enough for the direct path: B (one KC slice of it) fits in L1 with room.
inline bool direct_fits(int N, int K) { return int64_t(std::min(K, KC)) * N <= 64 * 128; }

template <bool TransA>
void gemm_direct_impl(const GemmJob& g) {
  const bool copy_b = g.transB || g.N % DNR != 0;
  const int ldp = (g.N + DNR - 1) / DNR * DNR;  // row stride of the copied B
  for (int pc = 0; pc < g.K; pc += KC) {
    const int kc = std::min(KC, g.K - pc);
    const bool accumulate = g.accumulate || pc > 0;
    const float* b = g.B + (g.transB ? pc : int64_t(pc) * g.ldb);
    int ldb = g.ldb;
    if (copy_b) {
      float* pb = scratch(kGemmBPanelsSerial, size_t(kc) * ldp);  // (kc, ldp): op(B) rows, zero-padded
      if (g.transB) copy_transposed(pb, ldp, b, g.ldb, kc, g.N);
      for (int k = 0; k < kc; k++) {
        float* dst = pb + k * ldp;
        if (!g.transB) std::memcpy(dst, b + int64_t(k) * g.ldb, size_t(g.N) * sizeof(float));
        std::memset(dst + g.N, 0, size_t(ldp - g.N) * sizeof(float));
      }
      b = pb, ldb = ldp;
    }
    const float* a = g.A + (TransA ? int64_t(pc) * g.lda : pc);
    for (int jr = 0; jr < g.N; jr += DNR) {
      const int nr = std::min(DNR, g.N - jr);
      for (int ir = 0; ir < g.M; ir += DMR) {
        const int mr = std::min(DMR, g.M - ir);
        direct_kernel<TransA, DMR, DNRV>(kc, TransA ? a + ir : a + int64_t(ir) * g.lda, g.lda, b + jr, ldb,
                              g.C + int64_t(ir) * g.ldc + jr, g.ldc, accumulate, mr, nr);
      }
    }
  }
}

void gemm_direct(const GemmJob& g) {
  if (g.transA) gemm_direct_impl<true>(g);
  else gemm_direct_impl<false>(g);
}

// Whether the product goes through compute_tasks' in-place path, whose tile stores add a bias and
// a residual (Epilogue)
bool stores_tiles(const GemmJob& g, bool parallel) {
  return !packs_a(g) && g.K > 0 && g.M >= 4 && (parallel || !direct_fits(g.N, g.K));
}

// The whole product; `parallel` splits it across the thread pool (B panels in the shared
// buffer), otherwise it runs on the calling thread with its own buffers (for kernels that are
// themselves split across threads, such as attention).
void gemm_product(const GemmJob& job, bool parallel) {
  GemmJob g = job;
  if (g.M <= 0 || g.N <= 0) return;
  // The packed path adds the bias in its first K slice (one split job less than copying it into
  // C first); the others start C from copies of it.
  const bool fold_bias = g.bias && stores_tiles(g, parallel);
  if (g.bias && !fold_bias) {
    for (int i = 0; i < g.M; i++) std::memcpy(g.C + int64_t(i) * g.ldc, g.bias, size_t(g.N) * sizeof(float));
    g.accumulate = true;
    g.bias = nullptr;
  }
  if (g.K <= 0) {
    if (!g.accumulate)
      for (int i = 0; i < g.M; i++) std::memset(g.C + i * g.ldc, 0, size_t(g.N) * sizeof(float));
    return;
  }
  if (g.M < 4) {
    // split columns in pieces of 4W; a few rows stream B once and are bound by memory: every
    // core brings its own share of the bandwidth, so B of 32k floats (128 KB) and more is split
    const int pieces = (g.N + 4 * W - 1) / (4 * W);
    if (parallel)
      tp::parallel_for(pieces, [&](int b, int e, int) { small_m(g, b * 4 * W, std::min(g.N, e * 4 * W)); },
                       int64_t(g.N) * g.K);
    else
      small_m(g, 0, g.N);
    return;
  }
  if (!parallel && direct_fits(g.N, g.K)) {
    gemm_direct(g);
    return;
  }
  const bool accumulate = g.accumulate;
  const int threads = parallel ? tp::num_threads() : 1;
  for (int jc = 0; jc < g.N; jc += NC) {
    const int nc = std::min(NC, g.N - jc);
    const int n_panels = (nc + NR - 1) / NR;
    const TaskGrid grid = task_grid(g.M, n_panels, threads, packs_a(g));
    g.jc = jc, g.nc = nc;
    if (parallel && threads > 1) {
      // The whole depth K in one split job: its first tasks pack every KC slice of B (a few
      // groups of panels per slice), the others compute, each running its tiles through the
      // slices in order (the first one stores, with the bias if any; the later ones add), the
      // same operations in the same order as one job per slice. Chunks are claimed in task
      // order, so by the time a thread claims a compute task every packing task has been
      // claimed by a running thread: it waits only for those to finish (as the pool's caller
      // waits for claimed chunks), never for one nobody took. One fork and join per product
      // instead of two per slice: the step's split jobs drop by about a third.
      const int slices = (g.K + KC - 1) / KC;
      const size_t slice_floats = size_t(n_panels) * NR * KC;  // a full slice's panels (the last may be shallower)
      float* packed = shared_scratch(kGemmBPanels, slice_floats * size_t(slices));
      const int groups = std::min(n_panels, 2 * threads);       // packing tasks per slice
      const int per_group = (n_panels + groups - 1) / groups;
      const int pack_tasks = groups * slices;
      int packed_done = 0;  // packing tasks finished (atomic builtins: no std:: templates in per-ISA files, kernels_isa.h)
      tp::parallel_for(pack_tasks + grid.tasks(), [&](int b, int e, int) {
        for (int task = b; task < e; task++) {
          if (task < pack_tasks) {
            const int slice = task / groups, group = task % groups, pc = slice * KC;
            pack_b_panels(packed + slice_floats * size_t(slice), g.B, g.ldb, g.transB, pc, std::min(KC, g.K - pc), jc, nc,
                          group * per_group, std::min(n_panels, (group + 1) * per_group));
            __atomic_fetch_add(&packed_done, 1, __ATOMIC_RELEASE);
            continue;
          }
          for (int spins = 0; __atomic_load_n(&packed_done, __ATOMIC_ACQUIRE) < pack_tasks; spins++)
            if (spins > 64) tp::yield_thread();
          // the rest of this chunk's compute tasks, slice after slice
          GemmJob gs = g;
          for (int slice = 0; slice < slices; slice++) {
            gs.pc = slice * KC, gs.kc = std::min(KC, g.K - gs.pc);
            gs.accumulate = accumulate || slice > 0;
            gs.bias = fold_bias && slice == 0 ? job.bias : nullptr;
            gs.residual = slice == slices - 1 ? job.residual : nullptr;
            gs.packed_b = packed + slice_floats * size_t(slice);
            compute_tasks(gs, grid, task - pack_tasks, e - pack_tasks);
          }
          break;
        }
      }, int64_t(g.M) * nc * g.K + int64_t(g.K) * nc, 1);  // one task a claim: a descheduled thread holds back one task, not several
      continue;
    }
    for (int pc = 0; pc < g.K; pc += KC) {
      const int kc = std::min(KC, g.K - pc);
      g.pc = pc, g.kc = kc;
      g.accumulate = accumulate || pc > 0;
      g.bias = fold_bias && pc == 0 ? job.bias : nullptr;
      g.residual = pc + kc >= g.K ? job.residual : nullptr;
      const size_t panels_size = size_t(n_panels) * NR * kc;
      float* packed_b = parallel ? shared_scratch(kGemmBPanels, panels_size) : scratch(kGemmBPanelsSerial, panels_size);
      g.packed_b = packed_b;
      pack_b_panels(packed_b, g.B, g.ldb, g.transB, pc, kc, jc, nc, 0, n_panels);
      compute_tasks(g, grid, 0, grid.tasks());
    }
  }
}

// gemm_product, and the residual: in the last K slice's stores where the path stores tiles, else
// added to C after the product (C = C + R, the same sums)
void gemm(const GemmJob& job, bool parallel) {
  if (!job.residual || job.M <= 0 || job.N <= 0 || stores_tiles(job, parallel)) return gemm_product(job, parallel);
  GemmJob g = job;
  g.residual = nullptr;
  gemm_product(g, parallel);
  for (int i = 0; i < g.M; i++) {
    float* c = g.C + int64_t(i) * g.ldc;
    const float* r = job.residual + int64_t(i) * job.ldr;
    int j = 0;
    for (; j + W <= g.N; j += W) simd::store(c + j, simd::load(c + j) + simd::load(r + j));
    for (; j < g.N; j++) c[j] = c[j] + r[j];
  }
}

}  // namespace

void sgemm(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
           int ldc, bool accumulate) {
  gemm(GemmJob{nullptr, transA, transB, M, N, K, A, lda, B, ldb, C, ldc, 0, 0, 0, 0, accumulate}, true);
}

void sgemm_bias(int M, int N, int K, const float* A, int lda, const float* B, int ldb, const float* bias, float* C,
                int ldc, const float* residual, int ldr) {
  GemmJob g{nullptr, false, false, M, N, K, A, lda, B, ldb, C, ldc, 0, 0, 0, 0, false};
  g.bias = bias;
  g.residual = residual;
  g.ldr = ldr;
  gemm(g, true);
}

void sgemm_serial(bool transA, bool transB, int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                  float* C, int ldc, bool accumulate) {
  gemm(GemmJob{nullptr, transA, transB, M, N, K, A, lda, B, ldb, C, ldc, 0, 0, 0, 0, accumulate}, false);
}

}  // namespace tinygpt::kernels::TINYGPT_ISA
