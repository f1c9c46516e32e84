// npm run bench:bpe — bytes against BPE vocabularies of 512, 1,024 and 4,096 at equal wall time:
// config S on tiny Shakespeare, trained by the native CLI on one thread, each run given the same
// seconds of training. A short calibration run measures each vocabulary's steps a second (a larger
// head costs more), then the run's schedule (max_iters, warmup a tenth of it up to 100) is sized to
// the time, so every run ends its cosine decay when its time is up. The figure is the validation
// loss at the end in bits per byte (nats per token x tokens per byte / ln 2: docs/tokenizer.md,
// section 12), the unit in which vocabularies compare; the vocabulary is learned from the
// training split first (not counted in the time). Natively rather than in the page: the page
// harness on two shared cores would spend most of the budget waiting for the machine, and the
// core is the same code (the page's wasm build is about 1.5-2x slower, the same for every run).
//   BENCH_SECONDS=60    training seconds per run (default 60)
//   BENCH_VOCABS=256,512,1024,4096
//   BENCH_THREADS=1
// Writes bench/results/bpe-<date>.json (bench/results.mjs).
import { spawnSync } from 'node:child_process';
import os from 'node:os';

import { cliPath } from '../tests/wasm/helpers.mjs';
import { benchResults } from './results.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const vocabs = (process.env.BENCH_VOCABS ?? '256,512,1024,4096').split(',').map(Number);
const threads = String(process.env.BENCH_THREADS ?? 1);
const TOKENS_PER_STEP = 12 * 64;   // config S: batch 12, context 64
const record = benchResults('bpe');
record.set('options', { preset: 'S', text: 'data/tinyshakespeare.txt', seconds, vocabs, threads: Number(threads) });
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

function train(vocab, extra) {
  const args = ['train', '--preset', 'S', '--threads', threads, '--stats', 'off', ...(vocab > 256 ? ['--vocab_size', String(vocab)] : []), ...extra];
  const r = spawnSync(cliPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`tinygpt ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

const lastNumber = (re, out) => Number([...out.matchAll(re)].at(-1)?.[1]);

console.log(`bench:bpe — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${load()}; config S, ${seconds} s of training each, ${threads} thread(s)`);
console.log(`${'vocabulary'.padEnd(11)} ${'tok/byte'.padStart(8)} ${'steps'.padStart(6)} ${'seconds'.padStart(8)} ${'MB seen'.padStart(8)} ${'val nats/tok'.padStart(12)} ${'val bpb'.padStart(8)}`);
const rows = [];
for (const vocab of vocabs) {
  // calibration: the pace of this vocabulary's steps
  const calib = train(vocab, ['--max_iters', '60', '--warmup_iters', '6', '--eval_interval', '60', '--eval_iters', '1', '--log_interval', '20']);
  const tokPerS = lastNumber(/(\d+) tok\/s/g, calib);
  const steps = Math.max(100, Math.round((seconds * tokPerS) / TOKENS_PER_STEP));
  const out = train(vocab, ['--max_iters', String(steps), '--warmup_iters', String(Math.min(100, Math.round(steps / 10))), '--eval_interval', String(steps),
    '--eval_iters', '20', '--log_interval', String(steps)]);
  const m = /final val loss ([\d.]+) \(([\d.]+) bpb\)/.exec(out);
  const tpb = vocab > 256 ? lastNumber(/validation text has ([\d.]+) tokens per byte/g, out) : 1;
  const trained = /trained in (?:(\d+)m)?(\d+)s/.exec(out);
  const secs = trained ? Number(trained[1] ?? 0) * 60 + Number(trained[2]) : NaN;
  const row = { vocab, tokenizer: vocab > 256 ? 'bpe' : 'bytes', tokensPerByte: tpb, calibrationTokensPerSecond: tokPerS, steps, seconds: secs,
    bytesSeen: Math.round((steps * TOKENS_PER_STEP) / tpb), valNatsPerToken: Number(m?.[1]), valBitsPerByte: Number(m?.[2]), loadAverage: os.loadavg()[0] };
  rows.push(row);
  console.log(`${(vocab > 256 ? `BPE ${vocab}` : 'bytes').padEnd(11)} ${tpb.toFixed(4).padStart(8)} ${String(steps).padStart(6)} ${String(secs).padStart(8)} ` +
    `${(row.bytesSeen / 1e6).toFixed(2).padStart(8)} ${row.valNatsPerToken.toFixed(4).padStart(12)} ${row.valBitsPerByte.toFixed(3).padStart(8)}`);
}
record.set('runs', rows);
record.write();
console.log(`load average at the end ${load()}`);
