// npm run bench:gemm — the GEMM at the models' shapes (kernels_bench's table: S, M, S2S, lstm) and
// the attention kernels (kernels_bench's attention rows: the translator's and the GPT's), one
// thread, GFLOP/s and % of the backend's peak: native (every compiled-in backend) and SIMD128
// in Node. With --base DIR it runs another build's kernels_bench too (DIR/build/native and
// DIR/build/wasm-tests, e.g. a worktree of the base commit), alternating the two builds in every
// round so that both see the same load; each cell is the best round, and the ratio current / base
// is printed per shape.
//   node bench/gemm.mjs [--base DIR [--base-commit SHA] [--base-note TEXT]] [--rounds N]
//                       [--no-native] [--no-wasm]
// Needs: build/native/kernels_bench (cmake --build build/native --target kernels_bench) and
// build/wasm-tests/kernels_bench.cjs (scripts/build-wasm.sh tests). Writes bench/results/gemm-<date>.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { benchResults, gitState, root } from './results.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const rounds = Number(opt('--rounds', 3));
const baseDir = opt('--base', null);
const builds = [['current', root], ...(baseDir ? [['base', path.resolve(baseDir)]] : [])];

function kernelsBench(dir) {
  const m = [];
  const native = path.join(dir, 'build/native/kernels_bench');
  const wasm = path.join(dir, 'build/wasm-tests/kernels_bench.cjs');
  if (!args.includes('--no-native')) {
    if (!fs.existsSync(native)) throw new Error(`missing ${native}: cmake --build build/native --target kernels_bench`);
    m.push([native, []]);
  }
  if (!args.includes('--no-wasm')) {
    if (!fs.existsSync(wasm)) throw new Error(`missing ${wasm}: scripts/build-wasm.sh tests`);
    m.push(['node', ['--no-experimental-fetch', wasm]]);
  }
  return m;
}
function run(cmd, argv) {
  // --no-gemm would skip the table; the bandwidth and decoding parts are short (--quick)
  const r = spawnSync(cmd, [...argv, '--json', '--quick'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

const results = benchResults('gemm');
const gitOf = (name, dir) => (name === 'base' && opt('--base-commit', null) ? { commit: opt('--base-commit', null), note: opt('--base-note', undefined) } : gitState(dir));
results.set('options', { rounds, builds: Object.fromEntries(builds.map(([n, d]) => [n, { dir: d, git: gitOf(n, d) }])) });
console.log(`gemm bench — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);

// best[build][backend][shape] = GFLOP/s; peaks[build][backend] = the best round's peak
const best = {}, peaks = {}, shapes = [];
for (let r = 0; r < rounds; r++)
  for (const [name, dir] of builds)
    for (const [cmd, argv] of kernelsBench(dir)) {
      const out = run(cmd, argv);
      for (const b of out.backends) {
        const p = ((peaks[name] ??= {})[b.name] ??= 0);
        peaks[name][b.name] = Math.max(p, b.peak_gflops);
      }
      // the attention kernels' rows (kernels_bench since 2026-11-27; a base build may not have them)
      const rows = [...out.gemm.map((g) => [`${g.config} ${g.shape}`, g]), ...(out.attention ?? []).map((a) => [`attn ${a.shape}`, a])];
      for (const [key, g] of rows) {
        if (!shapes.includes(key)) shapes.push(key);
        for (const b of out.backends) {
          const slot = ((best[name] ??= {})[b.name] ??= {});
          slot[key] = Math.max(slot[key] ?? 0, g[b.name]);
        }
      }
    }
results.set('peaks', peaks);
results.set('best', best);

const backends = Object.keys(best.current ?? {});
console.log(`one thread, best of ${rounds} rounds: GFLOP/s (% of that build's peak)${best.base ? ', and current / base' : ''}`);
for (const b of backends) {
  console.log(`\n${b}: peak ${peaks.current[b].toFixed(1)} GFLOP/s${best.base ? ` (base run: ${peaks.base[b].toFixed(1)})` : ''}`);
  for (const key of shapes) {
    const cur = best.current[b][key];
    const cell = (gf, peak) => `${gf.toFixed(1).padStart(7)} (${((100 * gf) / peak).toFixed(0).padStart(3)}%)`;
    let line = `  ${key.padEnd(40)} ${cell(cur, peaks.current[b])}`;
    if (best.base?.[b]?.[key]) line += `   base ${cell(best.base[b][key], peaks.base[b])}   ${(cur / best.base[b][key]).toFixed(3)}x`;
    console.log(line);
  }
}
console.log();
results.write();
