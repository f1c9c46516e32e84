// scratch: drive the page (not committed)
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { chromiumPath } from './scripts/chromium.mjs';
const root = process.cwd();
const port = await new Promise((resolve) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
const server = await preview({ configFile: path.join(root, 'web/vite.config.ts'), logLevel: 'warn', preview: { port, host: '127.0.0.1', strictPort: true } });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'expl-'));
const ctx = await chromium.launchPersistentContext(dir, { executablePath: chromiumPath(), headless: true, args: ['--headless', '--no-sandbox'], viewport: { width: 1280, height: 900 }, acceptDownloads: true });
const page = ctx.pages()[0];
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log('console:', m.text()); });
page.on('pageerror', (e) => console.log('pageerror', e.message));
const dbg = (fn, arg) => page.evaluate(({ src, arg }) => (0, eval)(`(${src})`)(window.__tinygpt.get(), arg), { src: fn.toString(), arg });
async function waitFor(pred, t = 60000, arg) { const t0 = Date.now(); while (!(await dbg(pred, arg))) { if (Date.now() - t0 > t) throw new Error('timeout ' + pred); await new Promise((r) => setTimeout(r, 100)); } }
const shot = (n) => page.screenshot({ path: `/tmp/s2s-shots/${n}.png`, fullPage: true });
globalThis.ctx = { page, dbg, waitFor, shot };
await page.goto(`http://127.0.0.1:${port}/`);
await waitFor((d) => !!d.ready);
try {
  const mod = await import(process.argv[2]);
  await mod.default(globalThis.ctx);
} catch (e) { console.log('FAILED', e); await shot('failed'); }
await ctx.close(); await server.close(); fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
