// npm run bench:export — the time to export configs S and M in every format, and the files' sizes
// (issue 24), and the ONNX export of the translators s2s-small and s2s-lstm: in wasm (the simd build in this Node: what the page's "Download as…" runs, the
// worker's exportModel) and natively (`tinygpt export` on a checkpoint, the process included).
// The models are the presets in the GPT-2 layout (tie_weights 1: every format can hold them), at
// their initial weights (the time does not depend on the values). Each time is the median of
// BENCH_EXPORT_REPEAT rounds (default 5). Writes bench/results/export-<date>.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { benchResults, root } from './results.mjs';

const record = benchResults('export');
const repeats = Number(process.env.BENCH_EXPORT_REPEAT || 5);
const CHOICES = [['safetensors', {}], ['onnx', {}], ['hf', {}], ['gguf', { dtype: 'f32' }], ['gguf', { dtype: 'f16' }], ['gguf', { dtype: 'q8_0' }]];
const label = ([format, o]) => (o.dtype ? `${format}-${o.dtype}` : format);

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (f) => {
  const t0 = process.hrtime.bigint();
  const r = f();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, r };
};
const round = (x, d = 1) => Number(x.toFixed(d));

const dist = path.join(root, 'build/wasm-dist');
const { default: create } = await import(pathToFileURL(path.join(dist, 'tinygpt-simd.js')).href);
const M = await create({ wasmBinary: fs.readFileSync(path.join(dist, 'tinygpt-simd.wasm')) });
const cli = path.join(root, 'build/native/tinygpt');
if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: npm run build:native`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-bench-export-'));

const rows = [];
// the GPT presets in every format; the translators (the seeds' encoder-decoder, the LSTM one) in the one they have, ONNX (two graphs)
for (const [preset, choices] of [['S', CHOICES], ['M', CHOICES], ['s2s-small', [['onnx', {}]]], ['s2s-lstm', [['onnx', {}]]]]) {
  const base = M.presets().find((p) => p.name === preset).config;
  const config = base.model === 'gpt' ? { ...base, tie_weights: 1 } : base;
  const s = new M.Session(config);
  const ckpt = path.join(dir, `${preset}.ckpt`);
  fs.writeFileSync(ckpt, s.save());
  for (const choice of choices) {
    const [format, options] = choice;
    const wasm = [], native = [];
    let bytes = 0;
    for (let r = 0; r < repeats; r++) {
      // wasm and native alternate in each round, so that a change of the machine's load falls on both
      const t = ms(() => M.exportModel(s, format, options));
      wasm.push(t.ms);
      bytes = t.r.reduce((n, f) => n + f.bytes.length, 0);
      const args = ['export', '--ckpt', ckpt, '--format', format, '--out', path.join(dir, `out-${preset}-${label(choice)}`),
        ...(options.dtype ? ['--dtype', options.dtype] : [])];
      const n = ms(() => spawnSync(cli, args, { encoding: 'utf8' }));
      if (n.r.status !== 0) throw new Error(`tinygpt ${args.join(' ')}: ${n.r.stderr}`);
      native.push(n.ms);
    }
    const row = { config: preset, parameters: s.numParameters(), format: label(choice), bytes, wasmMs: round(med(wasm)), nativeMs: round(med(native)) };
    rows.push(row);
    console.log(`${preset} ${row.format.padEnd(12)} ${String(bytes).padStart(10)} bytes  wasm ${String(row.wasmMs).padStart(7)} ms  native (process) ${String(row.nativeMs).padStart(7)} ms`);
  }
  s.delete();
}
fs.rmSync(dir, { recursive: true, force: true });
record.figures.repeats = repeats;
record.figures.exports = rows;
record.write();
