// Helpers for the Node tests of the WebAssembly module: loading a variant, running the native
// CLI, and reading checkpoints independently of the C++ code (from the layout in
// core/include/tinygpt/checkpoint.h).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const distDir = path.join(root, 'build/wasm-dist');
export const cliPath = path.join(root, 'build/native/tinygpt');
export const shakespeare = new Uint8Array(fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt')));

// The single-threaded web builds, which also load in Node. (The web "threads" build is an ES
// module whose pthread workers Node cannot start; tests use build/wasm-node's twin instead.)
export function variantsBuilt() {
  return ['simd', 'scalar'].filter((v) => fs.existsSync(path.join(distDir, `tinygpt-${v}.wasm`)));
}

// Node 20 + Emscripten 3.1.6: the loader would fetch() a file path, so hand it the bytes.
export async function loadModule(variant) {
  const { default: create } = await import(pathToFileURL(path.join(distDir, `tinygpt-${variant}.js`)).href);
  return create({ wasmBinary: fs.readFileSync(path.join(distDir, `tinygpt-${variant}.wasm`)) });
}

export function runCli(args) {
  if (!fs.existsSync(cliPath)) throw new Error(`native CLI not built: ${cliPath} (run npm run build:native)`);
  const r = spawnSync(cliPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tinygpt ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

export function tmpPath(name) {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'tinygpt-'));
  return path.join(dir, name);
}

// The config, state and sections of a checkpoint, read from the layout described in
// core/include/tinygpt/checkpoint.h (version 2) without the C++ code.
export function readCheckpoint(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== 'TGPTCKPT') throw new Error('not a checkpoint');
  let o = 8;
  const u8 = () => dv.getUint8(o++);
  const u32 = () => { const v = dv.getUint32(o, true); o += 4; return v; };
  const u64 = () => { const v = dv.getBigUint64(o, true); o += 8; return v; };
  const text = (n) => { const t = new TextDecoder().decode(bytes.subarray(o, o + n)); o += n; return t; };
  const version = u32();
  if (version !== 2) throw new Error(`checkpoint version ${version}: this reader knows version 2`);
  const headerBytes = u32();
  const fields = {};
  for (let n = u32(), i = 0; i < n; i++) {
    const name = text(u8());
    const type = String.fromCharCode(u8());
    if (type === 'i') { fields[name] = Number(dv.getBigInt64(o, true)); o += 8; }
    else if (type === 'u') fields[name] = u64();
    else if (type === 'f') { fields[name] = dv.getFloat64(o, true); o += 8; }
    else if (type === 's') fields[name] = text(u32());
    else throw new Error(`field ${name}: unknown type ${type}`);
  }
  const sections = {};
  for (let n = u32(), i = 0; i < n; i++) {
    const name = text(u8());
    const dtype = String.fromCharCode(u8());
    const count = Number(u64());
    const offset = headerBytes + Number(u64());
    sections[name] = { dtype, count, offset };
  }
  const floats = (name) => {
    const s = sections[name];
    const out = new Float32Array(s.count);
    for (let i = 0; i < s.count; i++) out[i] = dv.getFloat32(s.offset + 4 * i, true);
    return out;
  };
  return {
    version, headerBytes, fields, sections, step: fields.step, adamT: fields.adam_t,
    fingerprint: fields.corpus_fingerprint, corpusSize: Number(fields.corpus_size),
    nParams: sections.params.count, trainLosses: floats('train_losses'), valLosses: floats('val_losses'),
  };
}

// max |a[i] - b[i]| over a's elements (two logits arrays, say)
export function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

export function relErr(a, b) {
  return Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);
}
