// npm run bench:preflight — how good is the pre-flight estimate (tinygpt::preflight, what the page
// shows before Start)? For each preset, the estimate of a short schedule (1 s of measurement),
// then the run itself in the same wasm module (the page's simd build under Node, 1 thread) timed
// end to end with its evaluations: estimated / actual, and the bigram loss it quotes against the
// run's final validation loss. Figures only, no assertions: they move with the machine's load.
import os from 'node:os';

import { loadModule, shakespeare } from '../tests/wasm/helpers.mjs';
import { benchResults } from './results.mjs';

const steps = Number(process.env.BENCH_STEPS || 100);
const presets = (process.env.BENCH_PRESETS || 'tiny,S').split(',');
const results = benchResults('preflight');
results.set('options', { steps, presets, build: 'simd', threads: 1 });
const M = await loadModule('simd');
console.log(`bench:preflight — wasm ${M.backend()} in Node ${process.versions.node}, 1 thread, ${steps} steps per run, ` +
  `tiny Shakespeare; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, ${os.cpus()[0].model}`);
console.log(`${'preset'.padEnd(7)} ${'measure s'.padStart(9)} ${'est tok/s'.padStart(10)} ${'run tok/s'.padStart(10)} ` +
  `${'est total s'.padStart(11)} ${'run total s'.padStart(11)} ${'est/run'.padStart(8)} ${'est MiB'.padStart(8)} ${'bigram'.padStart(7)} ${'val'.padStart(7)}`);
for (const name of presets) {
  const preset = M.presets().find((p) => p.name === name);
  if (!preset) throw new Error(`no preset ${name}`);
  const config = { ...preset.config, max_iters: steps, warmup_iters: Math.min(preset.config.warmup_iters, steps / 5), eval_interval: Math.max(1, steps / 2) };
  const t0 = performance.now();
  const e = M.preflight(config, shakespeare, 1000);
  const measureS = (performance.now() - t0) / 1000;
  const s = new M.Session(config);
  s.setCorpus(shakespeare);
  const t1 = performance.now();
  let trainMs = 0, val = NaN;
  for (;;) {
    const r = s.advance(1e9, 0);
    trainMs += r.trainMs;
    for (const v of r.evals) val = v.loss;
    if (r.finished) break;
  }
  const runS = (performance.now() - t1) / 1000;
  const runTokS = (steps * config.batch_size * config.block_size) / (trainMs / 1000);
  s.delete();
  (results.figures.rows ??= []).push({ preset: name, measureSeconds: measureS, estimate: { tokS: e.tokensPerSec, totalSeconds: e.totalSeconds,
    memoryBytes: e.memoryBytes, bigram: e.entropy.bigram }, run: { tokS: runTokS, totalSeconds: runS, valLoss: val } });
  console.log(`${name.padEnd(7)} ${measureS.toFixed(2).padStart(9)} ${e.tokensPerSec.toFixed(0).padStart(10)} ${runTokS.toFixed(0).padStart(10)} ` +
    `${e.totalSeconds.toFixed(2).padStart(11)} ${runS.toFixed(2).padStart(11)} ${(e.totalSeconds / runS).toFixed(2).padStart(8)} ` +
    `${(e.memoryBytes / 2 ** 20).toFixed(1).padStart(8)} ${e.entropy.bigram.toFixed(3).padStart(7)} ${val.toFixed(3).padStart(7)}`);
}
results.write();
