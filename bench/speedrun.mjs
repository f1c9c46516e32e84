// npm run bench:speedrun — the steps to quality, natively: each setup is trained by the CLI on tiny
// Shakespeare until its validation loss first reaches 1.90 nats per byte (nats per token x the
// validation text's tokens per byte, so that a BPE vocabulary compares with bytes), evaluated every
// BENCH_EVERY steps (default 25, the fast preset's own). The step of the crossing does not depend on
// the machine's load (runs are deterministic for any thread count); the seconds do, and are printed
// with the tokens/s beside them. This is where a recipe is explored before the page confirms it
// (npm run bench:page, time to quality).
//   BENCH_SETUPS=fast,S,...   presets, or a preset with CLI flags: "fast --vocab_size 8192" (default: fast,S)
//   BENCH_THREADS=1           threads of each run (the crossing's step is the same for any count)
//   BENCH_PARALLEL=1          runs at once (on a machine of many cores)
// Writes bench/results/speedrun-<date>.json (bench/results.mjs).
import { spawn } from 'node:child_process';
import os from 'node:os';

import { cliPath } from '../tests/wasm/helpers.mjs';
import { benchResults } from './results.mjs';

const TARGET = 1.9;   // nats per byte
const setups = (process.env.BENCH_SETUPS ?? 'fast,S').split(',').map((s) => s.trim()).filter(Boolean);
const every = String(process.env.BENCH_EVERY ?? 25);
const threads = String(process.env.BENCH_THREADS ?? 1);
const parallel = Math.max(1, Number(process.env.BENCH_PARALLEL ?? 1));
const record = benchResults('speedrun');
record.set('options', { target: TARGET, unit: 'nats per byte', evalInterval: Number(every), threads: Number(threads), setups });

// Trains one setup until the crossing (then stops it) or the end of its schedule.
function run(setup) {
  const [preset, ...flags] = setup.split(/\s+/);
  const args = ['train', '--preset', preset, ...flags, '--threads', threads, '--stats', 'off', '--log_interval', '1000000000', '--eval_interval', every];
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tpb = 1, buf = '', err = '', trainingFrom = null;
    const row = { setup, reached: false, step: null, natsPerByte: null, seconds: null, trainingSeconds: null, tokS: null, tokensPerByte: 1, curve: [] };
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const t = /validation text has ([\d.]+) tokens per byte/.exec(line);
        if (t) row.tokensPerByte = tpb = Number(t[1]);
        if (trainingFrom === null && /^step\s+0\//.test(line)) trainingFrom = Date.now();   // the step-0 evaluation: the tokenizer and the data are ready
        const m = /^step\s+(\d+)\/\d+ .*\| val ([\d.]+).*?(\d+) tok\/s/.exec(line);
        if (!m) continue;
        const step = Number(m[1]), perByte = Number(m[2]) * tpb;
        row.curve.push([step, Number(perByte.toFixed(4))]);
        row.tokS = Number(m[3]);
        if (!row.reached && perByte <= TARGET) {
          Object.assign(row, { reached: true, step, natsPerByte: perByte, seconds: (Date.now() - t0) / 1000, trainingSeconds: (Date.now() - trainingFrom) / 1000 });
          child.kill('SIGTERM');
        }
      }
    });
    child.on('close', (code, signal) => {
      if (!row.reached && code !== 0) reject(new Error(`tinygpt ${args.join(' ')} failed (${code ?? signal}):\n${err}`));
      else resolve(row);
    });
  });
}

console.log(`bench:speedrun — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}; ` +
  `steps to val <= ${TARGET} nats/byte, an evaluation every ${every} steps, ${threads} thread(s) a run, ${parallel} at once`);
const rows = [];
const queue = [...setups];
await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, async () => {
  while (queue.length) {
    const row = await run(queue.shift());
    rows.push(row);
    console.log(`  ${row.setup.padEnd(34)} ` + (row.reached
      ? `step ${String(row.step).padStart(5)} (val ${row.natsPerByte.toFixed(4)} nats/byte), ${row.seconds.toFixed(0)} s from the start, ${row.tokS} tok/s at the end; load average ${os.loadavg()[0].toFixed(2)}`
      : `not reached: ${row.curve.at(-1)?.[1]} nats/byte at step ${row.curve.at(-1)?.[0]}`));
  }
}));
record.set('runs', setups.map((s) => rows.find((r) => r.setup === s)));
record.write();
