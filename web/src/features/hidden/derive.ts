// derive.ts (hidden) — pure functions of a trace (unit-tested in web/test/hidden.test.ts): one
// unit's activation over the text, the gates a cell has, and the colour of a value.
import type { HiddenTrace } from './messages';

/** The gate rows of a cell, in the core's order (hidden.h): LSTM i f g o, GRU r z n, RNN none. */
export function gateNames(kind: string): string[] {
  return kind === 'lstm' ? ['i', 'f', 'g', 'o'] : kind === 'gru' ? ['r', 'z', 'n'] : [];
}

/** What can colour the text for a cell: its hidden units h, the LSTM's cell states c, and its gates. */
export function activationKinds(kind: string): string[] {
  return ['h', ...(kind === 'lstm' ? ['c'] : []), ...gateNames(kind)];
}

/**
 * Unit `unit` of layer `layer` over the text (T values): h and c from (L, T, H), a gate from
 * (L, T, G, H). An unknown `what` (a gate the cell lacks) gives zeros.
 */
export function unitSeries(tr: HiddenTrace, layer: number, unit: number, what: string): Float32Array {
  const out = new Float32Array(tr.T);
  if (layer < 0 || layer >= tr.L || unit < 0 || unit >= tr.H) return out;
  if (what === 'h' || what === 'c') {
    const v = what === 'h' ? tr.h : tr.c;
    if (!v.length) return out;
    for (let t = 0; t < tr.T; t++) out[t] = v[(layer * tr.T + t) * tr.H + unit];
    return out;
  }
  const g = gateNames(tr.kind).indexOf(what);
  if (g < 0) return out;
  for (let t = 0; t < tr.T; t++) out[t] = tr.gates[((layer * tr.T + t) * tr.G + g) * tr.H + unit];
  return out;
}

/** The scale of a series: the largest |value| (1 when all are 0), so a colour means the same across the text. */
export function seriesScale(x: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i]));
  return m || 1;
}

/** A diverging colour: blue for negative, white at 0, red for positive; v / scale in [-1, 1]. Gates (0..1) use the red half. */
export function activationColor(v: number, scale: number): string {
  const a = Math.max(-1, Math.min(1, v / scale));
  const k = Math.round(255 * (1 - Math.abs(a)));
  return a >= 0 ? `rgb(255, ${k}, ${k})` : `rgb(${k}, ${k}, 255)`;
}

/** The bytes of a text as shown one cell each: printable ASCII as is, newline ⏎, space ·, the rest as hex. */
export function byteGlyph(b: number): string {
  if (b === 10) return '⏎';
  if (b === 32) return '·';
  if (b >= 33 && b < 127) return String.fromCharCode(b);
  return b.toString(16).padStart(2, '0');
}

/** One coloured cell of the traced text: what it shows, and whether a line ends in it. */
export interface TraceCell { glyph: string; newline: boolean }

/**
 * The cells of a trace over `text` (its bytes): a byte model's one per byte (byteGlyph); a BPE
 * model's one per token, shown by the token's text (the core's label, with a space as · and a
 * newline as ⏎), ending a line where the token's bytes hold a newline.
 */
export function traceCells(tr: Pick<HiddenTrace, 'T' | 'labels' | 'ends'>, text: Uint8Array, bpe: boolean): TraceCell[] {
  const cells: TraceCell[] = [];
  for (let t = 0; t < tr.T; t++) {
    if (!bpe) {
      cells.push({ glyph: byteGlyph(text[t]), newline: text[t] === 10 });
      continue;
    }
    const from = t ? tr.ends[t - 1] : 0;
    cells.push({ glyph: tokenGlyph(tr.labels[t]), newline: text.subarray(from, tr.ends[t]).includes(10) });
  }
  return cells;
}

/** A token's label (Tokenizer.tokenText: newline as \n) as shown in a cell: space ·, newline ⏎. */
export function tokenGlyph(label: string): string {
  return label.replace(/\\n/g, '⏎').replace(/ /g, '·');
}
