// npm run bench:page:rnn — the Transformer against the recurrent models on the same text and the
// same time budget, in the page (headless Chromium, the build the page picks): for each preset,
// tiny Shakespeare, the preset's settings as a person would pick them (architecture, preset,
// Start), training for BENCH_SECONDS of wall-clock time (default 60) from the click on Start,
// then Pause and "Validate now": the validation loss in bits per byte (nats / ln 2), the steps
// done, tokens/s and the parameters. A preset whose schedule ends sooner (the tiny ones: 500
// steps) is timed to its own end. The presets run in order, each in a fresh page.
// The steps depend on the machine and its load (the results file records the load average).
//   BENCH_PRESETS=S,lstm-S,gru-S,rnn-S,tiny,lstm-tiny,gru-tiny,rnn-tiny   (default)
//   BENCH_SECONDS=60
//   BENCH_VARIANT=simd   force a build (default: the page's choice, threads when isolated)
// Serves dist/ with `vite preview` on a free port. Needs `npm run build`.
// Writes bench/results/page-rnn-<date>.json (bench/results.mjs).
import os from 'node:os';

import { openBenchPage } from './page-harness.mjs';
import { benchResults } from './results.mjs';

const presets = (process.env.BENCH_PRESETS ?? 'S,lstm-S,gru-S,rnn-S,tiny,lstm-tiny,gru-tiny,rnn-tiny').split(',').filter(Boolean);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const query = process.env.BENCH_VARIANT ? `?variant=${process.env.BENCH_VARIANT}` : '';
const KIND = (preset) => (/^(lstm|gru|rnn)-/.exec(preset)?.[1] ?? 'gpt');

const record = benchResults('page-rnn');
record.set('options', { presets, seconds, query, text: 'tiny Shakespeare (the built-in text)' });
const { base, ctx, page, dbg, waitFor, close } = await openBenchPage('tinygpt-bench-rnn-');
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`bench:page:rnn — headless Chromium (${(await ctx.browser()?.version()) ?? 'chromium'}), ${os.cpus()[0].model}, ` +
  `${os.cpus().length} cores, load average ${load()}; ${seconds} s of training per preset on tiny Shakespeare`);
console.log(`${'preset'.padEnd(10)} ${'params'.padStart(9)} ${'steps'.padStart(7)} ${'tok/s'.padStart(8)} ${'val bits/byte'.padStart(14)}  build`);
const rows = [];
for (const preset of presets) {
  await page.goto(base + query);
  await waitFor((d) => !!d.ready, 60_000);
  if (await page.isVisible('#resume-banner')) await page.click('#btn-discard');
  await page.click('#btn-shakespeare');
  await page.waitForFunction(() => !!document.querySelector('#corpus-name')?.textContent, null, { timeout: 60_000 });
  await page.click(`#arch-${KIND(preset)}`);
  await waitFor((d, k) => d.formSettings?.model === k, 10_000, KIND(preset));
  await page.click(`[data-preset="${preset}"]`);
  await page.waitForFunction(() => !document.querySelector('#btn-start')?.disabled, null, { timeout: 60_000 });
  const ready = await dbg((d) => ({ variant: d.ready.variant, threads: d.ready.threads }));
  const t0 = Date.now();
  await page.click('#btn-start');
  await waitFor((d) => d.running, 60_000);
  // a preset whose schedule ends inside the budget (the tiny ones: 500 steps) stops by itself:
  // its row is then its whole run, timed to its end
  while (Date.now() - t0 < seconds * 1000 && (await dbg((d) => d.running))) await new Promise((r) => setTimeout(r, 100));
  const finished = !(await dbg((d) => d.running));
  if (!finished) {
    await page.click('#btn-start');  // pause
    await waitFor((d) => !d.running, 60_000);
  }
  const wall = (Date.now() - t0) / 1000;
  const before = await dbg((d) => d.history.valSteps.length);
  await page.click('#btn-evaluate');
  await waitFor((d, n) => d.history.valSteps.length > n || d.history.valSteps.at(-1) === d.step, 120_000, before);
  const r = await dbg((d) => ({ step: d.step, val: d.history.valLosses.at(-1), params: d.model.parameters, tokS: d.tokensPerSec ?? null,
    config: d.model.config }));
  const tokS = (r.step * r.config.batch_size * r.config.block_size) / wall;
  const bits = r.val / Math.LN2;
  rows.push({ preset, model: r.config.model, parameters: r.params, steps: r.step, seconds: Number(wall.toFixed(1)), finished, tokensPerSecond: Math.round(tokS),
    valNats: Number(r.val.toFixed(4)), valBitsPerByte: Number(bits.toFixed(4)), build: ready });
  console.log(`${preset.padEnd(10)} ${String(r.params).padStart(9)} ${String(r.step).padStart(7)} ${tokS.toFixed(0).padStart(8)} ${bits.toFixed(3).padStart(14)}  ${ready.variant}, ${ready.threads} thread(s)${finished ? `, schedule done in ${wall.toFixed(0)} s` : ''}`);
}
record.set('runs', rows);
record.write();
await close();
console.log(`load average at the end ${load()}`);
process.exit(0);
