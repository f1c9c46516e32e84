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
// rounds (default 5). Writes bench/results/tokenizer-<date>.json.
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
const repeats = Number(process.env.BENCH_TOKENIZER_REPEAT || 5);

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Wall seconds, and this process's CPU seconds (user + system): on a loaded machine the CPU time is
// the speed of one core while it runs (tokenizer_bench measures its thread's the same way).
function seconds(f) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const result = f();
  const c = process.cpuUsage(c0);
  return { s: Number(process.hrtime.bigint() - t0) / 1e9, cpu: (c.user + c.system) / 1e6, result };
}
const round = (x, d = 2) => Number(x.toFixed(d));

const text = testText(mb * 1e6);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-bench-tokenizer-'));
const textPath = path.join(dir, 'text.txt');
fs.writeFileSync(textPath, text);
fs.writeFileSync(path.join(dir, 'vocab.json'), vocabJson());
fs.writeFileSync(path.join(dir, 'merges.txt'), mergesTxt());
const MB = text.length / 1e6;
console.log(`text: ${text.length} bytes; vocabularies ${vocabs.join(', ')}; median of ${repeats} rounds`);

// The three sides run in rounds, one after the other in each round, so that a change of the
// machine's load falls on all of them; each figure is the median over the rounds, and each ratio the
// median of the ratios of the same round.
const bench = path.join(root, 'build/native/tokenizer_bench');
if (!fs.existsSync(bench)) throw new Error(`${bench} is missing: npm run build:native`);
const dist = path.join(root, 'build/wasm-dist');
const { default: create } = await import(pathToFileURL(path.join(dist, 'tinygpt-simd.js')).href);
const M = await create({ wasmBinary: fs.readFileSync(path.join(dist, 'tinygpt-simd.wasm')) });
const gt = await import('gpt-tokenizer/encoding/r50k_base');
const version = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/gpt-tokenizer/package.json'), 'utf8')).version;
const str = decodeWithOffsets(text).text;  // gpt-tokenizer takes strings: U+FFFD for the invalid bytes
const same = new TextEncoder().encode(str);  // and ours the very same string's bytes
const strMB = same.length / 1e6;
gt.encode(str.slice(0, 100_000));  // its tables are built on first use: not part of the timing
const g = M.tokenizerFromGpt2(vocabJson(), mergesTxt());

const rounds = [];
for (let k = 0; k < repeats; k++) {
  const r = spawnSync(bench, [textPath, vocabs.join(','), dir, '1'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tokenizer_bench failed: ${r.stderr}`);
  const native = JSON.parse(r.stdout);
  const wasm = { vocabularies: [] };
  for (const v of vocabs) {
    const train = seconds(() => M.trainTokenizer(text, v, null));
    const t = train.result;
    const enc = seconds(() => t.encode(text).length);
    wasm.vocabularies.push({ vocab: v, train_mb_s: MB / train.s, encode_mb_s: MB / enc.s, train_cpu_mb_s: MB / train.cpu,
      encode_cpu_mb_s: MB / enc.cpu, tokens: enc.result });
    t.delete();
  }
  const genc = seconds(() => g.encode(text).length);
  wasm.gpt2 = { encode_mb_s: MB / genc.s, encode_cpu_mb_s: MB / genc.cpu, tokens: genc.result };
  const wsame = seconds(() => g.encode(same).length);
  const ref = seconds(() => gt.encode(str).length);
  if (ref.result !== wsame.result) throw new Error('gpt-tokenizer and tinygpt disagree on the token count of the same text');
  // native on the same string's bytes: tokenizer_bench encodes TEXT's bytes; the U+FFFD text differs in a few bytes
  rounds.push({ native, wasm, reference: { encode_mb_s: strMB / ref.s, encode_cpu_mb_s: strMB / ref.cpu, tokens: ref.result,
    wasm_same_text_mb_s: strMB / wsame.s, wasm_same_text_cpu_mb_s: strMB / wsame.cpu } });
  console.log(`round ${k + 1}: native encode ${native.vocabularies[0].encode_mb_s} MB/s, wasm ${(MB / genc.s).toFixed(1)}, gpt-tokenizer ${(strMB / ref.s).toFixed(1)}`);
}
g.delete();

const pick = (f) => round(med(rounds.map(f)));
const native = {
  vocabularies: vocabs.map((v, i) => ({ vocab: v, train_mb_s: pick((r) => r.native.vocabularies[i].train_mb_s),
    encode_mb_s: pick((r) => r.native.vocabularies[i].encode_mb_s), train_cpu_mb_s: pick((r) => r.native.vocabularies[i].train_cpu_mb_s),
    encode_cpu_mb_s: pick((r) => r.native.vocabularies[i].encode_cpu_mb_s), tokens: rounds[0].native.vocabularies[i].tokens,
    bytes_per_token: rounds[0].native.vocabularies[i].bytes_per_token })),
  gpt2: { encode_mb_s: pick((r) => r.native.gpt2.encode_mb_s), encode_cpu_mb_s: pick((r) => r.native.gpt2.encode_cpu_mb_s), tokens: rounds[0].native.gpt2.tokens },
};
const wasm = {
  vocabularies: vocabs.map((v, i) => ({ vocab: v, train_mb_s: pick((r) => r.wasm.vocabularies[i].train_mb_s),
    encode_mb_s: pick((r) => r.wasm.vocabularies[i].encode_mb_s), train_cpu_mb_s: pick((r) => r.wasm.vocabularies[i].train_cpu_mb_s),
    encode_cpu_mb_s: pick((r) => r.wasm.vocabularies[i].encode_cpu_mb_s), tokens: rounds[0].wasm.vocabularies[i].tokens })),
  gpt2: { encode_mb_s: pick((r) => r.wasm.gpt2.encode_mb_s), encode_cpu_mb_s: pick((r) => r.wasm.gpt2.encode_cpu_mb_s), tokens: rounds[0].wasm.gpt2.tokens },
};
const reference = { package: `gpt-tokenizer@${version}`, encoding: 'r50k_base (GPT-2)', encode_mb_s: pick((r) => r.reference.encode_mb_s),
  encode_cpu_mb_s: pick((r) => r.reference.encode_cpu_mb_s),
  tokens: rounds[0].reference.tokens, wasm_same_text_mb_s: pick((r) => r.reference.wasm_same_text_mb_s) };
console.log('native', JSON.stringify(native));
console.log('wasm', JSON.stringify(wasm));
console.log('gpt-tokenizer', JSON.stringify(reference));

record.set('text', { bytes: text.length, generator: 'tests/ref/gpt2.mjs testText', rounds: repeats });
record.set('rounds', rounds);
record.set('native', native);
record.set('wasm', { variant: 'simd', ...wasm });
record.set('reference', reference);
const v0 = native.vocabularies[0];
const ratio = (f) => round(med(rounds.map(f)));
record.set('summary', {
  vocab: v0.vocab,
  native_train_mb_s: v0.train_mb_s, native_encode_mb_s: v0.encode_mb_s, native_gpt2_encode_mb_s: native.gpt2.encode_mb_s,
  wasm_train_mb_s: wasm.vocabularies[0].train_mb_s, wasm_encode_mb_s: wasm.vocabularies[0].encode_mb_s, wasm_gpt2_encode_mb_s: wasm.gpt2.encode_mb_s,
  gpt_tokenizer_encode_mb_s: reference.encode_mb_s,
  // the same figures in CPU time (one core while it runs: the goals' measure on a shared machine)
  native_train_cpu_mb_s: v0.train_cpu_mb_s, native_encode_cpu_mb_s: v0.encode_cpu_mb_s, native_gpt2_encode_cpu_mb_s: native.gpt2.encode_cpu_mb_s,
  wasm_train_cpu_mb_s: wasm.vocabularies[0].train_cpu_mb_s, wasm_encode_cpu_mb_s: wasm.vocabularies[0].encode_cpu_mb_s,
  wasm_gpt2_encode_cpu_mb_s: wasm.gpt2.encode_cpu_mb_s, gpt_tokenizer_encode_cpu_mb_s: reference.encode_cpu_mb_s,
  wasm_over_native_train: ratio((r) => r.wasm.vocabularies[0].train_mb_s / r.native.vocabularies[0].train_mb_s),
  wasm_over_native_encode: ratio((r) => r.wasm.vocabularies[0].encode_mb_s / r.native.vocabularies[0].encode_mb_s),
  native_gpt2_over_gpt_tokenizer: ratio((r) => r.native.gpt2.encode_mb_s / r.reference.encode_mb_s),
  wasm_gpt2_over_gpt_tokenizer: ratio((r) => r.reference.wasm_same_text_mb_s / r.reference.encode_mb_s),
});
console.log('summary', JSON.stringify(record.figures.summary));
fs.rmSync(dir, { recursive: true, force: true });
record.write();
