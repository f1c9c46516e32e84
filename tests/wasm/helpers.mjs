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

// The header and loss history of a checkpoint.
export function readCheckpoint(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== 'TGPTCKPT') throw new Error('not a checkpoint');
  let o = 8;
  const u32 = () => { const v = dv.getUint32(o, true); o += 4; return v; };
  const f32 = () => { const v = dv.getFloat32(o, true); o += 4; return v; };
  const u64 = () => { const v = Number(dv.getBigUint64(o, true)); o += 8; return v; };
  const version = u32();
  const model = { layers: u32(), heads: u32(), width: u32(), context: u32(), vocab: u32(), seed: u64() };
  const train = {
    batch: u32(), lr: f32(), minLr: f32(), warmup: u32(), steps: u32(), weightDecay: f32(),
    beta1: f32(), beta2: f32(), eps: f32(), gradClip: f32(), evalBatches: u32(),
  };
  const step = u64();
  const adamT = u64();
  o += 32; // data generator state
  const fingerprint = dv.getBigUint64(o, true); o += 8;
  const corpusSize = u64();
  const nParams = u64(), nTrain = u64(), nVal = u64();
  const headerBytes = o;
  o += nParams * 12;
  const trainLosses = new Float32Array(nTrain);
  for (let i = 0; i < nTrain; i++) trainLosses[i] = f32();
  return { version, model, train, step, adamT, fingerprint, corpusSize, nParams, nVal, headerBytes, trainLosses };
}

export function relErr(a, b) {
  return Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);
}
