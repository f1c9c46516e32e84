// results.mjs — every benchmark leaves a file (STYLE.md, "Benchmarks leave a file"):
// bench/results/<name>-<date>.json with the machine (CPU model from /proc/cpuinfo, cores, load
// average at the start and at the end), the exact command line (and the npm script and BENCH_*
// settings it ran under), the git commit and whether the tree was dirty, the date, and the figures.
//
//   import { benchResults } from './results.mjs';
//   const results = benchResults('cpu');     // at the start: date, machine, load, command, commit
//   results.figures.training = rows;         // whatever the bench measured, as plain JSON
//   results.write();                         // at the end: the load again; prints the file's path
//
// When build/native/kernels_bench is built and there are 2 cores or more, the machine record also
// holds the two cores' cross-core figures at the start and at the end (crossCore() below): on a VM
// whose two vCPUs the host places on one die or on two, and moves between, every two-thread
// figure follows them.
// TINYGPT_BENCH_RESULTS_DIR writes elsewhere (the unit test does).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The CPU as /proc/cpuinfo names it, the logical cores, the SIMD extensions the kernels care about.
export function machine() {
  let cpuinfo = '';
  try {
    cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    // not Linux: os.cpus() below
  }
  const field = (name) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(cpuinfo)?.[1]?.trim();
  const flags = new Set((field('flags') ?? '').split(/\s+/));
  return {
    cpu: field('model name') ?? os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    simd: ['sse2', 'avx2', 'fma', 'avx512f', 'avx512bw', 'avx512vl', 'avx512_vnni', 'avx512_bf16'].filter((f) => flags.has(f)),
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    os: `${os.type()} ${os.release()}`,
    node: process.versions.node,
  };
}

// Two threads pinned to CPUs 0 and 1 (kernels_bench --cross-core): the round trip of a message
// between them (ns) and the rate at which one reads 1 MiB the other has just written, against
// 1 MiB it wrote itself (GB/s); null without the native kernels_bench or a second core. Some 0.05 s.
export function crossCore() {
  const exe = path.join(root, 'build/native/kernels_bench');
  if (os.cpus().length < 2 || !fs.existsSync(exe)) return null;
  try {
    const r = JSON.parse(execFileSync(exe, ['--cross-core', '--json'], { encoding: 'utf8', timeout: 20_000 }));
    return r && { pinned: r.pinned, roundTripNs: r.round_trip_ns, otherGBs: r.other_gbs, ownGBs: r.own_gbs };
  } catch {
    return null;  // an older kernels_bench without --cross-core
  }
}

// One line for a bench's header: "cross-core: round trip 92 ns, the other core's data at 0.98x (94.6 of 96.9 GB/s)"
export function describeCrossCore(c) {
  if (!c) return 'cross-core: not measured (build/native/kernels_bench, 2 cores)';
  return `cross-core: round trip ${c.roundTripNs.toFixed(0)} ns, the other core's data at ${(c.otherGBs / c.ownGBs).toFixed(2)}x ` +
    `(${c.otherGBs.toFixed(1)} of ${c.ownGBs.toFixed(1)} GB/s)${c.roundTripNs > 250 ? ': the two cores are far apart (two dies)' : ''}`;
}

// The commit the figures were measured at, and whether the working tree differed from it (earlier
// results files do not count).
export function gitState(cwd = root, env = process.env) {
  // a packed copy without git (scripts/device-pack.sh) carries the state it was packed at
  if (env.TINYGPT_BENCH_GIT) return JSON.parse(env.TINYGPT_BENCH_GIT);
  const git = (...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    const changed = git('status', '--porcelain', '--', '.', ':(exclude)bench/results').split('\n').filter(Boolean);
    return { commit, dirty: changed.length > 0, ...(changed.length ? { changed: changed.slice(0, 40) } : {}) };
  } catch {
    return { commit: null, dirty: null };
  }
}

const quote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

// The command as one would type it again from the repository root, the npm script it came from,
// and the settings that change what a bench measures (BENCH_*, TINYGPT_*, the Vulkan driver).
export function invocation(argv = process.argv, env = process.env) {
  const rel = (p) => (path.isAbsolute(p) && p.startsWith(root + path.sep) ? path.relative(root, p) : p);
  const command = ['node', ...argv.slice(1).map(rel)].map(quote).join(' ');
  const settings = Object.fromEntries(Object.entries(env)
    .filter(([k]) => /^(BENCH_|TINYGPT_)/.test(k) || ['VK_ICD_FILENAMES', 'VK_DRIVER_FILES', 'CHROMIUM'].includes(k))
    .filter(([k]) => k !== 'TINYGPT_BENCH_RESULTS_DIR' && k !== 'TINYGPT_BENCH_CHILD' && k !== 'TINYGPT_BENCH_GIT')
    .sort());
  return {
    command,
    ...(env.npm_lifecycle_event ? { npm: { script: env.npm_lifecycle_event, runs: env.npm_lifecycle_script } } : {}),
    ...(Object.keys(settings).length ? { env: settings } : {}),
  };
}

// 2026-11-25T214012Z: sorts by time, one file per run
export const stamp = (d) => d.toISOString().replace(/:/g, '').replace(/\.\d+Z$/, 'Z');

export function benchResults(name, { argv = process.argv, env = process.env } = {}) {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`bench results name '${name}': lower case, digits and '-'`);
  const started = new Date();
  const loadStart = os.loadavg();
  const crossStart = crossCore();
  const head = { name, date: started.toISOString(), ...invocation(argv, env), git: gitState(root, env), machine: machine() };
  const figures = {};
  let written = null;
  return {
    figures,
    // results.set('training', rows) returns rows
    set(key, value) {
      figures[key] = value;
      return value;
    },
    write() {
      const finished = new Date();
      const load = (l) => l.map((x) => Number(x.toFixed(2)));
      const data = {
        ...head,
        seconds: Number(((finished - started) / 1000).toFixed(1)),
        machine: {
          ...head.machine,
          loadAverage: { start: load(loadStart), end: load(os.loadavg()) },
          ...(crossStart ? { crossCore: { start: crossStart, end: crossCore() } } : {}),
        },
        figures,
      };
      const dir = env.TINYGPT_BENCH_RESULTS_DIR || path.join(root, 'bench/results');
      fs.mkdirSync(dir, { recursive: true });
      written = path.join(dir, `${name}-${stamp(started)}.json`);
      fs.writeFileSync(written, `${JSON.stringify(data, null, 2)}\n`);
      const shown = path.relative(process.cwd(), written);
      console.log(`\nresults: ${shown.startsWith('..') ? written : shown}`);
      return written;
    },
    // the cross-core figures measured when the bench started (null where not measured)
    crossCore: crossStart,
    get file() {
      return written;
    },
  };
}
