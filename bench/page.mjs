// npm run bench:page — the page itself, in headless Chromium (Debian's, driven by playwright-core):
//   1. config S ("small" preset) tokens/s with the single-thread SIMD build and the threaded
//      build, measured in steady state (after warm-up) from the page's own step counter;
//   2. time to quality: from clicking Start to a validation loss <= 1.90 with the default
//      build (threads when cross-origin isolated), on nanoGPT's CPU schedule (the preset);
//   3. generation bytes/s with the KV cache.
// Serves dist/ with `vite preview` (COOP/COEP headers) on a free port. Needs `npm run build`.
//   BENCH_SKIP_QUALITY=1 skips the (minutes long) time-to-quality run.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';

import { chromiumPath } from '../scripts/chromium.mjs';
import { root } from '../tests/wasm/helpers.mjs';

if (!fs.existsSync(path.join(root, 'dist/index.html'))) throw new Error('dist/ is missing: run npm run build first');

const port = await new Promise((resolve, reject) => {
  const srv = net.createServer();
  srv.on('error', reject);
  srv.listen(0, '127.0.0.1', () => {
    const { port } = srv.address();
    srv.close(() => resolve(port));
  });
});
const server = await preview({
  configFile: path.join(root, 'web/vite.config.ts'),
  logLevel: 'warn',
  preview: { port, host: '127.0.0.1', strictPort: true, open: false },
});
const base = `http://127.0.0.1:${port}/`;
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-bench-'));
const ctx = await chromium.launchPersistentContext(userDataDir, {
  executablePath: chromiumPath(),
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
});
const page = ctx.pages()[0] ?? (await ctx.newPage());
// Runs fn(state, arg) in the page on the page store's state (window.__tinygpt.get()); fn is sent
// as source: it cannot close over locals.
const dbg = (fn, arg) => page.evaluate(({ src, arg }) => (0, eval)(`(${src})`)(window.__tinygpt.get(), arg), { src: fn.toString(), arg });
async function waitFor(pred, timeoutMs, arg) {
  const t0 = Date.now();
  while (!(await dbg(pred, arg))) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${pred}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function open(query, evalEvery = null) {
  await page.goto(base + query);
  await waitFor((d) => !!d.ready, 60_000);
  if (await page.isVisible('#resume-banner')) await page.click('#btn-discard');
  await page.click('#btn-shakespeare');
  await page.click('[data-preset=S]');
  if (evalEvery !== null) await page.fill('#knob-eval_interval', String(evalEvery));
  await page.waitForFunction(() => !document.querySelector('#btn-start')?.disabled, null, { timeout: 60_000 });
  return dbg((d) => d.ready);
}

async function stop() {
  if (await dbg((d) => d.running)) {
    await page.click('#btn-start');
    await waitFor((d) => !d.running, 60_000);
  }
}

console.log(`bench:page — headless Chromium (${(await ctx.browser()?.version()) ?? 'chromium'}), ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}`);
const results = {};
const WARM = 30, MEASURE = 120;
// Throughput: training only (validation off; it is measured with the time to quality below).
for (const [label, query] of [['simd (1 thread)', '?variant=simd'], ['threads', '']]) {
  const ready = await open(query, 0);
  await page.click('#btn-start');
  await waitFor((d, n) => d.step >= n, 180_000, WARM);
  const s0 = await dbg((d) => d.step);
  const t0 = Date.now();
  await waitFor((d, n) => d.step >= n, 300_000, s0 + MEASURE);
  const s1 = await dbg((d) => d.step);
  const wall = (Date.now() - t0) / 1000;
  const core = await dbg((d) => d.tokensPerSec);
  await stop();
  // generation from the trained model: 1000 bytes, streamed
  await page.fill('#sample-length', '2000');
  const g0 = Date.now();
  await page.click('#btn-generate');
  await page.waitForFunction(() => document.querySelector('#sample-output')?.getAttribute('data-done') === 'true', null, { timeout: 120_000 });
  const genS = (Date.now() - g0) / 1000;
  const generated = Number(await page.getAttribute('#sample-output', 'data-bytes'));
  const tokS = ((s1 - s0) * 12 * 64) / wall;
  results[label] = { variant: ready.variant, threads: ready.threads, tokS, coreTokS: core, genBS: generated / genS };
  console.log(`  ${label.padEnd(16)} ${ready.variant}, ${ready.threads} thread(s): ${tokS.toFixed(0)} tokens/s (wall clock, steps ${s0}..${s1}, validation off; ` +
    `the page's display: ${core.toFixed(0)}); generation ${(generated / genS).toFixed(0)} bytes/s (${generated} bytes)`);
}

if (!process.env.BENCH_SKIP_QUALITY) {
  const ready = await open('');
  const t0 = Date.now();
  await page.click('#btn-start');
  let lastBucket = -1;
  for (;;) {
    const d = await dbg((d) => ({ step: d.step, val: d.valLoss, running: d.running }));
    if (d.val !== null && d.val <= 1.9) {
      console.log(`  time to val <= 1.90 (${ready.variant}, ${ready.threads} threads): ${((Date.now() - t0) / 1000).toFixed(1)} s, at step ${d.step} (val ${d.val.toFixed(4)})`);
      break;
    }
    if (!d.running && d.step > 0) {
      console.log(`  the run ended at step ${d.step} with val ${d.val} (> 1.90) after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      break;
    }
    if (Math.floor(d.step / 500) !== lastBucket) {
      lastBucket = Math.floor(d.step / 500);
      console.log(`    step ${d.step}, val ${d.val?.toFixed(4) ?? '-'}, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
}
await ctx.close();
await server.close();
fs.rmSync(userDataDir, { recursive: true, force: true });
process.exit(0);
