// Measurements shared by bench/run.mjs (npm run bench) and bench/wasm.mjs (npm run bench:wasm):
// config S, the native CLI's own benchmark, and a timed wasm Session.
import { spawnSync } from 'node:child_process';

import { cliPath, shakespeare } from '../tests/wasm/helpers.mjs';

export const S = { layers: 4, heads: 4, width: 128, context: 64, batch: 12 };
export const tokensPerStep = S.batch * S.context;

// `tinygpt bench --config S`: training tokens/s, generation bytes/s and the kernels it picked.
export function nativeBench(threads, steps) {
  const r = spawnSync(cliPath, ['bench', '--config', 'S', '--threads', String(threads), '--steps', String(steps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tinygpt bench failed:\n${r.stderr}${r.stdout}`);
  const cols = r.stdout.split('\n').find((l) => l.startsWith('S ')).trim().split(/\s+/);
  return { tokS: Number(cols[cols.length - 3]), genBS: Number(cols[cols.length - 1]), backend: /: (\S+) kernels/.exec(r.stdout)[1] };
}

// Trains config S in a wasm module (3 warm-up steps: JIT tiers, arena), then generates several
// windows' worth of bytes with the default window policy.
export function sessionBench(M, steps, threads = 1) {
  if (threads > 1 || M.maxThreads() > 1) M.setThreads(threads);
  const s = new M.Session({ ...S, steps: 1000, warmup: 10 });
  s.setCorpus(shakespeare);
  s.train(3);
  const r = s.train(steps);
  const n = 4 * S.context + 64;
  const t0 = performance.now();
  s.generate(new TextEncoder().encode('\n'), n, { seed: 1 });
  const genBS = n / ((performance.now() - t0) / 1000);
  s.delete();
  return { tokS: (steps * tokensPerStep) / (r.elapsedMs / 1000), genBS, backend: M.backend() };
}
