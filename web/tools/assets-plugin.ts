// assets-plugin.ts — the files Vite must not touch, and the service worker.
//
// - wasm/: build/wasm-dist/* served (dev) and emitted (build) byte for byte under their own
//   names. tinygpt-threads.worker.js imports ./tinygpt-threads.js by name, so nothing may be
//   hashed, renamed or bundled.
// - data/tinyshakespeare.txt: the built-in corpus, served and emitted from data/ (not copied
//   into git).
// - docs/: the pages the learn-by-hand mode links to (its boxes show their sections), as they are.
// - sw.js: web/src/sw.ts built as its own chunk at a fixed name, with the list of every output
//   file (the offline cache) written into it, so any change to the site changes sw.js and the
//   browser installs the new version.
// - manifest.webmanifest and icons/*: what makes the page installable as an app, generated at
//   build time (app-manifest.ts), served (dev) and emitted (build), linked from index.html's head,
//   and in the offline cache like every other output file.
// - COOP/COEP headers on everything the dev server serves (Vite's `server.headers` does not
//   cover responses of custom middleware).
import fs from 'node:fs';
import path from 'node:path';
import type { Connect, Plugin } from 'vite';

import { HEAD_TAGS, appFiles } from './app-manifest.ts';

export const COI_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const MIME: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
  '.md': 'text/markdown; charset=utf-8',
};

/** The docs/ pages the learn-by-hand mode (web/src/ui/learn-panel.ts) links to, each with its Chinese twin (i18n docHref). */
export const LEARN_DOCS = ['walkthrough.md', 'multihead_attention.md', 'autograd_and_memory_layout.md', 'learn.md']
  .flatMap((f) => [f, f.replace(/\.md$/, '.zh-CN.md')]);

export interface AssetOptions {
  root: string;            // repository root
  swEntry: string;         // web/src/sw.ts
}

export const WASM_FILES = [
  'tinygpt-simd.js', 'tinygpt-simd.wasm',
  'tinygpt-scalar.js', 'tinygpt-scalar.wasm',
  'tinygpt-threads.js', 'tinygpt-threads.wasm', 'tinygpt-threads.worker.js',
];

export const MANIFEST_PLACEHOLDER = '__TINYGPT_PRECACHE_MANIFEST__';

export function tinygptAssets(opts: AssetOptions): Plugin {
  const wasmDir = path.join(opts.root, 'build/wasm-dist');
  const corpus = path.join(opts.root, 'data/tinyshakespeare.txt');
  // URL path (relative to the site root) -> file on disk
  const files = new Map<string, string>([
    ...WASM_FILES.map((f) => [`wasm/${f}`, path.join(wasmDir, f)] as [string, string]),
    ['data/tinyshakespeare.txt', corpus],
    ...LEARN_DOCS.map((f) => [`docs/${f}`, path.join(opts.root, 'docs', f)] as [string, string]),
  ]);

  // URL path -> contents, made here (the manifest and its icons)
  const generated = appFiles();

  const missing = () => [...files.values()].filter((f) => !fs.existsSync(f));

  const serve: Connect.NextHandleFunction = (req, res, next) => {
    const url = (req.url ?? '').split('?')[0];
    const rel = decodeURIComponent(url).replace(/^\/+/, '');
    const made = generated.get(rel);
    if (made !== undefined) {
      res.setHeader('Content-Type', MIME[path.extname(rel)] ?? 'application/octet-stream');
      for (const [k, v] of Object.entries(COI_HEADERS)) res.setHeader(k, v);
      res.end(made);
      return;
    }
    const file = files.get(rel);
    if (!file) return next();
    fs.readFile(file, (err, data) => {
      if (err) {
        res.statusCode = 404;
        res.end(`${rel} is missing: run scripts/build-wasm.sh simd scalar threads (${err.message})`);
        return;
      }
      res.setHeader('Content-Type', MIME[path.extname(file)] ?? 'application/octet-stream');
      res.setHeader('Cache-Control', 'no-cache');
      for (const [k, v] of Object.entries(COI_HEADERS)) res.setHeader(k, v);
      res.end(data);
    });
  };

  let building = false;
  return {
    name: 'tinygpt-assets',
    enforce: 'post',   // generateBundle after Vite's HTML plugin, so index.html is in the list
    configResolved(config) {
      building = config.command === 'build';
    },
    configureServer(server) {
      const absent = missing();
      if (absent.length) server.config.logger.warn(`tinygpt: missing ${absent.join(', ')} (run scripts/build-wasm.sh simd scalar threads)`);
      server.middlewares.use(serve);
    },
    buildStart() {
      if (!building) return;
      const absent = missing();
      if (absent.length) this.error(`missing ${absent.join(', ')}: run scripts/build-wasm.sh simd scalar threads`);
      for (const [rel, file] of files) {
        this.emitFile({ type: 'asset', fileName: rel, source: fs.readFileSync(file) });
      }
      for (const [rel, source] of generated) this.emitFile({ type: 'asset', fileName: rel, source });
      this.emitFile({ type: 'chunk', id: opts.swEntry, fileName: 'sw.js' });
    },
    // after Vite's own HTML processing, which would otherwise look for the manifest among the sources
    transformIndexHtml: {
      order: 'post',
      handler: () => HEAD_TAGS.map((t) => ({ ...t, injectTo: 'head' as const })),
    },
    generateBundle(_options, bundle) {
      if (!building) return;
      const sw = bundle['sw.js'];
      if (!sw || sw.type !== 'chunk') return this.error('sw.js was not built');
      // KaTeX's .woff/.ttf fonts are for browsers without woff2 (none the page runs in): not precached
      // onnxruntime-web's wasm (14 MB, features/export's check in ONNX Runtime, fetched when asked): not precached either
      const list = Object.keys(bundle).filter((f) => f !== 'sw.js' && !f.endsWith('.map') && !/KaTeX_.*\.(woff|ttf)$/.test(f) &&
        !/ort-wasm.*\.wasm$/.test(f)).sort();
      // the version is a hash of every file's name and contents, so sw.js changes with the site
      let h = 2166136261;
      const mix = (s: string | Uint8Array) => {
        const b = typeof s === 'string' ? new TextEncoder().encode(s) : s;
        for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619) >>> 0;
      };
      for (const f of list) {
        const item = bundle[f];
        mix(f);
        mix(item.type === 'chunk' ? item.code : typeof item.source === 'string' ? item.source : item.source);
      }
      const manifest = { version: h.toString(16).padStart(8, '0'), files: ['./', ...list] };
      const literal = JSON.stringify(JSON.stringify(manifest));
      const quoted = new RegExp(`(["'\`])${MANIFEST_PLACEHOLDER}\\1`);
      if (!quoted.test(sw.code)) return this.error('sw.js has no manifest placeholder');
      sw.code = sw.code.replace(quoted, literal);
    },
  };
}
