import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

import { COI_HEADERS, tinygptAssets } from './tools/assets-plugin.ts';

const webDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(webDir, '..');

export default defineConfig({
  root: webDir,
  base: './',                       // relative URLs: the site works from any folder of any static host
  publicDir: false,
  plugins: [tinygptAssets({ root, swEntry: path.join(webDir, 'src/sw.ts') })],
  // COOP + COEP make the page cross-origin isolated, which the threads build needs
  server: { headers: COI_HEADERS, fs: { allow: [root] } },
  preview: { headers: COI_HEADERS },
  worker: { format: 'es' },
  build: {
    outDir: path.join(root, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
    rollupOptions: {
      output: {
        // a feature's chunk is named by its folder and file (features/learn/panel.ts: learn-panel-<hash>.js)
        chunkFileNames: (chunk) => {
          const m = /features\/([\w-]+)\/([\w-]+)\.ts$/.exec(chunk.facadeModuleId ?? '');
          return `assets/${m ? `${m[1]}-${m[2]}` : '[name]'}-[hash].js`;
        },
      },
    },
  },
});
