// derive.ts (tokens) — pure functions of the Tokens view: chips from a text's tokens, where the
// pre-tokenization rule cut it, and the numbers the view quotes.
import type { TokenChips } from './messages';

export interface Chip { index: number; id: number; label: string; bytes: number; pieceStart: boolean; merged: boolean }

/** One chip per token, marking the tokens that begin a piece (the rule's cuts) and those longer than a byte. */
export function chipsOf(c: TokenChips): Chip[] {
  const starts = new Set<number>();
  for (let i = 0; i < c.pieces.length; i += 2) starts.add(c.pieces[i]);
  const out: Chip[] = [];
  let at = 0;
  for (let i = 0; i < c.ids.length; i++) {
    out.push({ index: i, id: c.ids[i], label: c.labels[i], bytes: c.lengths[i], pieceStart: starts.has(at), merged: c.lengths[i] > 1 });
    at += c.lengths[i];
  }
  return out;
}

/** "4.3 bytes per token": the inverse of tokens per byte, for a person. */
export function bytesPerToken(tokensPerByte: number): number {
  return tokensPerByte > 0 ? 1 / tokensPerByte : 0;
}

/** The merges a step can take: 0 (bytes alone) .. all of them. */
export function clampStep(step: number, merges: number): number {
  return Math.max(0, Math.min(merges, Math.round(step)));
}

/** A token's label as a chip shows it: spaces as ␣ (a space alone would be an empty chip). */
export function visible(label: string): string {
  return label.replaceAll(' ', '\u2423');
}
