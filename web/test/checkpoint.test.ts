import { describe, expect, it } from 'vitest';

import { checkpointFileName, isCheckpoint, readHeader } from '../src/checkpoint';
import { formatBytes, formatDuration, formatParams, formatProb } from '../src/format';
import { loadScalar, shakespeare } from './wasm';

describe('checkpoint files', () => {
  it('recognises the TGPTCKPT magic only', () => {
    expect(isCheckpoint(new TextEncoder().encode('TGPTCKPT....'))).toBe(true);
    expect(isCheckpoint(new TextEncoder().encode('TGPTCKP'))).toBe(false);
    expect(isCheckpoint(new TextEncoder().encode('First Citizen:'))).toBe(false);
    expect(readHeader(new TextEncoder().encode('TGPTCKPT'))).toBeNull();
  });

  it('reads config and step from a checkpoint the core wrote (scalar wasm build)', async () => {
    const M = await loadScalar();
    const s = new M.Session({ layers: 2, heads: 2, width: 16, context: 8, batch: 2, seed: 3 });
    s.setCorpus(shakespeare().subarray(0, 5000));
    s.train(3);
    const bytes = s.save();
    s.delete();
    expect(readHeader(bytes)).toMatchObject({ version: 1, layers: 2, heads: 2, width: 16, context: 8, step: 3, corpusSize: 5000 });
    // a damaged copy: the core refuses it with its own message and the session is unchanged
    const t = new M.Session({ layers: 1, heads: 1, width: 8, context: 8, batch: 1 });
    const bad = bytes.slice();
    bad[bad.length - 10] ^= 0xff;
    expect(() => t.load(bad)).toThrow(/checksum|CRC|corrupt/i);
    expect(t.config().layers).toBe(1);
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
