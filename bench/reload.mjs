// npm run bench:reload — what a reload in the middle of training loses: the tiny preset trains in the
// page, the page is reloaded at BENCH_RELOADS (20) random points of the 10-s save cycle (a seeded
// draw), the run is resumed, and the step the page showed just before the reload is compared with
// the step resumed. Twice, alternating reload by reload: with the keeper (features/runs/keeper.ts, the
// page's default) and with ?keeper=off (the training worker writes the save itself). Writes
// bench/results/reload-<date>.json (bench/results.mjs). Needs `npm run build`.
import os from 'node:os';

import { openBenchPage } from './page-harness.mjs';
import { benchResults } from './results.mjs';

const record = benchResults('reload');
const reloads = Number(process.env.BENCH_RELOADS ?? 20);
const SAVE_EVERY_MS = 10_000;   // web/src/features/runs/runs.ts
const { base, ctx, dbg, waitFor: waitOn, close } = await openBenchPage('tinygpt-reload-');

// a seeded generator (mulberry32), as in tests/e2e/reliability.e2e.test.ts
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const modes = { keeper: { query: '', lost: [], margin: [] }, worker: { query: '?keeper=off', lost: [], margin: [] } };
const pages = {};

/** A text of its own, the tiny preset with a long schedule, Start. */
async function startTraining(page, name) {
  await page.evaluate((name) => {
    const dt = new DataTransfer();
    dt.items.add(new File([`${name} was here, and ${name} will be back tomorrow.\n`.repeat(60)], `${name}.txt`));
    for (const t of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, name);
  await page.waitForFunction((n) => document.querySelector('#corpus-name')?.textContent === `${n}.txt`, name);
  await page.click('[data-preset=tiny]');
  await page.evaluate(() => void (document.querySelector('#settings-more').open = true));
  await page.fill('#knob-max_iters', '1000000');
  await page.click('#btn-start');
  await page.waitForFunction(() => window.__tinygpt.get().running && window.__tinygpt.get().step > 0, null, { timeout: 60_000 });
}

// one tab per mode, each training its own text (a run each)
for (const [name, m] of Object.entries(modes)) {
  const page = await ctx.newPage();
  pages[name] = page;
  m.state = (fn) => page.evaluate(`(${fn})(window.__tinygpt.get())`);
  await page.goto(base + m.query);
  await page.waitForFunction(() => window.__tinygpt?.get().ready, null, { timeout: 60_000 });
  await startTraining(page, name);
}
void dbg; void waitOn;

console.log(`bench:reload — ${reloads} reloads per mode at random points of the ${SAVE_EVERY_MS / 1000}-s save cycle, tiny preset; ` +
  `${os.cpus()[0].model}, load average ${os.loadavg()[0].toFixed(2)}`);
const rnd = random(27);
for (let i = 0; i < reloads; i++) {
  for (const [name, m] of Object.entries(modes)) {
    const page = pages[name];
    await page.bringToFront();
    const wait = Math.round(rnd() * SAVE_EVERY_MS);
    await page.waitForTimeout(wait);
    const before = await m.state((s) => s.step);
    await page.reload();
    await page.waitForFunction(() => window.__tinygpt?.get().ready, null, { timeout: 60_000 });
    // the banner offers the latest run: this tab's (the other tab's run is busy, held by that tab);
    // none if this run was never saved (its first save was the one on hide, and it did not land)
    const offered = await page.waitForSelector('#resume-banner:not([hidden])', { timeout: 10_000 }).then(() => true, () => false);
    if (!offered) {
      m.lost.push(before);
      m.margin.push(-before);
      console.log(`  ${name.padEnd(6)} reload ${String(i + 1).padStart(2)} at ${String(wait).padStart(4)} ms of the cycle: step ${before} -> nothing saved: LOST ${before}`);
      await startTraining(page, name);
      continue;
    }
    await page.click('#btn-resume');
    await page.waitForFunction(() => window.__tinygpt.get().model && !window.__tinygpt.get().loading, null, { timeout: 60_000 });
    const resumed = await m.state((s) => s.step);
    const corpus = await page.textContent('#corpus-name');
    m.lost.push(Math.max(0, before - resumed));
    m.margin.push(resumed - before);
    console.log(`  ${name.padEnd(6)} reload ${String(i + 1).padStart(2)} at ${String(wait).padStart(4)} ms of the cycle: step ${before} -> resumed ${resumed}` +
      `${resumed < before ? ` LOST ${before - resumed}` : ''}${corpus !== `${name}.txt` ? ` (resumed ${corpus}!)` : ''}`);
    await page.click('#btn-start');
    await page.waitForFunction((n) => window.__tinygpt.get().running && window.__tinygpt.get().step > n, resumed, { timeout: 60_000 });
  }
}
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[s.length >> 1], max: s[s.length - 1], zero: xs.filter((x) => x === 0).length, n: xs.length };
};
for (const [name, m] of Object.entries(modes)) {
  const l = summary(m.lost);
  console.log(`${name}: steps lost ${m.lost.join(' ')}; ${l.zero}/${l.n} lost nothing (median ${l.median}, max ${l.max})`);
}
record.set('reload', {
  reloads, saveEveryMs: SAVE_EVERY_MS, preset: 'tiny',
  keeper: { lost: modes.keeper.lost, resumedMinusShown: modes.keeper.margin, summary: summary(modes.keeper.lost) },
  workerWrites: { lost: modes.worker.lost, resumedMinusShown: modes.worker.margin, summary: summary(modes.worker.lost) },
});
record.write();
await close();
process.exit(0);
