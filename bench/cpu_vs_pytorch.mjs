// npm run bench:cpu — tinygpt against PyTorch on the CPU, configs S and M, in one run:
//   1. kernels: FMA peak of each compiled-in backend, GEMM GFLOP/s (% of peak) at the shapes of
//      S and M, memory bandwidth, and KV-cached decoding of M against the bandwidth bound
//      (build/native/kernels_bench);
//   2. training tokens/s, tinygpt (`tinygpt bench --preset`) and PyTorch (bench/pytorch_bench.py, the same
//      model, optimizer and schedule) at each thread count, with the ratio; runs alternate
//      between the two and each cell keeps its best of --repeat runs, so a burst of load from
//      other programs hits both sides alike and is mostly filtered out;
//   3. with --contended: one core kept busy by a spinning child process (pinned to the last CPU
//      with taskset when available), training at 1 thread, 2 threads and with the ThreadTuner
//      choosing (build/native/train_bench --threads auto), native, plus the wasm threads build
//      in Node at 1 and 2 threads when it is built; then the same without the spinner.
//
//   node bench/cpu_vs_pytorch.mjs [--threads 1,2] [--configs S,M,lstm-S] [--repeat 3] [--contended]
//                                 [--seconds 8] [--no-build] [--no-kernels] [--no-torch]
//   config lstm-S: tinygpt's LSTM of 0.94M parameters (2 layers of 256 units, rnn.h) against
//   torch.nn.LSTM's own CPU kernels on the same model, optimizer and batches (npm run bench:rnn).
//   --torch-passive runs PyTorch with OMP_WAIT_POLICY=PASSIVE: libgomp's threads sleep instead of
//   spinning while they wait, which is what saves PyTorch at 2 threads when another program holds
//   a core (its default spinning can make a step 10x slower there).
//
// Needs: cmake + g++ (the script builds build/native); for the PyTorch rows Debian's python3-torch
// with OpenBLAS: libopenblas0-openmp installed, or unpacked under build/openblas (bench/torch-env.mjs). Figures depend on the machine's load: the load
// average is printed before and after. Writes bench/results/cpu-<date>.json (bench/results.mjs).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { benchResults } from './results.mjs';
import { torchEnv } from './torch-env.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const build = path.join(root, 'build/native');
const cli = path.join(build, 'tinygpt');

// ---- options ----------------------------------------------------------------------------------
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const threadCounts = option('--threads', '1,2').split(',').map(Number);
const configNames = option('--configs', 'S,M').split(',');
const repeat = Number(option('--repeat', '3'));
const seconds = Number(option('--seconds', '8'));
if (threadCounts.some((t) => !(t >= 1)) || !(repeat >= 1) || !(seconds > 0)) {
  console.error('usage: node bench/cpu_vs_pytorch.mjs [--threads 1,2,4] [--configs S,M] [--repeat 3] [--contended] [--seconds 8] [--no-build] [--no-kernels] [--no-torch]');
  process.exit(2);
}

const CONFIGS = {
  S: { layers: 4, heads: 4, width: 128, context: 64, batch: 12, steps: 20 },
  M: { layers: 6, heads: 6, width: 384, context: 256, batch: 4, steps: 5 },
  'lstm-S': { model: 'lstm', layers: 2, width: 64, hidden: 256, context: 64, batch: 12, steps: 20 },
};
const LABELS = { S: 'S (4L 4H 128, ctx 64, b12)', M: 'M (6L 6H 384, ctx 256, b4)', 'lstm-S': 'lstm-S (2L x 256, ctx 64, b12)' };
for (const c of configNames) if (!CONFIGS[c]) throw new Error(`unknown config ${c}: S, M or lstm-S`);
const results = benchResults('cpu');
results.set('options', { threads: threadCounts, configs: configNames, repeat, seconds, contended: flag('--contended'),
  kernels: !flag('--no-kernels'), torch: !flag('--no-torch'), torchPassive: flag('--torch-passive') });

function run(cmd, cmdArgs, opts = {}) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 26, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const pad = (s, n) => String(s).padStart(n);
const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

// ---- build ------------------------------------------------------------------------------------
if (!flag('--no-build')) {
  process.stdout.write('building build/native ... ');
  run('cmake', ['-S', root, '-B', build, '-DCMAKE_BUILD_TYPE=Release']);
  run('cmake', ['--build', build, '-j2', '--target', 'tinygpt', 'kernels_bench', 'train_bench']);
  console.log('done');
}
for (const exe of ['tinygpt', 'kernels_bench', 'train_bench'])
  if (!fs.existsSync(path.join(build, exe))) throw new Error(`missing build/native/${exe}: run without --no-build`);

const torchOk = !flag('--no-torch') && spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8', env: torchEnv() }).status === 0;
console.log(`\ntinygpt vs PyTorch on the CPU — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${load()}`);
if (!torchOk && !flag('--no-torch'))
  console.log('(PyTorch rows skipped: /usr/bin/python3 has no torch; apt-get install -y python3-torch libopenblas0-openmp)');

// ---- 1. kernels ---------------------------------------------------------------------------------
let decodeRows = [];
if (!flag('--no-kernels')) {
  const k1 = JSON.parse(run(path.join(build, 'kernels_bench'), ['--json']));
  results.set('kernels', k1);  // build/native/kernels_bench --json: peaks, GEMM, bandwidth, decoding of M
  const names = k1.backends.map((b) => b.name);
  console.log(`\nPeak, one thread (independent multiply-add chains, no memory traffic): ${k1.backends.map((b) => `${b.name} ${b.peak_gflops.toFixed(1)}`).join(', ')} GFLOP/s`);
  console.log(`GEMM, one thread: GFLOP/s (% of that backend's peak); ${k1.backend} is the default here`);
  console.log(`  ${'shape'.padEnd(36)} ${names.map((n) => pad(n, 15)).join(' ')}`);
  for (const g of k1.gemm) {
    const cells = k1.backends.map((b) => pad(`${g[b.name].toFixed(1)} (${((100 * g[b.name]) / b.peak_gflops).toFixed(0)}%)`, 15));
    console.log(`  ${`${g.config} ${g.shape}`.padEnd(36)} ${cells.join(' ')}`);
  }
  console.log('Recurrent step kernels, one thread (rnn_forward / rnn_backward at lstm-S, GFLOP/s of the W_hh products, % of peak)');
  for (const g of k1.rnn ?? []) {
    const cells = k1.backends.map((b) => pad(`${g[b.name].toFixed(1)} (${((100 * g[b.name]) / b.peak_gflops).toFixed(0)}%)`, 15));
    console.log(`  ${g.shape.padEnd(36)} ${cells.join(' ')}`);
  }
  decodeRows.push({ threads: 1, ...k1.decode_m, bw: k1.bandwidth_gbs });
  for (const t of threadCounts.filter((t) => t > 1)) {
    const k = JSON.parse(run(path.join(build, 'kernels_bench'), ['--json', '--no-gemm', '--threads', String(t)]));
    decodeRows.push({ threads: t, ...k.decode_m, bw: k.bandwidth_gbs });
  }
  console.log(`\nGeneration: KV-cached decoding of M (6L 6H 384w), one token at a time through a 256-byte context (each position's best of 6 passes).`);
  console.log(`A token reads ${(decodeRows[0].bytes_per_token / 1e6).toFixed(1)} MB (every weight once, the cached keys and values). bound = memory bandwidth`);
  console.log(`(streaming 128 MiB) / bytes per token; part of the weights stays in L3 between tokens, so decoding can beat it. "cached ref":`);
  console.log(`reading a buffer of one token's bytes over and over (L3 keeps what it can), an upper reference.`);
  console.log(`  ${'threads'.padStart(7)} ${'GB/s 128 MiB'.padStart(13)} ${'bound tok/s'.padStart(12)} ${'decode tok/s'.padStart(13)} ${'of bound'.padStart(9)} ${'cached ref'.padStart(11)} ${'of ref'.padStart(7)}`);
  for (const d of decodeRows)
    console.log(`  ${pad(d.threads, 7)} ${pad(fmt(d.bw, 1), 13)} ${pad(fmt(d.bound_tok_s), 12)} ${pad(fmt(d.tok_s), 13)} ${pad(`${fmt((100 * d.tok_s) / d.bound_tok_s)}%`, 9)} ${pad(fmt(d.cached_reference_tok_s), 11)} ${pad(`${fmt((100 * d.tok_s) / d.cached_reference_tok_s)}%`, 7)}`);
  results.set('decoding', decodeRows);
  const d1 = decodeRows[0];
  console.log(`  goal decoding >= 80% of the bandwidth bound (1 thread): ${fmt((100 * d1.tok_s) / d1.bound_tok_s)}% ${d1.tok_s >= 0.8 * d1.bound_tok_s ? 'met' : 'NOT met'}`);
}

// ---- 2. training: tinygpt vs PyTorch ------------------------------------------------------------
function tinygptTokS(config, threads) {
  const c = CONFIGS[config];
  const out = run(cli, ['bench', '--preset', config, '--threads', String(threads), '--steps', String(c.steps)]);
  const cols = out.split('\n').find((l) => l.startsWith(`${config} `)).trim().split(/\s+/);
  return { tokS: Number(cols[cols.length - 3]), backend: /: (\S+) kernels/.exec(out)[1] };
}
function torchTokS(config, threads) {
  const c = CONFIGS[config];
  const env = flag('--torch-passive') ? { ...torchEnv(), OMP_WAIT_POLICY: 'PASSIVE' } : torchEnv();
  const out = run('/usr/bin/python3', [path.join(root, 'bench/pytorch_bench.py'), '--json', '--threads', String(threads),
    '--steps', String(c.steps), '--layers', String(c.layers), '--heads', String(c.heads ?? 1), '--width', String(c.width),
    '--context', String(c.context), '--batch', String(c.batch), '--model', c.model ?? 'gpt', '--hidden', String(c.hidden ?? 256)],
    { env });
  return JSON.parse(out);
}

const table = [];
let torchInfo = '';
let torchBlas = '';  // the folder of the libblas PyTorch loaded: blas (Debian's netlib reference), openblas-openmp, ...
let backend = '';
for (const config of configNames)
  for (const threads of threadCounts) {
    const cell = { config, threads, ours: [], torch: [] };
    for (let r = 0; r < repeat; r++) {
      const ours = tinygptTokS(config, threads);
      backend = ours.backend;
      cell.ours.push(ours.tokS);
      if (torchOk) {
        const t = torchTokS(config, threads);
        torchBlas = path.basename(path.dirname(t.blas));
        torchInfo = `PyTorch ${t.torch} with ${torchBlas}`;
        cell.torch.push(t.tok_s);
      }
    }
    table.push(cell);
  }
const best = (xs) => (xs.length ? Math.max(...xs) : NaN);
console.log(`\nTraining tokens/s (best of ${repeat}, runs alternating): tinygpt ${backend} kernels vs ${torchInfo || 'PyTorch (skipped)'}`);
// Debian's default libblas is the netlib reference, ~20x slower than OpenBLAS for PyTorch's Linear
// layers: ratios against it say nothing about tinygpt, so say so where they are printed and kept
const referenceBlas = torchBlas === 'blas';
if (referenceBlas)
  console.log('  warning: PyTorch ran on the netlib reference BLAS, not OpenBLAS: the ratios below are not a fair comparison.\n' +
    '  Install libopenblas0-openmp, or unpack it under build/openblas (bench/torch-env.mjs), and run again.');
console.log(`  ${'config'.padEnd(28)} ${pad('threads', 7)} ${pad('tinygpt', 9)} ${pad('PyTorch', 9)} ${pad('ratio', 7)}   all runs (tinygpt | PyTorch)`);
for (const c of table) {
  const name = LABELS[c.config];
  const ratio = best(c.ours) / best(c.torch);
  c.ratio = ratio;
  console.log(`  ${name.padEnd(28)} ${pad(c.threads, 7)} ${pad(fmt(best(c.ours)), 9)} ${pad(fmt(best(c.torch)), 9)} ${pad(Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-', 7)}   ${c.ours.map((x) => x.toFixed(0)).join(' ')} | ${c.torch.map((x) => x.toFixed(0)).join(' ')}`);
}
results.set('training', {
  unit: 'tokens/s, best of the repeats; ratio = tinygpt / PyTorch', tinygpt: `${backend} kernels`, pytorch: torchInfo || null,
  ...(referenceBlas ? { warning: 'PyTorch on the netlib reference BLAS, not OpenBLAS: the ratios are not a fair comparison' } : {}),
  rows: table.map((c) => ({ config: c.config, ...CONFIGS[c.config], threads: c.threads, tinygpt: best(c.ours),
    pytorch: c.torch.length ? best(c.torch) : null, ratio: Number.isFinite(c.ratio) ? Number(c.ratio.toFixed(3)) : null,
    runs: { tinygpt: c.ours, pytorch: c.torch } })),
});
if (torchOk) {
  const goal = (config, threads, want) => {
    const c = table.find((r) => r.config === config && r.threads === threads);
    if (!c) return;
    const verdict = referenceBlas ? 'not judged (reference BLAS)' : c.ratio >= want ? 'met' : 'NOT met';
    console.log(`  goal ${config} at ${threads} thread${threads > 1 ? 's' : ''} >= ${want.toFixed(1)}x PyTorch: ${c.ratio.toFixed(2)}x ${verdict}`);
  };
  for (const config of ['S', 'M', 'lstm-S']) for (const t of [1, 2]) goal(config, t, config === 'S' && t === 2 ? 1.3 : 1.0);
}

// ---- 3. contended ----------------------------------------------------------------------------------
async function contended() {
  const cpus = os.cpus().length;
  const config = configNames.includes('S') ? 'S' : configNames[0];
  const trainBench = (threads) =>
    JSON.parse(run(path.join(build, 'train_bench'), ['--config', config, '--threads', String(threads), '--seconds', String(seconds), '--json']));
  const threadsNode = path.join(root, 'build/wasm-node/tinygpt-threads-node.cjs');
  let wasmModule = null;
  if (fs.existsSync(threadsNode) && config === 'S') {
    const create = createRequire(import.meta.url)(threadsNode);
    wasmModule = await create({ wasmBinary: fs.readFileSync(threadsNode.replace(/\.cjs$/, '.wasm')) });
  }
  const { sessionBench } = wasmModule ? await import('./measure.mjs') : {};
  const measure = () => {
    const rows = { 1: [], 2: [], auto: [], reasons: [], wasm1: [], wasm2: [] };
    for (let r = 0; r < repeat; r++) {
      for (const t of [1, 2, 'auto']) {
        const x = trainBench(t);
        rows[t].push(x.tok_s);
        if (t === 'auto') rows.reasons.push(x.reason);
      }
      if (wasmModule) {
        rows.wasm1.push(sessionBench(wasmModule, 20, 1).tokS);
        rows.wasm2.push(sessionBench(wasmModule, 20, 2).tokS);
      }
    }
    return rows;
  };
  const report = (title, rows) => {
    const one = best(rows[1]);
    console.log(`  ${title}`);
    console.log(`    native 1 thread   ${pad(fmt(one), 7)} tok/s`);
    console.log(`    native 2 threads  ${pad(fmt(best(rows[2])), 7)} tok/s  ${(best(rows[2]) / one).toFixed(2)}x of 1 thread`);
    console.log(`    native tuned      ${pad(fmt(best(rows.auto)), 7)} tok/s  ${(best(rows.auto) / one).toFixed(2)}x of 1 thread, ${(best(rows.auto) / Math.max(one, best(rows[2]))).toFixed(2)}x of the best fixed count; all runs ${rows.auto.map((x) => x.toFixed(0)).join(' ')}`);
    // each repeat measures 1 thread, 2 threads and the tuner one after the other: their ratio per run
    console.log(`      tuned / 1 thread, run by run: ${rows.auto.map((x, i) => (x / rows[1][i]).toFixed(2)).join(' ')}`);
    console.log(`      tuner's last choice: ${rows.reasons[rows.reasons.length - 1]}`);
    if (rows.wasm1.length) {
      console.log(`    wasm 1 thread     ${pad(fmt(best(rows.wasm1)), 7)} tok/s  (threads build in Node ${process.versions.node})`);
      console.log(`    wasm 2 threads    ${pad(fmt(best(rows.wasm2)), 7)} tok/s  ${(best(rows.wasm2) / best(rows.wasm1)).toFixed(2)}x of 1 thread`);
    }
  };
  console.log(`\nContention, config ${config}: training tok/s (best of ${repeat}, ${seconds} s runs; tuned = ThreadTuner choosing, its timing steps included)`);
  const pin = fs.existsSync('/usr/bin/taskset') ? ['taskset', ['-c', String(cpus - 1), process.execPath, '-e', 'for(;;){}']] : [process.execPath, ['-e', 'for(;;){}']];
  const spinner = spawn(pin[0], pin[1], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  let busy;
  try {
    busy = measure();
  } finally {
    spinner.kill('SIGKILL');
  }
  report(`one core busy (a spinning process${pin[0] === 'taskset' ? ` pinned to CPU ${cpus - 1}` : ''}), load average ${load()}:`, busy);
  const summary = (rows) => ({ tok_s: { 1: best(rows[1]), 2: best(rows[2]), tuned: best(rows.auto), wasm1: best(rows.wasm1), wasm2: best(rows.wasm2) },
    tunedVsOneThreadByRun: rows.auto.map((x, i) => x / rows[1][i]), runs: rows, loadAverage: os.loadavg() });
  results.set('contended', { config, busy: summary(busy) });
  const ok = best(busy.auto) >= 0.9 * best(busy[1]);
  console.log(`    goal tuned >= 0.9x the best 1-thread figure: ${(best(busy.auto) / best(busy[1])).toFixed(2)}x ${ok ? 'met' : 'NOT met'}`);
  await new Promise((r) => setTimeout(r, 300));
  const quiet = measure();
  report(`no spinner, load average ${load()}:`, quiet);
  results.figures.contended.quiet = summary(quiet);
  const quietOk = best(quiet.auto) >= 0.95 * Math.max(best(quiet[1]), best(quiet[2]));
  console.log(`    goal tuned on a quiet machine within 5% of the best fixed count: ${quietOk ? 'met' : 'NOT met'}`);
}
if (flag('--contended')) await contended();

console.log(`\nload average at the end ${load()}`);
results.write();
process.exit(0);
