// End-to-end tests: the built site (dist/, `npm run build` first) served by `vite preview` with
// COOP/COEP on a free port, driven in headless Chromium (/usr/bin/chromium) with playwright-core.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  test: {
    include: ['**/*.e2e.test.ts'],
    globalSetup: [path.join(here, 'global-setup.ts')],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // one browser, one page, steps in order: later steps build on earlier ones
    sequence: { concurrent: false },
    reporters: ['verbose'],
  },
});
