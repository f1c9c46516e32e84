#!/usr/bin/env node
// The GPT-2 compatibility test's golden files (tests/test_tokenizer.cpp, [gpt2]), from the npm
// package gpt-tokenizer (tests/ref/gpt2.mjs):
//   tests/ref/gpt2/merges.txt     GPT-2's 50,000 merges (its vocab.json follows from them: bytes in
//                                 bytes_to_unicode order, merge r = id 256 + r, <|endoftext|> 50256)
//   tests/ref/gpt2/text_ids.bin   GPT-2's ids of the ~1 MB test text (testText), uint16 little-endian
//   tests/ref/gpt2/text.json      the text's size and FNV-1a 64 (the C++ test checks it rebuilt the same text),
//                                 the token count, and the gpt-tokenizer version
// Before writing, it checks that the reference encoder gives gpt-tokenizer's ids on the text with
// its invalid UTF-8 replaced by U+FFFD (gpt-tokenizer takes strings only).
//   node tests/ref/make_gpt2_ref.mjs [--check]   (--check: exit 1 when the files differ)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { decodeWithOffsets, gptTokenizerDir, mergesTxt, referenceEncode, root, testText } from './gpt2.mjs';

const dir = path.join(root, 'tests/ref/gpt2');

export function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

async function main() {
  const { encode } = await import('gpt-tokenizer/encoding/r50k_base');
  const version = JSON.parse(fs.readFileSync(path.join(gptTokenizerDir(), 'package.json'), 'utf8')).version;
  const text = testText();
  const ids = referenceEncode(text);
  const decoded = decodeWithOffsets(text).text;
  assert.equal(decoded, new TextDecoder().decode(text), 'the reference decoder is the WHATWG decoder');
  assert.deepEqual(referenceEncode(new TextEncoder().encode(decoded)), encode(decoded), 'the reference encoder is gpt-tokenizer on valid UTF-8');
  const bin = new Uint8Array(ids.length * 2);
  ids.forEach((id, i) => { bin[2 * i] = id & 255; bin[2 * i + 1] = id >> 8; });
  const meta = `${JSON.stringify({ bytes: text.length, fnv1a64: fnv1a64(text), tokens: ids.length, seed: '0x7a11ce', 'gpt-tokenizer': version }, null, 2)}\n`;
  const files = [['merges.txt', Buffer.from(mergesTxt())], ['text_ids.bin', Buffer.from(bin)], ['text.json', Buffer.from(meta)]];
  if (process.argv.includes('--check')) {
    const stale = files.filter(([name, data]) => !fs.existsSync(path.join(dir, name)) || !fs.readFileSync(path.join(dir, name)).equals(data));
    for (const [name] of stale) console.error(`tests/ref/gpt2/${name} differs: run node tests/ref/make_gpt2_ref.mjs`);
    process.exit(stale.length ? 1 : 0);
  }
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, data] of files) {
    fs.writeFileSync(path.join(dir, name), data);
    console.log(`wrote tests/ref/gpt2/${name} (${data.length} bytes)`);
  }
  console.log(`${text.length} bytes of text, ${ids.length} GPT-2 tokens (gpt-tokenizer ${version})`);
}

await main();
