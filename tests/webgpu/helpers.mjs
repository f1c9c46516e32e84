// Helpers for the WebGPU tests: a Dawn GPU in Node (on SwiftShader when no GPU is present), the
// wasm module and its test-only reference module, and single-kernel plans.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

import { GpuExecutor } from '../../web/src/features/webgpu/executor.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const shakespeare = new Uint8Array(fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt')));

let gpuPromise = null;
// Dawn's GPU object with its globals (GPUBufferUsage, ...) installed; one per process.
export function nodeGpu() {
  gpuPromise ??= (async () => {
    const { create, globals } = await import('webgpu');
    Object.assign(globalThis, globals);
    return create([]);
  })();
  return gpuPromise;
}

export async function nodeAdapter() {
  const gpu = await nodeGpu();
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter: run with LD_LIBRARY_PATH=/usr/lib/chromium VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json');
  return adapter;
}

let devicePromise = null;
// One device for a test file: executors on one device share their compiled pipelines
// (SwiftShader takes seconds to compile the kernels).
export function sharedDevice() {
  devicePromise ??= nodeAdapter().then((a) => a.requestDevice());
  return devicePromise;
}

/**
 * k optimizer steps on the GPU, recorded in the host as they come back (gpuRecordSteps: its
 * history and step counter; a diverged step rejects with the CPU's message). The page never does
 * this: its steps go through the core's run loop (gpu-backend.ts, Run); the tests check the GPU's
 * numbers step by step. The steps are submitted at once, so a test may submit the next ones
 * before awaiting these.
 */
export function trainSteps(M, host, g, k) {
  return g.steps(k).then((r) => {
    M.gpuRecordSteps(host, r.losses, r.gradNorms);
    return { losses: r.losses, step: host.step(), lr: host.learningRate(), gradNorm: r.gradNorms[r.losses.length - 1] };
  });
}

export async function loadWasm(variant = 'simd') {
  const dist = path.join(root, 'build/wasm-dist');
  const { default: create } = await import(pathToFileURL(path.join(dist, `tinygpt-${variant}.js`)).href);
  return create({ wasmBinary: fs.readFileSync(path.join(dist, `tinygpt-${variant}.wasm`)) });
}

export async function loadRef() {
  const file = path.join(root, 'build/wasm-tests/tests/tinygpt_gpu_ref.cjs');
  if (!fs.existsSync(file)) throw new Error(`${file} missing: run scripts/build-wasm.sh tests`);
  const create = createRequire(import.meta.url)(file);
  return create({ wasmBinary: fs.readFileSync(file.replace(/\.cjs$/, '.wasm')) });
}

// A plan of one op whose arguments each get their own buffer: args are typed arrays (inputs and
// initial contents), numbers (zero-filled outputs of that many floats) or null (absent).
export function singleOpPlan(kernel, args, dims, scalars = [], headSize = 1) {
  const buffers = [];
  const regions = args.map((a, i) => {
    if (a === null) return null;
    const n = typeof a === 'number' ? a : a.length;
    const type = a instanceof Uint32Array || a instanceof Int32Array ? 'u32' : 'f32';
    buffers.push({ name: `arg${i}`, elements: Math.ceil(Math.max(n, 1) / 64) * 64, type });
    return [buffers.length - 1, 0, Math.max(n, 1)];
  });
  const io = {};
  regions.forEach((r, i) => { if (r) io[`arg${i}`] = r; });
  return {
    plan: {
      version: 1, model: { n_layer: 1, n_head: 1, n_embd: headSize, block_size: 1, vocab_size: 256 }, batch: 1,
      headSize, align: 64, numParams: 0, gpuParams: 0, decayParams: 0, stateWords: 16, sampleRecordWords: 12,
      maxChunk: 256, state: {}, buffers, params: [], io, programs: { op: [{ kernel, label: kernel, args: regions, dims, scalars: [...new Uint32Array(new Float32Array(scalars).buffer)] }] },
    },
    inputs: args,
  };
}

// Deterministic pseudo-random floats in [-scale, scale).
export function randoms(n, seed, scale = 1) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = ((s / 4294967296) * 2 - 1) * scale;
  }
  return out;
}

// max |a - b| / (atol + rtol |b|) over the elements: <= 1 passes
export function closeness(a, b, atol, rtol) {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let worst = 0, at = -1;
  for (let i = 0; i < a.length; i++) {
    const e = Math.abs(a[i] - b[i]) / (atol + rtol * Math.abs(b[i]));
    if (!(e <= worst)) { worst = e; at = i; }
  }
  return { worst, at, got: a[at], want: b[at] };
}

// Runs one kernel on `device` (an adapter gives one device: the tests share it) with the arguments
// `args` (arrays are uploaded, numbers are output sizes, null is no argument); returns every
// argument's contents afterwards.
export async function runKernel(device, kernel, args, dims, scalars = [], HS = 1) {
  const { plan } = singleOpPlan(kernel, args, dims, scalars, HS);
  const exec = await GpuExecutor.create(plan, { device });
  try {
    args.forEach((a, i) => { if (a !== null && typeof a !== 'number') exec.write(`arg${i}`, a); });
    exec.run('op');
    const live = args.map((a, i) => (a === null ? null : i)).filter((i) => i !== null);
    const parts = await exec.read(live.map((i) => plan.io[`arg${i}`]));
    const out = args.map(() => null);
    live.forEach((i, k) => {
      out[i] = args[i] instanceof Uint32Array ? new Uint32Array(parts[k]) : new Float32Array(parts[k]);
    });
    return out;
  } finally {
    exec.destroy();
  }
}

/** got within atol + rtol |want| of want, elementwise; names the worst element otherwise. */
export function expectClose(got, want, atol, rtol, what) {
  const c = closeness(got, want, atol, rtol);
  assert.ok(c.worst <= 1, `${what}: element ${c.at} is ${c.got}, reference ${c.want} (${c.worst.toFixed(2)}x the tolerance)`);
}
