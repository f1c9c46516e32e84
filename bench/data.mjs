// npm run bench:data — corpora of any size (issue 22): for generated texts of 10 MB, 1 GB and 4 GB
// (BENCH_DATA_SIZES=10M,1G,4G; add 20G for the CLI's memory claim), in the CLI and in the page:
//   - the time from the start (the CLI's launch; the page: the file given to the page) to the
//     first training step;
//   - the bytes of the file read per step (the CLI's own count; the page: the worker's readers);
//   - training tokens/s against the same text in memory (the CLI's --in_memory on; the page: the
//     10 MB text read whole, the only size the page holds in memory), config S;
//   - peak memory: the CLI's anonymous resident memory (RssAnon, sampled every 50 ms from
//     /proc/<pid>/status) and its file pages (RssFile, which the kernel can drop); the page's wasm
//     memory, its JS heap after a garbage collection, and the browser's measure of the page with its workers
//     (performance.measureUserAgentSpecificMemory, made eager by a Blink switch: the workers' JS heaps).
// Each path runs BENCH_DATA_REPEAT times (default 3), alternating, and the medians are reported.
// Separate processes see different loads on a shared machine, so the CLI's ratio is also measured
// inside one process (build/native/data_bench): the same run switching between the two read paths
// every 10 steps for 12 rounds, the median of the rounds' ratios ("interleaved").
// The page's tokens/s are measured twice: while the statistics pass and the copy run (a worker of
// their own: on 2 cores they take one from training) and after them (reading the OPFS copy).
// The texts are tiny Shakespeare over and over (each copy numbered), written to
// build/bench-data/ once and kept. BENCH_DATA_ONLY=cli|page runs one side. Writes
// bench/results/data-<date>.json. Needs `npm run build` (the page) and the native CLI.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openBenchPage } from './page-harness.mjs';
import { benchResults, root } from './results.mjs';

const record = benchResults('data');
const cli = path.join(root, 'build/native/tinygpt');
const sizes = (process.env.BENCH_DATA_SIZES || '10M,1G,4G').split(',').map((s) => {
  const m = /^(\d+)([MG])$/.exec(s.trim());
  if (!m) throw new Error(`BENCH_DATA_SIZES: ${s} is not like 10M or 4G`);
  return { label: `${m[1]} ${m[2]}B`, bytes: Number(m[1]) * (m[2] === 'G' ? 1e9 : 1e6) };
});
const only = process.env.BENCH_DATA_ONLY ?? '';
const STEPS = 60;   // measured training steps per run (after 10 warm-up steps)
const dataDir = path.join(root, 'build/bench-data');

function textFile(bytes) {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `text-${bytes}.txt`);
  if (fs.existsSync(file) && fs.statSync(file).size === bytes) return file;
  const base = fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt'));
  const fd = fs.openSync(file, 'w');
  for (let k = 0, at = 0; at < bytes; k++) {
    const chunk = Buffer.concat([Buffer.from(`\n== copy ${k} ==\n`), base]);
    const n = Math.min(chunk.length, bytes - at);
    fs.writeSync(fd, chunk, 0, n, at);
    at += n;
  }
  fs.closeSync(fd);
  return file;
}

const mib = (b) => (b / 2 ** 20).toFixed(1);

// ---- the CLI ---------------------------------------------------------------------------------

/** One CLI run: config S on `file`; the first step's time, tokens/s of the steps after 10, bytes read a step, peak RssAnon / RssFile. */
function cliRun(file, inMemory) {
  return new Promise((resolve, reject) => {
    const args = ['train', '--preset', 'S', '--data', file, '--max_iters', String(STEPS + 10), '--eval_interval', '0', '--log_interval', '1',
      '--threads', '2', '--stats', 'off', '--history', 'off', '--in_memory', inMemory ? 'on' : 'off'];
    const t0 = performance.now();
    const p = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', first = null, t10 = null, tEnd = null, anon = 0, fileRss = 0;
    const status = () => {
      try {
        const s = fs.readFileSync(`/proc/${p.pid}/status`, 'utf8');
        anon = Math.max(anon, Number(/RssAnon:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024);
        fileRss = Math.max(fileRss, Number(/RssFile:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024);
      } catch {
        // the process has ended
      }
    };
    const timer = setInterval(status, 50);
    p.stdout.on('data', (d) => {
      const now = performance.now();
      out += d;
      for (const m of String(d).matchAll(/step\s+(\d+)\//g)) {
        const s = Number(m[1]);
        if (s >= 1 && first === null) first = now - t0;
        if (s >= 10 && t10 === null) t10 = now;
        if (s >= STEPS + 10) tEnd = now;
      }
    });
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => {
      clearInterval(timer);
      if (code !== 0) return reject(new Error(`tinygpt ${args.join(' ')}: ${err}`));
      const tokens = Number(/batch (\d+)/.exec(out)?.[1]) * Number(/block_size (\d+)/.exec(out)?.[1]);
      const read = /read: (\d+) bytes .* in (\d+) steps/.exec(out);
      resolve({
        firstStepMs: Math.round(first), tokensPerSec: Math.round((STEPS * tokens) / ((tEnd - t10) / 1000)),
        bytesReadPerStep: read ? Math.round(Number(read[1]) / Number(read[2])) : null, rssAnonMiB: Number(mib(anon)), rssFileMiB: Number(mib(fileRss)),
      });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const REPEAT = Number(process.env.BENCH_DATA_REPEAT ?? 3);   // runs of each path, alternating (the machine is shared and noisy)

/** The median of each figure over runs. */
/** build/native/data_bench: the text read where it lies against in memory, switching every 10 steps for 12 rounds. */
function interleaved(file) {
  const r = spawnSync(path.join(root, 'build/native/data_bench'), [file, '--rounds', '12', '--steps', '10', '--threads', '2', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`data_bench ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function medianRun(runs) {
  const out = {};
  for (const k of Object.keys(runs[0])) out[k] = runs[0][k] === null ? null : median(runs.map((r) => r[k]));
  return { ...out, runs: runs.length };
}

async function benchCli() {
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: npm run build:native`);
  const rows = [];
  for (const s of sizes) {
    const file = textFile(s.bytes);
    // where it lies, and read whole (the in-memory path) when that fits comfortably, alternating
    const fits = s.bytes <= os.totalmem() / 4;
    const lies = [], whole = [];
    for (let k = 0; k < REPEAT; k++) {
      lies.push(await cliRun(file, false));
      if (fits) whole.push(await cliRun(file, true));
    }
    const a = medianRun(lies), b = fits ? medianRun(whole) : null;
    // the two read paths in one process, switching every 10 steps (bench/data_bench.cpp): the same load on both
    const ab = fits ? interleaved(file) : null;
    const row = { size: s.label, bytes: s.bytes, whereItLies: a, inMemory: b, tokensPerSecRatio: b ? Number((a.tokensPerSec / b.tokensPerSec).toFixed(3)) : null,
      interleaved: ab };
    rows.push(row);
    console.log(`CLI ${s.label.padStart(6)}: first step ${a.firstStepMs} ms (in memory ${b?.firstStepMs ?? '-'} ms), ` +
      `${a.bytesReadPerStep} bytes read a step, ${a.tokensPerSec} tok/s (in memory ${b?.tokensPerSec ?? '-'}: x${row.tokensPerSecRatio ?? '-'}), ` +
      `RssAnon ${a.rssAnonMiB} MiB (in memory ${b?.rssAnonMiB ?? '-'} MiB), RssFile ${a.rssFileMiB} MiB; medians of ${REPEAT}` +
      (ab ? `; interleaved in one process: x${ab.tokensPerSecRatio.toFixed(3)} (rounds x${ab.ratioMin.toFixed(3)}..x${ab.ratioMax.toFixed(3)}); ` +
        `a batch drawn in ${ab.fileUsPerBatch} us from the file, ${ab.memoryUsPerBatch} us from memory (${(100 * ab.readShareOfStep).toFixed(3)}% of a step)` : ''));
  }
  return rows;
}

// ---- the page --------------------------------------------------------------------------------

async function benchPage() {
  const { base, ctx, page, dbg, waitFor, close } = await openBenchPage('tinygpt-bench-data-', ['--enable-blink-features=ForceEagerMeasureMemory']);
  const rows = [];
  const cdp = await ctx.newCDPSession(page);
  const memory = async () => {
    // what the page keeps, not what waits to be collected: a garbage collection first (as bench:soak)
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    // the workers' JS heaps, as the browser counts them (made eager by the Blink switch; not waited for long)
    const workers = await page.evaluate(() => Promise.race([performance.measureUserAgentSpecificMemory?.()
      .then((m) => m.breakdown.filter((b) => b.attribution.some((a) => a.scope === 'DedicatedWorkerGlobalScope')).reduce((x, b) => x + b.bytes, 0)) ?? null,
    new Promise((r) => setTimeout(() => r(null), 20_000))]).catch(() => null));
    return { wasmMiB: Number(mib(await dbg((d) => d.memoryBytes ?? 0))), pageHeapMiB: heap === null ? null : Number(mib(heap)), workersHeapMiB: workers === null ? null : Number(mib(workers)) };
  };
  /** Steps n0.. n0 + STEPS timed by the wall clock: tokens/s, and the bytes the worker read a step. */
  async function window(stream) {
    const s0 = await dbg((d) => d.step), w0 = Date.now();
    const r0 = stream ? await page.evaluate(() => window.__tinygptTest.corpusBytesRead()) : 0;
    await waitFor((d, n) => d.step >= n, 900_000, s0 + STEPS);
    const s1 = await dbg((d) => d.step), wall = (Date.now() - w0) / 1000;
    const r1 = stream ? await page.evaluate(() => window.__tinygptTest.corpusBytesRead()) : 0;
    const settings = await dbg((d) => d.settings);
    return { tokensPerSec: Math.round(((s1 - s0) * settings.batch_size * settings.block_size) / wall), bytesReadPerStep: stream ? Math.round((r1 - r0) / (s1 - s0)) : 0 };
  }
  async function run(file, stream) {
    await page.goto(`${base}?test-hooks${stream ? '&stream=0' : ''}`);
    await waitFor((d) => !!d.ready, 60_000);
    if (await page.isVisible('#resume-banner')) await page.click('#btn-discard');
    // the page's main-thread tasks over 50 ms from the drop on (the goal: none over 100 ms)
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
    });
    const t0 = Date.now();
    await page.setInputFiles('#corpus-file', file);
    await page.waitForFunction((n) => document.querySelector('#corpus-name')?.textContent === n, path.basename(file), { timeout: 600_000 });
    const takenMs = Date.now() - t0;
    // when the statistics pass (and the copy) end, watched beside the rest
    const passDone = stream ? waitFor((d) => !d.corpus?.scan, 1_800_000).then(() => Date.now() - t0) : Promise.resolve(null);
    await page.click('[data-preset=S]');
    await page.evaluate(() => void (document.querySelector('#settings-more').open = true));   // the knobs' disclosure
    await page.fill('#knob-eval_interval', '0');
    await page.waitForFunction(() => !document.querySelector('#btn-start')?.disabled, null, { timeout: 60_000 });
    await page.click('#btn-start');
    await waitFor((d) => d.step >= 1, 120_000);
    const firstStepMs = Date.now() - t0;
    await waitFor((d) => d.step >= 10, 300_000);
    const during = await window(stream);
    const statisticsDoneMs = await passDone;
    const after = await window(stream);
    await page.click('#btn-start');
    await waitFor((d) => !d.running, 60_000);
    const longTasks = await page.evaluate(() => window.__longTasks);
    const mainThread = { tasksOver50Ms: longTasks.length, longestTaskMs: Math.round(Math.max(0, ...longTasks)) };
    return { takenMs, firstStepMs, statisticsDoneMs, duringPass: during, afterPass: after, mainThread, ...(await memory()) };
  }
  try {
    // the in-memory reference: the smallest text read whole, alternating with its streamed runs
    // (after one run thrown away: the first page of a profile compiles the module)
    const small = textFile(sizes[0].bytes);
    await run(small, false);
    const mem = [], str = [];
    for (let k = 0; k < REPEAT; k++) {
      mem.push(await run(small, false));
      str.push(await run(small, true));
    }
    const tps = (runs, w) => median(runs.map((r) => r[w].tokensPerSec));
    const inMemory = { ...mem[Math.floor(REPEAT / 2)], afterPass: { tokensPerSec: tps(mem, 'afterPass'), bytesReadPerStep: 0 } };
    const ref = inMemory.afterPass.tokensPerSec;
    for (const s of sizes) {
      if (s.bytes > 4.3e9) continue;   // the page's sizes (20G is the CLI's)
      const runs = s === sizes[0] ? str : [await run(textFile(s.bytes), true)];
      const streamed = { ...runs[Math.floor((runs.length - 1) / 2)], duringPass: { ...runs[0].duringPass, tokensPerSec: tps(runs, 'duringPass') },
        afterPass: { ...runs[0].afterPass, tokensPerSec: tps(runs, 'afterPass') }, runs: runs.length };
      const row = { size: s.label, bytes: s.bytes, streamed, inMemory: s === sizes[0] ? inMemory : null,
        tokensPerSecRatioAfterPass: Number((streamed.afterPass.tokensPerSec / ref).toFixed(3)),
        tokensPerSecRatioDuringPass: Number((streamed.duringPass.tokensPerSec / ref).toFixed(3)) };
      rows.push(row);
      console.log(`page ${s.label.padStart(6)}: taken ${streamed.takenMs} ms, first step ${streamed.firstStepMs} ms; ` +
        `${streamed.duringPass.tokensPerSec} tok/s and ${streamed.duringPass.bytesReadPerStep} bytes read a step during the statistics pass and the copy (done at ${(streamed.statisticsDoneMs / 1000).toFixed(1)} s), ` +
        `${streamed.afterPass.tokensPerSec} tok/s and ${streamed.afterPass.bytesReadPerStep} bytes a step after (in memory, ${sizes[0].label}: ${ref} tok/s: x${row.tokensPerSecRatioAfterPass}); ` +
        `wasm ${streamed.wasmMiB} MiB, page heap ${streamed.pageHeapMiB} MiB, workers' heaps ${streamed.workersHeapMiB ?? '-'} MiB; ` +
        `longest main-thread task ${streamed.mainThread.longestTaskMs} ms`);
    }
  } finally {
    await close();
  }
  return rows;
}

console.log(`bench:data — ${os.cpus()[0].model}, ${os.cpus().length} cores; sizes ${sizes.map((s) => s.label).join(', ')}; config S, ${STEPS} timed steps`);
if (only !== 'page') record.set('cli', await benchCli());
if (only !== 'cli') record.set('page', await benchPage());
record.write();
