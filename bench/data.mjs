// npm run bench:data — corpora of any size (issue 22): for generated texts of 10 MB, 1 GB and 4 GB
// (BENCH_DATA_SIZES=10M,1G,4G; add 20G for the CLI's memory claim), in the CLI and in the page:
//   - the time from the start (the CLI's launch; the page: the file given to the page) to the
//     first training step;
//   - the bytes of the file read per step (the CLI's own count; the page: the worker's readers);
//   - training tokens/s against the same text in memory (the CLI's --in_memory on; the page: the
//     10 MB text read whole, the only size the page holds in memory), config S;
//   - peak memory: the CLI's anonymous resident memory (RssAnon, sampled every 50 ms from
//     /proc/<pid>/status) and its file pages (RssFile, which the kernel can drop); the page's wasm
//     memory, its JS heap, and the browser's measure of the page with its workers
//     (performance.measureUserAgentSpecificMemory).
// The texts are tiny Shakespeare over and over (each copy numbered), written to
// build/bench-data/ once and kept. BENCH_DATA_ONLY=cli|page runs one side. Writes
// bench/results/data-<date>.json. Needs `npm run build` (the page) and the native CLI.
import { spawn } from 'node:child_process';
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

async function benchCli() {
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: npm run build:native`);
  const rows = [];
  for (const s of sizes) {
    const file = textFile(s.bytes);
    // where it lies, then read whole (the in-memory path) when that fits comfortably
    const lies = await cliRun(file, false);
    const whole = s.bytes <= os.totalmem() / 4 ? await cliRun(file, true) : null;
    const row = { size: s.label, bytes: s.bytes, whereItLies: lies, inMemory: whole, tokensPerSecRatio: whole ? Number((lies.tokensPerSec / whole.tokensPerSec).toFixed(3)) : null };
    rows.push(row);
    console.log(`CLI ${s.label.padStart(6)}: first step ${lies.firstStepMs} ms (in memory ${whole?.firstStepMs ?? '-'} ms), ` +
      `${lies.bytesReadPerStep} bytes read a step, ${lies.tokensPerSec} tok/s (in memory ${whole?.tokensPerSec ?? '-'}: x${row.tokensPerSecRatio ?? '-'}), ` +
      `RssAnon ${lies.rssAnonMiB} MiB (in memory ${whole?.rssAnonMiB ?? '-'} MiB), RssFile ${lies.rssFileMiB} MiB`);
  }
  return rows;
}

// ---- the page --------------------------------------------------------------------------------

async function benchPage() {
  const { base, ctx, page, dbg, waitFor, close } = await openBenchPage('tinygpt-bench-data-');
  const rows = [];
  const memory = async () => {
    const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    // the page with its workers, as the browser counts it (resolves at a garbage collection; not waited for long)
    const ua = await page.evaluate(() => Promise.race([performance.measureUserAgentSpecificMemory?.().then((m) => m.bytes) ?? null,
      new Promise((r) => setTimeout(() => r(null), 20_000))]));
    return { wasmMiB: Number(mib(await dbg((d) => d.memoryBytes ?? 0))), pageHeapMiB: heap === null ? null : Number(mib(heap)), pageAndWorkersMiB: ua === null ? null : Number(mib(ua)) };
  };
  async function run(file, stream) {
    await page.goto(`${base}?test-hooks${stream ? '&stream=0' : ''}`);
    await waitFor((d) => !!d.ready, 60_000);
    if (await page.isVisible('#resume-banner')) await page.click('#btn-discard');
    const t0 = Date.now();
    await page.setInputFiles('#corpus-file', file);
    await page.waitForFunction((n) => document.querySelector('#corpus-name')?.textContent === n, path.basename(file), { timeout: 600_000 });
    const takenMs = Date.now() - t0;
    await page.click('[data-preset=S]');
    await page.fill('#knob-eval_interval', '0');
    await page.waitForFunction(() => !document.querySelector('#btn-start')?.disabled, null, { timeout: 60_000 });
    await page.click('#btn-start');
    await waitFor((d) => d.step >= 1, 120_000);
    const firstStepMs = Date.now() - t0;
    await waitFor((d) => d.step >= 10, 300_000);
    const s0 = await dbg((d) => d.step), r0 = await page.evaluate(() => window.__tinygptTest.corpusBytesRead()), w0 = Date.now();
    await waitFor((d, n) => d.step >= n, 900_000, s0 + STEPS);
    const s1 = await dbg((d) => d.step), r1 = await page.evaluate(() => window.__tinygptTest.corpusBytesRead()), wall = (Date.now() - w0) / 1000;
    const settings = await dbg((d) => d.settings);
    const tokensPerSec = Math.round(((s1 - s0) * settings.batch_size * settings.block_size) / wall);
    await page.click('#btn-start');
    await waitFor((d) => !d.running, 60_000);
    // the statistics pass and the copy: how long they take (training went on meanwhile)
    const scan0 = Date.now();
    await waitFor((d) => !d.corpus?.scan, 1_800_000);
    const scanMs = Date.now() - t0;
    const mem = await memory();
    return { takenMs, firstStepMs, tokensPerSec, bytesReadPerStep: stream ? Math.round((r1 - r0) / (s1 - s0)) : 0, statisticsDoneMs: scanMs, waitedForStatisticsMs: Date.now() - scan0, ...mem };
  }
  try {
    let inMemory = null;
    for (const s of sizes) {
      if (s.bytes > 4.3e9) continue;   // the page's sizes (20G is the CLI's)
      const file = textFile(s.bytes);
      if (s.bytes <= 64 * 2 ** 20) inMemory = await run(file, false);
      const streamed = await run(file, true);
      const row = { size: s.label, bytes: s.bytes, streamed, inMemory: s.bytes <= 64 * 2 ** 20 ? inMemory : null,
        tokensPerSecRatio: inMemory ? Number((streamed.tokensPerSec / inMemory.tokensPerSec).toFixed(3)) : null };
      rows.push(row);
      console.log(`page ${s.label.padStart(6)}: taken ${streamed.takenMs} ms, first step ${streamed.firstStepMs} ms, ${streamed.bytesReadPerStep} bytes read a step, ` +
        `${streamed.tokensPerSec} tok/s (in memory, 10 MB: ${inMemory?.tokensPerSec ?? '-'}: x${row.tokensPerSecRatio ?? '-'}), statistics and copy done at ${(streamed.statisticsDoneMs / 1000).toFixed(1)} s; ` +
        `wasm ${streamed.wasmMiB} MiB, page heap ${streamed.pageHeapMiB} MiB, page + workers ${streamed.pageAndWorkersMiB ?? '-'} MiB`);
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
