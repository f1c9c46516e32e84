// shading.ts — text the model wrote, each character shaded by how surprised the model was by it
// (its probability, the product over its bytes for a multi-byte character). The sample panel
// (streamed generation) and the translate panel (a translation) draw their output with it.
import type { Segment } from '../utf8';
import { hexChip } from '../utf8';
import { h } from './dom';

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
 */
export function shadedSpan(seg: Segment, p: number, k: number, pending = false): HTMLElement {
  const el = h('span', { class: `tok${seg.kind === 'bytes' ? ' chip' : ''}${pending ? ' partial' : ''}`, 'data-k': k, 'data-start': seg.start, 'data-len': seg.length });
  el.style.setProperty('--s', surprise(p).toFixed(3));
  el.dataset.p = p.toPrecision(4);
  if (seg.kind === 'char') {
    if (seg.text === '\n') el.classList.add('nl');
    el.textContent = seg.text;
  } else el.textContent = hexChip(seg.bytes);
  return el;
}
