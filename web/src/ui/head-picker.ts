// head-picker.ts — the Layer and Head selects and the "All heads" toggle of an attention map
// (Look inside: the language model's maps; the translator's maps). One copy of the controls and
// of the rules: the options follow the model's counts, the choice is kept (clamped) when they
// change, and every change redraws through the owner's callback.
import { tr } from '../i18n';
import { clear, h } from './dom';

export class HeadPicker {
  readonly layerSel: HTMLSelectElement;
  readonly headSel: HTMLSelectElement;
  readonly gridBtn: HTMLButtonElement;
  layer = 0;
  head = 0;
  showGrid = false;

  /** ids: the selects' and the button's element ids (tests and labels find them by id). */
  constructor(ids: { layer: string; head: string; grid: string }, private readonly onChange: () => void) {
    this.layerSel = h('select', { id: ids.layer }) as HTMLSelectElement;
    this.headSel = h('select', { id: ids.head }) as HTMLSelectElement;
    this.gridBtn = h('button', { type: 'button', id: ids.grid, 'aria-pressed': 'false' }, tr((m) => (this.showGrid ? m.inspect.heads.one : m.inspect.heads.all))) as HTMLButtonElement;
    this.layerSel.addEventListener('change', () => this.select(Number(this.layerSel.value), this.head));
    this.headSel.addEventListener('change', () => this.select(this.layer, Number(this.headSel.value)));
    this.gridBtn.addEventListener('click', () => this.setGrid(!this.showGrid));
  }

  /** Label, select, label, select, toggle: for the owner's controls row. */
  controls(): HTMLElement[] {
    return [h('label', { for: this.layerSel.id }, tr((m) => m.inspect.heads.layer)), this.layerSel, h('label', { for: this.headSel.id }, tr((m) => m.inspect.heads.head)), this.headSel, this.gridBtn];
  }

  /** The model's layer and head counts; lastLayer: start at the last layer (first time only). Does not redraw. */
  setCounts(layers: number, heads: number, lastLayer = false): void {
    clear(this.layerSel);
    clear(this.headSel);
    for (let l = 0; l < layers; l++) this.layerSel.append(h('option', { value: l }, String(l)));
    for (let n = 0; n < heads; n++) this.headSel.append(h('option', { value: n }, String(n)));
    this.layer = lastLayer && this.layer < 0 ? layers - 1 : Math.min(Math.max(this.layer, 0), layers - 1);
    this.head = Math.min(this.head, heads - 1);
    this.layerSel.value = String(this.layer);
    this.headSel.value = String(this.head);
  }

  select(layer: number, head: number): void {
    this.layer = layer;
    this.head = head;
    this.layerSel.value = String(layer);
    this.headSel.value = String(head);
    this.onChange();
  }

  setGrid(on: boolean): void {
    this.showGrid = on;
    this.gridBtn.setAttribute('aria-pressed', String(on));
    this.gridBtn.replaceChildren(h('span', {}, tr((m) => (on ? m.inspect.heads.one : m.inspect.heads.all))));
    this.onChange();
  }

  /** A cell of the all-heads grid: clicking it shows that head alone. */
  cell(layer: number, head: number, canvas: HTMLCanvasElement): HTMLButtonElement {
    const b = h('button', { type: 'button', class: `head-cell${layer === this.layer && head === this.head ? ' current' : ''}`, 'data-layer': layer, 'data-head': head,
      'aria-label': tr((m) => m.inspect.heads.cellLabel(layer, head)) }, canvas, h('span', { class: 'small' }, tr((m) => m.inspect.heads.cell(layer, head)))) as HTMLButtonElement;
    b.addEventListener('click', () => {
      this.select(layer, head);
      this.setGrid(false);
    });
    return b;
  }
}
