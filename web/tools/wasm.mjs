#!/usr/bin/env node
// Makes sure build/wasm-dist has the builds the page loads (the presets of CMakePresets.json marked
// "page": simd, scalar, threads).
//   node web/tools/wasm.mjs           build the missing ones (quick when all exist: npm start);
//                                     succeeds if at least one single-threaded build is there
//   node web/tools/wasm.mjs --update  run scripts/build-wasm.sh for each of them; CMake rebuilds only
//                                     what changed (npm run build, so a site is built from the
//                                     current core; see below for a variant that fails)
// Without Emscripten, existing builds are used as they are, with a warning.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { wasmVariants } from '../../scripts/wasm-variants.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'build/wasm-dist');
// the variants the page loads and their files: CMakePresets.json, the one list of builds
const files = Object.fromEntries(wasmVariants().filter((v) => v.page).map((v) => [v.name, v.files]));
const update = process.argv.includes('--update');
const missing = Object.keys(files).filter((v) => files[v].some((f) => !fs.existsSync(path.join(dist, f))));
const wanted = update ? Object.keys(files) : missing;
if (wanted.length === 0) process.exit(0);

const hasEmcc = spawnSync('sh', ['-c', 'command -v emcmake'], { stdio: 'ignore' }).status === 0;
if (!hasEmcc) {
  if (missing.length === 0) {
    console.warn('wasm: Emscripten not found; using the existing builds in build/wasm-dist');
    process.exit(0);
  }
  console.error(`wasm: missing ${missing.join(', ')} in build/wasm-dist and Emscripten is not installed ` +
    '(apt-get install emscripten cmake, see README)');
  process.exit(1);
}
if (!update) {
  // npm start: build each missing variant on its own; the page falls back from threads to simd to
  // scalar, so it can start as long as one single-threaded build exists
  for (const v of wanted) {
    console.log(`wasm: scripts/build-wasm.sh ${v}`);
    const r = spawnSync(path.join(root, 'scripts/build-wasm.sh'), [v], { stdio: 'inherit', cwd: root });
    if (r.status !== 0) console.warn(`wasm: building the ${v} variant failed; the page will use another one`);
  }
  const usable = ['simd', 'scalar'].some((v) => files[v].every((f) => fs.existsSync(path.join(dist, f))));
  process.exit(usable ? 0 : 1);
}
// --update: rebuild every variant. A variant that fails to build is an error, unless an earlier
// build of it is still there (a working copy mid-change): then that one is used, with a warning.
// On a fresh machine (CI) nothing earlier exists, so any failure fails the build.
for (const v of wanted) {
  console.log(`wasm: scripts/build-wasm.sh ${v}`);
  const r = spawnSync(path.join(root, 'scripts/build-wasm.sh'), [v], { stdio: 'inherit', cwd: root });
  if (r.status === 0) continue;
  if (missing.includes(v) || files[v].some((f) => !fs.existsSync(path.join(dist, f)))) process.exit(r.status ?? 1);
  const when = fs.statSync(path.join(dist, files[v][0])).mtime.toISOString();
  console.warn(`\nwasm: WARNING: rebuilding the ${v} variant failed; using the earlier build in build/wasm-dist (${when})\n`);
}
// another build may have removed files meanwhile (the script is safe to run again)
const still = Object.keys(files).filter((v) => files[v].some((f) => !fs.existsSync(path.join(dist, f))));
if (still.length) {
  console.log(`wasm: ${still.join(', ')} disappeared during the build; building again`);
  const again = spawnSync(path.join(root, 'scripts/build-wasm.sh'), still, { stdio: 'inherit', cwd: root });
  process.exit(again.status ?? 1);
}
