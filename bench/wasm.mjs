// npm run bench:wasm — training tokens/s on config S (4 layers, 4 heads, width 128, context 64,
// batch 12) for the native CLI and the wasm builds under Node, measured in one run, with ratios.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

import { cliPath, loadModule, shakespeare, variantsBuilt } from '../tests/wasm/helpers.mjs';

const S = { layers: 4, heads: 4, width: 128, context: 64, batch: 12, steps: 1000, warmup: 10 };
const steps = Number(process.env.BENCH_STEPS || 20);
const tokensPerStep = S.batch * S.context;

function nativeTokensPerSecond(threads) {
  const r = spawnSync(cliPath, ['bench', '--config', 'S', '--threads', String(threads), '--steps', String(steps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const line = r.stdout.split('\n').find((l) => l.startsWith('S '));
  const cols = line.trim().split(/\s+/);
  return { tokS: Number(cols[cols.length - 3]), genBS: Number(cols[cols.length - 1]), backend: /: (\S+) kernels/.exec(r.stdout)[1] };
}

async function wasmTokensPerSecond(variant) {
  const M = await loadModule(variant);
  const s = new M.Session(S);
  s.setCorpus(shakespeare);
  s.train(3);  // warm-up: JIT tiers, arena sizing
  const r = s.train(steps);
  const tokS = (steps * tokensPerStep) / (r.elapsedMs / 1000);
  // generation: several windows' worth (default window policy: rebuild every half context)
  const n = 4 * S.context + 64;
  const t0 = performance.now();
  s.generate(new TextEncoder().encode('\n'), n, { seed: 1 });
  const genBS = n / ((performance.now() - t0) / 1000);
  const mem = M.memoryBytes();
  s.delete();
  return { tokS, genBS, backend: M.backend(), mem };
}

if (!fs.existsSync(cliPath)) throw new Error('build the native CLI first: npm run build:native');
const load = os.loadavg()[0].toFixed(2);
console.log(`bench:wasm — config S (4L 4H 128w ctx64 b12), ${steps} timed steps, 1 thread, load average ${load}, ${os.cpus()[0].model}`);
const native = nativeTokensPerSecond(1);
const rows = [{ name: `native (${native.backend})`, ...native }];
for (const v of variantsBuilt().filter((v) => v !== 'threads')) {
  const w = await wasmTokensPerSecond(v);
  rows.push({ name: `wasm ${v} (${w.backend}, Node ${process.versions.node})`, ...w });
}
console.log(`${'build'.padEnd(36)} ${'train tok/s'.padStart(12)} ${'vs native'.padStart(10)} ${'generate B/s'.padStart(13)}`);
for (const r of rows) {
  console.log(`${r.name.padEnd(36)} ${r.tokS.toFixed(0).padStart(12)} ${(r.tokS / native.tokS).toFixed(2).padStart(9)}x ${r.genBS.toFixed(0).padStart(13)}`);
}
