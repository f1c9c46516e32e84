// Loads a wasm build in Node for tests that want the core's own answers (see tests/wasm/helpers.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { TinyGPTModule } from '../../wasm/tinygpt';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'build/wasm-dist');

let cached: Promise<TinyGPTModule> | null = null;

export function loadScalar(): Promise<TinyGPTModule> {
  cached ??= (async () => {
    // npm test builds the wasm first; a missing build is a failure, not a skip
    if (!fs.existsSync(path.join(dist, 'tinygpt-scalar.wasm')))
      throw new Error('build/wasm-dist/tinygpt-scalar.* missing: run scripts/build-wasm.sh scalar');
    const { default: create } = await import(/* @vite-ignore */ pathToFileURL(path.join(dist, 'tinygpt-scalar.js')).href);
    return create({ wasmBinary: fs.readFileSync(path.join(dist, 'tinygpt-scalar.wasm')) }) as Promise<TinyGPTModule>;
  })();
  return cached;
}

export const shakespeare = (): Uint8Array => new Uint8Array(fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt')));
