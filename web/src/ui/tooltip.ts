// tooltip.ts — one floating tooltip for the whole page (hover and keyboard focus).
import { clear } from './dom';

/** The page's one tooltip element (#tooltip), made the first time one is shown. */
function element(): HTMLElement {
  let tip = document.getElementById('tooltip');
  if (!tip) {
    tip = document.createElement('div');
    tip.id = 'tooltip';
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    document.body.append(tip);
  }
  return tip;
}

/** Shows content next to a rectangle (viewport coordinates), flipping to stay on screen. */
export function showTooltip(content: Node | string, anchor: { left: number; top: number; right: number; bottom: number }): void {
  const el = element();
  clear(el);
  el.append(content);
  el.hidden = false;
  const pad = 8;
  const w = el.offsetWidth;
  const hgt = el.offsetHeight;
  let x = anchor.left;
  let y = anchor.bottom + pad;
  if (x + w > window.innerWidth - pad) x = Math.max(pad, window.innerWidth - w - pad);
  if (y + hgt > window.innerHeight - pad) y = Math.max(pad, anchor.top - hgt - pad);
  el.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
}

export function showTooltipAt(content: Node | string, x: number, y: number): void {
  showTooltip(content, { left: x + 12, top: y - 8, right: x + 12, bottom: y + 8 });
}

export function hideTooltip(): void {
  const tip = typeof document === 'undefined' ? null : document.getElementById('tooltip');
  if (tip) tip.hidden = true;
}
