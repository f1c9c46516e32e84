// Measurements shared by bench/run.mjs (npm run bench) and bench/wasm.mjs (npm run bench:wasm):
// config S, the native CLI's own benchmark, and a timed wasm Session; and by bench/page.mjs and
// bench/seq2seq.mjs: the 128-bit multiply-add peak read natively.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { cliPath, root, shakespeare } from '../tests/wasm/helpers.mjs';

// preset S (the schema's defaults: 4 layers, 4 heads, n_embd 128, block_size 64, batch 12)
export const S = { n_layer: 4, n_head: 4, n_embd: 128, block_size: 64, batch_size: 12 };
export const tokensPerStep = S.batch_size * S.block_size;

// lstm-S: the LSTM of 0.94M parameters (2 layers of 256 units, embedding 64), S's window and batch
export const LSTM_S = { model: 'lstm', n_layer: 2, n_embd: 64, n_hidden: 256, block_size: 64, batch_size: 12 };

// `tinygpt bench --preset S` (or another preset): training tokens/s, generation bytes/s and the kernels it picked.
export function nativeBench(threads, steps, preset = 'S') {
  const r = spawnSync(cliPath, ['bench', '--preset', preset, '--threads', String(threads), '--steps', String(steps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tinygpt bench failed:\n${r.stderr}${r.stdout}`);
  const cols = r.stdout.split('\n').find((l) => l.startsWith(`${preset} `)).trim().split(/\s+/);
  return { tokS: Number(cols[cols.length - 3]), genBS: Number(cols[cols.length - 1]), backend: /: (\S+) kernels/.exec(r.stdout)[1] };
}

// The 128-bit multiplies and adds' peak natively, one thread (build/native/kernels_bench --peak, its
// SSE2 row), or null without the build: the instructions V8 compiles SIMD128's f32x4.mul and f32x4.add
// to, so the hardware's ceiling for them. It reads steadily (66.8-68.6 GFLOP/s in eight runs within a
// minute, 2026-11-27) where the reading in V8 moved from 59 to 67 (the same minute): the wasm benches
// give their figures against it beside V8's own reading.
const kernelsNative = path.join(root, 'build/native/kernels_bench');
export const nativeSse2Peak = () => (fs.existsSync(kernelsNative)
  ? JSON.parse(execFileSync(kernelsNative, ['--json', '--peak'], { encoding: 'utf8' })).backends.find((b) => b.name === 'sse2')?.peak_gflops ?? null
  : null);

// Trains config S in a wasm module (3 warm-up steps: JIT tiers, arena), then generates several
// windows' worth of bytes with the default window policy.
export function sessionBench(M, steps, threads = 1, config = S) {
  if (threads > 1 || M.maxThreads() > 1) M.setThreads(threads);
  const s = new M.Session({ ...config, max_iters: 1000, warmup_iters: 10, eval_interval: 0 });
  s.setCorpus(shakespeare);
  s.advance(3, 0);
  const r = s.advance(steps, 0);
  const n = 4 * config.block_size + 64;
  const t0 = performance.now();
  s.generate(new TextEncoder().encode('\n'), n, { seed: 1 });
  const genBS = n / ((performance.now() - t0) / 1000);
  s.delete();
  return { tokS: (steps * config.batch_size * config.block_size) / (r.trainMs / 1000), genBS, backend: M.backend() };
}
