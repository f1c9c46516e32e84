// Serves dist/ with `vite preview` (COOP/COEP headers from web/vite.config.ts) on a free
// localhost port for the duration of the e2e run, and stops it afterwards.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import type { TestProject } from 'vitest/node';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!fs.existsSync(path.join(root, 'dist/index.html'))) throw new Error('dist/ is missing: run npm run build first (npm run test:e2e does)');
  const port = await freePort();
  const server = await preview({
    configFile: path.join(root, 'web/vite.config.ts'),
    logLevel: 'warn',
    preview: { port, host: '127.0.0.1', strictPort: true, open: false },
  });
  const url = `http://127.0.0.1:${port}/`;
  project.provide('baseURL', url);
  console.log(`e2e: serving dist/ at ${url}`);
  return async () => {
    await server.close();
  };
}
