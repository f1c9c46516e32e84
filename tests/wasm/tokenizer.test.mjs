// The tokenizer in WebAssembly (wasm/tokenizer.cpp) against the native core and against GPT-2 as
// the npm package gpt-tokenizer encodes it: the same vocabulary learned from the same text, the same
// ids for every kind of text, GPT-2's files (vocab.json + merges.txt, tokenizer.json in both merge
// forms) giving gpt-tokenizer's ids on the ~1 MB test text, the Unicode tables equal to this Node's
// RegExp, the golden files still what the reference makes, and bad input refused with its code.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, before } from 'node:test';

import { cliPath, loadModule, root, runCli, shakespeare, tmpPath, variantsBuilt } from './helpers.mjs';
import { decodeWithOffsets, mergesTxt, referenceEncode, testText, tokenizerJson, vocabJson } from '../ref/gpt2.mjs';
import { HEADER, header, tables } from '../../scripts/unicode-tables.mjs';

const { encode: gptEncode } = await import('gpt-tokenizer/encoding/r50k_base');

const text = testText();
const golden = (() => {
  const b = fs.readFileSync(path.join(root, 'tests/ref/gpt2/text_ids.bin'));
  return Int32Array.from({ length: b.length / 2 }, (_, i) => b[2 * i] | (b[2 * i + 1] << 8));
})();

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

function sameIds(got, want, what) {
  const at = firstDifference(got, want);
  assert.equal(at, -1, `${what}: the ids differ first at token ${at} of ${want.length}: ${Array.from(got.slice(at, at + 5))} vs ${Array.from(want.slice(at, at + 5))}`);
}

describe('the tokenizer\'s reference data', () => {
  it('has Unicode tables equal to this Node\'s RegExp \\p{L}, \\p{N} and \\s', (t) => {
    const now = tables();
    const written = fs.readFileSync(HEADER, 'utf8');
    const version = /kVersion = "([^"]+)"/.exec(written)[1];
    if (version !== now.unicode) return t.skip(`this Node has Unicode ${now.unicode}, the tables ${version}: node scripts/unicode-tables.mjs rewrites them`);
    assert.equal(written, header({ ...now, node: /Node (\S+)/.exec(written)[1] }), 'core/src/tokenizer_unicode.h: run node scripts/unicode-tables.mjs');
  });

  it('has golden files that the reference encoder still makes from gpt-tokenizer', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'tests/ref/make_gpt2_ref.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('gives gpt-tokenizer\'s ids, and the golden ids, with the reference encoder', () => {
    const fixed = decodeWithOffsets(text).text;
    sameIds(Int32Array.from(referenceEncode(new TextEncoder().encode(fixed))), Int32Array.from(gptEncode(fixed)), 'reference vs gpt-tokenizer');
    sameIds(Int32Array.from(referenceEncode(text)), golden, 'reference vs golden');
  });
});

for (const variant of variantsBuilt()) {
  describe(`the tokenizer in tinygpt-${variant}`, () => {
    let M;
    before(async () => { M = await loadModule(variant); });

    it('encodes the 1 MB test text as gpt-tokenizer does, from vocab.json + merges.txt and from tokenizer.json', () => {
      const fixed = new TextEncoder().encode(decodeWithOffsets(text).text);  // gpt-tokenizer takes strings: U+FFFD for invalid bytes
      const want = Int32Array.from(gptEncode(decodeWithOffsets(text).text));
      for (const [what, make] of [['vocab.json + merges.txt', () => M.tokenizerFromGpt2(vocabJson(), mergesTxt())],
        ['tokenizer.json', () => M.tokenizerFromJson(tokenizerJson())], ['tokenizer.json, merges as pairs', () => M.tokenizerFromJson(tokenizerJson({ pairs: true }))]]) {
        const g = make();
        assert.equal(g.vocabSize(), 50256, what);
        assert.equal(g.specials().find((s) => s.text === '<|endoftext|>').id, 50256, what);
        sameIds(g.encode(text), golden, `${what}, the raw text`);
        sameIds(g.encode(fixed), want, `${what}, the text as gpt-tokenizer reads it`);
        assert.deepEqual(g.decode(g.encode(text)), text, `${what}: decodes back`);
        g.delete();
      }
    });

    it('learns the vocabulary the native core learns, and encodes every kind of text as it does', () => {
      const train = tmpPath('train.txt');
      const sample = Buffer.concat([shakespeare.subarray(0, 120_000), text.subarray(200_000, 260_000)]);
      fs.writeFileSync(train, sample);
      const out = path.join(path.dirname(train), 'tok.tok');
      runCli(['tokenizer', 'train', train, '--vocab', '800', '--out', out]);
      let phases = new Set();
      const t = M.trainTokenizer(sample, 800, (p) => { phases.add(p.phase); });
      assert.deepEqual([...phases].sort(), ['counting', 'merging']);
      assert.deepEqual(t.serialize(), new Uint8Array(fs.readFileSync(out)), 'the same merges, counts and statistics, byte for byte');
      const probe = text.subarray(600_000, 700_000);
      const probePath = path.join(path.dirname(train), 'probe.bin');
      fs.writeFileSync(probePath, probe);
      const native = runCli(['tokenizer', 'encode', '--tokenizer', out, probePath]).trim().split(' ').map(Number);
      sameIds(t.encode(probe), Int32Array.from(native), 'wasm vs native');
      // the first merges, with their counts, are the page's merges view
      const m = t.merges();
      assert.ok(m.count[0] >= m.count[1] && m.count[1] > 0, 'counts in the order learned');
      assert.equal(t.tokenText(m.id[0]), t.tokenText(m.left[0]) + t.tokenText(m.right[0]));
      t.delete();
    });

    it('refuses bad input with the core\'s coded messages', () => {
      const codeOf = (f) => { try { f(); } catch (e) { return e.code; } return null; };
      let e;
      try { M.trainTokenizer(new TextEncoder().encode('low lower lowest low'), 261, null); } catch (x) { e = x; }
      assert.equal(e?.code, 'tokenizer.vocab_too_large');
      assert.deepEqual({ merges: e.args.merges, possible: e.args.possible }, { merges: '4', possible: '260' });
      assert.equal(codeOf(() => M.trainTokenizer(shakespeare.subarray(0, 1000), 70_000, null)), 'tokenizer.vocab_range');
      assert.equal(codeOf(() => M.tokenizerFromJson('{"model": {')), 'tokenizer.bad_json');
      assert.equal(codeOf(() => M.tokenizerFromJson('{"model": {"type": "WordPiece", "vocab": {}}}')), 'tokenizer.unsupported');
      assert.equal(codeOf(() => M.tokenizerFromGpt2(vocabJson(), '#version: 0.2\nĠ t\nĠt he x\n')), 'tokenizer.bad_merges');
      const blob = new M.Tokenizer().serialize();
      assert.equal(codeOf(() => M.tokenizerFromBytes(blob.subarray(0, blob.length - 1))), 'tokenizer.truncated');
      const flipped = blob.slice();
      flipped[50] ^= 1;
      assert.equal(codeOf(() => M.tokenizerFromBytes(flipped)), 'tokenizer.corrupt');
      assert.equal(codeOf(() => new M.Tokenizer().decode([1_000_000])), 'tokenizer.unknown_id');
      // token shards are not a text to learn from
      const shard = new Uint8Array(1024 + 4);
      new DataView(shard.buffer).setInt32(0, 20240520, true);
      new DataView(shard.buffer).setInt32(4, 1, true);
      new DataView(shard.buffer).setInt32(8, 2, true);
      const c = M.corpusFromShards([{ name: 'x_train_000000.bin', size: shard.length, read: (at, n, into) => { into.set(shard.subarray(at, at + n)); return null; } }]);
      assert.equal(codeOf(() => M.trainTokenizerOnCorpus(c, 300, null)), 'tokenizer.not_text');
      c.delete();
    });
  });
}

// A run of BPE tokens in a session (issue 23, second half): the tokenizer learned from the training
// split as the CLI learns it, the corpus read through it, generation and history in tokens and bits
// per byte, and the checkpoint's tokenizer section (its round trip, its absence refused).
for (const variant of variantsBuilt()) {
  describe(`a BPE session in tinygpt-${variant}`, () => {
    let M;
    before(async () => { M = await loadModule(variant); });
    const text = shakespeare.subarray(0, 200_000);
    const config = { n_layer: 1, n_head: 2, n_embd: 32, block_size: 16, batch_size: 4, max_iters: 20, warmup_iters: 2, eval_iters: 2, eval_interval: 10, tokenizer: 'bpe', vocab_size: 400 };

    it('learns the tokenizer the CLI learns, trains on its tokens, and generates tokens', () => {
      const corpus = M.corpusFromReader({ name: 'shakespeare', size: text.length, read: (at, n, into) => { into.set(text.subarray(at, at + n)); return null; } });
      const tok = M.trainTokenizerForRun(corpus, 400, null);
      // the CLI learns the same vocabulary from the same text's training split
      const file = tmpPath('text.txt');
      fs.writeFileSync(file, text);
      const out = runCli(['train', '--data', file, '--vocab_size', '400', '--n_layer', '1', '--n_head', '2', '--n_embd', '32', '--block_size', '16',
        '--batch_size', '4', '--max_iters', '2', '--warmup_iters', '1', '--eval_iters', '2', '--threads', '1', '--share', 'http://x/']);
      assert.equal(/tok=fnv:([0-9a-f]{16})/.exec(out)[1], tok.fingerprint());
      const s = new M.Session(config);
      assert.throws(() => s.useCorpus(corpus), (e) => e.code === 'tokenizer.missing');
      s.setTokenizer(tok);
      s.useCorpus(corpus);
      assert.ok(s.corpusSize() < text.length * 0.7, 'tokens, not bytes');
      const tpb = s.tokensPerByte();
      assert.ok(tpb > 0.3 && tpb < 0.7, `tokens per byte ${tpb}`);
      s.advance(20, 0);
      const h = s.history();
      assert.equal(h.tokensPerByte, tpb);
      assert.ok(Math.abs(h.valBitsPerByte.at(-1) - h.valLosses.at(-1) * tpb / Math.LN2) < 1e-5);
      const g = s.generate(new TextEncoder().encode('ROMEO:'), 12, { seed: 3 });
      assert.equal(g.tokens.length, 12);
      assert.equal(g.ends.at(-1), g.bytes.length);
      assert.deepEqual(Array.from(tok.decode(g.tokens)), Array.from(g.bytes));
      assert.ok(Array.from(g.tokens).some((id) => id >= 256), 'merged tokens');
      assert.deepEqual(s.tokenTexts([256]), [tok.tokenText(256)]);
      const ins = s.inspect(new TextEncoder().encode('the king hath'));
      assert.equal(ins.V, 400);
      assert.deepEqual(Array.from(ins.tokens), Array.from(tok.encode(new TextEncoder().encode('the king hath'))));
      // the checkpoint carries the tokenizer: a new session loads it and needs none
      const ckpt = s.save();
      const summary = M.describeCheckpoint(ckpt);
      assert.equal(summary.tokenizerFingerprint, tok.fingerprint());
      const t = new M.Session({});
      t.load(ckpt);
      const back = t.tokenizer();
      assert.equal(back.fingerprint(), tok.fingerprint());
      assert.equal(t.tokensPerByte(), tpb);
      back.delete();
      t.delete();
      s.delete();
      tok.delete();
      corpus.delete();
    });

    it('refuses a checkpoint whose tokenizer is missing, and keeps the session as it was', () => {
      const tok = M.trainTokenizer(text.subarray(0, 100_000), 400, null);
      const s = new M.Session(config);
      s.setTokenizer(tok);
      s.setCorpus(text);
      s.advance(2, 0);
      const ckpt = s.save();
      // the section renamed ("tokenizeX", a section no build knows: skipped), the checksum made right
      const at = Buffer.from(ckpt).indexOf(Buffer.from('\x09tokenizerb', 'latin1'));
      assert.ok(at > 0);
      ckpt[at + 9] = 'X'.charCodeAt(0);
      let c = 0xFFFFFFFF;
      for (let i = 0; i < ckpt.length - 4; i++) {
        c ^= ckpt[i];
        for (let k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
      }
      new DataView(ckpt.buffer, ckpt.byteOffset).setUint32(ckpt.length - 4, (c ^ 0xFFFFFFFF) >>> 0, true);
      const before = s.step();
      assert.throws(() => s.load(ckpt), (e) => e.code === 'checkpoint.tokenizer_missing' && e.args.vocab === '400');
      assert.equal(s.step(), before);
      s.delete();
      tok.delete();
    });
  });
}

it('has a native CLI to compare with', () => assert.ok(fs.existsSync(cliPath), `build it: npm run build:native (${cliPath})`));
