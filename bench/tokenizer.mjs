// npm run bench:tokenizer — the tokenizer's speed (issue 23): training MB/s and encoding MB/s on
// one core, natively (build/native/tokenizer_bench) and in wasm (the simd build, in this Node),
// next to the npm reference gpt-tokenizer's encoding speed on the same text with the same
// vocabulary (GPT-2's), measured in the same run; ratios are of figures from this run only.
//
// The text: tests/ref/gpt2.mjs testText() of BENCH_TOKENIZER_MB megabytes (default 8): tiny
// Shakespeare in slices between generated segments of many scripts, emoji, numbers, white space
// and invalid UTF-8. gpt-tokenizer takes a string: it is given the text decoded (U+FFFD for the
// invalid bytes), and its MB/s counts that string's UTF-8 bytes. Vocabularies trained:
// BENCH_TOKENIZER_VOCABS (default 1024,4096). Each figure is the median of BENCH_TOKENIZER_REPEAT
// runs (default 3). Writes bench/results/tokenizer-<date>.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { benchResults, root } from './results.mjs';
import { decodeWithOffsets, mergesTxt, testText, vocabJson } from '../tests/ref/gpt2.mjs';

const record = benchResults('tokenizer');
const mb = Number(process.env.BENCH_TOKENIZER_MB || 8);
const vocabs = (process.env.BENCH_TOKENIZER_VOCABS || '1024,4096').split(',').map(Number);
const repeats = Number(process.env.BENCH_TOKENIZER_REPEAT || 3);

function median(f) {
  const times = [];
  let result;
  for (let i = 0; i < repeats; i++) {
    const t0 = process.hrtime.bigint();
    result = f();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  return { s: times[Math.floor(times.length / 2)], result };
}
const round = (x, d = 2) => Number(x.toFixed(d));

const text = testText(mb * 1e6);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-bench-tokenizer-'));
const textPath = path.join(dir, 'text.txt');
fs.writeFileSync(textPath, text);
fs.writeFileSync(path.join(dir, 'vocab.json'), vocabJson());
fs.writeFileSync(path.join(dir, 'merges.txt'), mergesTxt());
const MB = text.length / 1e6;
console.log(`text: ${text.length} bytes; vocabularies ${vocabs.join(', ')}; median of ${repeats}`);

// ---- native -----------------------------------------------------------------------------------
const bench = path.join(root, 'build/native/tokenizer_bench');
if (!fs.existsSync(bench)) throw new Error(`${bench} is missing: npm run build:native`);
const r = spawnSync(bench, [textPath, vocabs.join(','), dir, String(repeats)], { encoding: 'utf8' });
if (r.status !== 0) throw new Error(`tokenizer_bench failed: ${r.stderr}`);
const native = JSON.parse(r.stdout);
console.log('native', JSON.stringify(native));

// ---- wasm (simd, one thread) ------------------------------------------------------------------
const dist = path.join(root, 'build/wasm-dist');
const { default: create } = await import(pathToFileURL(path.join(dist, 'tinygpt-simd.js')).href);
const M = await create({ wasmBinary: fs.readFileSync(path.join(dist, 'tinygpt-simd.wasm')) });
const wasm = { vocabularies: [] };
for (const v of vocabs) {
  let t = null;
  const train = median(() => { t?.delete(); t = M.trainTokenizer(text, v, null); return t; });
  const enc = median(() => t.encode(text).length);
  wasm.vocabularies.push({ vocab: v, train_s: round(train.s, 4), train_mb_s: round(MB / train.s), encode_s: round(enc.s, 4),
    encode_mb_s: round(MB / enc.s), tokens: enc.result });
  t.delete();
}
const g = M.tokenizerFromGpt2(vocabJson(), mergesTxt());
const genc = median(() => g.encode(text).length);
wasm.gpt2 = { encode_s: round(genc.s, 4), encode_mb_s: round(MB / genc.s), tokens: genc.result };
g.delete();
console.log('wasm', JSON.stringify(wasm));

// ---- the npm reference ------------------------------------------------------------------------
const gt = await import('gpt-tokenizer/encoding/r50k_base');
const version = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/gpt-tokenizer/package.json'), 'utf8')).version;
const str = decodeWithOffsets(text).text;
const strMB = Buffer.byteLength(str) / 1e6;
gt.encode(str.slice(0, 100_000));  // its tables are built on first use: not part of the timing
const ref = median(() => gt.encode(str).length);
// ours on the very same string's bytes, so that the ratio compares like with like
const same = new TextEncoder().encode(str);
const gs = M.tokenizerFromGpt2(vocabJson(), mergesTxt());
const oursSame = median(() => gs.encode(same).length);
gs.delete();
const reference = { package: `gpt-tokenizer@${version}`, encoding: 'r50k_base (GPT-2)', encode_s: round(ref.s, 4),
  encode_mb_s: round(strMB / ref.s), tokens: ref.result, wasm_same_text_mb_s: round(strMB / oursSame.s), wasm_same_text_tokens: oursSame.result };
console.log('gpt-tokenizer', JSON.stringify(reference));
if (reference.tokens !== reference.wasm_same_text_tokens) throw new Error('gpt-tokenizer and tinygpt disagree on the token count of the same text');

record.set('text', { bytes: text.length, generator: 'tests/ref/gpt2.mjs testText', repeats });
record.set('native', native);
record.set('wasm', { variant: 'simd', ...wasm });
record.set('reference', reference);
const v0 = native.vocabularies[0];
record.set('summary', {
  native_train_mb_s: v0.train_mb_s, native_encode_mb_s: v0.encode_mb_s, native_gpt2_encode_mb_s: native.gpt2.encode_mb_s,
  wasm_train_mb_s: wasm.vocabularies[0].train_mb_s, wasm_encode_mb_s: wasm.vocabularies[0].encode_mb_s, wasm_gpt2_encode_mb_s: wasm.gpt2.encode_mb_s,
  gpt_tokenizer_encode_mb_s: reference.encode_mb_s,
  wasm_over_native_train: round(wasm.vocabularies[0].train_mb_s / v0.train_mb_s),
  wasm_over_native_encode: round(wasm.vocabularies[0].encode_mb_s / v0.encode_mb_s),
  native_gpt2_over_gpt_tokenizer: round(native.gpt2.encode_mb_s / reference.encode_mb_s),
  wasm_gpt2_over_gpt_tokenizer: round(reference.wasm_same_text_mb_s / reference.encode_mb_s),
  vocab: v0.vocab,
});
console.log('summary', JSON.stringify(record.figures.summary));
fs.rmSync(dir, { recursive: true, force: true });
record.write();
