// Turns the log of bench/device/threads-run.sh or variants-run.sh (run on the lent GPU machine's
// CPU) into a bench/results file: node bench/device/threads-record.mjs LOG [NOTE]
// NOTE: what the builds compared are (an A/B's base, the variants' -D settings).
// The file's `machine` is this machine's (where it was recorded); `device` holds the CPU the
// figures come from (its lscpu lines), and `git` the commit of this build.
import fs from 'node:fs';
import { benchResults } from '../results.mjs';

const [log, note = null] = process.argv.slice(2);
if (!log) throw new Error('usage: node bench/device/threads-record.mjs LOG [NOTE]');
const lines = fs.readFileSync(log, 'utf8').split('\n');
const results = benchResults('device-threads');
results.set('device', {
  lscpu: lines.filter((l) => /^(Model name|CPU\(s\)|Thread\(s\) per core|L2 cache|L3 cache):/.test(l)).map((l) => l.replace(/\s+/g, ' ')),
});
const seq2seq = [], profiles = [], train = [];
let tests = null;
for (let i = 0; i < lines.length; i++) {
  let m;
  if (lines[i] === '== tests') tests = lines[i + 1];
  // "== seq2seq [BUILD] BACKEND THREADS" (BUILD: base or this in an A/B, a variant's name)
  if ((m = /^== seq2seq (?:(\S+) )?(\S+) (\d+)$/.exec(lines[i]))) {
    const r = JSON.parse(lines[i + 1]);
    seq2seq.push({ build: m[1] || 'this', backend: r.backend, peak_gflops: r.peak_gflops, ...r.runs[0] });
  }
  if ((m = /^== profile (?:(\S+) )?(\S+) (\d+)$/.exec(lines[i]))) {
    const text = [];
    for (let j = i + 1; j < lines.length && lines[j] !== '== end profile'; j++) text.push(lines[j]);
    profiles.push({ build: m[1] || 'this', backend: m[2], threads: Number(m[3]), text });
  }
  if ((m = /^== train (?:(\S+) )?(\S+) (\d+)$/.exec(lines[i]))) train.push({ build: m[1] || 'this', ...JSON.parse(lines[i + 1]) });
}
// speed-up over one thread of the same build, backend or config and round (the n-th such row);
// rows of a build, backend or config that was not run with one thread have none
const speedup = (rows, key, group, value) =>
  rows.flatMap((r) => {
    const same = rows.filter((x) => x.build === r.build && x[group] === r[group]);
    const ones = same.filter((x) => Number(x.threads) === 1), these = same.filter((x) => Number(x.threads) === Number(r.threads));
    const one = ones[Math.min(ones.length - 1, these.indexOf(r))];
    return one ? [{ build: r.build, [group]: r[group], threads: Number(r.threads), [key]: Number((r[value] / one[value]).toFixed(2)) }] : [];
  });
results.set('tests', tests);
if (note) results.set('note', note);
results.set('seq2seq', { rows: seq2seq, speedup: speedup(seq2seq, 'speedup', 'backend', 'tokens_per_s') });
results.set('profiles', profiles);
results.set('train', { rows: train, speedup: speedup(train, 'speedup', 'config', 'tok_s') });
console.log(tests);
console.table(seq2seq.map((r) => ({ build: r.build, backend: r.backend, threads: r.threads, step_ms: r.step_ms, tokens_per_s: r.tokens_per_s, gflops: r.gflops, percent_of_peak: r.percent_of_peak })));
console.table(train.map((r) => ({ build: r.build, config: r.config, threads: r.threads, tok_s: r.tok_s })));
results.write();
