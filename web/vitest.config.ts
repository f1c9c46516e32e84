// Unit tests of the page's pure modules (protocol, UTF-8 joining, corpus checks, settings,
// checkpoint headers), some against the real wasm module loaded in Node.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const webDir = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: webDir,
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
