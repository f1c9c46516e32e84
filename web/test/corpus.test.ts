import { describe, expect, it } from 'vitest';

import { CorpusAnalyzer, Fnv1a64, MAX_CORPUS_BYTES, analyzeBytes, analyzeCorpus, checkSize } from '../src/features/data/corpus';
import { en } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { loadScalar, shakespeare } from './wasm';

const enc = (s: string) => new TextEncoder().encode(s);

describe('corpus statistics', () => {
  it('counts bytes, distinct bytes, characters and lines of English text', () => {
    const s = analyzeBytes(enc('abca\nbb\n'));
    expect(s).toMatchObject({ size: 8, distinct: 4, chars: 8, multibyte: 0, invalid: 0, nul: 0, lines: 2 });
  });

  it('joins the bytes of Chinese text into characters', () => {
    const s = analyzeBytes(enc('你好，世界！\n你好'));
    expect(s.size).toBe(3 * 8 + 1);
    expect(s.chars).toBe(9);
    expect(s.multibyte).toBe(8);
    expect(s.invalid).toBe(0);
    expect(s.lines).toBe(2);
  });

  it('gives the same result in chunks as in one piece (sequences split across chunks)', async () => {
    const bytes = enc('漢字かな交じり文 and some ASCII. '.repeat(50));
    const whole = analyzeBytes(bytes);
    const chunked = await analyzeCorpus(bytes, undefined, 7);
    expect({ ...chunked, counts: null }).toEqual({ ...whole, counts: null });
  });

  it('computes FNV-1a 64 like the reference values', () => {
    const h = (s: string) => {
      const f = new Fnv1a64();
      f.update(enc(s));
      return f.hex();
    };
    expect(h('')).toBe('cbf29ce484222325');
    expect(h('a')).toBe('af63dc4c8601ec8c');
    expect(h('foobar')).toBe('85944171f73967e8');
  });

  it('has the fingerprint the core writes into checkpoints (scalar wasm build)', async () => {
    const M = await loadScalar();
    const text = shakespeare();
    const s = new M.Session({ n_layer: 1, n_head: 1, n_embd: 8, block_size: 8, batch_size: 1 });
    s.setCorpus(text);
    const head = M.describeCheckpoint(s.save());
    s.delete();
    expect(head.corpusSize).toBe(text.length);
    expect(head.corpusFingerprint).toBe(analyzeBytes(text).fingerprint);
  });
});

describe('the entropy baselines of the statistics pass', () => {
  it('are the core\'s (watch::entropy_baselines): by hand for a tiny text, and the same in any chunks', async () => {
    // "abab": unigram a, b at 1/2 each -> ln 2; bigram pairs ab, ba, ab: a -> b always, b -> a always -> 0
    const s = analyzeBytes(enc('abab'));
    expect(s.unigram).toBeCloseTo(Math.log(2), 12);
    expect(s.bigram).toBe(0);
    // "aab": pairs aa, ab: after a, a or b at 1/2 -> ln 2
    expect(analyzeBytes(enc('aab')).bigram).toBeCloseTo(Math.log(2), 12);
    const text = enc('the quick brown fox jumps over the lazy dog\n'.repeat(50));
    const whole = analyzeBytes(text), chunked = await analyzeCorpus(text, undefined, 13);
    expect(chunked.unigram).toBeCloseTo(whole.unigram, 12);
    expect(chunked.bigram).toBeCloseTo(whole.bigram, 12);
    // without the FNV pass (a text the core fingerprints) the rest is the same
    const a = new CorpusAnalyzer({ fingerprint: false });
    a.update(text);
    const s2 = a.finish();
    expect(s2.fingerprint).toBe('');
    expect(s2.bigram).toBe(whole.bigram);
    expect(s2.chars).toBe(whole.chars);
  });
});

describe('refusing files', () => {
  it('refuses empty, too large (to read whole) and too short files from their size', () => {
    expect(checkSize(0, 64)?.kind).toBe('empty');
    expect(checkSize(MAX_CORPUS_BYTES + 1, 64, true)?.kind).toBe('tooLarge');
    expect(checkSize(MAX_CORPUS_BYTES + 1, 64)).toBeNull();   // a text read from the file: no ceiling
    expect(checkSize(64, 64)?.kind).toBe('tooShort');
    expect(checkSize(64, 64)?.message(en)).toContain('context + 1 = 65');
    expect(checkSize(64, 64)?.message(zhCN)).toContain('上下文长度 + 1 = 65');
    expect(checkSize(65, 64)).toBeNull();
  });

  // the rules are the core's (core/include/tinygpt/sniff.h, tests/test_sniff.cpp); these check the page's binding
  it('asks the core what a file is: text, Latin-1, UTF-16, a renamed text, binary (scalar wasm build)', async () => {
    const M = await loadScalar();
    expect(M.sniff(enc('plain text, 中文 too\n'), 24, 'a.txt').kind).toBe('utf8_text');
    const withNul = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]);
    const bin = M.sniff(withNul, withNul.length, 'x.zip');
    expect(bin.kind).toBe('binary');
    expect(bin.message).toContain('2 NUL bytes');
    const latin1 = Uint8Array.from([...enc('Caf'), 0xe9, ...enc(' cr'), 0xe8, ...enc('me br'), 0xfb, ...enc('l'), 0xe9, ...enc('e.\n')]);
    const l = M.sniff(latin1, latin1.length, 'menu.txt');
    expect([l.kind, l.encoding, l.highBytes]).toEqual(['latin1_text', 'iso-8859-1', 4]);
    expect(new TextDecoder(l.encoding).decode(latin1)).toBe('Café crème brûlée.\n');
    expect(M.sniff(Uint8Array.from([0xff, 0xfe, 0x68, 0, 0x69, 0]), 6, 'u.txt').encoding).toBe('utf-16le');
    expect(M.sniff(enc('just some notes\n'), 16, 'model.ckpt').kind).toBe('not_checkpoint');
    // one stray byte in a long UTF-8 text (with valid UTF-8 characters) is still UTF-8 text
    const mostly = new Uint8Array([...enc('naïve ' + 'a'.repeat(1000)), 0xe9, ...enc('b'.repeat(1000))]);
    expect(M.sniff(mostly, mostly.length, 'a.txt').kind).toBe('utf8_text');
  });
});
