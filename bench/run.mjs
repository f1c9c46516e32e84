// npm run bench — everything measured in one run on this machine:
//   peaks (AVX2 FMA and SSE2 natively, SIMD128 mul+add in Node), GEMM GFLOP/s at the model's
//   shapes (scalar reference, native SIMD, SIMD128 in Node), training tokens/s on config S for
//   native / wasm-in-Node / PyTorch with 1 and 2 threads (ratio to PyTorch, % of peak), and
//   generation bytes/s.
// Needs: npm run build:native; scripts/build-wasm.sh simd threads-node tests;
// PyTorch from Debian (python3-torch, ideally with libopenblas0-openmp) for the reference rows.
// Writes bench/results/bench-<date>.json (bench/results.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { cliPath, root, shakespeare, loadModule } from '../tests/wasm/helpers.mjs';
import { LSTM_S, S, nativeBench, sessionBench } from './measure.mjs';
import { benchResults } from './results.mjs';
import { torchEnv } from './torch-env.mjs';

const STEPS = Number(process.env.BENCH_STEPS || 20);
// training FLOPs per token: 6 x (matmul weights) + attention (QK^T and PV, causal, fwd + bwd)
const matmulWeights = S.n_layer * 12 * S.n_embd * S.n_embd + S.n_embd * 256;
const flopsPerToken = 6 * matmulWeights + 6 * S.n_layer * S.block_size * S.n_embd;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}
const need = (p, how) => { if (!fs.existsSync(p)) throw new Error(`missing ${p}: ${how}`); };
need(cliPath, 'npm run build:native');
const kernelsNative = path.join(root, 'build/native/kernels_bench');
need(kernelsNative, 'npm run build:native');
const kernelsWasm = path.join(root, 'build/wasm-tests/kernels_bench.cjs');
need(kernelsWasm, 'scripts/build-wasm.sh tests');
const threadsNode = path.join(root, 'build/wasm-node/tinygpt-threads-node.cjs');
need(threadsNode, 'scripts/build-wasm.sh threads-node');
const results = benchResults('bench');
results.set('options', { steps: STEPS, config: S, flopsPerToken });

console.log(`tinygpt bench — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`config S: 4 layers, 4 heads, width 128, context 64, batch 12; ${(flopsPerToken / 1e6).toFixed(2)} MFLOP per trained token; ${STEPS} timed steps\n`);

// ---- peaks and GEMM ----------------------------------------------------------------------------
const nat = JSON.parse(run(kernelsNative, ['--json']));
const wasmK = JSON.parse(run('node', ['--no-experimental-fetch', kernelsWasm, '--json']));
const peak = {};
for (const b of [...nat.backends, ...wasmK.backends]) peak[b.name] = b.peak_gflops;
console.log('Peak, one thread (independent multiply-add chains, no memory traffic):');
results.set('kernels', { native: nat, wasm: wasmK });  // kernels_bench --json, native and SIMD128 in Node
for (const [name, gf] of Object.entries(peak)) console.log(`  ${name.padEnd(8)} ${gf.toFixed(1).padStart(7)} GFLOP/s  (${{ avx512: 'FMA, 16 lanes', avx2: 'FMA, 8 lanes' }[name] ?? 'mul + add, 4 lanes'}${name === 'simd128' ? ', V8 in Node' : ''})`);
const gemmCols = [...nat.backends.map((b) => b.name), 'simd128'];
console.log(`\nGEMM at the model's shapes, one thread: GFLOP/s (% of that backend's peak)`);
console.log(`  ${'shape'.padEnd(36)} ${'scalar'.padStart(8)} ${gemmCols.map((c) => c.padStart(16)).join(' ')}`);
for (let i = 0; i < nat.gemm.length; i++) {
  const row = nat.gemm[i], w = wasmK.gemm[i];
  const cells = gemmCols.map((c) => {
    const gf = c === 'simd128' ? w.simd128 : row[c];
    return `${gf.toFixed(1)} (${((100 * gf) / peak[c]).toFixed(0)}%)`.padStart(16);
  });
  const scalar = row.scalar > 0 ? row.scalar.toFixed(1) : '-';  // the scalar reference is timed on S's shapes only
  console.log(`  ${`${row.config} ${row.shape}`.padEnd(36)} ${scalar.padStart(8)} ${cells.join(' ')}`);
}

// the recurrent step kernels (lstm-S's shapes): the products with W_hh inside the fused steps
console.log(`\nRecurrent step kernels, one thread: GFLOP/s of the W_hh products (% of that backend's peak)`);
for (let i = 0; i < (nat.rnn ?? []).length; i++) {
  const row = nat.rnn[i], w = wasmK.rnn?.[i];
  const cells = gemmCols.map((c) => {
    const gf = c === 'simd128' ? w?.simd128 : row[c];
    return Number.isFinite(gf) ? `${gf.toFixed(1)} (${((100 * gf) / peak[c]).toFixed(0)}%)`.padStart(16) : '-'.padStart(16);
  });
  console.log(`  ${row.shape.padEnd(36)} ${''.padStart(8)} ${cells.join(' ')}`);
}
{
  const fwd = wasmK.rnn?.find((r) => r.shape.startsWith('lstm fwd'));
  if (fwd) console.log(`  goal in wasm: the LSTM's gate products >= 60% of the SIMD128 peak: ${((100 * fwd.simd128) / peak.simd128).toFixed(0)}% (forward step kernel)`);
}

// ---- training and generation -------------------------------------------------------------------
function nativeRow(threads) {
  const r = nativeBench(threads, STEPS);
  return { name: `native ${r.backend}`, threads, ...r, peak: peak[r.backend] };
}

const rows = [];
for (const t of [1, 2]) rows.push(nativeRow(t));
{
  const M = await loadModule('simd');
  rows.push({ name: 'wasm simd128 (Node)', threads: 1, ...sessionBench(M, STEPS, 1), peak: peak.simd128 });
}
{
  const require = createRequire(import.meta.url);
  const create = require(threadsNode);
  const M = await create({ wasmBinary: fs.readFileSync(threadsNode.replace(/\.cjs$/, '.wasm')) });
  for (const t of [1, 2]) rows.push({ name: 'wasm simd128+pthreads (Node)', threads: t, ...sessionBench(M, STEPS, t), peak: peak.simd128 });
}
const torch = {};
const hasTorch = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;
if (hasTorch) {
  for (const t of [1, 2]) {
    const r = JSON.parse(run('/usr/bin/python3', [path.join(root, 'bench/pytorch_bench.py'), '--threads', String(t), '--steps', String(STEPS), '--json'], { env: torchEnv() }));
    torch[t] = r;
    rows.push({ name: `PyTorch ${r.torch} (${path.basename(path.dirname(r.blas))})`, threads: t, tokS: r.tok_s, genBS: NaN, peak: peak[nat.backend] ?? peak.sse2 });
  }
} else {
  console.log('\n(PyTorch rows skipped: /usr/bin/python3 has no torch; apt-get install python3-torch libopenblas0-openmp)');
}

console.log(`\nTraining on config S (and generation, default window), tokens/s:`);
console.log(`  ${'build'.padEnd(40)} ${'threads'.padStart(7)} ${'train tok/s'.padStart(12)} ${'vs PyTorch'.padStart(11)} ${'% of peak'.padStart(10)} ${'generate B/s'.padStart(13)}`);
for (const r of rows) {
  const vs = torch[r.threads] ? `${(r.tokS / torch[r.threads].tok_s).toFixed(2)}x` : '-';
  const pct = (100 * r.tokS * flopsPerToken) / (r.peak * 1e9 * r.threads);
  const gen = Number.isFinite(r.genBS) ? r.genBS.toFixed(0) : '-';
  console.log(`  ${r.name.padEnd(40)} ${String(r.threads).padStart(7)} ${r.tokS.toFixed(0).padStart(12)} ${vs.padStart(11)} ${pct.toFixed(0).padStart(9)}% ${gen.padStart(13)}`);
}
results.set('training', rows.map((r) => ({ build: r.name, threads: r.threads, tokS: r.tokS, genBS: Number.isFinite(r.genBS) ? r.genBS : null,
  vsPyTorch: torch[r.threads] ? r.tokS / torch[r.threads].tok_s : null, peakGflops: r.peak })));
// ---- the LSTM (lstm-S: 0.94M parameters, 2 layers of 256 units): native, wasm, torch.nn.LSTM ----
{
  const lstmRows = [];
  for (const t of [1, 2]) lstmRows.push({ name: `native ${nat.backend}`, threads: t, ...nativeBench(t, STEPS, 'lstm-S') });
  const M = await loadModule('simd');
  lstmRows.push({ name: 'wasm simd128 (Node)', threads: 1, ...sessionBench(M, STEPS, 1, LSTM_S) });
  const create = createRequire(import.meta.url)(threadsNode);
  const MT = await create({ wasmBinary: fs.readFileSync(threadsNode.replace(/\.cjs$/, '.wasm')) });
  for (const t of [1, 2]) lstmRows.push({ name: 'wasm simd128+pthreads (Node)', threads: t, ...sessionBench(MT, STEPS, t, LSTM_S) });
  const lstmTorch = {};
  if (hasTorch) {
    for (const t of [1, 2]) {
      const r = JSON.parse(run('/usr/bin/python3', [path.join(root, 'bench/pytorch_bench.py'), '--model', 'lstm', '--layers', '2', '--width', '64',
        '--hidden', '256', '--threads', String(t), '--steps', String(STEPS), '--json'], { env: torchEnv() }));
      lstmTorch[t] = r;
      lstmRows.push({ name: `PyTorch ${r.torch} nn.LSTM (${path.basename(path.dirname(r.blas))})`, threads: t, tokS: r.tok_s, genBS: NaN });
    }
  }
  console.log('\nThe LSTM of lstm-S (2 layers of 256 units, 0.94M parameters), training tokens/s:');
  for (const r of lstmRows) {
    const vs = lstmTorch[r.threads] && !r.name.startsWith('PyTorch') ? `${(r.tokS / lstmTorch[r.threads].tok_s).toFixed(2)}x` : '-';
    console.log(`  ${r.name.padEnd(40)} ${String(r.threads).padStart(7)} ${r.tokS.toFixed(0).padStart(12)} ${vs.padStart(11)} ${Number.isFinite(r.genBS) ? r.genBS.toFixed(0).padStart(13) : '-'.padStart(13)}`);
  }
  results.set('lstm', lstmRows.map((r) => ({ build: r.name, threads: r.threads, tokS: r.tokS, genBS: Number.isFinite(r.genBS) ? r.genBS : null,
    vsPyTorch: lstmTorch[r.threads] && !r.name.startsWith('PyTorch') ? r.tokS / lstmTorch[r.threads].tok_s : null })));
}
// ---- the encoder-decoder (seq2seq_bench: config S2S, 2+2 layers, 4 heads, width 128, d_ff 512, 32 tokens, batch 16)
console.log('\nEncoder-decoder (seq2seq_bench, config S2S), training tokens/s (source + target tokens):');
const s2s = [
  ['native', path.join(root, 'build/native/seq2seq_bench'), []],
  ['wasm (Node)', 'node', ['--no-experimental-fetch', path.join(root, 'build/wasm-tests/seq2seq_bench.cjs'), '--threads', '1']],
];
for (const [label, cmd, pre] of s2s) {
  if (!fs.existsSync(cmd === 'node' ? pre[1] : cmd)) continue;
  const out = JSON.parse(run(cmd, [...pre, '--json', '--steps', String(STEPS)]));
  (results.figures.seq2seq ??= {})[label] = out;  // seq2seq_bench --json
  for (const r of out.runs)
    console.log(`  ${`${label} (${out.backend})`.padEnd(40)} ${String(r.threads).padStart(7)} ${String(r.tokens_per_s).padStart(12)} ${r.gflops.toFixed(1).padStart(8)} GFLOP/s ${r.percent_of_peak.toFixed(0).padStart(4)}% of peak`);
}
// ---- memory --------------------------------------------------------------------------------------
console.log('\nWasm memory (SIMD128 build in Node, a fresh module per model): after the first step and after 10 more');
for (const preset of ['S', 'M']) {
  const M = await loadModule('simd');
  const cfg = M.presets().find((p) => p.name === preset).config;
  const name = `${preset} (${cfg.n_layer}L ${cfg.n_head}H ${cfg.n_embd}w ctx${cfg.block_size} b${cfg.batch_size})`;
  const est = M.checkConfig(cfg);
  const s = new M.Session({ ...cfg, eval_interval: 0 });
  s.setCorpus(shakespeare);
  s.advance(1, 0);
  const first = M.memoryBytes();
  s.advance(10, 0);
  s.evaluate();
  const later = M.memoryBytes();
  s.delete();
  (results.figures.memory ??= []).push({ preset, config: name, parameters: est.parameters, estimateBytes: est.trainingBytes, afterFirstStep: first, afterMore: later });
  console.log(`  ${name.padEnd(28)} ${(est.parameters / 1e6).toFixed(2)}M params  estimate ${(est.trainingBytes / 2 ** 20).toFixed(0)} MiB  wasm memory ${(first / 2 ** 20).toFixed(0)} MiB -> ${(later / 2 ** 20).toFixed(0)} MiB${later === first ? ' (no growth)' : ''}`);
}

console.log(`\n% of peak = tok/s x ${(flopsPerToken / 1e6).toFixed(2)} MFLOP / (one-thread peak of the backend x threads); PyTorch rows against the peak of the native default backend.`);
results.write();
process.exit(0);
