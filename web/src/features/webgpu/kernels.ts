// kernels.ts — the WGSL kernels the core's GPU plan names (core/include/tinygpt/gpu_plan.h lists
// each one's arguments, dims and scalars; the binding order here is the plan's argument order).
//
// Every kernel is deterministic: each output element is computed by one invocation in a fixed
// order, and reductions are fixed-shape trees in workgroup memory. No float atomics, so the same
// seed gives the same bits on the same GPU.
//
// Binding 0 is the op's uniform block: 32 u32 dims, then 8 f32 scalars. Bindings 1.. are the
// plan's arguments (storage buffers, each bound at its region's offset).

export interface KernelConsts {
  HS: number; // head size C / NH
}

export interface KernelDef {
  // the storage arguments: 'r' read-only, 'rw' read-write; 'u32' marks u32 arrays (else f32)
  args: string[];
  source(c: KernelConsts, variant: string): string;
  // a pipeline variant chosen by the op's dims (matmul's transposes); '' when there is one
  variant?(dims: number[]): string;
  grid(dims: number[], c: KernelConsts): [number, number, number];
}

const MAX_GRID = 65535;

// Rows spread over x and y when there are more than one dimension allows.
function rowsGrid(n: number): [number, number, number] {
  return n <= MAX_GRID ? [Math.max(n, 1), 1, 1] : [MAX_GRID, Math.ceil(n / MAX_GRID), 1];
}
// Grid-stride loops: enough workgroups of 256 to cover n once, at most 4096.
function flatGrid(n: number): [number, number, number] {
  return [Math.max(1, Math.min(4096, Math.ceil(n / 256))), 1, 1];
}

// Attention tiles: key tiles of BC rows of K and V fit the 16 KiB of workgroup memory
// that every WebGPU device has; query tiles for the dk/dv kernel likewise (Q, dO, lse, D).
export function attentionTiles(HS: number): { BC: number; RQ: number } {
  return {
    BC: Math.max(1, Math.min(64, Math.floor(2048 / HS))),
    RQ: Math.max(1, Math.min(64, Math.floor(4096 / (2 * HS + 2)))),
  };
}
export const MAX_HEAD_SIZE = 256;

const PRELUDE = /* wgsl */ `
struct Params { d: array<vec4<u32>, 8>, s: array<vec4<f32>, 2> }
@group(0) @binding(0) var<uniform> P: Params;
fn dim(i: u32) -> u32 { return P.d[i >> 2u][i & 3u]; }
fn scalar(i: u32) -> f32 { return P.s[i >> 2u][i & 3u]; }
fn row_of(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }
fn is_finite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
const GELU_SCALE: f32 = 0.7978845608028654; // sqrt(2 / pi)
// tanh(u) is exactly +-1 in f32 beyond |u| = 10; clamping keeps exp-based tanh from inf / inf
fn tanh_safe(u: f32) -> f32 { return tanh(clamp(u, -10.0, 10.0)); }
fn gelu(x: f32) -> f32 {
  return 0.5 * x * (1.0 + tanh_safe(GELU_SCALE * (x + 0.044715 * x * x * x)));
}
fn gelu_grad(x: f32) -> f32 {
  let t = tanh_safe(GELU_SCALE * (x + 0.044715 * x * x * x));
  let du_dx = GELU_SCALE * (1.0 + 3.0 * 0.044715 * x * x);
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du_dx;
}
`;

// A sum and a max over a workgroup of WG invocations in a fixed order, so always the same bits:
// 16 invocations each combine WG / 16 values, then every invocation combines those 16. Three
// barriers (a halving tree takes 2 log2 WG + 1, and barriers are what software GPUs pay most for).
function reductions(WG: number): string {
  const step = (op: (a: string, b: string) => string) => /* wgsl */ `
  red[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var s = red[lid];
    for (var k = 1u; k < ${WG / 16}u; k++) { s = ${op('s', `red[lid + 16u * k]`)}; }
    red16[lid] = s;
  }
  workgroupBarrier();
  var r = red16[0];
  for (var k = 1u; k < 16u; k++) { r = ${op('r', 'red16[k]')}; }
  workgroupBarrier();
  return r;`;
  return /* wgsl */ `
var<workgroup> red: array<f32, ${WG}>;
var<workgroup> red16: array<f32, 16>;
fn wg_sum(lid: u32, v: f32) -> f32 {${step((a, b) => `${a} + ${b}`)}
}
fn wg_max(lid: u32, v: f32) -> f32 {${step((a, b) => `max(${a}, ${b})`)}
}
`;
}

function bindings(args: string[], names: string[]): string {
  return args
    .map((a, i) => {
      const rw = a.startsWith('rw');
      const type = a.endsWith('u32') ? 'u32' : 'f32';
      return `@group(0) @binding(${i + 1}) var<storage, ${rw ? 'read_write' : 'read'}> ${names[i]}: array<${type}>;`;
    })
    .join('\n');
}

function kernel(args: string[], names: string[], body: string, extra = ''): (c: KernelConsts, v: string) => string {
  return () => PRELUDE + bindings(args, names) + extra + body;
}

// ---- embeddings -------------------------------------------------------------------------------

const embedding_forward: KernelDef = {
  args: ['rw', 'r u32', 'r', 'r'],
  source: kernel(['rw', 'r u32', 'r', 'r'], ['out', 'tokens', 'wte', 'wpe'], /* wgsl */ `
// out[n, c] = wte[tokens[n], c] + wpe[n % T, c]      out (N, C)
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let N = dim(0u); let T = dim(1u); let C = dim(2u);
  for (var i = gid.x; i < N * C; i += nwg.x * 256u) {
    let n = i / C; let c = i % C;
    out[i] = wte[tokens[n] * C + c] + wpe[(n % T) * C + c];
  }
}`),
  grid: (d) => flatGrid(d[0] * d[2]),
};

const embedding_backward: KernelDef = {
  args: ['rw', 'rw', 'r', 'r u32'],
  source: kernel(['rw', 'rw', 'r', 'r u32'], ['dwte', 'dwpe', 'dout', 'tokens'], /* wgsl */ `
// Without atomics: workgroup row v < V gathers the positions whose token is v (in order, as the
// CPU's embedding backward accumulates them); row V + t sums position t over the batch.
var<workgroup> tok: array<u32, 256>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let B = dim(0u); let T = dim(1u); let C = dim(2u); let V = dim(3u); let N = B * T;
  let r = wid.y;
  let c = wid.x * 64u + lid;
  if (r < V) {
    var acc = 0.0;
    for (var n0 = 0u; n0 < N; n0 += 256u) {
      for (var i = lid; i < 256u; i += 64u) {
        var t = 0xffffffffu;
        if (n0 + i < N) { t = tokens[n0 + i]; }
        tok[i] = t;
      }
      workgroupBarrier();
      let m = min(256u, N - n0);
      if (c < C) {
        for (var i = 0u; i < m; i++) {
          if (tok[i] == r) { acc += dout[(n0 + i) * C + c]; }
        }
      }
      workgroupBarrier();
    }
    if (c < C) { dwte[r * C + c] = acc; }
  } else if (c < C) {
    let t = r - V;
    var acc = 0.0;
    for (var b = 0u; b < B; b++) { acc += dout[(b * T + t) * C + c]; }
    dwpe[t * C + c] = acc;
  }
}`),
  grid: (d) => [Math.ceil(d[2] / 64), d[3] + d[1], 1],
};

// ---- LayerNorm -------------------------------------------------------------------------------

const layernorm_forward: KernelDef = {
  args: ['rw', 'rw', 'rw', 'r', 'r', 'r'],
  source: kernel(['rw', 'rw', 'rw', 'r', 'r', 'r'], ['out', 'mean', 'rstd', 'inp', 'weight', 'bias'], /* wgsl */ `
// out (N, C) = (inp - mean) * rstd * weight + bias; one workgroup per row
@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let C = dim(1u); let eps = scalar(0u);
  let row = row_of(wid, nwg);
  if (row >= N) { return; }
  let x = row * C;
  var s = 0.0;
  for (var c = lid; c < C; c += 128u) { s += inp[x + c]; }
  let m = wg_sum(lid, s) / f32(C);
  var q = 0.0;
  for (var c = lid; c < C; c += 128u) { let d = inp[x + c] - m; q += d * d; }
  let rs = 1.0 / sqrt(wg_sum(lid, q) / f32(C) + eps);
  for (var c = lid; c < C; c += 128u) { out[x + c] = (inp[x + c] - m) * rs * weight[c] + bias[c]; }
  if (lid == 0u) { mean[row] = m; rstd[row] = rs; }
}`, reductions(128)),
  grid: (d) => rowsGrid(d[0]),
};

const layernorm_backward_all: KernelDef = {
  args: ['rw', 'r', 'r', 'r', 'r', 'r', 'rw', 'rw'],
  source: kernel(['rw', 'r', 'r', 'r', 'r', 'r', 'rw', 'rw'], ['dinp', 'dout', 'inp', 'weight', 'mean', 'rstd', 'dweight', 'dbias'], /* wgsl */ `
// LayerNorm's backward in one dispatch (the rows' gradient and the parameters' read the same dout and
// write different outputs): the first ceil(C / 32) workgroups take 32 columns of dweight
// and dbias each (4 row groups, combined in a fixed order),
// the next N a row of dinp each:
//   xhat = (x - mean) rstd; dxhat = dout * weight
//   dinp (N, C) [+]= rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat))
@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let C = dim(1u); let accumulate = dim(2u) != 0u;
  let r = row_of(wid, nwg);
  let P = (C + 31u) / 32u;
  if (r < P) {
    let col = lid % 32u; let group = lid / 32u;
    let c = r * 32u + col;
    var s0 = 0.0; var s1 = 0.0;
    if (c < C) {
      for (var n = group; n < N; n += 4u) {
        let dy = dout[n * C + c]; s0 += dy * (inp[n * C + c] - mean[n]) * rstd[n]; s1 += dy;
      }
    }
    // the row groups' sums through reductions()'s red array (no workgroup memory of its own to clear)
    red[lid] = s0;
    workgroupBarrier();
    var t0 = 0.0;
    for (var g = 0u; g < 4u; g++) { t0 += red[g * 32u + col]; }
    workgroupBarrier();
    red[lid] = s1;
    workgroupBarrier();
    var t1 = 0.0;
    for (var g = 0u; g < 4u; g++) { t1 += red[g * 32u + col]; }
    if (group == 0u && c < C) { dweight[c] = t0; dbias[c] = t1; }
    return;
  }
  let row = r - P;
  if (row >= N) { return; }
  let x = row * C; let m = mean[row]; let rs = rstd[row];
  var a = 0.0; var b = 0.0;
  for (var c = lid; c < C; c += 128u) {
    let xhat = (inp[x + c] - m) * rs;
    let dxhat = dout[x + c] * weight[c];
    a += dxhat;
    b += dxhat * xhat;
  }
  let dxhat_mean = wg_sum(lid, a) / f32(C);
  let dxhat_xhat_mean = wg_sum(lid, b) / f32(C);
  for (var c = lid; c < C; c += 128u) {
    let xhat = (inp[x + c] - m) * rs;
    let g = rs * (dout[x + c] * weight[c] - dxhat_mean - xhat * dxhat_xhat_mean);
    if (accumulate) { dinp[x + c] += g; } else { dinp[x + c] = g; }
  }
}`, reductions(128)),
  grid: (d) => rowsGrid(d[0] + Math.ceil(d[1] / 32)),
};

// ---- GEMM -------------------------------------------------------------------------------------

// The matmul's operand tiles for slice k0 of K: A (64 rows i, 16 k) and B (16 k, 64 columns j)
// into workgroup memory, zeros past the edges; loads contiguous along the stored rows.
const MATMUL_TILES = /* wgsl */ `
fn load_tiles(lid: u32, k0: u32, row0: u32, col0: u32, M: u32, N: u32, K: u32) {
  for (var r = 0u; r < 4u; r++) {
    let e = lid + r * 256u;
    var i: u32; var ka: u32;
    if (TRANS_A) { i = e % 64u; ka = e / 64u; } else { ka = e % 16u; i = e / 16u; }
    var a = 0.0;
    if (row0 + i < M && k0 + ka < K) {
      if (TRANS_A) { a = A[(k0 + ka) * M + row0 + i]; } else { a = A[(row0 + i) * K + k0 + ka]; }
    }
    As[ka * 64u + i] = a;
    var j: u32; var kb: u32;
    if (TRANS_B) { kb = e % 16u; j = e / 16u; } else { j = e % 64u; kb = e / 64u; }
    var b = 0.0;
    if (col0 + j < N && k0 + kb < K) {
      if (TRANS_B) { b = Bm[(col0 + j) * K + k0 + kb]; } else { b = Bm[(k0 + kb) * N + col0 + j]; }
    }
    Bs[kb * 64u + j] = b;
  }
}`;

// One 16-deep slice of a 64 x 64 GEMM tile from the workgroup's As and Bs: acc0..acc3 (rows ty + 16 r,
// columns tx + 16 c) and, when sum_columns, op(B)'s column sums (matmul's dbias). Shared by matmul
// and gemmTile's kernels.
const TILE_ACCUMULATE = /* wgsl */ `
      if (sum_columns) {
        for (var k = 0u; k < 16u; k++) {
          let bk = k * 64u + tx;
          column_sums += vec4<f32>(Bs[bk], Bs[bk + 16u], Bs[bk + 32u], Bs[bk + 48u]);
        }
      }
      for (var k = 0u; k < 16u; k++) {
        let ai = k * 64u + ty;
        let bk = k * 64u + tx;
        let bq = vec4<f32>(Bs[bk], Bs[bk + 16u], Bs[bk + 32u], Bs[bk + 48u]);
        acc0 += As[ai] * bq;
        acc1 += As[ai + 16u] * bq;
        acc2 += As[ai + 32u] * bq;
        acc3 += As[ai + 48u] * bq;
      }`;

const matmul: KernelDef = {
  args: ['rw', 'r', 'r', 'r', 'r', 'rw', 'rw'],
  variant: (d) => `${d[3]}${d[4]}`,
  source: (_c, variant) => PRELUDE + bindings(['rw', 'r', 'r', 'r', 'r', 'rw', 'rw'], ['out', 'A', 'Bm', 'bias', 'res', 'aux', 'dbias']) + /* wgsl */ `
// out (M, N) = [out +] op(A) (M, K) @ op(B) (K, N) [+ bias (N)] [+ res (M, N)], then the epilogue;
// with dbias, also dbias (N) = sum over k of op(B) (a linear layer's bias gradient, next to its
// weight gradient: the first row of workgroups sums the B tiles it loads anyway, in k order).
// op(A) = A (M, K) or, transposed, A stored (K, M); op(B) = B (K, N) or B stored (N, K).
// 64 x 64 output tiles, 16-deep slices of K in workgroup memory, 4 x 4 outputs per invocation.
const TRANS_A = ${variant[0] === '1'};
const TRANS_B = ${variant[1] === '1'};
var<workgroup> As: array<f32, 1024>; // [k][i]
var<workgroup> Bs: array<f32, 1024>; // [k][j]
${MATMUL_TILES}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let M = dim(0u); let N = dim(1u); let K = dim(2u);
  let accumulate = dim(5u) != 0u; let epilogue = dim(6u);
  let has_bias = dim(7u) != 0u; let has_res = dim(8u) != 0u; let has_aux = dim(9u) != 0u;
  let sum_columns = dim(10u) != 0u && wid.y == 0u && lid < 16u;
  var column_sums = vec4<f32>();
  let row0 = wid.y * 64u; let col0 = wid.x * 64u;
  let tx = lid % 16u; let ty = lid / 16u;
  // rows ty + 16 r, columns tx + 16 c: acc_r[c]
  var acc0 = vec4<f32>(); var acc1 = vec4<f32>(); var acc2 = vec4<f32>(); var acc3 = vec4<f32>();
  for (var k0 = 0u; k0 < K; k0 += 16u) {
    load_tiles(lid, k0, row0, col0, M, N, K);
    workgroupBarrier();
    ${TILE_ACCUMULATE}
    workgroupBarrier();
  }
  if (sum_columns) {
    for (var c = 0u; c < 4u; c++) {
      if (col0 + tx + 16u * c < N) { dbias[col0 + tx + 16u * c] = column_sums[c]; }
    }
  }
  let acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  for (var r = 0u; r < 4u; r++) {
    let i = row0 + ty + 16u * r;
    for (var c = 0u; c < 4u; c++) {
      let j = col0 + tx + 16u * c;
      if (i < M && j < N) {
        let idx = i * N + j;
        var v = acc[r][c];
        if (has_bias) { v += bias[j]; }
        if (has_res) { v = res[idx] + v; }
        if (accumulate) { v = out[idx] + v; }
        if (epilogue == 1u) {
          if (has_aux) { aux[idx] = v; }
          v = gelu(v);
        } else if (epilogue == 2u) {
          v = v * gelu_grad(aux[idx]);
        } else if (epilogue == 3u) {
          if (has_aux) { aux[idx] = v; }
          v = max(v, 0.0);
        }
        out[idx] = v;
      }
    }
  }
}`,
  grid: (d) => [Math.ceil(d[1] / 64), Math.ceil(d[0] / 64), 1],
};

// One output tile of a GEMM as matmul computes it (64 x 64, 16-deep slices of K, 4 x 4 outputs per
// invocation), with its loads specialised to operands `a` and `b` and their transposes; `sums`
// (a condition) also sums the columns of op(B) as matmul's dbias does. Leaves acc0..acc3 and
// column_sums in the caller's scope.
function gemmTile(a: string, b: string, transA: boolean, transB: boolean, sums: string, aOverride?: string, bOffset = ''): string {
  const loadA = aOverride ?? (transA ? `${a}[(k0 + ka) * M + row0 + i]` : `${a}[(row0 + i) * K + k0 + ka]`);
  const loadB = transB ? `${b}[${bOffset}(col0 + j) * K + k0 + kb]` : `${b}[${bOffset}(k0 + kb) * N + col0 + j]`;
  return /* wgsl */ `
    let sum_columns = ${sums};
    for (var k0 = 0u; k0 < K; k0 += 16u) {
      for (var r = 0u; r < 4u; r++) {
        let e = lid + r * 256u;
        var i: u32; var ka: u32;
        ${transA ? 'i = e % 64u; ka = e / 64u;' : 'ka = e % 16u; i = e / 16u;'}
        var av = 0.0;
        if (row0 + i < M && k0 + ka < K) { av = ${loadA}; }
        As[ka * 64u + i] = av;
        var j: u32; var kb: u32;
        ${transB ? 'kb = e % 16u; j = e / 16u;' : 'j = e % 64u; kb = e / 64u;'}
        var bv = 0.0;
        if (col0 + j < N && k0 + kb < K) { bv = ${loadB}; }
        Bs[kb * 64u + j] = bv;
      }
      workgroupBarrier();
      ${TILE_ACCUMULATE}
      workgroupBarrier();
    }`;
}

const matmul_ln: KernelDef = {
  args: ['rw', 'r', 'r', 'rw', 'rw', 'rw'],
  source: kernel(['rw', 'r', 'r', 'rw', 'rw', 'rw'], ['out', 'x', 'params', 'aux', 'ln_out', 'stats'], /* wgsl */ `
// A LayerNorm folded into the GEMM after it (a dispatch less per LayerNorm):
//   ln (M, K) = (x - mean) * rstd * ln_w + ln_b;  out (M, N) = ln @ W (K, N) + bias (N), then the epilogue
// (1: aux = pre, out = gelu(pre)). Every workgroup normalises the 64 rows of its tile itself (one
// invocation per row, the sums in k order); the first column of workgroups also writes ln, mean
// (stats[0, M)) and rstd (stats[rstd_at, rstd_at + M)), which the backward pass reads. W, bias,
// ln_w and ln_b are regions of the params binding at the offsets the dims give.
var<workgroup> As: array<f32, 1024>; // [k][i]
var<workgroup> Bs: array<f32, 1024>; // [k][j]
var<workgroup> row_mean: array<f32, 64>;
var<workgroup> row_rstd: array<f32, 64>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let M = dim(0u); let N = dim(1u); let K = dim(2u); let epilogue = dim(3u); let has_aux = dim(4u) != 0u;
  let w_at = dim(5u); let b_at = dim(6u); let lnw_at = dim(7u); let lnb_at = dim(8u); let rstd_at = dim(9u);
  let eps = scalar(0u);
  let row0 = wid.y * 64u; let col0 = wid.x * 64u;
  let tx = lid % 16u; let ty = lid / 16u;
  if (lid < 64u) {
    var m = 0.0; var rs = 0.0;
    let r = row0 + lid;
    if (r < M) {
      var s = 0.0;
      for (var k = 0u; k < K; k++) { s += x[r * K + k]; }
      m = s / f32(K);
      var q = 0.0;
      for (var k = 0u; k < K; k++) { let d = x[r * K + k] - m; q += d * d; }
      rs = 1.0 / sqrt(q / f32(K) + eps);
      if (wid.x == 0u) {
        stats[r] = m; stats[rstd_at + r] = rs;
        for (var k = 0u; k < K; k++) { ln_out[r * K + k] = (x[r * K + k] - m) * rs * params[lnw_at + k] + params[lnb_at + k]; }
      }
    }
    row_mean[lid] = m; row_rstd[lid] = rs;
  }
  workgroupBarrier();
  var acc0 = vec4<f32>(); var acc1 = vec4<f32>(); var acc2 = vec4<f32>(); var acc3 = vec4<f32>();
  var column_sums = vec4<f32>();
  ${gemmTile('x', 'params', false, false, 'false',
    '(x[(row0 + i) * K + k0 + ka] - row_mean[i]) * row_rstd[i] * params[lnw_at + k0 + ka] + params[lnb_at + k0 + ka]', 'w_at + ')}
  let acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  for (var r = 0u; r < 4u; r++) {
    let i = row0 + ty + 16u * r;
    for (var c = 0u; c < 4u; c++) {
      let j = col0 + tx + 16u * c;
      if (i < M && j < N) {
        let idx = i * N + j;
        var v = acc[r][c] + params[b_at + j];
        if (epilogue == 1u) {
          if (has_aux) { aux[idx] = v; }
          v = gelu(v);
        }
        out[idx] = v;
      }
    }
  }
}`),
  grid: (d) => [Math.ceil(d[1] / 64), Math.ceil(d[0] / 64), 1],
};

// block_forward's body (a constant: it depends on the plan only through attentionHead's HS)
const BLOCK_FORWARD_WGSL = /* wgsl */ `
// Rows row0 .. row0 + 15 of the training forward through a whole block in one workgroup (a small
// model's step is dispatch-bound: L + 1 dispatches for the forward and the loss instead of 5L + 3):
//   embed:  x_out = wte[tokens] + wpe[position]                                  (instead of the block)
//   else:   atty = attention(q of these rows; k, v of their sequence's rows up to each, from qkv)
//           xmid = x_in + atty @ proj_w + proj_b;  ln2 = LN(xmid)
//           fc = gelu(fc_pre), fc_pre = ln2 @ fc_w + fc_b;  x_out = xmid + fc @ fcproj_w + fcproj_b
//   then:   ln_n = LN(x_out);  out_n = ln_n @ w_n + b_n (the next block's qkv; tail >= 1: the logits)
//           tail >= 2: losses = cross-entropy of the logits; tail 3: logits = dloss (softmax - onehot)
// A row is written and read only by its own workgroup (attention reads other rows' qkv, written by
// the previous dispatch), so storageBarrier() orders the phases. The activations are one arena
// binding (acts) at the offsets the dims give, the parameters one (params).
const RB: u32 = 16u;
var<workgroup> As: array<f32, 256>;   // [k][i]: 16 k x 16 rows
var<workgroup> Bs: array<f32, 1024>;  // [k][j]: 16 k x 64 columns
var<workgroup> part: array<f32, 256>; // the cross-entropy's 16 partials per row
fn rstd_at(mean_at: u32) -> u32 { return mean_at + (dim(0u) + 63u) / 64u * 64u; }

// ln (rows, K) = LN(acts[x_at] rows) * ln_w + ln_b, mean and rstd at stats_at: one invocation a row,
// the sums in k order (matmul_ln's prologue, the same bits)
fn ln_rows(lid: u32, row0: u32, K: u32, x_at: u32, ln_at: u32, stats_at: u32, w_at: u32, b_at: u32) {
  let r = row0 + lid;
  if (lid < RB && r < dim(0u)) {
    var s = 0.0;
    for (var k = 0u; k < K; k++) { s += acts[x_at + r * K + k]; }
    let m = s / f32(K);
    var q = 0.0;
    for (var k = 0u; k < K; k++) { let d = acts[x_at + r * K + k] - m; q += d * d; }
    let rs = 1.0 / sqrt(q / f32(K) + scalar(0u));
    acts[stats_at + r] = m; acts[rstd_at(stats_at) + r] = rs;
    for (var k = 0u; k < K; k++) { acts[ln_at + r * K + k] = (acts[x_at + r * K + k] - m) * rs * params[w_at + k] + params[b_at + k]; }
  }
  storageBarrier();
}

// out rows (n wide) = acts[a_at] rows (K) @ params[w_at] (K, n) + params[b_at]; mode bit 0: + acts[res_at]
// rows; bit 1: acts[aux_at] = pre-activation, out = gelu(pre); bit 2: out is logits, else acts[out_at].
// 64-column tiles, 16-deep slices of K in workgroup memory; invocation (ty, tx): row ty, columns tx + 16 c.
fn gemm_rows(lid: u32, row0: u32, K: u32, n: u32, a_at: u32, w_at: u32, b_at: u32, res_at: u32, aux_at: u32, out_at: u32, mode: u32) {
  let M = dim(0u);
  let tx = lid % 16u; let ty = lid / 16u;
  for (var col0 = 0u; col0 < n; col0 += 64u) {
    var acc = vec4<f32>();
    for (var k0 = 0u; k0 < K; k0 += 16u) {
      var av = 0.0;
      if (row0 + ty < M && k0 + tx < K) { av = acts[a_at + (row0 + ty) * K + k0 + tx]; }
      As[tx * 16u + ty] = av;
      for (var r = 0u; r < 4u; r++) {
        let e = lid + r * 256u;
        let j = e % 64u; let kb = e / 64u;
        var bv = 0.0;
        if (col0 + j < n && k0 + kb < K) { bv = params[w_at + (k0 + kb) * n + col0 + j]; }
        Bs[kb * 64u + j] = bv;
      }
      workgroupBarrier();
      for (var k = 0u; k < 16u; k++) {
        let bk = k * 64u + tx;
        acc += As[k * 16u + ty] * vec4<f32>(Bs[bk], Bs[bk + 16u], Bs[bk + 32u], Bs[bk + 48u]);
      }
      workgroupBarrier();
    }
    let i = row0 + ty;
    for (var c = 0u; c < 4u; c++) {
      let j = col0 + tx + 16u * c;
      if (i < M && j < n) {
        let idx = i * n + j;
        var v = acc[c] + params[b_at + j];
        if ((mode & 1u) != 0u) { v = acts[res_at + idx] + v; }
        if ((mode & 2u) != 0u) { acts[aux_at + idx] = v; v = gelu(v); }
        if ((mode & 4u) != 0u) { logits[idx] = v; } else { acts[out_at + idx] = v; }
      }
    }
  }
  storageBarrier();
}

// atty rows and lse: one invocation per (row, head), online softmax over the keys j <= t in tiles of 16
// (attention_forward's arithmetic, the keys read from acts)
fn attention_rows(lid: u32, row0: u32) {
  let N = dim(0u); let T = dim(1u); let C = dim(2u); let NH = dim(3u);
  let qkv_at = dim(8u); let atty_at = dim(9u); let lse_at = dim(10u);
  let C3 = 3u * C;
  let scale = 1.0 / sqrt(f32(HS));
  for (var p = lid; p < RB * NH; p += 256u) {
    let n = row0 + p % RB; let h = p / RB;
    if (n < N) {
      let b = n / T; let t = n % T;
      var q: array<f32, HS>;
      var o: array<f32, HS>;
      for (var d = 0u; d < HS; d++) { q[d] = acts[qkv_at + n * C3 + h * HS + d]; }
      var m = -3.0e38; var l = 0.0;
      for (var k0 = 0u; k0 <= t; k0 += 16u) {
        let cnt = min(16u, t + 1u - k0);
        var s: array<f32, 16>;
        var tile_max = -3.0e38;
        for (var jj = 0u; jj < cnt; jj++) {
          let kr = qkv_at + (b * T + k0 + jj) * C3 + C + h * HS;
          var dot = 0.0;
          for (var d = 0u; d < HS; d++) { dot += q[d] * acts[kr + d]; }
          s[jj] = dot * scale;
          tile_max = max(tile_max, s[jj]);
        }
        let m_new = max(m, tile_max);
        let corr = exp(m - m_new);
        l *= corr;
        for (var d = 0u; d < HS; d++) { o[d] *= corr; }
        for (var jj = 0u; jj < cnt; jj++) {
          let pj = exp(s[jj] - m_new);
          l += pj;
          let vr = qkv_at + (b * T + k0 + jj) * C3 + 2u * C + h * HS;
          for (var d = 0u; d < HS; d++) { o[d] += pj * acts[vr + d]; }
        }
        m = m_new;
      }
      for (var d = 0u; d < HS; d++) { acts[atty_at + n * C + h * HS + d] = o[d] / l; }
      acts[lse_at + (b * NH + h) * T + t] = m + log(l);
    }
  }
  storageBarrier();
}

// losses of the rows (crossentropy's arithmetic): 16 invocations a row, their partials combined in
// lane order; with write_grad the logits become dloss * (softmax - onehot)
fn crossentropy_rows(lid: u32, row0: u32, write_grad: bool) {
  let N = dim(0u); let V = dim(4u); let dloss = scalar(1u);
  let lane = lid % 16u; let rr = lid / 16u; let n = row0 + rr;
  let live = n < N;
  var mx = -3.0e38; var zy = 0.0; var y = 0u;
  if (live) {
    y = targets[n]; zy = logits[n * V + y];
    for (var v = lane; v < V; v += 16u) { mx = max(mx, logits[n * V + v]); }
  }
  part[lid] = mx;
  workgroupBarrier();
  var rmax = part[rr * 16u];
  for (var k = 1u; k < 16u; k++) { rmax = max(rmax, part[rr * 16u + k]); }
  workgroupBarrier();
  var s = 0.0;
  if (live) { for (var v = lane; v < V; v += 16u) { s += exp(logits[n * V + v] - rmax); } }
  part[lid] = s;
  workgroupBarrier();
  var sum = part[rr * 16u];
  for (var k = 1u; k < 16u; k++) { sum += part[rr * 16u + k]; }
  if (live) {
    if (lane == 0u) { losses[n] = log(sum) - (zy - rmax); }
    if (write_grad) {
      for (var v = lane; v < V; v += 16u) {
        let p = exp(logits[n * V + v] - rmax) / sum;
        logits[n * V + v] = dloss * (p - select(0.0, 1.0, v == y));
      }
    }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let T = dim(1u); let C = dim(2u); let tail = dim(6u);
  let row0 = row_of(wid, nwg) * RB;
  let x_in = dim(7u); let xmid = dim(11u); let ln2 = dim(12u); let fc = dim(15u); let x_out = dim(16u);
  if (dim(5u) != 0u) {
    let wte = dim(20u); let wpe = dim(21u);
    for (var e = lid; e < RB * C; e += 256u) {
      let n = row0 + e / C; let c = e % C;
      if (n < N) { acts[x_out + n * C + c] = params[wte + tokens[n] * C + c] + params[wpe + (n % T) * C + c]; }
    }
    storageBarrier();
  } else {
    attention_rows(lid, row0);
    gemm_rows(lid, row0, C, C, dim(9u), dim(20u), dim(21u), x_in, 0u, xmid, 1u);
    ln_rows(lid, row0, C, xmid, ln2, dim(13u), dim(22u), dim(23u));
    gemm_rows(lid, row0, C, 4u * C, ln2, dim(24u), dim(25u), 0u, dim(14u), fc, 2u);
    gemm_rows(lid, row0, 4u * C, C, fc, dim(26u), dim(27u), xmid, 0u, x_out, 1u);
  }
  ln_rows(lid, row0, C, x_out, dim(17u), dim(18u), dim(28u), dim(29u));
  gemm_rows(lid, row0, C, dim(4u), dim(17u), dim(30u), dim(31u), 0u, 0u, dim(19u), select(0u, 4u, tail != 0u));
  if (tail >= 2u) { crossentropy_rows(lid, row0, tail == 3u); }
}`;

const BLOCK_FORWARD_ARGS = ['rw', 'r', 'r u32', 'rw', 'r u32', 'rw'];
const block_forward: KernelDef = {
  args: BLOCK_FORWARD_ARGS,
  source: (c) => PRELUDE + bindings(BLOCK_FORWARD_ARGS, ['acts', 'params', 'tokens', 'logits', 'targets', 'losses']) +
    attentionHead(c.HS) + BLOCK_FORWARD_WGSL,
  grid: (d) => rowsGrid(Math.ceil(d[0] / 16)),
};

const linear_backward: KernelDef = {
  args: ['rw', 'r', 'r', 'r', 'rw', 'r', 'rw'],
  source: kernel(['rw', 'r', 'r', 'r', 'rw', 'r', 'rw'], ['dinp', 'dout', 'weight', 'aux', 'dweight', 'inp', 'dbias'], /* wgsl */ `
// A linear layer's backward in one dispatch: its two GEMMs are independent (both read dout), so
// the first workgroups compute tiles of
//   dinp (R, I) = [dinp +] dout (R, O) @ weight (I, O)^T   [* gelu'(aux) with epilogue 2; * (aux > 0) with
//   epilogue 3, aux the ReLU's output; the product is added to dinp with accumulate]
// and the rest tiles of
//   dweight (I, O) = inp (R, I)^T @ dout (R, O),  dbias (O) = column sums of dout (has_dbias),
// each tile exactly as matmul computes it (the same bits as the two matmul ops).
var<workgroup> As: array<f32, 1024>; // [k][i]
var<workgroup> Bs: array<f32, 1024>; // [k][j]
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let R = dim(0u); let I = dim(1u); let O = dim(2u); let epilogue = dim(3u); let has_dbias = dim(4u) != 0u;
  let accumulate = dim(5u) != 0u;
  let t = row_of(wid, nwg);
  let tx = lid % 16u; let ty = lid / 16u;
  var acc0 = vec4<f32>(); var acc1 = vec4<f32>(); var acc2 = vec4<f32>(); var acc3 = vec4<f32>();
  var column_sums = vec4<f32>();
  let cols_dx = (I + 63u) / 64u;
  let tiles_dx = cols_dx * ((R + 63u) / 64u);
  if (t < tiles_dx) {
    let M = R; let N = I; let K = O;
    let row0 = (t / cols_dx) * 64u; let col0 = (t % cols_dx) * 64u;
    ${gemmTile('dout', 'weight', false, true, 'false')}
    let acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
    for (var r = 0u; r < 4u; r++) {
      let i = row0 + ty + 16u * r;
      for (var c = 0u; c < 4u; c++) {
        let j = col0 + tx + 16u * c;
        if (i < M && j < N) {
          let idx = i * N + j;
          var v = acc[r][c];
          if (epilogue == 2u) { v = v * gelu_grad(aux[idx]); }
          if (epilogue == 3u) { v = select(0.0, v, aux[idx] > 0.0); }
          if (accumulate) { v = dinp[idx] + v; }
          dinp[idx] = v;
        }
      }
    }
    return;
  }
  let M = I; let N = O; let K = R;
  let cols_dw = (O + 63u) / 64u;
  let u = t - tiles_dx;
  let row0 = (u / cols_dw) * 64u; let col0 = (u % cols_dw) * 64u;
  ${gemmTile('inp', 'dout', true, false, 'has_dbias && row0 == 0u && lid < 16u')}
  if (sum_columns) {
    for (var c = 0u; c < 4u; c++) {
      if (col0 + tx + 16u * c < N) { dbias[col0 + tx + 16u * c] = column_sums[c]; }
    }
  }
  let acc = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  for (var r = 0u; r < 4u; r++) {
    let i = row0 + ty + 16u * r;
    for (var c = 0u; c < 4u; c++) {
      let j = col0 + tx + 16u * c;
      if (i < M && j < N) { dweight[i * N + j] = acc[r][c]; }
    }
  }
}`),
  grid: (d) => rowsGrid(Math.ceil(d[1] / 64) * Math.ceil(d[0] / 64) + Math.ceil(d[2] / 64) * Math.ceil(d[1] / 64)),
};

// ---- attention (flash-style: tiles of keys stream through workgroup memory) -----------------

// The key/value tile of attention_forward's query rows: a workgroup loads keys and
// values k0 .. k0+BC-1 of (b, h) from qkv (B, T, 3C) into workgroup memory, zeros past T. Needs
// the qkv binding and attentionHead's constants.
const KEY_TILE = /* wgsl */ `
var<workgroup> Ks: array<f32, BC * HS>;
var<workgroup> Vs: array<f32, BC * HS>;
fn load_key_tile(b: u32, h: u32, k0: u32, lid: u32, T: u32, C: u32) {
  let C3 = 3u * C;
  for (var e = lid; e < BC * HS; e += 64u) {
    let j = k0 + e / HS; let d = e % HS;
    var kv = 0.0; var vv = 0.0;
    if (j < T) { kv = qkv[(b * T + j) * C3 + C + h * HS + d]; vv = qkv[(b * T + j) * C3 + 2u * C + h * HS + d]; }
    Ks[e] = kv; Vs[e] = vv;
  }
}
`;

function attentionHead(HS: number): string {
  const { BC, RQ } = attentionTiles(HS);
  return /* wgsl */ `
const HS: u32 = ${HS}u;
const BC: u32 = ${BC}u;
const RQ: u32 = ${RQ}u;
`;
}

// A query-row kernel's start (one invocation per query row i of a 64-row tile of head h), and its
// loop over the key tiles k0 .. k0+BC-1 with keys j <= i: `body` sees the tile's n keys (Ks, Vs).
const QUERY_ROW = /* wgsl */ `
  let B = dim(0u); let T = dim(1u); let C = dim(2u); let NH = dim(3u);
  let b = wid.y / NH; let h = wid.y % NH;
  let i = wid.x * 64u + lid;
  let valid = i < T;
  let C3 = 3u * C;
  let scale = 1.0 / sqrt(f32(HS));`;
const overKeyTiles = (body: string) => /* wgsl */ `
  let last = min(T, wid.x * 64u + 64u) - 1u;
  for (var k0 = 0u; k0 <= last; k0 += BC) {
    load_key_tile(b, h, k0, lid, T, C);
    workgroupBarrier();
    if (valid && i >= k0) {
      let n = min(BC, i + 1u - k0);${body}    }
    workgroupBarrier();
  }`;

const attention_forward: KernelDef = {
  args: ['rw', 'rw', 'r'],
  source: (c) => PRELUDE + bindings(['rw', 'rw', 'r'], ['out', 'lse', 'qkv']) + attentionHead(c.HS) + /* wgsl */ `
// One invocation per query row i of a 64-row tile of head h: online softmax over the keys j <= i.
// out_i = sum_j softmax_j(q_i . k_j / sqrt(HS)) v_j;  lse_i = log sum_j exp(q_i . k_j / sqrt(HS))
${KEY_TILE}@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
${QUERY_ROW}
  var q: array<f32, HS>;
  var o: array<f32, HS>;
  if (valid) { for (var d = 0u; d < HS; d++) { q[d] = qkv[(b * T + i) * C3 + h * HS + d]; } }
  var m = -3.0e38; var l = 0.0;
${overKeyTiles(`
      var s: array<f32, BC>;
      var tile_max = -3.0e38;
      for (var jj = 0u; jj < n; jj++) {
        var dot = 0.0;
        for (var d = 0u; d < HS; d++) { dot += q[d] * Ks[jj * HS + d]; }
        s[jj] = dot * scale;
        tile_max = max(tile_max, s[jj]);
      }
      let m_new = max(m, tile_max);
      let corr = exp(m - m_new);
      l *= corr;
      for (var d = 0u; d < HS; d++) { o[d] *= corr; }
      for (var jj = 0u; jj < n; jj++) {
        let p = exp(s[jj] - m_new);
        l += p;
        for (var d = 0u; d < HS; d++) { o[d] += p * Vs[jj * HS + d]; }
      }
      m = m_new;
`)}
  if (valid) {
    for (var d = 0u; d < HS; d++) { out[(b * T + i) * C + h * HS + d] = o[d] / l; }
    lse[(b * NH + h) * T + i] = m + log(l);
  }
}`,
  grid: (d) => [Math.ceil(d[1] / 64), d[0] * d[3], 1],
};

// Attention's backward in one dispatch: the first ceil(T / 64) workgroups
// of each (b, h) take 64 query rows (dq), the next ceil(T / 64) 64 key rows (dk, dv). Each computes
// the D_i = dout_i . out_i it needs itself, so neither waits for the other. The two halves share one pool of workgroup memory (16 KiB).
// attention_backward's body (a constant: it depends on the plan only through attentionHead's HS)
const ATTENTION_BACKWARD_WGSL = /* wgsl */ `
var<workgroup> pool: array<f32, 4096>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let B = dim(0u); let T = dim(1u); let C = dim(2u); let NH = dim(3u);
  let b = wid.y / NH; let h = wid.y % NH;
  let tiles = (T + 63u) / 64u;
  let C3 = 3u * C;
  let scale = 1.0 / sqrt(f32(HS));
  if (wid.x < tiles) {
    // dq: one invocation per query row i; key tiles Ks = pool[0, BC HS), Vs = pool[BC HS, 2 BC HS)
    let i = wid.x * 64u + lid;
    let valid = i < T;
    var q: array<f32, HS>;
    var g: array<f32, HS>;
    var dq: array<f32, HS>;
    var D = 0.0; var lse_i = 0.0;
    if (valid) {
      for (var d = 0u; d < HS; d++) {
        q[d] = qkv[(b * T + i) * C3 + h * HS + d];
        g[d] = dout[(b * T + i) * C + h * HS + d];
        D += g[d] * out[(b * T + i) * C + h * HS + d];
      }
      lse_i = lse[(b * NH + h) * T + i];
    }
    let last = min(T, wid.x * 64u + 64u) - 1u;
    for (var k0 = 0u; k0 <= last; k0 += BC) {
      for (var e = lid; e < BC * HS; e += 64u) {
        let j = k0 + e / HS; let d = e % HS;
        var kv = 0.0; var vv = 0.0;
        if (j < T) { kv = qkv[(b * T + j) * C3 + C + h * HS + d]; vv = qkv[(b * T + j) * C3 + 2u * C + h * HS + d]; }
        pool[e] = kv; pool[BC * HS + e] = vv;
      }
      workgroupBarrier();
      if (valid && i >= k0) {
        let n = min(BC, i + 1u - k0);
        for (var jj = 0u; jj < n; jj++) {
          var s = 0.0; var dp = 0.0;
          for (var d = 0u; d < HS; d++) { s += q[d] * pool[jj * HS + d]; dp += g[d] * pool[BC * HS + jj * HS + d]; }
          let ds = exp(s * scale - lse_i) * (dp - D) * scale;
          for (var d = 0u; d < HS; d++) { dq[d] += ds * pool[jj * HS + d]; }
        }
      }
      workgroupBarrier();
    }
    if (valid) { for (var d = 0u; d < HS; d++) { dqkv[(b * T + i) * C3 + h * HS + d] = dq[d]; } }
    return;
  }
  // dk, dv: one invocation per key row j; query tiles Qs = pool[0, RQ HS), Gs = pool[RQ HS, 2 RQ HS),
  // then RQ lse values and RQ D values
  let GS = RQ * HS; let LS = 2u * RQ * HS; let DS = 2u * RQ * HS + RQ;
  let j0 = (wid.x - tiles) * 64u;
  let j = j0 + lid;
  let valid = j < T;
  var k: array<f32, HS>;
  var v: array<f32, HS>;
  var dk: array<f32, HS>;
  var dv: array<f32, HS>;
  if (valid) {
    for (var d = 0u; d < HS; d++) {
      k[d] = qkv[(b * T + j) * C3 + C + h * HS + d];
      v[d] = qkv[(b * T + j) * C3 + 2u * C + h * HS + d];
    }
  }
  for (var q0 = j0; q0 < T; q0 += RQ) {
    for (var e = lid; e < RQ * HS; e += 64u) {
      let i = q0 + e / HS; let d = e % HS;
      var qv = 0.0; var gv = 0.0;
      if (i < T) { qv = qkv[(b * T + i) * C3 + h * HS + d]; gv = dout[(b * T + i) * C + h * HS + d]; }
      pool[e] = qv; pool[GS + e] = gv;
    }
    for (var e = lid; e < RQ; e += 64u) {
      let i = q0 + e;
      var lv = 0.0; var D = 0.0;
      if (i < T) {
        lv = lse[(b * NH + h) * T + i];
        for (var d = 0u; d < HS; d++) { D += dout[(b * T + i) * C + h * HS + d] * out[(b * T + i) * C + h * HS + d]; }
      }
      pool[LS + e] = lv; pool[DS + e] = D;
    }
    workgroupBarrier();
    if (valid) {
      for (var ii = 0u; ii < RQ; ii++) {
        let i = q0 + ii;
        if (i < T && i >= j) {
          var s = 0.0; var dp = 0.0;
          for (var d = 0u; d < HS; d++) { s += pool[ii * HS + d] * k[d]; dp += pool[GS + ii * HS + d] * v[d]; }
          let p = exp(s * scale - pool[LS + ii]);
          let ds = p * (dp - pool[DS + ii]) * scale;
          for (var d = 0u; d < HS; d++) {
            dv[d] += p * pool[GS + ii * HS + d];
            dk[d] += ds * pool[ii * HS + d];
          }
        }
      }
    }
    workgroupBarrier();
  }
  if (valid) {
    for (var d = 0u; d < HS; d++) {
      dqkv[(b * T + j) * C3 + C + h * HS + d] = dk[d];
      dqkv[(b * T + j) * C3 + 2u * C + h * HS + d] = dv[d];
    }
  }
}`;

const attention_backward: KernelDef = {
  args: ['rw', 'r', 'r', 'r', 'r'],
  source: (c) => PRELUDE + bindings(['rw', 'r', 'r', 'r', 'r'], ['dqkv', 'dout', 'out', 'qkv', 'lse']) +
    attentionHead(c.HS) + ATTENTION_BACKWARD_WGSL,
  grid: (d) => [2 * Math.ceil(d[1] / 64), d[0] * d[3], 1],
};

const attention_probs: KernelDef = {
  args: ['rw', 'r', 'r'],
  source: (c) => PRELUDE + bindings(['rw', 'r', 'r'], ['att', 'qkv', 'lse']) + attentionHead(c.HS) + /* wgsl */ `
// att (B, NH, T, T): exp(q_i . k_j * scale - lse_i) for j <= i, 0 above the diagonal
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let B = dim(0u); let T = dim(1u); let C = dim(2u); let NH = dim(3u);
  let C3 = 3u * C;
  let scale = 1.0 / sqrt(f32(HS));
  for (var idx = gid.x; idx < B * NH * T * T; idx += nwg.x * 256u) {
    let j = idx % T; let i = (idx / T) % T; let bh = idx / (T * T);
    let b = bh / NH; let h = bh % NH;
    var p = 0.0;
    if (j <= i) {
      var s = 0.0;
      for (var d = 0u; d < HS; d++) { s += qkv[(b * T + i) * C3 + h * HS + d] * qkv[(b * T + j) * C3 + C + h * HS + d]; }
      p = exp(s * scale - lse[bh * T + i]);
    }
    att[idx] = p;
  }
}`,
  grid: (d) => flatGrid(d[0] * d[3] * d[1] * d[1]),
};

// ---- softmax and cross-entropy ----------------------------------------------------------------

// A row's max and its sum of exp(x - max), over a 256-wide workgroup: row z of V elements of
// `buf`; mx and sum for the row's softmax (crossentropy, crossentropy_masked, softmax).
const rowMaxSum = (buf: string) => /* wgsl */ `  var mx = -3.0e38;
  for (var v = lid; v < V; v += 256u) { mx = max(mx, ${buf}[z + v]); }
  mx = wg_max(lid, mx);
  var s = 0.0;
  for (var v = lid; v < V; v += 256u) { s += exp(${buf}[z + v] - mx); }
  let sum = wg_sum(lid, s);`;

const crossentropy: KernelDef = {
  args: ['rw', 'rw', 'r u32'],
  source: kernel(['rw', 'rw', 'r u32'], ['logits', 'losses', 'targets'], /* wgsl */ `
// losses[n] = log sum_v exp(z_v - max) - (z_y - max); with write_grad the row of logits becomes
// dloss * (softmax(z) - onehot(y))
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let V = dim(1u); let write_grad = dim(2u) != 0u; let dloss = scalar(0u);
  let row = row_of(wid, nwg);
  if (row >= N) { return; }
  let z = row * V;
  let y = targets[row];
  let zy = logits[z + y];
${rowMaxSum('logits')}
  if (lid == 0u) { losses[row] = log(sum) - (zy - mx); }
  if (write_grad) {
    for (var v = lid; v < V; v += 256u) {
      let p = exp(logits[z + v] - mx) / sum;
      logits[z + v] = dloss * (p - select(0.0, 1.0, v == y));
    }
  }
}`, reductions(256)),
  grid: (d) => rowsGrid(d[0]),
};

// ---- the encoder-decoder's attention: masks, separate query and key/value sources -------------

// The dims every masked-attention kernel starts with, and a key's visibility. Queries of (b, h) are
// q[(b Tq + i) q_row + q_off + h HS + d], keys kv[(b Tk + j) kv_row + k_off + h HS + d], values at
// v_off; key j is hidden when key_tokens[b Tk + j] == pad, or (causal) when j > i + Tk - Tq.
const MASKED_DIMS = /* wgsl */ `
  let B = dim(0u); let Tq = dim(1u); let Tk = dim(2u); let C = dim(3u); let NH = dim(4u);
  let q_row = dim(5u); let q_off = dim(6u); let kv_row = dim(7u); let k_off = dim(8u); let v_off = dim(9u);
  let causal = dim(10u) != 0u; let pad = dim(11u);
  let scale = 1.0 / sqrt(f32(HS));`;
const MASKED_VISIBLE = /* wgsl */ `
fn visible(b: u32, i: u32, j: u32, Tq: u32, Tk: u32, causal: bool, pad: u32) -> bool {
  if (key_tokens[b * Tk + j] == pad) { return false; }
  return !causal || j + Tq <= i + Tk;
}
fn score(b: u32, h: u32, i: u32, j: u32, Tq: u32, Tk: u32, q_row: u32, q_off: u32, kv_row: u32, k_off: u32) -> f32 {
  var s = 0.0;
  for (var d = 0u; d < HS; d++) { s += q[(b * Tq + i) * q_row + q_off + h * HS + d] * kv[(b * Tk + j) * kv_row + k_off + h * HS + d]; }
  return s;
}
`;
// A row with no visible key has lse = NO_KEYS: every exp(s - lse) is 0, so its weights, output and
// gradients are 0, as on the CPU.
const NO_KEYS = '3.0e38';

const attention_masked_forward: KernelDef = {
  args: ['rw', 'rw', 'r', 'r', 'r u32'],
  source: (c) => PRELUDE + bindings(['rw', 'rw', 'r', 'r', 'r u32'], ['out', 'lse', 'q', 'kv', 'key_tokens']) +
    attentionHead(c.HS) + MASKED_VISIBLE + /* wgsl */ `
// One invocation per query row i of head h: the max of the visible scores, then
// out_i = sum_j exp(s_ij - m) v_j / l,  l = sum_j exp(s_ij - m),  lse_i = m + log l   (s = q . k * scale)
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
${MASKED_DIMS}
  let b = wid.y / NH; let h = wid.y % NH;
  let i = wid.x * 64u + lid;
  if (i >= Tq) { return; }
  var m = -3.0e38; var seen = false;
  for (var j = 0u; j < Tk; j++) {
    if (visible(b, i, j, Tq, Tk, causal, pad)) {
      m = max(m, score(b, h, i, j, Tq, Tk, q_row, q_off, kv_row, k_off) * scale);
      seen = true;
    }
  }
  var o: array<f32, HS>;
  var l = 0.0;
  for (var j = 0u; j < Tk; j++) {
    if (visible(b, i, j, Tq, Tk, causal, pad)) {
      let p = exp(score(b, h, i, j, Tq, Tk, q_row, q_off, kv_row, k_off) * scale - m);
      l += p;
      for (var d = 0u; d < HS; d++) { o[d] += p * kv[(b * Tk + j) * kv_row + v_off + h * HS + d]; }
    }
  }
  for (var d = 0u; d < HS; d++) { out[(b * Tq + i) * C + h * HS + d] = select(0.0, o[d] / l, seen); }
  lse[(b * NH + h) * Tq + i] = select(${NO_KEYS}, m + log(l), seen);
}`,
  grid: (d) => [Math.ceil(d[1] / 64), d[0] * d[4], 1],
};

const attention_masked_backward: KernelDef = {
  args: ['rw', 'rw', 'r', 'r', 'r', 'r', 'r', 'r u32'],
  source: (c) => PRELUDE + bindings(['rw', 'rw', 'r', 'r', 'r', 'r', 'r', 'r u32'],
    ['dq', 'dkv', 'dout', 'out', 'q', 'kv', 'lse', 'key_tokens']) + attentionHead(c.HS) + MASKED_VISIBLE + /* wgsl */ `
// p_ij = exp(s_ij - lse_i), D_i = dout_i . out_i, ds_ij = p_ij (dout_i . v_j - D_i) * scale:
// the first ceil(Tq / 64) workgroups of (b, h) take query rows (dq_i = sum_j ds_ij k_j), the next
// ceil(Tk / 64) key rows (dk_j = sum_i ds_ij q_i, dv_j = sum_i p_ij dout_i), each in a fixed order.
// Without dq (has_dq 0: self-attention, one qkv region) dq goes to dkv at dq_off.
fn D_of(b: u32, h: u32, i: u32, Tq: u32, C: u32) -> f32 {
  var D = 0.0;
  for (var d = 0u; d < HS; d++) { D += dout[(b * Tq + i) * C + h * HS + d] * out[(b * Tq + i) * C + h * HS + d]; }
  return D;
}
fn dot_dout_v(b: u32, h: u32, i: u32, j: u32, Tq: u32, Tk: u32, C: u32, kv_row: u32, v_off: u32) -> f32 {
  var s = 0.0;
  for (var d = 0u; d < HS; d++) { s += dout[(b * Tq + i) * C + h * HS + d] * kv[(b * Tk + j) * kv_row + v_off + h * HS + d]; }
  return s;
}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
${MASKED_DIMS}
  let dq_row = dim(12u); let dq_off = dim(13u); let dkv_row = dim(14u); let dk_off = dim(15u); let dv_off = dim(16u);
  let has_dq = dim(17u) != 0u;
  let b = wid.y / NH; let h = wid.y % NH;
  let q_tiles = (Tq + 63u) / 64u;
  if (wid.x < q_tiles) {
    let i = wid.x * 64u + lid;
    if (i >= Tq) { return; }
    let lse_i = lse[(b * NH + h) * Tq + i];
    let D = D_of(b, h, i, Tq, C);
    var g: array<f32, HS>;
    for (var j = 0u; j < Tk; j++) {
      if (visible(b, i, j, Tq, Tk, causal, pad)) {
        let p = exp(score(b, h, i, j, Tq, Tk, q_row, q_off, kv_row, k_off) * scale - lse_i);
        let ds = p * (dot_dout_v(b, h, i, j, Tq, Tk, C, kv_row, v_off) - D) * scale;
        for (var d = 0u; d < HS; d++) { g[d] += ds * kv[(b * Tk + j) * kv_row + k_off + h * HS + d]; }
      }
    }
    for (var d = 0u; d < HS; d++) {
      let at = (b * Tq + i) * dq_row + dq_off + h * HS + d;
      if (has_dq) { dq[at] = g[d]; } else { dkv[at] = g[d]; }
    }
    return;
  }
  let j = (wid.x - q_tiles) * 64u + lid;
  if (j >= Tk) { return; }
  var gk: array<f32, HS>;
  var gv: array<f32, HS>;
  for (var i = 0u; i < Tq; i++) {
    if (visible(b, i, j, Tq, Tk, causal, pad)) {
      let p = exp(score(b, h, i, j, Tq, Tk, q_row, q_off, kv_row, k_off) * scale - lse[(b * NH + h) * Tq + i]);
      let ds = p * (dot_dout_v(b, h, i, j, Tq, Tk, C, kv_row, v_off) - D_of(b, h, i, Tq, C)) * scale;
      for (var d = 0u; d < HS; d++) {
        gk[d] += ds * q[(b * Tq + i) * q_row + q_off + h * HS + d];
        gv[d] += p * dout[(b * Tq + i) * C + h * HS + d];
      }
    }
  }
  for (var d = 0u; d < HS; d++) {
    dkv[(b * Tk + j) * dkv_row + dk_off + h * HS + d] = gk[d];
    dkv[(b * Tk + j) * dkv_row + dv_off + h * HS + d] = gv[d];
  }
}`,
  grid: (d) => [Math.ceil(d[1] / 64) + Math.ceil(d[2] / 64), d[0] * d[4], 1],
};

const attention_masked_probs: KernelDef = {
  args: ['rw', 'r', 'r', 'r', 'r u32'],
  source: (c) => PRELUDE + bindings(['rw', 'r', 'r', 'r', 'r u32'], ['att', 'q', 'kv', 'lse', 'key_tokens']) +
    attentionHead(c.HS) + MASKED_VISIBLE + /* wgsl */ `
// att (B, NH, Tq, Tk) = exp(s_ij - lse_i) where key j is visible, else 0
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${MASKED_DIMS}
  for (var idx = gid.x; idx < B * NH * Tq * Tk; idx += nwg.x * 256u) {
    let j = idx % Tk; let i = (idx / Tk) % Tq; let bh = idx / (Tq * Tk);
    let b = bh / NH; let h = bh % NH;
    var p = 0.0;
    if (visible(b, i, j, Tq, Tk, causal, pad)) {
      p = exp(score(b, h, i, j, Tq, Tk, q_row, q_off, kv_row, k_off) * scale - lse[bh * Tq + i]);
    }
    att[idx] = p;
  }
}`,
  grid: (d) => flatGrid(d[0] * d[4] * d[1] * d[2]),
};

const crossentropy_masked: KernelDef = {
  args: ['rw', 'rw', 'r u32'],
  source: kernel(['rw', 'rw', 'r u32'], ['logits', 'losses', 'targets'], /* wgsl */ `
// crossentropy's rows, except that a target not below V (-1: padding) is ignored: its loss and
// gradient are 0, and the mean runs over the count of the others. losses[n] = loss_n * N / count
// (so a mean over N is the mean over the counted rows); the gradient row is (softmax - onehot) / count.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let V = dim(1u); let write_grad = dim(2u) != 0u;
  let row = row_of(wid, nwg);
  if (row >= N) { return; }
  var n_valid = 0.0;
  for (var n = lid; n < N; n += 256u) { n_valid += select(0.0, 1.0, targets[n] < V); }
  let count = wg_sum(lid, n_valid);
  let z = row * V;
  // no early return for an ignored row: the reductions below need the whole workgroup
  let valid = targets[row] < V;
  let y = select(0u, targets[row], valid);
  let zy = logits[z + y];
${rowMaxSum('logits')}
  if (lid == 0u) { losses[row] = select(0.0, (log(sum) - (zy - mx)) * (f32(N) / count), valid); }
  if (write_grad) {
    let dloss = 1.0 / count;
    for (var v = lid; v < V; v += 256u) {
      let p = exp(logits[z + v] - mx) / sum;
      logits[z + v] = select(0.0, dloss * (p - select(0.0, 1.0, v == y)), valid);
    }
  }
}`, reductions(256)),
  grid: (d) => rowsGrid(d[0]),
};

const softmax: KernelDef = {
  args: ['rw', 'r'],
  source: kernel(['rw', 'r'], ['out', 'inp'], /* wgsl */ `
// out (N, V) = softmax over the last dim
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let V = dim(1u);
  let row = row_of(wid, nwg);
  if (row >= N) { return; }
  let z = row * V;
${rowMaxSum('inp')}
  for (var v = lid; v < V; v += 256u) { out[z + v] = exp(inp[z + v] - mx) / sum; }
}`, reductions(256)),
  grid: (d) => rowsGrid(d[0]),
};

const mean_loss: KernelDef = {
  args: ['rw u32', 'r'],
  source: kernel(['rw u32', 'r'], ['state', 'losses'], /* wgsl */ `
// state[slot] = mean of the N losses
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  let N = dim(0u); let slot = dim(1u);
  var s = 0.0;
  for (var i = lid; i < N; i += 256u) { s += losses[i]; }
  let total = wg_sum(lid, s);
  if (lid == 0u) { state[slot] = bitcast<u32>(total / f32(N)); }
}`, reductions(256)),
  grid: () => [1, 1, 1],
};

// ---- optimizer ---------------------------------------------------------------------------------

// The state words (gpu_plan.h TINYGPT_GPU_STATE; web/test/gpu-kernels.test.ts checks them).
export const STATE = /* wgsl */ `
const STEP = 0u; const ADAM_T = 1u; const HALTED = 2u; const LR = 3u; const CLIP_SCALE = 4u;
const BC1 = 5u; const BC2 = 6u; const LOSS = 7u; const GRAD_NORM = 8u; const GEN_LEN = 10u; const GEN_COUNT = 11u;
`;

const grad_norm_partials: KernelDef = {
  args: ['rw', 'r'],
  source: kernel(['rw', 'r'], ['partials', 'grads'], /* wgsl */ `
// partials[g] = sum of squares of the gradients g*256 + lid + k*G*256
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = dim(0u); let G = dim(1u);
  var s = 0.0;
  for (var i = wid.x * 256u + lid; i < n; i += G * 256u) { let g = grads[i]; s += g * g; }
  let total = wg_sum(lid, s);
  if (lid == 0u) { partials[wid.x] = total; }
}`, reductions(256)),
  grid: (d) => [d[1], 1, 1],
};

const optimizer_scalars: KernelDef = {
  args: ['rw u32', 'r', 'r', 'r'],
  source: kernel(['rw u32', 'r', 'r', 'r'], ['state', 'partials', 'step_scalars', 'losses'], STATE + /* wgsl */ `
// The step's mean loss (mean_loss's sum, a dispatch less), the global gradient norm and the clip scale; this step's learning rate and bias corrections come
// from the host (the core's optim::Schedule and AdamW, exactly). A diverged step (Trainer::step's
// test: a non-finite loss or norm, a loss above train::kDivergedLoss) halts the run: no later
// update applies until the host clears the flag.
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  let G = dim(0u); let N = dim(1u); let max_norm = scalar(0u); let diverged_loss = scalar(1u);
  var l = 0.0;
  for (var i = lid; i < N; i += 256u) { l += losses[i]; }
  let loss = wg_sum(lid, l) / f32(N);
  var s = 0.0;
  for (var i = lid; i < G; i += 256u) { s += partials[i]; }
  let sum = wg_sum(lid, s);
  if (lid != 0u) { return; }
  let norm = sqrt(sum);
  state[LOSS] = bitcast<u32>(loss);
  state[GRAD_NORM] = bitcast<u32>(norm);
  if (state[HALTED] != 0u || !is_finite(norm) || !is_finite(loss) || loss > diverged_loss) {
    state[HALTED] = 1u;
    return;
  }
  var clip = 1.0;
  if (max_norm > 0.0 && norm > max_norm) { clip = max_norm / (norm + 1e-6); }
  state[CLIP_SCALE] = bitcast<u32>(clip);
  state[LR] = bitcast<u32>(step_scalars[0]);
  state[BC1] = bitcast<u32>(step_scalars[1]);
  state[BC2] = bitcast<u32>(step_scalars[2]);
  state[STEP] += 1u;
  state[ADAM_T] += 1u;
}`, reductions(256)),
  grid: () => [1, 1, 1],
};

const adamw: KernelDef = {
  args: ['rw', 'rw', 'rw', 'r', 'r u32'],
  source: kernel(['rw', 'rw', 'rw', 'r', 'r u32'], ['params', 'm', 'v', 'grads', 'state'], STATE + /* wgsl */ `
// m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;  g = grad * clip scale
// p = p (1 - lr wd) - lr (m / bc1) / (sqrt(v / bc2) + eps), wd only on [0, n_decay)
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = dim(0u); let n_decay = dim(1u);
  let beta1 = scalar(0u); let beta2 = scalar(1u); let eps = scalar(2u); let weight_decay = scalar(3u);
  if (state[HALTED] != 0u) { return; }
  let lr = bitcast<f32>(state[LR]); let clip = bitcast<f32>(state[CLIP_SCALE]);
  let bc1 = bitcast<f32>(state[BC1]); let bc2 = bitcast<f32>(state[BC2]);
  for (var i = gid.x; i < n; i += nwg.x * 256u) {
    let g = grads[i] * clip;
    let mi = beta1 * m[i] + (1.0 - beta1) * g;
    let vi = beta2 * v[i] + (1.0 - beta2) * g * g;
    m[i] = mi; v[i] = vi;
    let wd = select(0.0, weight_decay, i < n_decay);
    params[i] = params[i] * (1.0 - lr * wd) - lr * (mi / bc1) / (sqrt(vi / bc2) + eps);
  }
}`),
  grid: (d) => flatGrid(d[0]),
};

// ---- decoding ------------------------------------------------------------------------------------

const embedding_decode: KernelDef = {
  args: ['rw', 'r u32', 'r u32', 'r', 'r'],
  source: kernel(['rw', 'r u32', 'r u32', 'r', 'r'], ['out', 'window', 'state', 'wte', 'wpe'], STATE + /* wgsl */ `
// out (C) = wte[window[p]] + wpe[p], p = gen_len - 1 (the byte just appended)
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let C = dim(0u);
  let p = state[GEN_LEN] - 1u;
  let c = gid.x;
  if (c < C) { out[c] = wte[window[p] * C + c] + wpe[p * C + c]; }
}`),
  grid: (d) => [Math.ceil(d[0] / 256), 1, 1],
};

const matvec: KernelDef = {
  args: ['rw', 'r', 'r', 'r', 'r u32', 'r', 'r'],
  source: kernel(['rw', 'r', 'r', 'r', 'r u32', 'r', 'r'], ['out', 'x', 'W', 'bias', 'state', 'ln_w', 'ln_b'], STATE + reductions(256) + /* wgsl */ `
// out_row (N) = [out_row +] xn (K) @ W (K, N) [+ bias], then [gelu]; xn = x_row, or with ln_w / ln_b
// LayerNorm(x_row) (every workgroup normalises the one row itself: a dispatch less). A row index of
// mode 1 is gen_len - 1. 32 columns x 8 slices of K per workgroup, summed in a fixed order.
var<workgroup> part: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let K = dim(0u); let N = dim(1u);
  let accumulate = dim(4u) != 0u; let apply_gelu = dim(5u) != 0u; let has_bias = dim(6u) != 0u;
  let has_ln = dim(7u) != 0u; let eps = scalar(0u);
  let p = state[GEN_LEN] - 1u;
  let x0 = select(0u, p, dim(2u) != 0u) * K;
  let o0 = select(0u, p, dim(3u) != 0u) * N;
  var m = 0.0; var rs = 1.0;
  if (has_ln) {
    var s = 0.0;
    for (var k = lid; k < K; k += 256u) { s += x[x0 + k]; }
    m = wg_sum(lid, s) / f32(K);
    var q = 0.0;
    for (var k = lid; k < K; k += 256u) { let d = x[x0 + k] - m; q += d * d; }
    rs = 1.0 / sqrt(wg_sum(lid, q) / f32(K) + eps);
  }
  let col = lid % 32u; let slice = lid / 32u;
  let j = wid.x * 32u + col;
  var s = 0.0;
  if (j < N) {
    if (has_ln) {
      for (var k = slice; k < K; k += 8u) { s += ((x[x0 + k] - m) * rs * ln_w[k] + ln_b[k]) * W[k * N + j]; }
    } else {
      for (var k = slice; k < K; k += 8u) { s += x[x0 + k] * W[k * N + j]; }
    }
  }
  part[lid] = s;
  workgroupBarrier();
  if (slice == 0u && j < N) {
    var v = 0.0;
    for (var g = 0u; g < 8u; g++) { v += part[g * 32u + col]; }
    if (has_bias) { v += bias[j]; }
    if (accumulate) { v = out[o0 + j] + v; }
    if (apply_gelu) { v = gelu(v); }
    out[o0 + j] = v;
  }
}`),
  grid: (d) => [Math.ceil(d[1] / 32), 1, 1],
};

const attention_decode: KernelDef = {
  args: ['rw', 'r', 'r u32', 'rw'],
  source: (c) => PRELUDE + bindings(['rw', 'r', 'r u32', 'rw'], ['out', 'cache', 'state', 'scores']) + STATE +
    attentionHead(c.HS) + reductions(64) + /* wgsl */ `
// Head h (one workgroup) of the newest position p = gen_len - 1 against the cached keys and
// values 0..p: out (C) = sum_j softmax_j(q . k_j / sqrt(HS)) v_j
var<workgroup> newest: u32;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let T = dim(0u); let C = dim(1u);
  let h = wid.x;
  if (lid == 0u) { newest = state[GEN_LEN] - 1u; }
  let p = workgroupUniformLoad(&newest);
  let C3 = 3u * C;
  let scale = 1.0 / sqrt(f32(HS));
  var mx = -3.0e38;
  for (var j = lid; j <= p; j += 64u) {
    var s = 0.0;
    for (var d = 0u; d < HS; d++) { s += cache[p * C3 + h * HS + d] * cache[j * C3 + C + h * HS + d]; }
    scores[h * T + j] = s * scale;
    mx = max(mx, s * scale);
  }
  mx = wg_max(lid, mx);
  var sum = 0.0;
  for (var j = lid; j <= p; j += 64u) {
    let e = exp(scores[h * T + j] - mx);
    scores[h * T + j] = e;
    sum += e;
  }
  sum = wg_sum(lid, sum);
  storageBarrier();
  for (var d = lid; d < HS; d += 64u) {
    var acc = 0.0;
    for (var j = 0u; j <= p; j++) { acc += scores[h * T + j] * cache[j * C3 + 2u * C + h * HS + d]; }
    out[h * HS + d] = acc / sum;
  }
}`,
  grid: (d) => [d[2], 1, 1],
};

const attention_beam: KernelDef = {
  args: ['rw', 'rw', 'rw', 'r', 'r u32', 'r u32'],
  source: (c) => PRELUDE + bindings(['rw', 'rw', 'rw', 'r', 'r u32', 'r u32'], ['out', 'cache', 'scores', 'qkv', 'slots', 'state']) +
    STATE + attentionHead(c.HS) + reductions(64) + /* wgsl */ `
// Beam search's self-attention with a KV cache: head h of row r (one workgroup) at the newest position
// p = gen_len - 1. The row's k, v go to cache[p, r] (cache (T, R, 2C)); its query attends to
// cache[j, slots[r, j]] for j < p, the row that held its hypothesis's ancestor at step j, and to
// cache[p, r]: out[r] (C) = sum_j softmax_j(q . k_j / sqrt(HS)) v_j
var<workgroup> newest: u32;
// the cache row (position j, beam row) that holds row r's key and value of position j
fn cache_row(r: u32, j: u32, p: u32, R: u32, T: u32) -> u32 { return j * R + select(slots[r * T + j], r, j == p); }
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let R = dim(0u); let T = dim(1u); let C = dim(2u); let NH = dim(3u);
  let h = wid.x; let r = wid.y;
  if (lid == 0u) { newest = state[GEN_LEN] - 1u; }
  let p = workgroupUniformLoad(&newest);
  let C2 = 2u * C; let C3 = 3u * C;
  let q0 = r * C3 + h * HS;
  let own = (p * R + r) * C2 + h * HS;
  for (var d = lid; d < HS; d += 64u) {
    cache[own + d] = qkv[q0 + C + d];
    cache[own + C + d] = qkv[q0 + 2u * C + d];
  }
  storageBarrier();
  let sc = (r * NH + h) * T;
  let scale = 1.0 / sqrt(f32(HS));
  var mx = -3.0e38;
  for (var j = lid; j <= p; j += 64u) {
    let k0 = cache_row(r, j, p, R, T) * C2 + h * HS;
    var s = 0.0;
    for (var d = 0u; d < HS; d++) { s += qkv[q0 + d] * cache[k0 + d]; }
    scores[sc + j] = s * scale;
    mx = max(mx, s * scale);
  }
  mx = wg_max(lid, mx);
  var sum = 0.0;
  for (var j = lid; j <= p; j += 64u) {
    let e = exp(scores[sc + j] - mx);
    scores[sc + j] = e;
    sum += e;
  }
  sum = wg_sum(lid, sum);
  storageBarrier();
  for (var d = lid; d < HS; d += 64u) {
    var acc = 0.0;
    for (var j = 0u; j <= p; j++) {
      acc += scores[sc + j] * cache[cache_row(r, j, p, R, T) * C2 + C + h * HS + d];
    }
    out[r * C + h * HS + d] = acc / sum;
  }
}`,
  grid: (d) => [d[3], d[0], 1],
};

// The largest width the one-workgroup decoding kernel serves (its vectors live in workgroup memory).
export const DECODE_LAYER_MAX_C = 256;

// decode_layer's body (a constant: its sizes are DECODE_LAYER_MAX_C's)
const DECODE_LAYER_WGSL = /* wgsl */ `
// One whole block for the newest position p = gen_len - 1, in one workgroup (a small model's decoding
// is a chain of matrix-vector products too small to fill a GPU: one dispatch per layer instead of five):
//   [x = wte[window[p]] + wpe[p]]                          (embed: the first layer)
//   cache[p] = LN1(x) @ qkv_w + qkv_b                      (C) -> (3C), the KV cache's row p
//   x += attention(q_p; cache[0..p]) @ proj_w + proj_b
//   x += gelu(LN2(x) @ fc_w + fc_b) @ fcproj_w + fcproj_b
// The parameters are one binding (the params buffer) at the offsets the dims give. Each output is one
// invocation's sum over k in order; the vectors stay in workgroup memory between the phases.
const MAXC: u32 = ${DECODE_LAYER_MAX_C}u;
var<workgroup> xs: array<f32, ${DECODE_LAYER_MAX_C}>;     // the residual stream (C)
var<workgroup> ln: array<f32, ${DECODE_LAYER_MAX_C}>;     // a LayerNorm's output (C)
var<workgroup> ys: array<f32, ${DECODE_LAYER_MAX_C}>;     // the attention's output (C)
var<workgroup> hs: array<f32, ${4 * DECODE_LAYER_MAX_C}>; // the MLP's hidden layer (4C)
var<workgroup> head_max: array<f32, 64>;
var<workgroup> head_sum: array<f32, 64>;
var<workgroup> newest: u32;
fn layernorm(lid: u32, C: u32, w: u32, b: u32, eps: f32) {
  var s = 0.0;
  for (var c = lid; c < C; c += 256u) { s += xs[c]; }
  let m = wg_sum(lid, s) / f32(C);
  var q = 0.0;
  for (var c = lid; c < C; c += 256u) { let d = xs[c] - m; q += d * d; }
  let rs = 1.0 / sqrt(wg_sum(lid, q) / f32(C) + eps);
  for (var c = lid; c < C; c += 256u) { ln[c] = (xs[c] - m) * rs * params[w + c] + params[b + c]; }
  workgroupBarrier();
}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  let C = dim(0u); let T = dim(1u); let NH = dim(2u); let embed = dim(3u) != 0u;
  let wte = dim(4u); let wpe = dim(5u);
  let ln1_w = dim(6u); let ln1_b = dim(7u); let qkv_w = dim(8u); let qkv_b = dim(9u);
  let proj_w = dim(10u); let proj_b = dim(11u); let ln2_w = dim(12u); let ln2_b = dim(13u);
  let fc_w = dim(14u); let fc_b = dim(15u); let fcproj_w = dim(16u); let fcproj_b = dim(17u);
  let eps = scalar(0u);
  if (lid == 0u) { newest = state[GEN_LEN] - 1u; }
  let p = workgroupUniformLoad(&newest);
  let C3 = 3u * C; let C4 = 4u * C;
  for (var c = lid; c < C; c += 256u) {
    if (embed) { xs[c] = params[wte + window[p] * C + c] + params[wpe + p * C + c]; } else { xs[c] = x[c]; }
  }
  workgroupBarrier();
  // attention sublayer
  layernorm(lid, C, ln1_w, ln1_b, eps);
  for (var j = lid; j < C3; j += 256u) {
    var s = 0.0;
    for (var k = 0u; k < C; k++) { s += ln[k] * params[qkv_w + k * C3 + j]; }
    cache[p * C3 + j] = s + params[qkv_b + j];
  }
  storageBarrier();
  workgroupBarrier();
  let scale = 1.0 / sqrt(f32(HS));
  let n = p + 1u;
  for (var i = lid; i < NH * n; i += 256u) {
    let h = i / n; let j = i % n;
    var s = 0.0;
    for (var d = 0u; d < HS; d++) { s += cache[p * C3 + h * HS + d] * cache[j * C3 + C + h * HS + d]; }
    scores[h * T + j] = s * scale;
  }
  storageBarrier();
  workgroupBarrier();
  if (lid < NH) {
    var mx = -3.0e38;
    for (var j = 0u; j < n; j++) { mx = max(mx, scores[lid * T + j]); }
    var sum = 0.0;
    for (var j = 0u; j < n; j++) { sum += exp(scores[lid * T + j] - mx); }
    head_max[lid] = mx;
    head_sum[lid] = sum;
  }
  workgroupBarrier();
  for (var c = lid; c < C; c += 256u) {
    let h = c / HS;
    let mx = head_max[h];
    var acc = 0.0;
    for (var j = 0u; j < n; j++) { acc += exp(scores[h * T + j] - mx) * cache[j * C3 + 2u * C + c]; }
    ys[c] = acc / head_sum[h];
  }
  workgroupBarrier();
  var xnew = array<f32, ${Math.ceil(DECODE_LAYER_MAX_C / 256)}>();
  for (var c = lid; c < C; c += 256u) {
    var s = 0.0;
    for (var k = 0u; k < C; k++) { s += ys[k] * params[proj_w + k * C + c]; }
    xnew[c / 256u] = xs[c] + (s + params[proj_b + c]);
  }
  workgroupBarrier();
  for (var c = lid; c < C; c += 256u) { xs[c] = xnew[c / 256u]; }
  workgroupBarrier();
  // MLP sublayer
  layernorm(lid, C, ln2_w, ln2_b, eps);
  for (var j = lid; j < C4; j += 256u) {
    var s = 0.0;
    for (var k = 0u; k < C; k++) { s += ln[k] * params[fc_w + k * C4 + j]; }
    hs[j] = gelu(s + params[fc_b + j]);
  }
  workgroupBarrier();
  for (var c = lid; c < C; c += 256u) {
    var s = 0.0;
    for (var k = 0u; k < C4; k++) { s += hs[k] * params[fcproj_w + k * C + c]; }
    x[c] = xs[c] + (s + params[fcproj_b + c]);
  }
}`;

const decode_layer: KernelDef = {
  args: ['rw', 'rw', 'r u32', 'r', 'rw', 'r u32'],
  source: (c) => PRELUDE + bindings(['rw', 'rw', 'r u32', 'r', 'rw', 'r u32'], ['x', 'cache', 'state', 'params', 'scores', 'window']) +
    STATE + attentionHead(c.HS) + reductions(256) + DECODE_LAYER_WGSL,
  grid: () => [1, 1, 1],
};

const greedy_pick: KernelDef = {
  args: ['rw u32', 'rw u32', 'rw u32', 'r'],
  source: kernel(['rw u32', 'rw u32', 'rw u32', 'r'], ['out', 'tgt_in', 'state', 'logits'], STATE + /* wgsl */ `
// Greedy decoding's step (translate.cpp's argmax_allowed): t = state[GEN_LEN] tokens are in tgt_in;
// of logits row t - 1, the most likely allowed token (text tokens v < text, and EOS; ties: the lower
// v) and its probability among the allowed ones go to out[2 (t - 1)] and out[2 (t - 1) + 1] (f32
// bits); the token becomes tgt_in[t] (t < T) and GEN_LEN t + 1. With cached (the KV cache's step:
// one position, its logits row 0) the token becomes tgt_in[0], the next step's input. One invocation:
// V is small, and the scan in token order is the CPU's.
@compute @workgroup_size(1)
fn main() {
  let T = dim(0u); let V = dim(1u); let text = dim(2u); let eos = dim(3u); let cached = dim(4u) != 0u;
  let t = state[GEN_LEN];
  let z = select((t - 1u) * V, 0u, cached);
  var best = eos; var m = logits[z + eos];
  for (var v = 0u; v < text; v++) {
    if (logits[z + v] > m || (logits[z + v] == m && v < best)) { m = logits[z + v]; best = v; }
  }
  var sum = exp(logits[z + eos] - m);
  for (var v = 0u; v < text; v++) { sum += exp(logits[z + v] - m); }
  out[2u * (t - 1u)] = best;
  out[2u * (t - 1u) + 1u] = bitcast<u32>(1.0 / sum);
  if (cached) { tgt_in[0] = best; } else if (t < T) { tgt_in[t] = best; }
  state[GEN_LEN] = t + 1u;
}`),
  grid: () => [1, 1, 1],
};

const sample: KernelDef = {
  args: ['rw u32', 'rw u32', 'rw u32', 'r', 'r', 'r'],
  source: kernel(['rw u32', 'rw u32', 'rw u32', 'r', 'r', 'r'], ['out_log', 'window', 'state', 'logits', 'draws', 'options'],
    STATE + reductions(256) + /* wgsl */ `
// One byte from softmax(logits / temperature), restricted to the top_k likeliest and then to the
// smallest set reaching top_p (sample.cpp's sample_logits), with the host's uniform number draws[count].
// Logs the byte, its temperature-1 probability and the five likeliest bytes; appends the byte
// to the window, or, when the window is full, keeps its last window_keep - 1 bytes and the new one.
var<workgroup> p1: array<f32, 256>;  // temperature-1 probabilities
var<workgroup> pt: array<f32, 256>;  // sampling probabilities
var<workgroup> order: array<u32, 256>;
var<workgroup> chosen: u32;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) v: u32) {
  let T = dim(0u); let V = dim(1u);
  let temperature = options[0]; let top_k = u32(options[1]); let top_p = options[2]; let keep = u32(options[3]);
  let count = state[GEN_COUNT];
  let rec = count * 12u;
  let z = logits[v];
  let mx = wg_max(v, z);
  let e = exp(z - mx);
  let s = wg_sum(v, e);
  p1[v] = e / s;
  workgroupBarrier();
  // ranks (ties: lower byte first) by probability, and by logit for the greedy choice
  var rank1 = 0u; var rank_z = 0u;
  for (var u = 0u; u < V; u++) {
    if (p1[u] > p1[v] || (p1[u] == p1[v] && u < v)) { rank1++; }
    let zu = logits[u];
    if (zu > z || (zu == z && u < v)) { rank_z++; }
  }
  if (rank1 < 5u) { out_log[rec + 2u + rank1] = v; out_log[rec + 7u + rank1] = bitcast<u32>(p1[v]); }
  let greedy = temperature <= 0.0;
  var et = 0.0;
  if (!greedy) { et = exp((z - mx) / temperature); }
  let st = wg_sum(v, et);
  pt[v] = et / st;
  if (greedy && rank_z == 0u) { chosen = v; }
  workgroupBarrier();
  let truncate = (top_k > 0u && top_k < V) || top_p < 1.0;
  if (!greedy && truncate) {
    var rank_t = 0u;
    for (var u = 0u; u < V; u++) { if (pt[u] > pt[v] || (pt[u] == pt[v] && u < v)) { rank_t++; } }
    order[rank_t] = v;
  }
  workgroupBarrier();
  if (v != 0u) { return; }
  if (!greedy) {
    let r = draws[count];
    if (!truncate) {
      var c = V - 1u; var cum = 0.0;
      for (var u = 0u; u < V; u++) { cum += pt[u]; if (r < cum) { c = u; break; } }
      chosen = c;
    } else {
      var n = V;
      if (top_k > 0u && top_k < V) { n = top_k; }
      var mass = 0.0;
      for (var i = 0u; i < n; i++) { mass += pt[order[i]]; }
      if (top_p < 1.0) {
        var cum = 0.0;
        for (var i = 0u; i < n; i++) {
          cum += pt[order[i]] / mass;
          if (cum >= top_p) { n = i + 1u; break; }
        }
        mass = 0.0;
        for (var i = 0u; i < n; i++) { mass += pt[order[i]]; }
      }
      let rm = r * mass;
      var c = order[n - 1u]; var cum = 0.0;
      for (var i = 0u; i < n; i++) { cum += pt[order[i]]; if (rm < cum) { c = order[i]; break; } }
      chosen = c;
    }
  }
  let byte = chosen;
  out_log[rec] = byte;
  out_log[rec + 1u] = bitcast<u32>(p1[byte]);
  let len = state[GEN_LEN];
  if (len == T) {
    for (var i = 0u; i + 1u < keep; i++) { window[i] = window[T - keep + 1u + i]; }
    window[keep - 1u] = byte;
    state[GEN_LEN] = keep;
  } else {
    window[len] = byte;
    state[GEN_LEN] = len + 1u;
  }
  state[GEN_COUNT] = count + 1u;
}`),
  grid: () => [1, 1, 1],
};

export const KERNELS: Record<string, KernelDef> = {
  embedding_forward, embedding_backward, layernorm_forward, layernorm_backward_all, matmul, matmul_ln, block_forward, linear_backward, attention_forward, attention_backward, attention_probs,
  crossentropy, mean_loss, softmax, grad_norm_partials, optimizer_scalars, adamw,
  attention_masked_forward, attention_masked_backward, attention_masked_probs, crossentropy_masked, greedy_pick, attention_beam,
  embedding_decode, matvec, attention_decode, decode_layer, sample,
};

// Floating-point operations of an op, for the benchmark's GFLOP/s (multiply-add = 2).
export function opFlops(kernel: string, d: number[], c: KernelConsts): number {
  switch (kernel) {
    case 'matmul': return 2 * d[0] * d[1] * d[2];
    case 'linear_backward': return 4 * d[0] * d[1] * d[2];
    case 'matmul_ln': return 2 * d[0] * d[1] * d[2];
    case 'block_forward': // the block's three GEMMs and attention (not with embed), then the tail's GEMM
      return 2 * d[0] * d[2] * d[4] + (d[5] ? 0 : 2 * d[0] * 9 * d[2] * d[2] + 2 * 2 * d[3] * (d[0] / d[1]) * (d[1] * (d[1] + 1) / 2) * c.HS);
    case 'matvec': return 2 * d[0] * d[1];
    case 'decode_layer': return 2 * 12 * d[0] * d[0];
    case 'attention_forward': return 2 * 2 * d[0] * d[3] * (d[1] * (d[1] + 1) / 2) * c.HS;
    case 'attention_backward': return 2 * 7 * d[0] * d[3] * (d[1] * (d[1] + 1) / 2) * c.HS;
    default: return 0;
  }
}
