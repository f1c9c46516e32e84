// The page in real headless Chromium, one person's session from first load to resuming after a
// reload. Steps run in order on one page. Screenshots of the main states go to test-artifacts/,
// measurements (tokens/s of config S, load-to-first-step time, variant, payload sizes) to
// test-artifacts/e2e-metrics.json and the log.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { chromiumPath } from '../../scripts/chromium.mjs';
import { fillKnob } from './helpers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = path.join(root, 'test-artifacts');
const LN256 = Math.log(256);

let ctx: BrowserContext;
let page: Page;
let userDataDir: string;
const consoleErrors: string[] = [];
let expectErrors = false;
const metrics: Record<string, unknown> = {};

// ---------------------------------------------------------------- helpers

/** The page's store (web/src/app/state.ts RunState): `window.__tinygpt.get()`. The fields the tests read. */
interface Debug {
  ready: { variant: string; backend: string; threads: number; crossOriginIsolated: boolean; loadMs: number } | null;
  step: number;
  lastLoss: number | null;
  valLoss: number | null;
  tokensPerSec: number;
  running: boolean;
  inspection: { T: number; L: number; NH: number; step: number; attention: Float32Array } | null;
  tokenLosses: number[];
  timing: { readyMs: number; firstStepMs: number; moduleLoadMs: number };
  counts: Record<string, number>;
  errors: string[];
}

const dbg = <T>(fn: (d: Debug) => T): Promise<T> =>
  page.evaluate(`(${fn.toString()})(window.__tinygpt.get())`) as Promise<T>;

/** Waits until pred(the store's state, arg) holds in the page (pred is sent as source: no closures, pass `arg`). */
async function waitDbg<A = undefined>(pred: (d: Debug, arg: A) => boolean, arg?: A, timeout = 30_000): Promise<void> {
  await page.waitForFunction(`(${pred.toString()})(window.__tinygpt.get(), ${JSON.stringify(arg ?? null)})`, null, { timeout, polling: 50 });
}

const count = (type: string) => dbg((d) => d.counts).then((c) => c[type] ?? 0);

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Drops a file on the page the way a person does (dragenter, dragover, drop with a DataTransfer). */
async function dropFile(name: string, bytes: Uint8Array, type = 'text/plain'): Promise<void> {
  await page.evaluate(({ name, b64, type }) => {
    const bin = atob(b64);
    const arr = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([arr], name, { type }));
    for (const t of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, { name, b64: Buffer.from(bytes).toString('base64'), type });
}

async function text(selector: string): Promise<string> {
  return (await page.textContent(selector))?.trim() ?? '';
}

async function value(selector: string): Promise<number> {
  return Number(await page.getAttribute(selector, 'data-value'));
}

async function setKnob(key: string, v: string | number): Promise<void> {
  await fillKnob(page, key, String(v));
}

async function waitStartEnabled(): Promise<void> {
  await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled, null, { timeout: 20_000 });
}

async function openPage(query = ''): Promise<void> {
  await page.goto(inject('baseURL') + query);
  await waitDbg((d) => !!d.ready);
}

/** The last error notice shown. */
async function lastError(): Promise<string> {
  const all = await page.locator('.notice.error .text').allTextContents();
  return all[all.length - 1] ?? '';
}

// ---------------------------------------------------------------- setup

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-chromium-'));
  ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error' && !expectErrors) consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => {
    if (!expectErrors) consoleErrors.push(`pageerror: ${e.message}`);
  });
});

afterAll(async () => {
  fs.writeFileSync(path.join(artifacts, 'e2e-metrics.json'), JSON.stringify(metrics, null, 2));
  console.log(`e2e metrics:\n${JSON.stringify(metrics, null, 2)}`);
  await ctx?.close();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- the session

describe('tinygpt in the browser', () => {
  it('loads without console errors and runs the threads build when cross-origin isolated', async () => {
    await openPage();
    const ready = (await dbg((d) => d.ready))!;
    expect(ready.crossOriginIsolated).toBe(true);
    expect(ready.variant).toBe('threads');
    expect(ready.backend).toBe('simd128');
    expect(ready.threads).toBeGreaterThanOrEqual(1);
    expect(await page.getAttribute('#runtime', 'data-variant')).toBe('threads');
    expect(await text('#runtime')).toContain('threads');
    // the presets show their size before anything starts
    await page.waitForFunction(() => /params/.test(document.querySelector('[data-preset=S] .preset-est')?.textContent ?? ''));
    expect(await text('#estimate')).toMatch(/parameters/);
    metrics.machine = { cpus: os.cpus().length, loadAverage1m: Number(os.loadavg()[0].toFixed(2)) };
    metrics.variant = ready.variant;
    metrics.threads = ready.threads;
    metrics.moduleLoadMs = Math.round(ready.loadMs);
    await shot('01-loaded');
    expect(consoleErrors).toEqual([]);
  });

  it('shows the stats of a dropped English UTF-8 file', async () => {
    const english = 'It was the best of times, it was the worst of times.\n'.repeat(40);
    const bytes = new TextEncoder().encode(english);
    await dropFile('dickens.txt', bytes);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'dickens.txt');
    expect(await value('#corpus-bytes')).toBe(bytes.length);
    expect(await value('#corpus-distinct')).toBe(new Set(bytes).size);
    expect(await value('#corpus-chars')).toBe(english.length);
    expect(await text('#corpus-preview')).toContain('It was the best of times');
    await shot('02-english-file');
  });

  it('joins the bytes of a dropped Chinese file back into characters', async () => {
    const chinese = '床前明月光，疑是地上霜。举头望明月，低头思故乡。\n'.repeat(30);
    const bytes = new TextEncoder().encode(chinese);
    await dropFile('静夜思.txt', bytes);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === '静夜思.txt');
    const chars = [...chinese].length;
    expect(await value('#corpus-bytes')).toBe(bytes.length);
    expect(bytes.length).toBe(3 * (chars - 30) + 30);            // 3 bytes per Chinese character, 1 per newline
    expect(await value('#corpus-chars')).toBe(chars);
    expect(await value('#corpus-distinct')).toBe(new Set(bytes).size);
    const preview = await text('#corpus-preview');
    expect(preview).toContain('床前明月光');                       // joined, not shown as bytes
    expect(await page.locator('#corpus-preview .chip').count()).toBeLessThanOrEqual(1);  // at most the cut at the end
    await shot('03-chinese-file');
  });

  it('explains a binary file, offers to train anyway, and keeps the previous text', async () => {
    const binary = new Uint8Array(4096);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256;
    await dropFile('image.png', binary, 'image/png');
    await page.waitForSelector('#corpus-message:not([hidden])');
    expect(await page.getAttribute('#corpus-message', 'data-kind')).toBe('binary');
    expect(await text('#corpus-message')).toMatch(/binary file/i);
    expect(await page.locator('#btn-train-anyway').count()).toBe(1);
    expect(await text('#corpus-name')).toBe('静夜思.txt');
    await shot('04-binary-file');
    await page.click('#corpus-message button:not(#btn-train-anyway)');  // Cancel
    await page.waitForSelector('#corpus-message', { state: 'hidden' });
  });

  it('explains an empty file and keeps the previous text', async () => {
    await dropFile('empty.txt', new Uint8Array(0));
    await page.waitForSelector('#corpus-message:not([hidden])');
    expect(await page.getAttribute('#corpus-message', 'data-kind')).toBe('empty');
    expect(await text('#corpus-message')).toMatch(/empty/);
    expect(await text('#corpus-name')).toBe('静夜思.txt');
    await shot('05-empty-file');
  });

  it('trains 50 steps of a tiny model on Shakespeare and the loss on screen goes down', async () => {
    await page.click('#btn-shakespeare');
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'tinyshakespeare.txt');
    expect(await value('#corpus-bytes')).toBe(1_115_394);
    expect(await page.locator('#corpus-message').isHidden()).toBe(true);   // the page kept working
    await page.click('[data-preset=tiny]');
    await setKnob('max_iters', 50);
    await setKnob('eval_interval', 25);
    // an impossible combination is explained inline and blocks Start
    await setKnob('n_head', 3);
    await page.waitForFunction(() => /not divisible by n_head 3/.test(document.querySelector('#settings-error')?.textContent ?? ''));
    expect(await page.isDisabled('#btn-start')).toBe(true);
    await setKnob('n_head', 2);
    await page.waitForSelector('#settings-error', { state: 'hidden' });
    await waitStartEnabled();
    await page.click('#btn-start');
    await waitDbg((d) => d.step >= 50 && !d.running, undefined, 60_000);
    expect(await value('#stat-step')).toBe(50);
    const trainLoss = await value('#stat-loss');
    const valLoss = await value('#stat-val');
    expect(await text('#stat-val')).toContain('@ 50');
    // a blind guess is ln 256 = 5.55 nats; after 50 steps both are far below
    expect(valLoss).toBeLessThan(LN256 - 1.5);
    expect(trainLoss).toBeLessThan(LN256 - 1.5);
    expect(Number(await page.getAttribute('#stat-loss', 'data-smooth'))).toBeLessThan(LN256 - 1);
    expect(await value('#stat-tps')).toBeGreaterThan(0);
    metrics.tinyAfter50 = { trainLoss, valLoss };
    await shot('06-trained-50-steps');
  });

  it('pause stops the step counter', async () => {
    await page.click('#btn-start');                 // "Train more": past the schedule until paused
    await waitDbg((d) => d.running && d.step > 60);
    await page.click('#btn-start');                 // Pause
    await waitDbg((d) => !d.running);
    const paused = await value('#stat-step');
    await page.waitForTimeout(1000);
    expect(await value('#stat-step')).toBe(paused);
    expect(await dbg((d) => d.step)).toBe(paused);
    expect(await text('#btn-start')).toBe('Resume');
  });

  it('streams a sample in several chunks, shaded, with the top-5 alternatives on hover', async () => {
    await page.fill('#prompt', 'ROMEO:');
    await page.fill('#sample-length', '300');
    const before = await count('sampleChunk');
    await page.click('#btn-generate');
    await page.waitForFunction(() => document.querySelector('#sample-output')?.getAttribute('data-done') === 'true', null, { timeout: 30_000 });
    const chunks = Number(await page.getAttribute('#sample-output', 'data-chunks'));
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect((await count('sampleChunk')) - before).toBeGreaterThanOrEqual(3);
    expect(Number(await page.getAttribute('#sample-output', 'data-bytes'))).toBe(300);
    const out = await text('#sample-output');
    expect(out.startsWith('ROMEO:')).toBe(true);
    expect(out.length).toBeGreaterThan(100);
    const tok = page.locator('#sample-output .tok').nth(5);
    expect(Number(await tok.getAttribute('data-p'))).toBeGreaterThan(0);
    await tok.hover();
    await page.waitForSelector('#tooltip:not([hidden])');
    expect(await page.locator('#tooltip ol.alts li').count()).toBeGreaterThanOrEqual(5);
    metrics.sampleChunks = chunks;
    await shot('07-sample');
    await page.mouse.move(0, 0);
  });

  it('draws the attention of layer 0 head 0, whose rows sum to 1, and the loss of each byte', async () => {
    await page.locator('#inspect').scrollIntoViewIfNeeded();
    await page.selectOption('#inspect-source', 'corpus');
    await waitDbg((d) => !!d.inspection && d.inspection.step === d.step);
    await page.selectOption('#inspect-layer', '0');
    await page.selectOption('#inspect-head', '0');
    await page.waitForFunction(() => {
      const c = document.querySelector('#heatmap') as HTMLCanvasElement;
      return c.dataset.layer === '0' && c.dataset.head === '0' && Number(c.dataset.drawn) > 0 && c.width > 0;
    });
    const check = await dbg((d) => {
      const { T, attention } = d.inspection!;
      let worstRow = 0;
      let worstMask = 0;
      for (let q = 0; q < T; q++) {
        let s = 0;
        for (let k = 0; k < T; k++) {
          const w = attention[q * T + k];   // layer 0, head 0
          if (k > q) worstMask = Math.max(worstMask, Math.abs(w));
          s += w;
        }
        worstRow = Math.max(worstRow, Math.abs(s - 1));
      }
      return { T, worstRow, worstMask, losses: d.tokenLosses.length, finite: d.tokenLosses.slice(1).every(Number.isFinite) };
    });
    expect(check.T).toBe(32);                 // the tiny preset's context
    expect(check.worstRow).toBeLessThan(1e-4);
    expect(check.worstMask).toBe(0);
    expect(check.losses).toBe(32);
    expect(check.finite).toBe(true);
    // hovering a cell tells its exact weight
    const box = (await page.locator('#heatmap').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.6);
    await page.waitForSelector('#tooltip:not([hidden])');
    expect(await text('#tooltip')).toMatch(/weight \d\.\d{4}/);
    expect(await page.locator('#inspect-tokens .cell.query').count()).toBe(1);
    expect(await page.getAttribute('#token-loss', 'data-mean')).toMatch(/^\d+\.\d+$/);
    await shot('08-attention');
    await page.mouse.move(0, 0);
    await page.click('#btn-all-heads');
    await page.waitForSelector('#heads-grid:not([hidden])');
    expect(Number(await page.getAttribute('#heads-grid', 'data-count'))).toBe(4);   // 2 layers x 2 heads
    await shot('09-all-heads');
    await page.click('#btn-all-heads');
  });

  it('restores the same loss from a downloaded checkpoint dropped back in; refuses damaged files', async () => {
    const evals = await count('evalResult');
    await page.click('#btn-evaluate');
    await page.waitForFunction((n) => ((window as any).__tinygpt.get().counts.evalResult ?? 0) > n, evals);
    const step = await value('#stat-step');
    const val = await value('#stat-val');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-download')]);
    expect(download.suggestedFilename()).toBe(`tinygpt-tinyshakespeare-step${step}.ckpt`);
    const ckpt = new Uint8Array(fs.readFileSync((await download.path())!));
    expect(Buffer.from(ckpt.subarray(0, 8)).toString()).toBe('TGPTCKPT');
    fs.writeFileSync(path.join(artifacts, 'downloaded.ckpt'), ckpt);

    await page.click('#btn-reset');
    await waitDbg((d) => d.step === 0);
    expect(await page.isEnabled('#knob-n_layer')).toBe(true);

    // a damaged copy: the core's own message, and nothing changes
    const bad = ckpt.slice();
    bad[bad.length - 100] ^= 0x5a;
    expectErrors = true;
    await dropFile('damaged.ckpt', bad, 'application/octet-stream');
    await page.waitForFunction(() => /damaged\.ckpt/.test(document.querySelector('.notice.error')?.textContent ?? ''));
    expect(await lastError()).toMatch(/Could not load damaged\.ckpt: .*(checksum|corrupt|CRC).*current model is unchanged/i);
    // a file that only starts like one
    await dropFile('foreign.ckpt', new TextEncoder().encode('TGPTCKPT but then something else entirely'), 'application/octet-stream');
    await page.waitForFunction(() => /foreign\.ckpt/.test(document.querySelector('.notice.error:last-of-type')?.textContent ?? ''));
    expect(await lastError()).toMatch(/Could not load foreign\.ckpt: .+/);
    expectErrors = false;
    expect(await dbg((d) => d.step)).toBe(0);

    // the same weights as a .safetensors model file (tinygpt export): a new run from them, at step 0
    const exported = path.join(artifacts, 'exported.safetensors');
    execFileSync(path.join(root, 'build/native/tinygpt'), ['export', '--ckpt', path.join(artifacts, 'downloaded.ckpt'), '--out', exported]);
    const models = await count('model');
    await dropFile('exported.safetensors', new Uint8Array(fs.readFileSync(exported)), 'application/octet-stream');
    await page.waitForFunction((n) => ((window as any).__tinygpt.get().counts.model ?? 0) > n, models);
    expect(await dbg((d) => d.step)).toBe(0);
    expect(await page.isDisabled('#knob-n_layer')).toBe(true);    // the file's settings, locked
    expect(await page.inputValue('#knob-n_embd')).toBe('64');
    const evals1 = await count('evalResult');
    await page.click('#btn-evaluate');
    await page.waitForFunction((n) => ((window as any).__tinygpt.get().counts.evalResult ?? 0) > n, evals1);
    expect(await value('#stat-val')).toBe(val);                  // the checkpoint's weights: its validation loss
    await shot('10a-safetensors-loaded');

    // a live model now: replacing it asks first (issue 11, item 2)
    const asked = new Promise<string>((resolve) => page.once('dialog', (d) => { resolve(d.message()); void d.accept(); }));
    await dropFile(download.suggestedFilename(), ckpt, 'application/octet-stream');
    expect(await asked).toMatch(/Replace the current model/);
    await waitDbg((d, s) => d.step === s, step);
    expect(await value('#stat-step')).toBe(step);
    expect(await page.isDisabled('#knob-n_layer')).toBe(true);    // the checkpoint's settings, locked
    expect(await page.inputValue('#knob-n_embd')).toBe('64');
    const evals2 = await count('evalResult');
    await page.click('#btn-evaluate');
    await page.waitForFunction((n) => ((window as any).__tinygpt.get().counts.evalResult ?? 0) > n, evals2);
    const val2 = await value('#stat-val');
    expect(val2).toBe(val);                                      // same weights, same fixed validation batches
    metrics.checkpoint = { step, valLoss: val, bytes: ckpt.length };
    await shot('10-checkpoint-restored');
  });

  it('resumes the run from IndexedDB after a reload', async () => {
    const step = await value('#stat-step');
    const val = await value('#stat-val');
    // loading a checkpoint autosaves it; wait until the browser holds this step
    await page.waitForFunction((s) => document.querySelector('#autosave-status')?.getAttribute('data-value') === String(s), step);
    await page.reload();
    await waitDbg((d) => !!d.ready);
    await page.waitForSelector('#resume-banner:not([hidden])');
    expect(await text('#resume-banner')).toContain(`step ${step}`);
    await page.click('#btn-resume');
    await waitDbg((d, s) => d.step === s, step);
    expect(await text('#corpus-name')).toBe('tinyshakespeare.txt');
    expect(await value('#stat-val')).toBe(val);                  // the history came back with the checkpoint
    await page.click('#btn-start');                               // and it trains on from there
    await waitDbg((d, s) => d.step > s + 5, step);
    await page.click('#btn-start');
    await waitDbg((d) => !d.running);
    await shot('11-resumed');
  });

  it('measures config S: tokens/s, time from page load to the first step, frame rate while training', async () => {
    await page.click('#btn-reset');
    await waitDbg((d) => d.step === 0);
    const result: Record<string, unknown> = {};
    for (const variant of ['threads', 'simd']) {
      await openPage(variant === 'threads' ? '' : '?variant=simd');
      if (await page.isVisible('#resume-banner')) await page.click('#btn-discard');
      await page.click('#btn-shakespeare');
      await page.click('[data-preset=S]');
      await waitStartEnabled();
      await page.click('#btn-start');
      await waitDbg((d) => d.step >= 1, undefined, 60_000);
      const firstStepMs = await dbg((d) => d.timing.firstStepMs);
      // frames drawn by the page in 2 s of training
      const fps = await page.evaluate(() => new Promise<number>((resolve) => {
        let frames = 0;
        const t0 = performance.now();
        const tick = () => {
          frames++;
          if (performance.now() - t0 < 2000) requestAnimationFrame(tick);
          else resolve(frames / ((performance.now() - t0) / 1000));
        };
        requestAnimationFrame(tick);
      }));
      await waitDbg((d) => d.step >= 25, undefined, 120_000);
      const tps = await dbg((d) => d.tokensPerSec);
      const ready = (await dbg((d) => d.ready))!;
      expect(ready.variant).toBe(variant);
      expect(tps).toBeGreaterThan(0);
      expect(await value('#stat-tps')).toBeGreaterThan(0);
      result[variant] = { tokensPerSec: Math.round(tps), threads: ready.threads, loadToFirstStepMs: Math.round(firstStepMs), fps: Math.round(fps) };
      if (variant === 'threads') await shot('12-small-preset-training');
      await page.click('#btn-start');
      await waitDbg((d) => !d.running);
      console.log(`config S in headless Chromium, ${variant} build (${ready.threads} thread${ready.threads > 1 ? 's' : ''}): ` +
        `${Math.round(tps)} tokens/s; page load -> first training step ${Math.round(firstStepMs)} ms; ${fps.toFixed(0)} frames/s while training`);
      expect(fps).toBeGreaterThan(20);
    }
    metrics.configS = { ...result, loadAverage1m: Number(os.loadavg()[0].toFixed(2)) };
    // what the page downloads (gzip -9): the JS and wasm of each build
    const dist = path.join(root, 'dist');
    const gz = (f: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length;
    const assets = fs.readdirSync(path.join(dist, 'assets'));
    const app = assets.filter((f) => f.endsWith('.js') || f.endsWith('.css')).reduce((s, f) => s + gz(`assets/${f}`), gz('index.html'));
    metrics.gzipBytes = {
      app,
      simd: gz('wasm/tinygpt-simd.js') + gz('wasm/tinygpt-simd.wasm'),
      scalar: gz('wasm/tinygpt-scalar.js') + gz('wasm/tinygpt-scalar.wasm'),
      threads: gz('wasm/tinygpt-threads.js') + gz('wasm/tinygpt-threads.wasm') + gz('wasm/tinygpt-threads.worker.js'),
      corpus: gz('data/tinyshakespeare.txt'),
    };
  });

  it('works offline once loaded (service worker cache)', async () => {
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
    expectErrors = true;   // requests that fail while offline may be logged
    await ctx.setOffline(true);
    try {
      await openPage();
      await page.click('#btn-shakespeare');
      await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'tinyshakespeare.txt');
      expect(await dbg((d) => d.ready!.variant)).toBe('threads');
      await shot('13-offline');
    } finally {
      await ctx.setOffline(false);
      expectErrors = false;
    }
  });

  it('logged no console errors along the way', () => {
    expect(consoleErrors).toEqual([]);
  });
});
