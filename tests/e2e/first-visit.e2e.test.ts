// Issue 11, item 6: a first visit on a static host that can't send COOP/COEP (GitHub Pages).
// The service worker adds them and the page reloads once to become cross-origin isolated; what
// the person chose before that reload (a preset, a dropped text) must survive it, and the page
// must come up with the threads build. dist/ is served here by a plain file server, no headers.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { dropFile, launch } from './helpers';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');
const types: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.txt': 'text/plain', '.json': 'application/json',
};
let server: http.Server;
// The service worker's install caches the whole site, the built-in text included: holding that one
// file back keeps the worker from taking control (and the page from reloading) until the test has
// made its choices, so they are made on the page before the reload, every time.
let releaseInstall!: () => void;
const installHeld = new Promise<void>((r) => (releaseInstall = r));
let url = '';
let ctx: BrowserContext;
let close: () => Promise<void>;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const p = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (p.endsWith('/tinyshakespeare.txt')) await installHeld;
    const file = path.join(dist, p.endsWith('/') ? `${p}index.html` : p);
    if (!file.startsWith(dist) || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  ({ ctx, close } = await launch());
});
afterAll(async () => {
  releaseInstall?.();
  await close?.();
  await new Promise((r) => server?.close(r));
});

/** Polls the page across its reload (an evaluate during the navigation throws). */
async function until(page: Page, fn: string, timeout = 30_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    try {
      if (await page.evaluate(fn)) return;
    } catch { /* the page is reloading */ }
    if (Date.now() - t0 > timeout) throw new Error(`timed out: ${fn}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('first visit on a host without COOP/COEP', () => {
  it('item 6: the service worker\'s reload keeps the chosen preset and the dropped text, and comes up threaded', async () => {
    const page = await ctx.newPage();
    await page.goto(url);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
    await page.click('[data-preset=tiny]');
    await dropFile(page, 'mine.txt', new TextEncoder().encode('A text chosen before the reload.\n'.repeat(30)));
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'mine.txt');
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);   // still the first load
    releaseInstall();
    await until(page, `crossOriginIsolated && !!window.__tinygpt?.get().ready && document.querySelector('#corpus-name')?.textContent === 'mine.txt'`);
    // it did reload (this document is the reloaded one), and kept what was chosen before
    expect(await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).type)).toBe('reload');
    expect(await page.evaluate(() => (window as any).__tinygpt.get().ready.variant)).toBe('threads');
    expect(await page.getAttribute('#settings', 'data-preset')).toBe('tiny');
    expect(await page.inputValue('#knob-n_layer')).toBe('2');
    await page.close();
  });
});
