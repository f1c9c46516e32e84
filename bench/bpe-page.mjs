// npm run bench:bpe:page — issue 23's benchmark in the page itself: config S on tiny Shakespeare,
// bytes against BPE vocabularies, each given the same seconds of training in headless Chromium
// (bench/page-harness.mjs), the single-thread SIMD build (?variant=simd: one core, as bench:bpe
// natively). The figure is the last validation loss in bits per byte (nats per token x the
// validation text's tokens per byte / ln 2), the unit in which vocabularies compare.
//
// For each vocabulary: a calibration run in a fresh page measures the page's steps a second
// (after the vocabulary is learned in the worker: not counted), then a second fresh page trains
// a schedule sized to the seconds (max_iters = steps/s x seconds, warmup a tenth up to 100, an
// evaluation every eighth of the steps), so that its cosine decay ends when the time is up. The
// machine's load changes the pace between the two: a run that is still going when 1.5x its
// seconds have passed is paused, and its last evaluation counted (reported as `stoppedEarly`).
//   BENCH_SECONDS=60          training seconds per run
//   BENCH_VOCABS=256,1024     vocabularies (256: bytes)
//   BENCH_CALIBRATE_SECONDS=20
// Serves dist/ (npm run build). Writes bench/results/bpe-page-<date>.json (bench/results.mjs).
import os from 'node:os';

import { openBenchPage } from './page-harness.mjs';
import { benchResults } from './results.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const calibrate = Number(process.env.BENCH_CALIBRATE_SECONDS ?? 20);
const vocabs = (process.env.BENCH_VOCABS ?? '256,1024').split(',').map(Number);
const record = benchResults('bpe-page');
record.set('options', { preset: 'S', text: 'tiny Shakespeare (the page\'s button)', seconds, calibrateSeconds: calibrate, vocabs, variant: 'simd (1 thread)' });
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { base, ctx, page, dbg, waitFor, close } = await openBenchPage('tinygpt-bench-bpe-');

async function knob(name, value) {
  await page.evaluate(() => void (document.querySelector('#settings-more').open = true));
  await page.fill(`#knob-${name}`, String(value));
}

/** A fresh page with config S on Shakespeare and the vocabulary chosen; the schedule's knobs set. */
async function open(vocab, knobs) {
  await page.goto(`${base}?variant=simd`);
  await waitFor((d) => !!d.ready, 120_000);
  if (await page.isVisible('#resume-banner')) await page.click('#btn-discard');
  await page.click('#btn-shakespeare');
  await page.click('[data-preset=S]');
  if (vocab > 256) {
    await page.click('#tokenizer-bpe');
    await knob('vocab_size', vocab);
    await waitFor((d, v) => d.settings?.tokenizer === 'bpe' && d.settings?.vocab_size === v, 30_000, vocab);
  }
  for (const [k, v] of Object.entries(knobs)) await knob(k, v);
  await page.waitForFunction(() => !document.querySelector('#btn-start')?.disabled, null, { timeout: 120_000 });
}

async function pause() {
  if (await dbg((d) => d.running)) {
    await page.click('#btn-start');
    await waitFor((d) => !d.running, 120_000);
  }
}

console.log(`bench:bpe:page — headless Chromium ${(await ctx.browser()?.version()) ?? ''}, ${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${load()}; ` +
  `config S, ${seconds} s of training each, the simd build (1 thread)`);
const rows = [];
try {
  for (const vocab of vocabs) {
    // 1. calibration: the page's pace for this vocabulary (a larger head costs more)
    await open(vocab, { max_iters: 100000, eval_interval: 100000 });
    await page.click('#btn-start');
    await waitFor((d) => d.running && d.step >= 5, 600_000);   // the vocabulary learned, the first steps taken
    const s0 = await dbg((d) => d.step);
    const t0 = Date.now();
    await sleep(calibrate * 1000);
    const stepsPerS = ((await dbg((d) => d.step)) - s0) / ((Date.now() - t0) / 1000);
    await pause();
    // 2. the run: a schedule that ends when the time is up
    const every = Math.max(5, Math.round((stepsPerS * seconds) / 8));
    const steps = every * 8;
    await open(vocab, { max_iters: steps, warmup_iters: Math.min(100, Math.round(steps / 10)), eval_interval: every });
    await page.click('#btn-start');
    await waitFor((d) => d.running && d.step >= 1, 600_000);
    const r0 = Date.now();
    let stoppedEarly = false;
    while (await dbg((d) => d.running)) {
      if (Date.now() - r0 > 1.5 * seconds * 1000) {
        stoppedEarly = true;
        await pause();
        break;
      }
      await sleep(250);
    }
    const wall = (Date.now() - r0) / 1000;
    const out = await dbg((d) => ({ step: d.step, tpb: d.model?.tokensPerByte ?? 0, steps: Array.from(d.history.valSteps), val: Array.from(d.history.valLosses) }));
    const tpb = vocab > 256 ? out.tpb : 1;
    const last = out.val.length - 1;
    const row = { vocab, tokenizer: vocab > 256 ? 'bpe' : 'bytes', calibrationStepsPerSecond: stepsPerS, maxIters: steps, stepsDone: out.step, seconds: wall,
      stoppedEarly, tokensPerByte: tpb, valStep: out.steps[last], valNatsPerToken: out.val[last], valBitsPerByte: (out.val[last] * tpb) / Math.LN2,
      bytesSeen: Math.round((out.step * 12 * 64) / tpb), valCurve: out.steps.map((s, i) => [s, out.val[i]]), loadAverage: os.loadavg()[0] };
    rows.push(row);
    console.log(`  ${(vocab > 256 ? `BPE ${vocab}` : 'bytes').padEnd(9)} ${stepsPerS.toFixed(2)} steps/s calibrated, ${out.step}/${steps} steps in ${wall.toFixed(0)} s` +
      `${stoppedEarly ? ' (paused at 1.5x the time)' : ''}; tokens/byte ${tpb.toFixed(3)}; val ${row.valNatsPerToken.toFixed(4)} nats/token = ${row.valBitsPerByte.toFixed(3)} bits/byte; load ${load()}`);
  }
} finally {
  await close();
}
record.set('runs', rows);
const bytes = rows.find((r) => r.vocab === 256);
if (bytes) record.set('summary', Object.fromEntries(rows.filter((r) => r.vocab > 256).map((r) => [`bpe${r.vocab}_minus_bytes_bits_per_byte`, Number((r.valBitsPerByte - bytes.valBitsPerByte).toFixed(4))])));
record.write();
console.log(`load average at the end ${load()}`);
