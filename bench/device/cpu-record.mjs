// Turns the log of bench/device/cpu-run.sh (run on the lent GPU machine's CPU) into a
// bench/results file: node bench/device/cpu-record.mjs LOG [BASE_COMMIT]
// The file's `machine` is this machine's (where it was recorded); `device` holds the CPU the
// figures come from (its lscpu lines), and `git` the commit of this build.
import fs from 'node:fs';
import { benchResults } from '../results.mjs';

const [log, baseCommit = null] = process.argv.slice(2);
if (!log) throw new Error('usage: node bench/device/cpu-record.mjs LOG [BASE_COMMIT]');
const lines = fs.readFileSync(log, 'utf8').split('\n');
const results = benchResults('device-cpu');
results.set('device', { lscpu: lines.filter((l) => /^(Model name|CPU\(s\)):/.test(l)).map((l) => l.replace(/\s+/g, ' ')) });
const runs = [];
let tokenizer = null;
for (let i = 0; i < lines.length; i++) {
  const m = /^== round (\d+) (\S+) (\S+)/.exec(lines[i]);
  if (m) runs.push({ round: Number(m[1]), build: m[2] === 'seq2seq_bench_base' ? 'base' : 'this', ...JSON.parse(lines[i + 1]) });
  if (lines[i] === '== tokenizer_bench') tokenizer = JSON.parse(lines[i + 1]);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = {};
for (const build of ['base', 'this'])
  for (const backend of ['avx512', 'avx2'])
    for (const threads of [1, 2]) {
      const rows = runs.filter((r) => r.build === build && r.backend === backend).map((r) => r.runs.find((x) => x.threads === threads));
      if (!rows.length) continue;
      summary[`${build} ${backend} ${threads}T`] = {
        percent_of_peak: median(rows.map((r) => r.percent_of_peak)),
        step_ms: median(rows.map((r) => r.step_ms)),
        tokens_per_s: median(rows.map((r) => r.tokens_per_s)),
      };
    }
results.set('seq2seq', { base_commit: baseCommit, rounds: runs, median: summary });
if (tokenizer) results.set('tokenizer', tokenizer);
console.table(summary);
if (tokenizer) console.log(JSON.stringify(tokenizer.vocabularies.map((v) => [v.vocab, v.train_mb_s, v.encode_mb_s])), 'gpt2', tokenizer.gpt2.encode_mb_s);
results.write();
