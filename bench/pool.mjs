// npm run bench:pool — where the threads of the wasm pthreads build spend a training step.
// Config S in the Node pthreads build (build/wasm-node: scripts/build-wasm.sh threads-node), with
// 1 and 2 threads (BENCH_THREADS=1,2,4 for others) alternating over BENCH_ROUNDS rounds (default 3)
// of BENCH_STEPS steps (default 10), in one child process (bench/pool-child.cjs). Per count, the
// medians over the rounds of:
//   - ms a step and tokens/s with the pool's counters off, and % of the SIMD128 peak per thread
//     (the peak of one thread measured by build/wasm-tests/kernels_bench.cjs, as bench/page.mjs);
//   - CPU ms a step (the process, every thread): spinning shows up here, not in tokens/s;
//   - from the pool's counters (tinygpt::PoolStats, on in a second timed stretch): the step's
//     serial part (the caller outside split jobs), its split part, the caller's barrier wait,
//     each thread's busy time in tasks and what is left idle, split jobs and parallel_for calls
//     run inline per step, the workers' mean publish->claim latency, and how often they slept.
// Writes bench/results/pool-<date>.json (bench/results.mjs) with the load average.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { root } from '../tests/wasm/helpers.mjs';
import { benchResults, describeCrossCore } from './results.mjs';

const modulePath = path.join(root, 'build/wasm-node/tinygpt-threads-node.cjs');
if (!fs.existsSync(modulePath)) throw new Error('build the Node pthreads build first: scripts/build-wasm.sh threads-node');
const steps = Number(process.env.BENCH_STEPS || 10);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const counts = (process.env.BENCH_THREADS || '1,2').split(',').map(Number);
const S = { n_layer: 4, n_embd: 128, block_size: 64, batch_size: 12, vocab: 256 };
// training FLOPs per token, as bench/page.mjs: 6 x matmul weights + causal attention fwd + bwd
const flopsPerToken = 6 * (S.n_layer * 12 * S.n_embd * S.n_embd + S.n_embd * S.vocab) + 6 * S.n_layer * S.block_size * S.n_embd;
const tokensPerStep = S.batch_size * S.block_size;

const record = benchResults('pool');
const kernelsWasm = path.join(root, 'build/wasm-tests/kernels_bench.cjs');
let peak = null;
if (fs.existsSync(kernelsWasm)) {
  const k = JSON.parse(execFileSync('node', ['--no-experimental-fetch', kernelsWasm, '--json', '--no-gemm', '--quick'], { encoding: 'utf8' }));
  peak = k.backends.find((b) => b.name === 'simd128')?.peak_gflops ?? null;
}
console.log(`bench:pool — config S, wasm pthreads build in Node ${process.versions.node}, ${steps} steps x ${rounds} rounds, threads ${counts.join(', ')}, ` +
  `${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`  ${describeCrossCore(record.crossCore)}`);
console.log(peak ? `  SIMD128 peak, one thread: ${peak.toFixed(1)} GFLOP/s` : '  (no SIMD128 peak: scripts/build-wasm.sh tests builds build/wasm-tests/kernels_bench.cjs)');

// BENCH_BASE=DIR: a second build (DIR/tinygpt-threads-node.cjs, .wasm, .worker.js: a copy of an
// earlier build/wasm-node) measured in the same run, a round of each in turn (A/B).
const builds = [{ name: 'this tree', module: modulePath }];
if (process.env.BENCH_BASE) builds.push({ name: `base (${process.env.BENCH_BASE})`, module: path.resolve(process.env.BENCH_BASE, 'tinygpt-threads-node.cjs') });
const outs = builds.map(() => ({ runs: [] }));
for (let round = 0; round < rounds; round++) {
  for (const [i, b] of builds.entries()) {
    const r = spawnSync('node', ['--no-experimental-fetch', path.join(root, 'bench/pool-child.cjs'), String(steps), '1', ...counts.map(String)],
      { encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, TINYGPT_POOL_MODULE: b.module } });
    if (r.status !== 0) throw new Error(`bench/pool-child.cjs (${b.name}) failed:\n${r.stderr}${r.stdout}`);
    outs[i].runs.push(...JSON.parse(r.stdout.trim().split('\n').pop()).runs.map((x) => ({ ...x, round })));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const table = [];
for (const [bi, build] of builds.entries()) {
const out = outs[bi];
const rows = [];
for (const t of counts) {
  const runs = out.runs.filter((x) => x.threads === t);
  const per = (f) => median(runs.map(f)) / steps;  // per step
  const stepMs = per((x) => x.plain.trainMs);
  const tokS = (tokensPerStep * 1000) / stepMs;
  const st = (f) => per((x) => f(x.profiled.stats));
  const row = {
    threads: t, stepMs, tokS, pctOfPeakPerThread: peak ? (100 * tokS * flopsPerToken) / (peak * 1e9 * t) : null,
    cpuMsPerStep: per((x) => x.plain.cpuMs),
    profiledStepMs: per((x) => x.profiled.trainMs),
    pool: {
      serialMs: st((s) => s.wallMs - s.parallelMs), parallelMs: st((s) => s.parallelMs), barrierMs: st((s) => s.barrierMs),
      busyMs: Array.from({ length: t }, (_, i) => st((s) => s.busyMs[i] ?? 0)),
      jobs: st((s) => s.jobs), inlineJobs: st((s) => s.inlineJobs), chunks: st((s) => s.chunks), sleeps: st((s) => s.sleeps),
      wakeUs: median(runs.map((x) => (x.profiled.stats.joined ? (1000 * x.profiled.stats.wakeMs) / x.profiled.stats.joined : 0))),
      joinedShare: median(runs.map((x) => { const s = x.profiled.stats; return s.jobs && t > 1 ? s.joined / (s.jobs * (t - 1)) : null; })),
      wallMs: st((s) => s.wallMs),
    },
    kernels: Object.fromEntries([...new Set(runs.flatMap((x) => x.profiled.kernels.map((k) => k.name)))].map((name) => {
      const get = (x) => x.profiled.kernels.find((k) => k.name === name) ?? { calls: 0, ms: 0 };
      return [name, { calls: per((x) => get(x).calls), ms: per((x) => get(x).ms) }];
    })),
    rounds: runs.map((x) => ({ stepMs: x.plain.trainMs / steps, cpuMs: x.plain.cpuMs / steps, profiledStepMs: x.profiled.trainMs / steps })),
  };
  rows.push(row);
}
const one = rows.find((x) => x.threads === 1);
if (builds.length > 1) console.log(`  ${build.name}:`);
for (const x of rows) {
  const p = x.pool;
  console.log(`  ${x.threads} thread(s): ${x.stepMs.toFixed(1)} ms/step, ${x.tokS.toFixed(0)} tokens/s` +
    (x.pctOfPeakPerThread !== null ? `, ${x.pctOfPeakPerThread.toFixed(1)}% of the SIMD128 peak per thread` : '') +
    (one && x !== one ? `, ${(one.stepMs / x.stepMs).toFixed(2)}x 1 thread` : '') +
    `; CPU ${x.cpuMsPerStep.toFixed(1)} ms/step (${(x.cpuMsPerStep / x.stepMs).toFixed(2)} cores); counters on: ${x.profiledStepMs.toFixed(1)} ms/step`);
  if (x.threads > 1) {
    const idle = p.busyMs.map((b) => p.wallMs - b);
    console.log(`      per step: serial (caller alone) ${p.serialMs.toFixed(1)} ms, split ${p.parallelMs.toFixed(1)} ms of which barrier wait ${p.barrierMs.toFixed(1)} ms; ` +
      `busy ${p.busyMs.map((b) => b.toFixed(1)).join(' / ')} ms, idle ${idle.map((b) => b.toFixed(1)).join(' / ')} ms (thread 0 = caller)`);
    console.log(`      ${p.jobs.toFixed(0)} split jobs + ${p.inlineJobs.toFixed(0)} inline a step, ${p.chunks.toFixed(0)} chunks; ` +
      `workers joined ${(100 * p.joinedShare).toFixed(0)}% of jobs, mean wake (publish -> first claim) ${p.wakeUs.toFixed(1)} us, ${p.sleeps.toFixed(1)} sleeps a step`);
  } else {
    console.log(`      per step: ${p.inlineJobs.toFixed(0)} parallel_for calls, all inline`);
  }
}
// each kernel's wall ms a step (counters on) per thread count, the largest first, and what the
// step spends outside the kernels (the graph, the optimizer's glue, the data)
if (Object.keys(rows[0].kernels).length) {
  const names = Object.keys(rows[0].kernels).sort((a, b) => rows[0].kernels[b].ms - rows[0].kernels[a].ms);
  console.log(`      kernels, wall ms a step (counters on), ${rows.map((x) => `${x.threads}T`).join(' / ')}` + (rows.length > 1 ? ', speed-up of the last' : '') + ':');
  const line = (name, ms) => console.log(`        ${name.padEnd(24)} ${ms.map((m) => m.toFixed(2).padStart(7)).join(' ')}` + (ms.length > 1 ? `  ${(ms[0] / ms[ms.length - 1]).toFixed(2)}x` : ''));
  for (const n of names) line(`${n} (${rows[0].kernels[n].calls.toFixed(0)})`, rows.map((x) => x.kernels[n]?.ms ?? 0));
  line('outside the kernels', rows.map((x) => x.profiledStepMs - Object.values(x.kernels).reduce((a, k) => a + k.ms, 0)));
}
table.push({ build: build.name, rows });
}
if (builds.length > 1) {
  const ratio = (t) => table[1].rows.find((x) => x.threads === t).stepMs / table[0].rows.find((x) => x.threads === t).stepMs;
  console.log(`  A/B: this tree's step time vs the base's: ${counts.map((t) => `${t} thread(s) ${ratio(t).toFixed(3)}x faster`).join(', ')} ` +
    `(CPU: ${counts.map((t) => (table[1].rows.find((x) => x.threads === t).cpuMsPerStep / table[0].rows.find((x) => x.threads === t).cpuMsPerStep).toFixed(3) + 'x').join(', ')})`);
}
record.set('config', 'S');
record.set('simd128PeakGflops', peak);
record.set('steps', steps);
record.set('rounds', rounds);
record.set('builds', table);
record.write();
