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

it('has a native CLI to compare with', () => assert.ok(fs.existsSync(cliPath), `build it: npm run build:native (${cliPath})`));
