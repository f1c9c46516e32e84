// corpus.ts — what a text file is made of, and whether the model can train on it.
// Pure functions (unit-tested); the page runs `analyzeCorpus` in chunks so big files don't
// freeze it, and the scan worker (scan.worker.ts) the same analyser over a file it streams.
import { Utf8Counter } from '../../lib/utf8';
import type { Msg } from '../../i18n';

/**
 * Texts up to this size are read into memory (and kept in IndexedDB); larger ones are read a
 * window at a time from the file (stream.ts): nothing about them grows with their size. The same
 * limit as the core's whole-file fingerprint (kFullFingerprintBytes, core/include/tinygpt/source.h).
 */
export const STREAM_ABOVE_BYTES = 64 * 1024 * 1024;
/** What a text read into memory may weigh: the largest file read whole (to convert its encoding). */
export const MAX_CORPUS_BYTES = 512 * 1024 * 1024;

export interface CorpusStats {
  size: number;
  distinct: number;         // distinct byte values (of 256)
  chars: number;            // valid UTF-8 characters
  multibyte: number;        // of which longer than one byte
  invalid: number;          // invalid or truncated UTF-8 sequences
  nul: number;              // NUL bytes (a strong sign of a binary file)
  lines: number;
  fingerprint: string;      // the core's corpus fingerprint (FNV-1a 64), 16 hex digits
  counts: Float64Array;     // (256) occurrences of each byte
  unigram: number;          // entropy baselines of the whole text, nats per byte (watch::Baselines):
  bigram: number;           //   byte frequencies alone, and the byte before as context
}

/** The FNV-1a 64 offset basis, as in the core's corpus fingerprint (core/src/data.cpp). */
export const FNV_BASIS = 0xcbf29ce484222325n;

/** FNV-1a 64 in two 32-bit halves (h = (h ^ b) * 0x100000001b3 mod 2^64). */
export class Fnv1a64 {
  private lo: number;
  private hi: number;

  constructor(basis: bigint = FNV_BASIS) {
    this.lo = Number(basis & 0xffffffffn);
    this.hi = Number(basis >> 32n);
  }

  update(bytes: Uint8Array): void {
    let lo = this.lo, hi = this.hi;
    for (let i = 0; i < bytes.length; i++) {
      lo ^= bytes[i];
      lo >>>= 0;
      // (hi:lo) * (2^40 + 0x1b3) mod 2^64
      const lo435 = lo * 0x1b3;
      const carry = Math.floor(lo435 / 4294967296);
      hi = (hi * 0x1b3 + carry + ((lo << 8) >>> 0)) >>> 0;
      lo = lo435 >>> 0;
    }
    this.lo = lo;
    this.hi = hi;
  }

  hex(): string {
    return (this.hi >>> 0).toString(16).padStart(8, '0') + (this.lo >>> 0).toString(16).padStart(8, '0');
  }
}

/** Entropies in nats of byte counts (256) and of consecutive pairs (256 x 256), as watch::Baselines. */
export function entropies(counts: Float64Array, pairs: Float64Array): { unigram: number; bigram: number } {
  let total = 0;
  for (let b = 0; b < 256; b++) total += counts[b];
  let unigram = 0;
  for (let b = 0; b < 256; b++) if (counts[b] > 0) unigram -= (counts[b] / total) * Math.log(counts[b] / total);
  // H(X' | X) = -sum_ab c(a,b)/M ln(c(a,b) / c(a)), c(a) = sum_b c(a,b), M = sum_ab c(a,b)
  let m = 0, bigram = 0;
  for (let a = 0; a < 256; a++) {
    let row = 0;
    for (let b = 0; b < 256; b++) row += pairs[a * 256 + b];
    m += row;
    for (let b = 0; b < 256; b++) {
      const c = pairs[a * 256 + b];
      if (c > 0) bigram -= c * Math.log(c / row);
    }
  }
  return { unigram, bigram: m > 0 ? bigram / m : 0 };
}

export class CorpusAnalyzer {
  private size = 0;
  private counts = new Float64Array(256);
  private pairs = new Float64Array(256 * 256);
  private utf8 = new Utf8Counter();
  private fnv: Fnv1a64 | null;
  private lastByte = -1;

  /** fingerprint: false for a text the core fingerprints (a streamed one: by a sample above 64 MiB). */
  constructor(opts: { fingerprint?: boolean } = {}) {
    this.fnv = opts.fingerprint === false ? null : new Fnv1a64();
  }

  update(bytes: Uint8Array): void {
    if (!bytes.length) return;
    this.size += bytes.length;
    const counts = this.counts, pairs = this.pairs;
    let prev = this.lastByte;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      counts[b]++;
      if (prev >= 0) pairs[(prev << 8) | b]++;
      prev = b;
    }
    this.utf8.update(bytes);
    this.fnv?.update(bytes);
    this.lastByte = prev;
  }

  /** Bytes analysed so far. */
  get bytes(): number {
    return this.size;
  }

  finish(): CorpusStats {
    this.utf8.finish();
    let distinct = 0;
    for (let b = 0; b < 256; b++) if (this.counts[b] > 0) distinct++;
    return {
      size: this.size,
      distinct,
      chars: this.utf8.chars,
      multibyte: this.utf8.multibyte,
      invalid: this.utf8.invalid,
      nul: this.counts[0],
      lines: this.size === 0 ? 0 : this.counts[0x0a] + (this.lastByte === 0x0a ? 0 : 1),
      fingerprint: this.fnv?.hex() ?? '',
      counts: this.counts,
      ...entropies(this.counts, this.pairs),
    };
  }
}

export function analyzeBytes(bytes: Uint8Array): CorpusStats {
  const a = new CorpusAnalyzer();
  a.update(bytes);
  return a.finish();
}

/** The same, in chunks, yielding to the event loop in between (for files of many megabytes). */
export async function analyzeCorpus(
  bytes: Uint8Array,
  onProgress?: (fraction: number) => void,
  chunk = 8 << 20,
): Promise<CorpusStats> {
  const a = new CorpusAnalyzer();
  for (let i = 0; i < bytes.length; i += chunk) {
    a.update(bytes.subarray(i, Math.min(bytes.length, i + chunk)));
    if (bytes.length > chunk) {
      onProgress?.(Math.min(1, (i + chunk) / bytes.length));
      await new Promise((r) => setTimeout(r, 0));
    }
  }
  return a.finish();
}

/** Why a file can't be taken, from its size alone: a message worded at render time (i18n Msg). */
export type CorpusProblem =
  | { kind: 'empty'; message: Msg }
  | { kind: 'tooLarge'; message: Msg }
  | { kind: 'tooShort'; message: Msg };

/** Checked from the file size alone, before reading anything; `whole`: the file is to be read into memory (pairs). */
export function checkSize(size: number, context: number, whole = false): CorpusProblem | null {
  if (size === 0) return { kind: 'empty', message: (m) => m.data.problem.emptyWhy };
  if (whole && size > MAX_CORPUS_BYTES)
    return { kind: 'tooLarge', message: (m) => m.data.problem.tooLargeWhy(formatMiB(size), formatMiB(MAX_CORPUS_BYTES)) };
  if (size < context + 1) return { kind: 'tooShort', message: (m) => m.data.problem.tooShortWhy(size, context + 1) };
  return null;
}

function formatMiB(n: number): string {
  return `${(n / (1 << 20)).toFixed(n < 10 << 20 ? 1 : 0)} MiB`;
}

/** Reads the first bytes of a file (for the sniffer, core/include/tinygpt/sniff.h). */
export async function readHead(file: Blob, n = 8): Promise<Uint8Array> {
  return new Uint8Array(await file.slice(0, n).arrayBuffer());
}
