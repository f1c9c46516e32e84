// npm run bench:fuzz — how much each reader's fuzzer runs in its CI time: every reader of
// tests/fuzz/fuzz_readers.cpp for BENCH_FUZZ_SECONDS (default 20, as CTest runs them), one after the
// other, with libFuzzer's own count of executions and the coverage it reached (tests/fuzz/run.sh,
// after tests/sanitize.sh). Writes bench/results/fuzz-<date>.json (bench/results.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { benchResults, root } from './results.mjs';

const record = benchResults('fuzz');
const seconds = Number(process.env.BENCH_FUZZ_SECONDS ?? 20);
const source = fs.readFileSync(path.join(root, 'tests/fuzz/fuzz_readers.cpp'), 'utf8');
const table = source.slice(source.indexOf('kReaders[] = {'), source.indexOf('};', source.indexOf('kReaders[] = {')));
const readers = [...table.matchAll(/\{"([a-z0-9_]+)"/g)].map((m) => m[1]);
execFileSync('bash', [path.join(root, 'tests/sanitize.sh')], { cwd: root, stdio: 'inherit' });
console.log(`bench:fuzz — ${readers.length} readers, ${seconds} s each, ${os.cpus()[0].model}, load average ${os.loadavg()[0].toFixed(2)}`);
const rows = [];
for (const reader of readers) {
  const r = spawnSync('bash', [path.join(root, 'tests/fuzz/run.sh'), reader, String(seconds)], { cwd: root, encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`;
  const stat = (name) => Number(new RegExp(`stat::${name}:\\s*(\\d+)`).exec(out)?.[1] ?? NaN);
  const cov = /cov: (\d+) ft: (\d+)/g;
  let last = null;
  for (let m; (m = cov.exec(out));) last = m;
  const row = { reader, seconds, ok: r.status === 0, executions: stat('number_of_executed_units'), execsPerSec: stat('average_exec_per_sec'),
    peakRssMb: stat('peak_rss_mb'), coverage: last ? Number(last[1]) : null, features: last ? Number(last[2]) : null,
    seeds: fs.readdirSync(path.join(root, 'tests/fuzz/corpus', reader)).length };
  rows.push(row);
  console.log(`  ${reader.padEnd(12)} ${row.ok ? 'ok     ' : 'FAILED '} ${String(row.executions).padStart(9)} executions (${row.execsPerSec}/s), coverage ${row.coverage} edges, ${row.features} features, from ${row.seeds} seeds`);
  if (!row.ok) console.log(out.split('\n').filter((l) => /ERROR|promise|SUMMARY|crash-/.test(l)).join('\n'));
}
record.set('fuzz', rows);
record.write();
process.exit(rows.every((r) => r.ok) ? 0 : 1);
