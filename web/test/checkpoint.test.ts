import { describe, expect, it } from 'vitest';

import { checkpointFileName, isCheckpoint, isSafetensors } from '../src/lib/checkpoint';
import { formatBytes, formatDuration, formatParams, formatProb } from '../src/lib/format';
import { loadScalar, shakespeare } from './wasm';

describe('checkpoint files', () => {
  it('recognises the TGPTCKPT magic only', () => {
    expect(isCheckpoint(new TextEncoder().encode('TGPTCKPT....'))).toBe(true);
    expect(isCheckpoint(new TextEncoder().encode('TGPTCKP'))).toBe(false);
    expect(isCheckpoint(new TextEncoder().encode('First Citizen:'))).toBe(false);
  });

  it('recognises a safetensors header: a length within the limit and the file, then a JSON object', () => {
    const file = (n: bigint, rest: string) => {
      const b = new Uint8Array(8 + rest.length);
      new DataView(b.buffer).setBigUint64(0, n, true);
      b.set(new TextEncoder().encode(rest), 8);
      return b;
    };
    expect(isSafetensors(file(2n, '{}'))).toBe(true);
    expect(isSafetensors(file(40n, '{"__metadata__":{"n_layer":"2"}}'), 48)).toBe(true);
    expect(isSafetensors(file(6n, ' \n\t{} '))).toBe(true);          // JSON whitespace first, as the format allows
    expect(isSafetensors(file(40n, '{"a":1}'), 20)).toBe(false);      // the header would run past the end of the file
    expect(isSafetensors(file(100_000_001n, '{}'))).toBe(false);      // above the format's limit
    expect(isSafetensors(file(1n, '{'))).toBe(false);
    expect(isSafetensors(file(8n, '[1,2,3] '))).toBe(false);          // JSON, but not an object
    expect(isSafetensors(new TextEncoder().encode('First Citizen:\nBefore'))).toBe(false);
    expect(isSafetensors(new TextEncoder().encode('TGPTCKPT\u0002\u0000\u0000\u0000'))).toBe(false);
    expect(isSafetensors(new Uint8Array(8))).toBe(false);
  });

  it('the core describes a checkpoint it wrote (scalar wasm build)', async () => {
    const M = await loadScalar();
    const s = new M.Session({ n_layer: 2, n_head: 2, n_embd: 16, block_size: 8, batch_size: 2, seed: 3, eval_interval: 0 });
    s.setCorpus(shakespeare().subarray(0, 5000));
    s.advance(3, 0);
    const bytes = s.save();
    s.delete();
    const d = M.describeCheckpoint(bytes);
    expect(d).toMatchObject({ version: 2, step: 3, corpusSize: 5000 });
    expect(d.config).toMatchObject({ n_layer: 2, n_head: 2, n_embd: 16, block_size: 8, batch_size: 2, seed: 3 });
    expect(() => M.describeCheckpoint(new TextEncoder().encode('TGPTCKPT'))).toThrow(/only 8 bytes/);
    // a damaged copy: the core refuses it with its own message and the session is unchanged
    const t = new M.Session({ n_layer: 1, n_head: 1, n_embd: 8, block_size: 8, batch_size: 1 });
    const bad = bytes.slice();
    bad[bad.length - 10] ^= 0xff;
    expect(() => t.load(bad)).toThrow(/checksum|CRC|corrupt/i);
    expect(t.config().n_layer).toBe(1);
    t.delete();
  });

  it('names downloads after the corpus and the step', () => {
    expect(checkpointFileName('tinyshakespeare.txt', 1200)).toBe('tinygpt-tinyshakespeare-step1200.ckpt');
    expect(checkpointFileName('我的 小说.txt', 5)).toBe('tinygpt-我的-小说-step5.ckpt');
    expect(checkpointFileName('...', 0)).toBe('tinygpt-corpus-step0.ckpt');
  });
});

describe('formatting', () => {
  it('formats sizes, counts and durations for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(40 * 1024 * 1024)).toBe('40 MiB');
    expect(formatParams(818_688)).toBe('818.7 k');
    expect(formatParams(2_700_000)).toBe('2.70 M');
    expect(formatDuration(5_300)).toBe('5.3 s');
    expect(formatDuration(125_000)).toBe('2 min 05 s');
    expect(formatDuration(3_725_000)).toBe('1 h 02 min');
    expect(formatProb(0.4204)).toBe('42.0%');
    expect(formatProb(0.0037)).toBe('0.37%');
    expect(formatProb(2.1e-6)).toBe('2.1e-6');
  });
});
