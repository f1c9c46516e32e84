// npm run bench:seq2seq — the encoder-decoder's training speed (seq2seq_bench, config S2S) in %
// of the multiply-add peak: native with 1 and 2 threads, native by CPU time (1 thread: on a
// machine shared with busy processes it measures the program, not its share of the CPU), and
// SIMD128 in Node (1 thread; by the wall clock and by Node's process.cpuUsage()). With --base DIR
// it runs another build side by side (DIR/build/native and DIR/build/wasm-tests of another
// commit, e.g. a `git archive` of the base), alternating the two in every round so that both see
// the same load; each figure is the best round.
//   node bench/seq2seq.mjs [--base DIR [--base-commit SHA] [--base-note TEXT]] [--rounds N]
//                          [--steps N] [--no-wasm] [--no-native] [--backend avx2|sse2] [--padded]
// --padded: a batch of pairs of varied lengths, padded to the block (seq2seq_bench --padded).
// Needs: cmake --build build/native --target seq2seq_bench; for wasm, the tests preset's
// seq2seq_bench (scripts/build-wasm.sh tests, or its seq2seq_bench target alone).
// Writes bench/results/seq2seq-<date>.json (bench/results.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { nativeSse2Peak } from './measure.mjs';
import { benchResults, describeCrossCore, gitState, root } from './results.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const rounds = Number(opt('--rounds', 3));
const steps = String(opt('--steps', 20));
const baseDir = opt('--base', null);
const builds = [['current', root], ...(baseDir ? [['base', path.resolve(baseDir)]] : [])];

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}
// [label, command, arguments] per measurement of a build
function measurements(dir) {
  const native = path.join(dir, 'build/native/seq2seq_bench');
  const wasm = path.join(dir, 'build/wasm-tests/seq2seq_bench.cjs');
  const m = [];
  const backend = opt('--backend', null);  // another compiled-in native backend (avx2, sse2)
  const padded = args.includes('--padded') ? ['--padded'] : [];  // pairs of varied lengths (seq2seq_bench --padded)
  const extra = [...(backend ? ['--backend', backend] : []), ...padded];
  if (!args.includes('--no-native') && fs.existsSync(native)) {
    m.push(['native', native, ['--json', '--steps', steps, ...extra]]);
    m.push(['native cpu-time', native, ['--json', '--steps', steps, '--threads', '1', '--cpu-time', ...extra]]);
  }
  if (!args.includes('--no-wasm') && fs.existsSync(wasm)) {
    m.push(['wasm (Node)', 'node', ['--no-experimental-fetch', wasm, '--json', '--steps', steps, '--threads', '1', ...padded]]);
    m.push(['wasm cpu-time', 'node', ['--no-experimental-fetch', wasm, '--json', '--steps', steps, '--threads', '1', '--cpu-time', ...padded]]);
  }
  return m;
}

const results = benchResults('seq2seq');
// a base exported with `git archive` is no repository: its commit comes from --base-commit
const gitOf = (name, dir) => (name === 'base' && opt('--base-commit', null) ? { commit: opt('--base-commit', null), note: opt('--base-note', undefined) } : gitState(dir));
results.set('options', { rounds, steps: Number(steps), builds: Object.fromEntries(builds.map(([n, d]) => [n, { dir: d, git: gitOf(n, d) }])) });
console.log(`seq2seq bench — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`  ${describeCrossCore(results.crossCore)}`);
const best = {};  // best[build][label][threads] = run with the lowest step time
const all = [];
for (let r = 0; r < rounds; r++)
  for (const [name, dir] of builds)
    for (const [label, cmd, argv] of measurements(dir)) {
      // the wasm rows also against the 128-bit peak read natively around each run (measure.mjs)
      const wasm = label.startsWith('wasm');
      const sse2Before = wasm ? nativeSse2Peak() : null;
      const out = run(cmd, argv);
      const sse2After = wasm ? nativeSse2Peak() : null;
      if (sse2Before !== null && sse2After !== null)
        for (const x of out.runs) {
          x.sse2_peak = (sse2Before + sse2After) / 2;
          x.percent_of_sse2_peak = (100 * x.gflops) / (x.sse2_peak * x.threads);
        }
      all.push({ round: r, build: name, label, ...out });
      for (const x of out.runs) {
        const slot = ((best[name] ??= {})[label] ??= {});
        if (!slot[x.threads] || x.step_ms < slot[x.threads].step_ms) slot[x.threads] = { ...x, backend: out.backend, peak_gflops: out.peak_gflops };
      }
    }
results.set('runs', all);
results.set('best', best);
console.log('config S2S (enc 2, dec 2, heads 4, width 128, d_ff 512, S = T = 32, batch 16); best of', rounds, 'rounds');
console.log(`  ${'build'.padEnd(8)} ${'measure'.padEnd(16)} ${'backend'.padEnd(8)} threads  ms/step   tokens/s  GFLOP/s  % of peak  (wasm: % of the 128-bit peak read natively)`);
for (const [name] of builds)
  for (const [label, byThreads] of Object.entries(best[name] ?? {}))
    for (const x of Object.values(byThreads))
      console.log(`  ${name.padEnd(8)} ${label.padEnd(16)} ${x.backend.padEnd(8)} ${String(x.threads).padStart(7)} ${x.step_ms.toFixed(2).padStart(8)} ${String(x.tokens_per_s).padStart(10)} ${x.gflops.toFixed(1).padStart(8)} ${x.percent_of_peak.toFixed(1).padStart(10)}` +
        (x.percent_of_sse2_peak !== undefined ? `  (${x.percent_of_sse2_peak.toFixed(1)}%)` : ''));
if (best.base) {
  const speedup = {};
  for (const [label, byThreads] of Object.entries(best.current ?? {}))
    for (const [t, x] of Object.entries(byThreads)) {
      const b = best.base[label]?.[t];
      if (b) (speedup[label] ??= {})[t] = Number((b.step_ms / x.step_ms).toFixed(3));
    }
  results.set('speedup', speedup);  // base step time / current step time
  console.log('speed-up (base ms / current ms):', JSON.stringify(speedup));
}
results.write();
