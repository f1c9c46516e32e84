// utf8.ts — bytes are the model's tokens; people read characters. These helpers join bytes
// back into characters where they form valid UTF-8 and keep everything else visible as bytes
// (a truncated or invalid sequence becomes a hex chip such as ⟨e4 bd⟩), never hiding or
// replacing a byte silently. Decoding follows the WHATWG/Unicode rules: no overlong forms, no
// surrogates, nothing above U+10FFFF, and one invalid segment per "maximal subpart".
import { t } from '../i18n';

/** A run of bytes shown as one unit. */
export type Segment =
  | { kind: 'char'; text: string; start: number; length: number }
  | { kind: 'bytes'; bytes: number[]; start: number; length: number; partial: boolean };

/**
 * How a byte starts a sequence: the number of continuation bytes it needs and the allowed range
 * of the first continuation byte (later ones are always 0x80..0xBF). `need < 0`: cannot start one.
 */
export function leadInfo(b: number): { need: number; lo: number; hi: number } {
  if (b < 0x80) return { need: 0, lo: 0, hi: 0 };
  if (b >= 0xc2 && b <= 0xdf) return { need: 1, lo: 0x80, hi: 0xbf };
  if (b === 0xe0) return { need: 2, lo: 0xa0, hi: 0xbf };
  if (b === 0xed) return { need: 2, lo: 0x80, hi: 0x9f };
  if (b >= 0xe1 && b <= 0xef) return { need: 2, lo: 0x80, hi: 0xbf };
  if (b === 0xf0) return { need: 3, lo: 0x90, hi: 0xbf };
  if (b >= 0xf1 && b <= 0xf3) return { need: 3, lo: 0x80, hi: 0xbf };
  if (b === 0xf4) return { need: 3, lo: 0x80, hi: 0x8f };
  return { need: -1, lo: 0, hi: 0 };
}

function decodeSequence(bytes: ArrayLike<number>, start: number, length: number): string {
  const b0 = bytes[start];
  let cp: number;
  if (length === 1) cp = b0;
  else if (length === 2) cp = ((b0 & 0x1f) << 6) | (bytes[start + 1] & 0x3f);
  else if (length === 3) cp = ((b0 & 0x0f) << 12) | ((bytes[start + 1] & 0x3f) << 6) | (bytes[start + 2] & 0x3f);
  else cp = ((b0 & 0x07) << 18) | ((bytes[start + 1] & 0x3f) << 12) | ((bytes[start + 2] & 0x3f) << 6) | (bytes[start + 3] & 0x3f);
  return String.fromCodePoint(cp);
}

/**
 * Splits bytes into characters and byte runs. With `final: false` a sequence cut off by the end
 * of the input is returned as `partial: true` (more bytes may complete it, e.g. while a sample
 * streams in); with `final: true` (default) it is simply invalid.
 */
export function segmentUtf8(bytes: ArrayLike<number>, options: { final?: boolean; offset?: number } = {}): Segment[] {
  const final = options.final ?? true;
  const offset = options.offset ?? 0;
  const out: Segment[] = [];
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    const { need, lo, hi } = leadInfo(b);
    if (need === 0) {
      out.push({ kind: 'char', text: String.fromCharCode(b), start: offset + i, length: 1 });
      i += 1;
      continue;
    }
    if (need < 0) {
      out.push({ kind: 'bytes', bytes: [b], start: offset + i, length: 1, partial: false });
      i += 1;
      continue;
    }
    // a lead byte: take continuation bytes while they are valid
    let j = i + 1;
    let ok = true;
    for (let k = 0; k < need; k++, j++) {
      if (j >= n) { ok = false; break; }
      const c = bytes[j];
      const [l, h] = k === 0 ? [lo, hi] : [0x80, 0xbf];
      if (c < l || c > h) { ok = false; break; }
    }
    if (ok) {
      out.push({ kind: 'char', text: decodeSequence(bytes, i, need + 1), start: offset + i, length: need + 1 });
    } else {
      const run = Array.from({ length: j - i }, (_, k) => bytes[i + k]);
      out.push({ kind: 'bytes', bytes: run, start: offset + i, length: j - i, partial: !final && j >= n });
    }
    i = j;
  }
  return out;
}

/**
 * Incremental segmentation for streamed bytes: `push` returns the segments that are now
 * settled, and `pending` holds a trailing incomplete sequence (shown as a partial chip until the
 * next chunk completes or breaks it).
 */
export class Utf8Stream {
  private tail: number[] = [];
  private offset = 0;

  push(chunk: ArrayLike<number>): { settled: Segment[]; pending: Segment | null } {
    const bytes = this.tail.concat(Array.from(chunk));
    const segs = segmentUtf8(bytes, { final: false, offset: this.offset });
    const last = segs[segs.length - 1];
    let pending: Segment | null = null;
    if (last && last.kind === 'bytes' && last.partial) {
      pending = segs.pop()!;
      this.tail = (last as { bytes: number[] }).bytes.slice();
      this.offset = last.start;
    } else {
      this.tail = [];
      this.offset += bytes.length;
    }
    return { settled: segs, pending };
  }

  /** Ends the stream: a pending partial sequence becomes an invalid byte run. */
  finish(): Segment[] {
    if (this.tail.length === 0) return [];
    const segs = segmentUtf8(this.tail, { final: true, offset: this.offset });
    this.offset += this.tail.length;
    this.tail = [];
    return segs;
  }
}

/** Counts characters and invalid sequences over a byte stream given in chunks (large files). */
export class Utf8Counter {
  chars = 0;        // valid characters (code points)
  multibyte = 0;    // of which longer than one byte
  invalid = 0;      // invalid or truncated sequences (maximal subparts)
  private need = 0;
  private lo = 0x80;
  private hi = 0xbf;

  update(bytes: Uint8Array): void {
    let need = this.need, lo = this.lo, hi = this.hi;
    let chars = this.chars, multibyte = this.multibyte, invalid = this.invalid;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (need > 0) {
        if (b >= lo && b <= hi) {
          need--;
          lo = 0x80;
          hi = 0xbf;
          if (need === 0) { chars++; multibyte++; }
          continue;
        }
        invalid++;  // the sequence broke off: b is looked at again as a lead byte
        need = 0;
      }
      if (b < 0x80) { chars++; continue; }
      const info = leadInfo(b);
      if (info.need < 0) { invalid++; continue; }
      need = info.need;
      lo = info.lo;
      hi = info.hi;
    }
    this.need = need; this.lo = lo; this.hi = hi;
    this.chars = chars; this.multibyte = multibyte; this.invalid = invalid;
  }

  /** The end of the input: a sequence still open is truncated, hence invalid. */
  finish(): void {
    if (this.need > 0) this.invalid++;
    this.need = 0;
  }
}

/** Two-digit lowercase hex of a byte. */
export function hex(b: number): string {
  return b.toString(16).padStart(2, '0');
}

/** A byte run as a chip label, e.g. ⟨e4 bd⟩. */
export function hexChip(bytes: ArrayLike<number>): string {
  return `⟨${Array.from(bytes, hex).join(' ')}⟩`;
}

const visibleControl: Record<number, string> = { 0x0a: '↵', 0x09: '⇥', 0x0d: '␍', 0x20: '␣', 0x00: '␀' };

/**
 * How to show a single byte that stands alone (a token, an alternative in a tooltip):
 * printable ASCII as itself, whitespace as a visible symbol, anything else (control bytes and
 * bytes >= 0x80, which alone are only part of a UTF-8 character) as hex.
 */
export function byteLabel(b: number): { text: string; kind: 'ascii' | 'space' | 'hex' } {
  if (b in visibleControl) return { text: visibleControl[b], kind: 'space' };
  if (b >= 0x21 && b < 0x7f) return { text: String.fromCharCode(b), kind: 'ascii' };
  return { text: hexChip([b]), kind: 'hex' };
}

/** How to show a character segment as a token label (whitespace made visible). */
export function charLabel(text: string): string {
  const cp = text.codePointAt(0)!;
  if (cp in visibleControl) return visibleControl[cp];
  if (cp < 0x20 || cp === 0x7f) return hexChip([cp]);
  return text;
}

/**
 * How to show an alternative byte b at a position inside a character: if b completes the
 * character begun by `prefix`, show that character ("光" rather than ⟨89⟩); otherwise the byte.
 */
export function alternativeLabel(prefix: number[], b: number): { text: string; kind: 'ascii' | 'space' | 'hex' | 'char' } {
  if (prefix.length > 0) {
    const segs = segmentUtf8([...prefix, b]);
    if (segs.length === 1 && segs[0].kind === 'char') return { text: segs[0].text, kind: 'char' };
  }
  return byteLabel(b);
}

/** A short description of a byte's role in UTF-8 (for tooltips). */
export function byteRole(b: number): string {
  const role = t().common.byteRole;
  if (b < 0x80) return b < 0x20 || b === 0x7f ? role.control : role.ascii;
  if (b <= 0xbf) return role.continuation;
  const need = leadInfo(b).need;
  if (need < 0) return role.invalid;
  return role.lead(need + 1);
}

/** Decodes bytes for display, keeping invalid bytes visible as hex chips. */
export function displayString(bytes: ArrayLike<number>): string {
  return segmentUtf8(bytes).map((s) => (s.kind === 'char' ? s.text : hexChip(s.bytes))).join('');
}

/**
 * The segments of a window of bytes that may begin inside a character (its leading continuation
 * bytes, at most 3, form one group: `lead` of them) and end inside one (a cut character is
 * `partial`, not invalid).
 */
export function windowSegments(bytes: ArrayLike<number>): { segs: Segment[]; lead: number } {
  const segs = segmentUtf8(bytes, { final: false });
  let lead = 0;
  while (lead < bytes.length && bytes[lead] >= 0x80 && bytes[lead] <= 0xbf && lead < 3) lead++;
  // each leading continuation byte is a one-byte segment of its own: they become one group
  if (lead > 0) segs.splice(0, lead, { kind: 'bytes', bytes: Array.from({ length: lead }, (_, i) => bytes[i]), start: 0, length: lead, partial: false });
  return { segs, lead };
}

/**
 * A label for each byte of a window (the ticks of an attention map): a one-byte character as
 * itself (whitespace made visible), each byte of a multi-byte character as "中 1/3", any other
 * byte as a hex chip.
 */
export function byteLabels(bytes: ArrayLike<number>): string[] {
  const labels: string[] = [];
  for (const seg of windowSegments(bytes).segs) {
    for (let i = 0; i < seg.length; i++) {
      const t = seg.start + i;
      if (seg.kind === 'char') labels[t] = seg.length === 1 ? charLabel(seg.text) : `${seg.text} ${i + 1}/${seg.length}`;
      else labels[t] = hexChip([bytes[t]]);
    }
  }
  return labels;
}

/** The translator's special tokens (core/include/tinygpt/pairs.h: bytes, then BOS, EOS, PAD). */
export const BOS = 256;
export const EOS = 257;
export const PAD = 258;
const specialLabel: Record<number, string> = { [BOS]: '⟨BOS⟩', [EOS]: '⟨EOS⟩', [PAD]: '⟨PAD⟩' };

/**
 * Labels of the translator's tokens: runs of bytes as byteLabels gives them, the special tokens
 * by name. tokenLabels([256, 0xe6, 0x88, 0x91]) = ['⟨BOS⟩', '我 1/3', '我 2/3', '我 3/3'].
 */
export function tokenLabels(tokens: ArrayLike<number>): string[] {
  const out: string[] = [];
  let run: number[] = [];
  const flush = () => {
    out.push(...byteLabels(run));
    run = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t < 256) {
      run.push(t);
      continue;
    }
    flush();
    out.push(specialLabel[t] ?? `⟨${t}⟩`);
  }
  flush();
  return out;
}
