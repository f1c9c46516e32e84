#!/usr/bin/env node
// The wasm variants, read from CMakePresets.json (the configure presets that inherit "wasm").
//   node scripts/wasm-variants.mjs names          every variant
//   node scripts/wasm-variants.mjs page           the variants the page loads
//   node scripts/wasm-variants.mjs target NAME    the CMake target(s) of a variant (exit 2 if unknown)
// Imported by web/tools/wasm.mjs for the files each variant writes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** [{name, page, target, files}] in the order of CMakePresets.json. */
export function wasmVariants() {
  const presets = JSON.parse(fs.readFileSync(path.join(root, 'CMakePresets.json'), 'utf8')).configurePresets;
  return presets
    .filter((p) => p.inherits === 'wasm')
    .map((p) => ({ name: p.name, ...p.vendor.tinygpt }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [what, name] = process.argv.slice(2);
  const all = wasmVariants();
  if (what === 'names') console.log(all.map((v) => v.name).join('\n'));
  else if (what === 'page') console.log(all.filter((v) => v.page).map((v) => v.name).join('\n'));
  else if (what === 'target') {
    const v = all.find((x) => x.name === name);
    if (!v) process.exit(2);
    console.log(v.target);
  } else {
    console.error('usage: wasm-variants.mjs names | page | target NAME');
    process.exit(2);
  }
}
