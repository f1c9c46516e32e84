// Issue 22: corpora of any size in the page. A generated text of 2 GiB (far more than the page
// could hold: wasm32 has 4 GiB in all) trains at once, the worker reading only the windows it
// samples; its statistics come from one streaming pass in a worker of its own while the page stays
// responsive; it is copied into OPFS, so a reload resumes the run without a new drop; a folder of
// llm.c shards trains; a bad shard is refused with what is wrong with it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { fillKnob, launch, openPage, state, waitState } from './helpers';

const root = path.resolve(__dirname, '../..');
const GiB = 2 ** 30;
let ctx: BrowserContext;
let close: () => Promise<void>;
let page: Page;
let dir: string;

/** A text of `size` bytes: tiny Shakespeare over and over, each copy numbered (so the sampled fingerprint sees a text that varies). */
function writeText(file: string, size: number): void {
  const base = fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt'));
  const fd = fs.openSync(file, 'w');
  let at = 0;
  for (let k = 0; at < size; k++) {
    const chunk = Buffer.concat([Buffer.from(`\n== copy ${k} ==\n`), base]);
    const n = Math.min(chunk.length, size - at);
    fs.writeSync(fd, chunk, 0, n, at);
    at += n;
  }
  fs.closeSync(fd);
}

/** An llm.c shard: 256 int32 (magic 20240520, version, token count), then uint16 tokens. */
function shard(tokens: Uint8Array, version = 1): Buffer {
  const b = Buffer.alloc(1024 + 2 * tokens.length);
  b.writeInt32LE(20240520, 0);
  b.writeInt32LE(version, 4);
  b.writeInt32LE(tokens.length, 8);
  for (let i = 0; i < tokens.length; i++) b.writeUInt16LE(tokens[i], 1024 + 2 * i);
  return b;
}

async function startTinyRun(p: Page): Promise<void> {
  await p.click('[data-preset=tiny]');
  await fillKnob(p, 'max_iters', '100000');
  await fillKnob(p, 'eval_interval', '0');
  await p.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
  await p.click('#btn-start');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-data-e2e-'));
  ({ ctx, close } = await launch());
  page = await ctx.newPage();
  await openPage(page, `${inject('baseURL')}?test-hooks`);
});
afterAll(async () => {
  await close?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('corpora of any size', () => {
  it('a 2 GiB text trains at once, read a window at a time; its statistics stream in; the page keeps a copy', async () => {
    const file = path.join(dir, 'big.txt');
    writeText(file, 2 * GiB + 12345);
    const t0 = Date.now();
    await page.setInputFiles('#corpus-file', file);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'big.txt', null, { timeout: 30_000 });
    expect(await page.isVisible('#corpus-streamed')).toBe(true);
    await startTinyRun(page);
    await waitState(page, (s) => s.step > 0, null, 30_000);
    const firstStepMs = Date.now() - t0;
    // what the worker read to get here: the fingerprint's sample (4 MiB), the baselines' and the
    // estimate's first MiBs (8 + 8 + 4), and the sampled windows: nothing like the file
    const read = await page.evaluate(() => (window as any).__tinygptTest.corpusBytesRead());
    const scanning = await state(page, (s) => !!s.corpus?.scan);
    console.log(`2 GiB text: first step ${firstStepMs} ms after the drop; worker read ${read} bytes; statistics pass still running: ${scanning}`);
    expect(read).toBeLessThan(40 * 2 ** 20);
    // the statistics pass: a progress bar, then the whole text's numbers; the page's own tasks meanwhile
    // (the browser's long-task entries: every main-thread task over 50 ms)
    expect(await page.isVisible('#corpus-scan')).toBe(true);
    await page.evaluate(() => {
      (window as any).__longTasks = [];
      new PerformanceObserver((l) => (window as any).__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
    });
    await waitState(page, (s) => !s.corpus?.scan, null, 180_000);
    await page.waitForFunction(() => document.querySelector('#corpus-chars')?.getAttribute('data-value') !== '', null, { timeout: 10_000 });
    const longTasks: number[] = await page.evaluate(() => (window as any).__longTasks);
    const bytes = Number(await page.getAttribute('#corpus-bytes', 'data-value'));
    const lines = Number(await page.getAttribute('#corpus-lines', 'data-value'));
    expect(bytes).toBe(2 * GiB + 12345);
    expect(lines).toBeGreaterThan(70_000_000);   // 40,000 lines a copy, ~1,900 copies
    console.log(`statistics pass done; main-thread tasks over 50 ms meanwhile: ${longTasks.length} (longest ${Math.max(0, ...longTasks).toFixed(0)} ms)`);
    // memory: the wasm heap and the page's JS heap do not hold the file
    const wasm = await state(page, (s) => s.memoryBytes);
    const heap = await page.evaluate(() => (performance as any).memory?.usedJSHeapSize ?? 0);
    console.log(`memory after the pass: wasm ${(wasm / 2 ** 20).toFixed(0)} MiB, page JS heap ${(heap / 2 ** 20).toFixed(0)} MiB`);
    expect(wasm).toBeLessThan(256 * 2 ** 20);
    expect(heap).toBeLessThan(256 * 2 ** 20);
    // the copy is kept: a record in IndexedDB says so
    const kept = await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const corpora = await root.getDirectoryHandle('corpora');
      const out: number[] = [];
      for await (const [, h] of (corpora as any).entries()) for await (const [, f] of (h as any).entries()) out.push((await (f as FileSystemFileHandle).getFile()).size);
      return out;
    });
    expect(kept).toContain(2 * GiB + 12345);
  });

  it('a reload resumes the run on the kept copy, without a new drop', async () => {
    await page.click('#btn-start');   // pause: the run is saved
    await waitState(page, (s) => !s.running);
    await page.waitForFunction(() => /Saved/.test(document.querySelector('#autosave-status')?.textContent ?? ''), null, { timeout: 30_000 });
    const before = await state(page, (s) => s.step);
    await page.reload();
    await waitState(page, (s) => !!s.ready);
    await page.waitForSelector('#resume-banner:not([hidden])');
    await page.click('#btn-resume');
    await waitState(page, (s) => !!s.model && !s.loading, null, 60_000);
    expect(await page.textContent('#corpus-name')).toBe('big.txt');
    expect(await state(page, (s) => s.step)).toBe(before);
    // the statistics came back with it, not from a new pass
    expect(await state(page, (s) => !!s.corpus?.scan)).toBe(false);
    expect(Number(await page.getAttribute('#corpus-bytes', 'data-value'))).toBe(2 * GiB + 12345);
    await page.click('#btn-start');
    await waitState(page, (s, n) => s.step > n, before, 30_000);
    await page.click('#btn-start');
    await waitState(page, (s) => !s.running);
  });

  it('a folder of llm.c shards trains; a bad shard is refused with what is wrong', async () => {
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
    const text = fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt'));
    const shards = path.join(dir, 'shake');
    fs.mkdirSync(shards);
    const cut = [0, 400_000, 800_000, 1_003_855, text.length];
    ['shake_train_000000.bin', 'shake_train_000001.bin', 'shake_train_000002.bin', 'shake_val_000000.bin'].forEach((name, k) =>
      fs.writeFileSync(path.join(shards, name), shard(text.subarray(cut[k], cut[k + 1]))));
    await page.setInputFiles('#corpus-folder', shards);
    await page.waitForSelector('#corpus-shards-list li');
    expect(await page.locator('#corpus-shards-list li').count()).toBe(4);
    expect(Number(await page.getAttribute('#corpus-tokens', 'data-value'))).toBe(text.length);
    await startTinyRun(page);
    await waitState(page, (s) => s.step > 2, null, 30_000);
    await page.click('#btn-start');
    await waitState(page, (s) => !s.running);
    // a shard of version 7: the core's refusal, the shards before kept
    fs.writeFileSync(path.join(shards, 'shake_train_000001.bin'), shard(text.subarray(cut[1], cut[2]), 7));
    await page.setInputFiles('#corpus-folder', shards);
    await page.waitForSelector('#corpus-message:not([hidden])');
    expect(await page.textContent('#corpus-message')).toMatch(/version 7/);
    expect(await page.locator('#corpus-shards-list li').count()).toBe(4);
  });
});
