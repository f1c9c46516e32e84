import { describe, expect, it } from 'vitest';

import { Utf8Counter, Utf8Stream, alternativeLabel, byteLabel, displayString, hexChip, segmentUtf8 } from '../src/lib/utf8';

const enc = (s: string) => new TextEncoder().encode(s);
const render = (bytes: ArrayLike<number>, final = true) =>
  segmentUtf8(bytes, { final }).map((s) => (s.kind === 'char' ? s.text : `${s.partial ? '~' : ''}${hexChip(s.bytes)}`)).join('');

describe('joining bytes into characters', () => {
  it('keeps ASCII one byte per character', () => {
    const segs = segmentUtf8(enc('Hi!\n'));
    expect(segs.map((s) => s.kind === 'char' && s.text)).toEqual(['H', 'i', '!', '\n']);
    expect(segs.map((s) => s.start)).toEqual([0, 1, 2, 3]);
  });

  it('joins Chinese characters (3 bytes each) and emoji (4 bytes)', () => {
    const segs = segmentUtf8(enc('你好😀'));
    expect(segs).toEqual([
      { kind: 'char', text: '你', start: 0, length: 3 },
      { kind: 'char', text: '好', start: 3, length: 3 },
      { kind: 'char', text: '😀', start: 6, length: 4 },
    ]);
  });

  it('shows a truncated sequence as one hex chip, partial while more may come', () => {
    const b = enc('a你').slice(0, 3);   // 'a', e4 bd (a cut-off 你)
    expect(render(b)).toBe('a⟨e4 bd⟩');
    expect(render(b, false)).toBe('a~⟨e4 bd⟩');
  });

  it('rejects overlong forms, surrogates, and bytes that never occur in UTF-8', () => {
    expect(render([0xc0, 0x80])).toBe('⟨c0⟩⟨80⟩');           // overlong NUL
    expect(render([0xe0, 0x80, 0x80])).toBe('⟨e0⟩⟨80⟩⟨80⟩'); // overlong
    expect(render([0xed, 0xa0, 0x80])).toBe('⟨ed⟩⟨a0⟩⟨80⟩'); // surrogate D800
    expect(render([0xf4, 0x90, 0x80, 0x80])).toBe('⟨f4⟩⟨90⟩⟨80⟩⟨80⟩'); // above U+10FFFF
    expect(render([0xff, 0x41])).toBe('⟨ff⟩A');
    expect(render([0xe4, 0x41])).toBe('⟨e4⟩A');              // the broken sequence ends before A
  });

  it('agrees with TextDecoder on random bytes (replacement characters = invalid segments)', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    for (let round = 0; round < 200; round++) {
      const n = 1 + (round % 40);
      // mix of ASCII, lead bytes and continuation bytes
      const bytes = Uint8Array.from({ length: n }, () => {
        const r = rnd();
        return r < 80 ? 0x41 + (r % 26) : r < 140 ? 0x80 + (r % 64) : r < 200 ? 0xc2 + (r % 51) : r;
      });
      const ours = displayString(bytes).replace(/⟨[0-9a-f ]+⟩/g, '\uFFFD');
      const theirs = new TextDecoder('utf-8').decode(bytes);
      expect(ours, Array.from(bytes).map((b) => b.toString(16)).join(' ')).toBe(theirs);
      const c = new Utf8Counter();
      // split in two chunks at a random point: the counter carries state across
      const cut = rnd() % (n + 1);
      c.update(bytes.subarray(0, cut));
      c.update(bytes.subarray(cut));
      c.finish();
      const fffd = [...theirs].filter((ch) => ch === '\uFFFD').length;
      expect(c.invalid).toBe(fffd);
      expect(c.chars).toBe([...theirs].length - fffd);
    }
  });

  it('streams: chunks split inside characters give the same result as the whole text', () => {
    const text = enc('汉字 and ASCII, 😀 emoji; 中文！');
    for (let size = 1; size <= 5; size++) {
      const s = new Utf8Stream();
      const out: string[] = [];
      for (let i = 0; i < text.length; i += size) {
        const { settled, pending } = s.push(text.subarray(i, i + size));
        for (const seg of settled) out.push(seg.kind === 'char' ? seg.text : hexChip(seg.bytes));
        if (pending) expect(pending.kind === 'bytes' && pending.partial).toBe(true);
      }
      expect(s.finish()).toEqual([]);
      expect(out.join('')).toBe('汉字 and ASCII, 😀 emoji; 中文！');
    }
  });

  it('ends a stream with an unfinished character as an invalid chip', () => {
    const s = new Utf8Stream();
    const r = s.push([0x41, 0xe4, 0xbd]);
    expect(r.settled.map((x) => x.kind)).toEqual(['char']);
    expect(r.pending).toMatchObject({ kind: 'bytes', bytes: [0xe4, 0xbd], start: 1, partial: true });
    expect(s.finish()).toEqual([{ kind: 'bytes', bytes: [0xe4, 0xbd], start: 1, length: 2, partial: false }]);
  });

  it('labels single bytes: printable as themselves, whitespace visibly, the rest as hex', () => {
    expect(byteLabel(0x61)).toEqual({ text: 'a', kind: 'ascii' });
    expect(byteLabel(0x20).text).toBe('␣');
    expect(byteLabel(0x0a).text).toBe('↵');
    expect(byteLabel(0xe4)).toEqual({ text: '⟨e4⟩', kind: 'hex' });
    expect(byteLabel(0x07)).toEqual({ text: '⟨07⟩', kind: 'hex' });
  });
});

describe('alternatives inside a character', () => {
  it('shows the character an alternative byte would complete, else the byte', () => {
    const guang = [...new TextEncoder().encode('光')];          // e5 85 89
    expect(alternativeLabel(guang.slice(0, 2), 0x88)).toEqual({ text: '先', kind: 'char' });   // e5 85 88
    expect(alternativeLabel(guang.slice(0, 1), 0x85).kind).toBe('hex');                       // still incomplete
    expect(alternativeLabel([], 0x61)).toEqual({ text: 'a', kind: 'ascii' });
    expect(alternativeLabel(guang.slice(0, 2), 0x41).kind).toBe('ascii');                     // breaks the character
  });
});
