// page-harness.mjs — what the page benches share: dist/ served by `vite preview` (COOP/COEP
// headers) on a free port, a headless Chromium (Debian's, driven by playwright-core) with a
// throw-away profile, and helpers that read the page's store (window.__tinygpt.get()).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';

import { chromiumPath } from '../scripts/chromium.mjs';
import { root } from '../tests/wasm/helpers.mjs';

// BENCH_CHROMIUM_ARGS: more Chromium flags, a JSON array, for a look inside a bench's page, e.g.
// '["--js-flags=--trace-opt --trace-deopt"]' with DEBUG=pw:browser (V8's output on stderr).
export async function openBenchPage(profilePrefix, extraArgs = []) {
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
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), profilePrefix));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extraArgs, ...JSON.parse(process.env.BENCH_CHROMIUM_ARGS ?? '[]')],
    viewport: { width: 1280, height: 900 },
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  // fn(state, arg) runs in the page on the store's state; it is sent as source, so it cannot
  // close over locals
  const dbg = (fn, arg) => page.evaluate(({ src, arg }) => (0, eval)(`(${src})`)(window.__tinygpt.get(), arg), { src: fn.toString(), arg });
  async function waitFor(pred, timeoutMs, arg) {
    const t0 = Date.now();
    while (!(await dbg(pred, arg))) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${pred}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  async function close() {
    await ctx.close();
    await server.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  return { base: `http://127.0.0.1:${port}/`, ctx, page, dbg, waitFor, close };
}
