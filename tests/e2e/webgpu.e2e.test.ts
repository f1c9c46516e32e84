// The page on WebGPU (docs/webgpu.md) in headless Chromium on its SwiftShader adapter (WebGPU on
// the CPU: correct and about 0.1 GFLOP/s, so the tiny preset and a few steps), with a browser of
// its own for the unsafe-WebGPU switches: the page picks WebGPU by itself, trains, evaluates,
// samples, draws an attention map and downloads a checkpoint; a lost device falls back to the CPU
// build from the last good state and training goes on; the translator (s2s-tiny) trains, evaluates,
// translates and draws its cross-attention map on the GPU too. Then Chromium with its default switches
// (navigator.gpu but no adapter): the wasm build, and a notice when ?backend=webgpu asked for WebGPU.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { dropFile, fillKnob, launch, lorem, startTiny, state, waitState } from './helpers';

const artifacts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts');
const WEBGPU_ON_SWIFTSHADER = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];
const SLOW = 420_000;  // SwiftShader compiles the kernels (tens of seconds) and runs a tiny step in seconds

function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** The attention map of layer 0, head 0 is drawn, its rows sum to 1 and nothing is above the diagonal. */
async function checkAttention(page: Page): Promise<void> {
  await page.locator('#inspect').scrollIntoViewIfNeeded();
  await page.selectOption('#inspect-source', 'corpus');
  await waitState(page, (s) => !!s.inspection && s.inspection.step === s.step && !s.inspectInFlight, null, SLOW);
  await page.selectOption('#inspect-layer', '0');
  await page.selectOption('#inspect-head', '0');
  await page.waitForFunction(() => {
    const c = document.querySelector('#heatmap') as HTMLCanvasElement;
    return c.dataset.layer === '0' && c.dataset.head === '0' && Number(c.dataset.drawn) > 0 && c.width > 0;
  });
  const a = await state(page, (s) => {
    const { T, attention } = s.inspection;
    let row = 0, mask = 0;
    for (let q = 0; q < T; q++) {
      let sum = 0;
      for (let k = 0; k < T; k++) {
        sum += attention[q * T + k];
        if (k > q) mask = Math.max(mask, Math.abs(attention[q * T + k]));
      }
      row = Math.max(row, Math.abs(sum - 1));
    }
    return { T, row, mask };
  });
  expect(a.T).toBe(32);  // the tiny preset's context
  expect(a.row).toBeLessThan(1e-4);
  expect(a.mask).toBe(0);
}

async function sample(page: Page, n: number): Promise<string> {
  await page.fill('#sample-length', String(n));
  await page.click('#btn-generate');
  await page.waitForFunction(() => document.querySelector('#sample-output')?.getAttribute('data-done') === 'true', null, { timeout: SLOW });
  expect(Number(await page.getAttribute('#sample-output', 'data-bytes'))).toBe(n);
  return (await page.textContent('#sample-output')) ?? '';
}

/** Three steps of the chosen preset (one warm-up step, one evaluation batch), from Start to the end of
 * the schedule; returns the seconds it took (SwiftShader compiles the kernels first). */
async function trainThreeSteps(page: Page): Promise<number> {
  await fillKnob(page, 'warmup_iters', '1');
  await fillKnob(page, 'max_iters', '3');
  await fillKnob(page, 'eval_iters', '1');
  await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
  const t0 = Date.now();
  await page.click('#btn-start');
  await waitState(page, (s) => s.finished && !s.running && s.step === 3 && s.valStep === 3, null, SLOW);
  return (Date.now() - t0) / 1000;
}

describe('the page on WebGPU (Chromium on SwiftShader)', () => {
  let ctx: BrowserContext;
  let close: () => Promise<void>;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    ({ ctx, close } = await launch({ args: WEBGPU_ON_SWIFTSHADER }));
    page = ctx.pages()[0] ?? (await ctx.newPage());
    errors = consoleErrors(page);
    fs.mkdirSync(artifacts, { recursive: true });
  });

  afterAll(async () => {
    await close?.();
  });

  it('picks WebGPU, trains the tiny preset, samples, draws an attention map and downloads the checkpoint', async () => {
    await page.goto(inject('baseURL'));
    await waitState(page, (s) => !!s.ready && !!s.backend);
    expect(await state(page, (s) => s.backend.backend)).toBe('webgpu');
    await page.waitForFunction(() => document.querySelector('#runtime')?.getAttribute('data-device') === 'webgpu');
    const badge = (await page.textContent('#runtime')) ?? '';
    expect(badge).toMatch(/^webgpu · .*swiftshader/i);
    expect(await page.getAttribute('#runtime', 'title')).toMatch(/through WebGPU/);
    console.log(`the header on SwiftShader: "${badge}"`);

    await dropFile(page, 'gpu.txt', new TextEncoder().encode(lorem('the GPU')));
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'gpu.txt');
    await page.click('[data-preset=tiny]');
    const seconds = await trainThreeSteps(page);
    const run = await state(page, (s) => ({ backend: s.backend.backend, losses: s.history.train.slice(), val: s.history.valSteps, tps: s.tokensPerSec }));
    console.log(`3 steps of the tiny preset on WebGPU (SwiftShader) in ${seconds.toFixed(0)} s ` +
      `(kernels compiled first); losses ${run.losses.map((l: number) => l.toFixed(3)).join(', ')}; ${run.tps.toFixed(0)} tokens/s`);
    expect(run.backend).toBe('webgpu');
    expect(run.val).toEqual([0, 3]);  // the core's run loop: at the start and at the stop
    expect(run.losses).toHaveLength(3);
    for (const l of run.losses) expect(l).toBeGreaterThan(3), expect(l).toBeLessThan(6);  // about ln 256 = 5.5 at the start

    const text = await sample(page, 24);
    expect(text.length).toBeGreaterThan(0);
    await checkAttention(page);
    await page.screenshot({ path: path.join(artifacts, 'webgpu-swiftshader.png'), fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-download')]);
    expect(download.suggestedFilename()).toBe('tinygpt-gpu-step3.ckpt');
    const ckpt = fs.readFileSync((await download.path())!);
    expect(ckpt.subarray(0, 8).toString('latin1')).toBe('TGPTCKPT');
    expect(await state(page, (s) => s.backend.backend)).toBe('webgpu');
    expect(errors).toEqual([]);
  }, SLOW);

  it('falls back to the CPU from its last good state when the GPU device is lost, and trains on', async () => {
    await page.click('#btn-start');  // "Train more": past the end of the schedule, on the GPU
    await waitState(page, (s) => s.running && s.step >= 4, null, SLOW);
    const worker = page.workers().find((w) => w.url().includes('worker'))!;
    await worker.evaluate(() => (self as unknown as { __tinygptTest: { loseGpuDevice(): void } }).__tinygptTest.loseGpuDevice());
    await waitState(page, (s) => s.backend.backend === 'wasm' && !!s.backend.fallback, null, 60_000);
    const fb = await state(page, (s) => ({ kind: s.backend.fallback.kind, step: s.backend.fallback.step, lostSteps: s.backend.fallback.lostSteps }));
    expect(fb.kind).toBe('device-lost');
    const notice = (await page.locator('.notice.warning .text').allTextContents()).join(' ');
    expect(notice).toMatch(/^The GPU was lost \(.*\): the run continues on the CPU (from step \d+, the last state brought back|at step \d+; nothing was lost)/);
    console.log(`after device.destroy(): "${notice}"`);
    expect(fb.step).toBeGreaterThanOrEqual(3);  // the state saved at the pause, or later
    await page.waitForFunction(() => document.querySelector('#runtime')?.getAttribute('data-device') === 'wasm');
    expect(await page.textContent('#runtime')).toMatch(/^wasm /);
    expect(await page.getAttribute('#runtime', 'title')).toMatch(/Not WebGPU: .+/);
    // the page's curve went back with the run, and training goes on on the CPU
    await waitState(page, (s, from) => s.running && s.step >= from + 20 && s.history.lastStep === s.step, fb.step, 60_000);
    await page.click('#btn-start');
    await waitState(page, (s) => !s.running);
    // and the rest of the page works on the CPU
    await sample(page, 16);
    await checkAttention(page);
    expect(errors).toEqual([]);
  }, SLOW);

  it('trains the translator on WebGPU too: a few steps of the reverse task, a greedy, a beam and a sampled translation and its cross-attention map', async () => {
    await page.goto(inject('baseURL'));
    await waitState(page, (s) => !!s.ready && !!s.backend);
    expect(await state(page, (s) => s.backend.backend)).toBe('webgpu');
    await page.click('#mode-seq2seq');
    await waitState(page, (s) => s.mode === 'seq2seq');
    await page.click('[data-task=reverse]');
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'reverse');
    await page.click('[data-preset=s2s-tiny]');
    await fillKnob(page, 'block_size', '9');   // strings of 1 to 8 letters
    const seconds = await trainThreeSteps(page);
    const run = await state(page, (s) => ({ backend: s.backend.backend, losses: s.history.train.slice(), val: s.history.valSteps,
      exact: s.history.valExactMatch, cer: s.history.valCer }));
    console.log(`3 steps of s2s-tiny on WebGPU (SwiftShader) in ${seconds.toFixed(0)} s; losses ${run.losses.map((l: number) => l.toFixed(3)).join(', ')}`);
    expect(run.backend).toBe('webgpu');
    expect(run.val).toEqual([0, 3]);
    expect(run.losses).toHaveLength(3);
    for (const l of run.losses) expect(l).toBeGreaterThan(3), expect(l).toBeLessThan(6.5);   // about ln 259 = 5.56 at the start
    // every evaluation of a translator has its held-out exact match and CER, from the GPU's translations
    for (const x of run.exact) expect(x).toBeGreaterThanOrEqual(0), expect(x).toBeLessThanOrEqual(1);
    for (const x of run.cer) expect(x).toBeGreaterThanOrEqual(0);

    await page.fill('#translate-source', 'abc');
    await page.click('#btn-translate');
    await waitState(page, (s) => s.translation && !s.translation.busy && !!s.translation.result, null, SLOW);
    const r = await state(page, (s) => ({ n: s.translation.result.text.length, probs: Array.from(s.translation.result.probs) as number[] }));
    expect(r.probs.length).toBeGreaterThan(0);
    expect(r.probs.every((p: number) => p > 0 && p <= 1)).toBe(true);
    // the first translation of a mode runs on the GPU, the next on the host's CPU (route.ts): the same output
    const first = await state(page, (s) => ({ text: Array.from(s.translation.result.text) as number[], where: s.translation.result.where }));
    expect(first.where.route).toBe('gpu');
    expect(await page.textContent('#translate-info')).toMatch(/Decoded on the GPU in [0-9.]+ ms \(measuring which route is faster\)/);
    await page.click('#btn-translate');
    await waitState(page, (s) => s.translation && !s.translation.busy && s.translation.result?.where.route === 'host', null, SLOW);
    const again = await state(page, (s) => ({ text: Array.from(s.translation.result.text) as number[], where: s.translation.result.where }));
    expect(again.text).toEqual(first.text);
    expect(again.where.syncMs).toBeNull();   // the evaluation at step 3 brought the weights back already
    expect(await page.textContent('#translate-info')).toMatch(/Decoded on the CPU with the GPU's weights in [0-9.]+ ms \(measuring which route is faster\)/);
    // a beam of 3: the GPU decodes the hypotheses, the core searches (still on WebGPU after it)
    await page.fill('#translate-beam', '3');
    await page.click('#btn-translate');
    await waitState(page, (s) => s.translation && !s.translation.busy && s.translation.result?.beam === 3, null, SLOW);
    const b = await state(page, (s) => ({ probs: Array.from(s.translation.result.probs) as number[], finished: s.translation.result.finished }));
    expect(b.probs.length).toBeGreaterThan(0);
    expect(b.probs.every((p: number) => p > 0 && p <= 1)).toBe(true);
    expect(await state(page, (s) => s.backend.backend)).toBe('webgpu');
    // sampled at a temperature: the GPU decodes, the core draws with the request's seed (still on WebGPU)
    await page.fill('#translate-beam', '1');
    await page.fill('#translate-temperature', '1.5');
    await page.click('#btn-translate');
    await waitState(page, (s) => s.translation && !s.translation.busy && s.translation.temperature === 1.5 && !!s.translation.result, null, SLOW);
    const sm = await state(page, (s) => ({ probs: Array.from(s.translation.result.probs) as number[], seed: s.translation.seed }));
    expect(sm.probs.every((p: number) => p > 0 && p <= 1)).toBe(true);
    expect(await page.textContent('#translate-info')).toContain(`sampled at temperature 1.5 (seed ${sm.seed})`);
    expect(await state(page, (s) => s.backend.backend)).toBe('webgpu');
    await page.fill('#translate-temperature', '0');

    await page.selectOption('#align-source', 'custom');
    await page.fill('#align-custom-source', 'abc');
    await page.fill('#align-custom-target', 'cba');
    await page.click('#btn-align');
    await waitState(page, (s) => s.alignment && s.alignment.S === 3 && s.alignment.T === 4 && !s.inspectInFlight, null, SLOW);
    const worst = await state(page, (s) => {
      const a = s.alignment;
      let w = 0;
      for (let r = 0; r < a.Ld * a.NH * a.T; r++) w = Math.max(w, Math.abs(a.cross.subarray(r * a.S, (r + 1) * a.S).reduce((x: number, y: number) => x + y, 0) - 1));
      return w;
    });
    expect(worst).toBeLessThan(1e-4);   // every row of the cross-attention map sums to 1
    await page.waitForFunction(() => document.querySelector('#align-heatmap')?.getAttribute('data-kind') === 'cross');
    expect(await state(page, (s) => s.backend.backend)).toBe('webgpu');
    expect(errors).toEqual([]);
  }, SLOW);

  it('trains on the wasm build when ?backend=wasm asks for it', async () => {
    await page.goto(`${inject('baseURL')}?backend=wasm`);
    await waitState(page, (s) => !!s.ready && !!s.backend);
    expect(await state(page, (s) => [s.backend.backend, s.backend.forced, s.backend.reason])).toEqual(['wasm', true, '?backend=wasm asks for the CPU build']);
    expect(await page.locator('.notice.warning').count()).toBe(0);
  });
});

describe('the page without WebGPU (Chromium\'s default switches: no adapter)', () => {
  let ctx: BrowserContext;
  let close: () => Promise<void>;
  let page: Page;

  beforeAll(async () => {
    ({ ctx, close } = await launch());
    page = ctx.pages()[0] ?? (await ctx.newPage());
  });

  afterAll(async () => {
    await close?.();
  });

  it('trains on the wasm build, says why in the header, and in a notice when ?backend=webgpu asked', async () => {
    const errors = consoleErrors(page);
    await page.goto(inject('baseURL'));
    await waitState(page, (s) => !!s.ready && !!s.backend);
    expect(await state(page, (s) => [s.backend.backend, s.backend.reason])).toEqual(['wasm', 'WebGPU found no GPU adapter']);
    expect(await page.getAttribute('#runtime', 'title')).toMatch(/Not WebGPU: WebGPU found no GPU adapter\.$/);
    expect(await page.locator('.notice.warning').count()).toBe(0);  // nobody asked for it

    await page.goto(`${inject('baseURL')}?backend=webgpu`);
    await waitState(page, (s) => !!s.ready && !!s.backend);
    await page.waitForSelector('.notice.warning');
    expect(await page.textContent('.notice.warning .text')).toBe('WebGPU found no GPU adapter: training runs on the CPU.');
    await startTiny(page, 'cpu.txt', lorem('the CPU'));
    expect(await page.getAttribute('#runtime', 'data-device')).toBe('wasm');
    expect(await state(page, (s) => s.backend.backend)).toBe('wasm');
    await page.click('#btn-start');
    await waitState(page, (s) => !s.running);
    expect(errors).toEqual([]);
  });
});
