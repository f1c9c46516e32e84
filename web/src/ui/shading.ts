// shading.ts — text the model wrote, each character shaded by how surprised the model was by it
// (its probability, the product over its bytes for a multi-byte character). The sample panel
// (streamed generation) and the translate panel (a translation) draw their output with it, and
// share its keyboard and mouse inspection (TokenStrip).
import { t } from '../i18n';
import type { Segment } from '../lib/utf8';
import { charLabel, hex, hexChip } from '../lib/utf8';
import { h } from './dom';
import { withData } from './note';
import { hideTooltip, showTooltip } from './tooltip';

/** Surprise in [0, 1]: -log2 p scaled so that 1/256 (a blind guess) is full strength. */
export function surprise(p: number): number {
  if (!(p > 0)) return 1;
  return Math.min(1, Math.max(0, -Math.log2(p) / 8));
}

/** The probability of a character: the product of its bytes' probabilities. */
export function segmentProb(probs: ArrayLike<number>, seg: Pick<Segment, 'start' | 'length'>): number {
  let p = 1;
  for (let i = 0; i < seg.length; i++) p *= probs[seg.start + i];
  return p;
}

/**
 * One character (or a run of bytes that form none, as a hex chip) shaded by its probability p:
 * `<span class="tok" data-k data-start data-len data-p style="--s">`. k = -1 for a pending one.
 * The text is the model's: translate="no".
 */
export function shadedSpan(seg: Segment, p: number, k: number, pending = false): HTMLElement {
  const el = h('span', { class: `tok${seg.kind === 'bytes' ? ' chip' : ''}${pending ? ' partial' : ''}`, 'data-k': k, 'data-start': seg.start, 'data-len': seg.length, translate: 'no' });
  el.style.setProperty('--s', surprise(p).toFixed(3));
  el.dataset.p = p.toPrecision(4);
  if (seg.kind === 'char') {
    if (seg.text === '\n') el.classList.add('nl');
    el.textContent = seg.text;
  } else el.textContent = hexChip(seg.bytes);
  return el;
}

/**
 * A tooltip's title for a shaded character `el` of `bytes` (its bytes): “中” = bytes e4 b8 ad,
 * “a” (byte 61), or the hex chip of bytes that form no character.
 */
export function characterTitle(el: HTMLElement, bytes: number[]): DocumentFragment {
  const m = t().sample.tip;
  if (el.classList.contains('chip')) return withData((slot) => m.notComplete(slot(0)), [hexChip(bytes)]);
  const ch = charLabel(el.textContent ?? '');
  return bytes.length > 1
    ? withData((slot) => m.charBytes(slot(0), slot(1)), [ch, bytes.map(hex).join(' ')])
    : withData((slot) => m.charByte(slot(0), slot(1)), [ch, hex(bytes[0])]);
}

/**
 * The output box of shaded characters, inspected one character at a time: the arrow keys, Home
 * and End (or the mouse) pick one, and `explain` gives its tooltip (null: none).
 */
export class TokenStrip {
  private tokens: HTMLElement[] = [];
  private active = -1;

  constructor(readonly el: HTMLElement, private readonly explain: (tok: HTMLElement) => Node | null) {
    el.addEventListener('keydown', (e) => this.onKey(e));
    el.addEventListener('blur', () => hideTooltip());
    el.addEventListener('mouseleave', () => hideTooltip());
    el.addEventListener('mouseover', (e) => {
      const tok = (e.target as HTMLElement).closest<HTMLElement>('.tok');
      if (tok) this.focus(Number(tok.dataset.k), false);
    });
  }

  /** How many characters it holds (the next one's index). */
  get length(): number {
    return this.tokens.length;
  }

  /** Forgets the characters (the caller clears the box). */
  reset(): void {
    this.tokens = [];
    this.active = -1;
  }

  /** A character appended to the box, at index `length`. */
  add(tok: HTMLElement): void {
    this.tokens.push(tok);
  }

  private onKey(e: KeyboardEvent): void {
    if (!this.tokens.length) return;
    let k = this.active;
    if (e.key === 'ArrowRight') k = Math.min(this.tokens.length - 1, k + 1);
    else if (e.key === 'ArrowLeft') k = Math.max(0, k < 0 ? this.tokens.length - 1 : k - 1);
    else if (e.key === 'Home') k = 0;
    else if (e.key === 'End') k = this.tokens.length - 1;
    else if (e.key === 'Escape') return hideTooltip();
    else return;
    e.preventDefault();
    this.focus(k, true);
  }

  private focus(k: number, scroll: boolean): void {
    if (k < 0 || k >= this.tokens.length) return;
    this.tokens[this.active]?.classList.remove('active');
    this.active = k;
    const tok = this.tokens[k];
    tok.classList.add('active');
    if (scroll) tok.scrollIntoView({ block: 'nearest' });
    const tip = this.explain(tok);
    if (tip) showTooltip(tip, tok.getBoundingClientRect());
  }
}
