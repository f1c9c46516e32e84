// npm run bench:translators — the two translators side by side on every built-in task: the seed's
// Transformer (seq2seq, the preset each task is meant for) and the LSTM encoder-decoder with
// attention (lstm_seq2seq, preset s2s-lstm), each trained by the native CLI on the task's pairs
// for the same number of steps; the held-out exact match and character error rate of greedy
// translations at the end (every held-out pair: eval_iters 10 x batch 32 >= 300), the parameters
// and the wall-clock time. The steps are deterministic; the seconds depend on the machine's load.
//   BENCH_TASKS=reverse,dates   only these (default: all four)
//   BENCH_STEPS=2000            the schedule of every run (default: 2000)
// Writes bench/results/translators-<date>.json (bench/results.mjs).
import { spawnSync } from 'node:child_process';
import os from 'node:os';

import { cliPath } from '../tests/wasm/helpers.mjs';
import { benchResults } from './results.mjs';

const PRESET = { 'zh-en': 's2s-small', reverse: 's2s-tiny', numbers: 's2s-base', dates: 's2s-base' };
const tasks = (process.env.BENCH_TASKS ?? Object.keys(PRESET).join(',')).split(',').filter(Boolean);
const steps = Number(process.env.BENCH_STEPS ?? 2000);
const record = benchResults('translators');
record.set('options', { tasks, steps, evalIters: 10, threads: 2 });
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`bench:translators — ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${load()}; ${steps} steps per run`);
console.log(`${'task'.padEnd(8)} ${'translator'.padEnd(30)} ${'params'.padStart(9)} ${'exact'.padStart(7)} ${'CER'.padStart(6)} ${'seconds'.padStart(8)}`);
const rows = [];
for (const task of tasks)
  for (const preset of [PRESET[task], 's2s-lstm']) {
    const t0 = Date.now();
    const r = spawnSync(cliPath, ['train', '--preset', preset, '--task', task, '--max_iters', String(steps), '--warmup_iters', '100',
      '--eval_interval', String(steps), '--eval_iters', '10', '--log_interval', String(steps), '--threads', '2'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tinygpt train --preset ${preset} --task ${task} failed:\n${r.stderr}${r.stdout}`);
    const seconds = (Date.now() - t0) / 1000;
    const m = /exact ([\d.]+)% CER ([\d.]+)%/.exec(r.stdout.split('\n').filter((l) => l.includes('exact')).at(-1) ?? '');
    const params = Number(/: (\d+) parameters/.exec(r.stdout)?.[1]);
    const kind = /model: (\S+),/.exec(r.stdout)?.[1];
    const row = { task, preset, model: kind, parameters: params, steps, exactMatch: m ? Number(m[1]) / 100 : null, cer: m ? Number(m[2]) / 100 : null,
      seconds: Number(seconds.toFixed(1)) };
    rows.push(row);
    console.log(`${task.padEnd(8)} ${`${kind} (${preset})`.padEnd(30)} ${String(params).padStart(9)} ${m ? `${m[1]}%`.padStart(7) : '-'.padStart(7)} ${m ? `${m[2]}%`.padStart(6) : '-'.padStart(6)} ${seconds.toFixed(0).padStart(8)}`);
  }
record.set('runs', rows);
record.write();
console.log(`load average at the end ${load()}`);
