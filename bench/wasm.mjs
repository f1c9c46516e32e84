// npm run bench:wasm — training tokens/s on config S (4 layers, 4 heads, width 128, context 64,
// batch 12) and on lstm-S (the LSTM of 2 layers of 256 units) for the native CLI and the wasm
// builds under Node, measured in one run, with ratios.
import fs from 'node:fs';
import os from 'node:os';

import { cliPath, loadModule, variantsBuilt } from '../tests/wasm/helpers.mjs';
import { LSTM_S, nativeBench, sessionBench } from './measure.mjs';
import { benchResults } from './results.mjs';

const steps = Number(process.env.BENCH_STEPS || 20);

if (!fs.existsSync(cliPath)) throw new Error('build the native CLI first: npm run build:native');
const results = benchResults('wasm');
const load = os.loadavg()[0].toFixed(2);
console.log(`bench:wasm — config S (4L 4H 128w ctx64 b12), ${steps} timed steps, 1 thread, load average ${load}, ${os.cpus()[0].model}`);
const native = nativeBench(1, steps);
const rows = [{ name: `native (${native.backend})`, ...native }];
for (const v of variantsBuilt().filter((v) => v !== 'threads')) {
  const w = sessionBench(await loadModule(v), steps);
  rows.push({ name: `wasm ${v} (${w.backend}, Node ${process.versions.node})`, ...w });
}
console.log(`${'build'.padEnd(36)} ${'train tok/s'.padStart(12)} ${'vs native'.padStart(10)} ${'generate B/s'.padStart(13)}`);
results.set('training', { config: 'S', steps, threads: 1, unit: 'tokens/s (train), bytes/s (generate)',
  rows: rows.map((r) => ({ build: r.name, tokS: r.tokS, vsNative: r.tokS / native.tokS, genBS: r.genBS })) });
for (const r of rows) {
  console.log(`${r.name.padEnd(36)} ${r.tokS.toFixed(0).padStart(12)} ${(r.tokS / native.tokS).toFixed(2).padStart(9)}x ${r.genBS.toFixed(0).padStart(13)}`);
}
// the LSTM: the same builds on lstm-S
const lstmNative = nativeBench(1, steps, 'lstm-S');
const lstm = [{ name: `native (${lstmNative.backend})`, ...lstmNative }];
for (const v of variantsBuilt().filter((v) => v !== 'threads')) {
  const w = sessionBench(await loadModule(v), steps, 1, LSTM_S);
  lstm.push({ name: `wasm ${v} (${w.backend}, Node ${process.versions.node})`, ...w });
}
console.log('\nlstm-S (2L x 256 units, ctx64 b12):');
for (const r of lstm) {
  console.log(`${r.name.padEnd(36)} ${r.tokS.toFixed(0).padStart(12)} ${(r.tokS / lstmNative.tokS).toFixed(2).padStart(9)}x ${r.genBS.toFixed(0).padStart(13)}`);
}
results.set('lstm', { config: 'lstm-S', steps, threads: 1, unit: 'tokens/s (train), bytes/s (generate)',
  rows: lstm.map((r) => ({ build: r.name, tokS: r.tokS, vsNative: r.tokS / lstmNative.tokS, genBS: r.genBS })) });
results.write();
