// alignment-panel.ts (inspect) — looking inside the translator: its cross-attention (which source bytes each
// target byte reads: the alignment the seed's example grows as it trains), and the encoder's and
// decoder's self-attention, per layer and head or all heads, labelled with the characters on both
// axes (heatmap.ts, utf8.ts: the language model's attention panel's drawing and labels), hover or
// arrow keys for the weights. It follows training while visible.
import { type View, view, watch } from '../../app/store';
import { type Locale, type Messages, t, tr } from '../../i18n';
import { clear, cssVar, drawMatrix, drawMatrixHighlight, drawTicks, h, HeadPicker, hideTooltip, moveCell, NoteLine, panelHeader, showTooltip, withData } from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import { type AttentionMapView, type MapKind, attentionMap, availableMaps } from './derive';
import type { Alignment as TranslationInspectionMsg } from './messages';
import type { InspectStores } from './panel';
import type { AlignSource, InspectSlice } from './state';

type S = InspectSlice & SettingsSlice & SessionSlice & { locale: Locale };

export interface AlignmentHandlers {
  onRequest(): void;
  onSource(source: AlignSource): void;
  onCustom(pair: { source: string; target: string }): void;
  onAnotherPair(): void;
  onLive(live: boolean): void;
  onVisible(visible: boolean): void;
}

const MAP_KINDS: MapKind[] = ['cross', 'encoder', 'decoder'];
/** The catalogue's words for a kind of map: its name, its axes, the tooltip's sentence. */
const words = (m: Messages, kind: MapKind) => m.translate.maps[kind];

function parseRgb(css: string, fallback: [number, number, number]): [number, number, number] {
  const m = /rgba?\((\d+)[ ,]+(\d+)[ ,]+(\d+)/.exec(css) ?? /#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(css);
  if (!m) return fallback;
  const base = css.startsWith('#') ? 16 : 10;
  return [parseInt(m[1], base), parseInt(m[2], base), parseInt(m[3], base)];
}

export class AlignmentPanel {
  readonly el: HTMLElement;
  private source: HTMLSelectElement;
  private anotherBtn: HTMLButtonElement;
  private runBtn: HTMLButtonElement;
  private live: HTMLInputElement;
  private customSrc: HTMLInputElement;
  private customTgt: HTMLInputElement;
  private custom: HTMLElement;
  private mapSel: HTMLSelectElement;
  private readonly picker: HeadPicker;  // layer, head, all heads
  private canvas: HTMLCanvasElement;
  private overlay: HTMLCanvasElement;
  private rowLabels: HTMLElement;
  private colLabels: HTMLElement;
  private axisY: HTMLElement;
  private axisX: HTMLElement;
  private single: HTMLElement;
  private grid: HTMLElement;
  private note: NoteLine;
  private pairLine: HTMLElement;
  private body: HTMLElement;
  private data: TranslationInspectionMsg | null = null;
  private view: AttentionMapView | null = null;
  private kind: MapKind = 'cross';
  private cell = 0;
  private hoverQ: number | null = null;
  private hoverK: number | null = null;

  constructor(stores: InspectStores, handlers: AlignmentHandlers) {
    const store = view(stores.inspect, stores.settings, stores.session);
    this.source = h('select', { id: 'align-source' },
      h('option', { value: 'pair' }, tr((m) => m.translate.align.sourcePair)),
      h('option', { value: 'translation' }, tr((m) => m.translate.align.sourceTranslation)),
      h('option', { value: 'custom' }, tr((m) => m.translate.align.sourceCustom)));
    this.anotherBtn = h('button', { type: 'button', id: 'btn-another-pair' }, tr((m) => m.translate.align.anotherPair));
    this.runBtn = h('button', { type: 'button', id: 'btn-align', class: 'primary' }, tr((m) => m.translate.align.lookInside));
    this.live = h('input', { type: 'checkbox', id: 'align-live', checked: true });
    // the seed's pair as an example (data, in the languages it is written in)
    this.customSrc = h('input', { id: 'align-custom-source', type: 'text', spellcheck: 'false', placeholder: '我 爱 吃 火锅', translate: 'no' });
    this.customTgt = h('input', { id: 'align-custom-target', type: 'text', spellcheck: 'false', placeholder: 'I like to eat hot pot', translate: 'no' });
    this.custom = h('div', { class: 'row align-custom', hidden: true },
      h('label', { for: 'align-custom-source' }, tr((m) => m.translate.source)), this.customSrc,
      h('label', { for: 'align-custom-target' }, tr((m) => m.translate.align.target)), this.customTgt);
    this.mapSel = h('select', { id: 'align-map' }, ...MAP_KINDS.map((k) => h('option', { value: k }, tr((m) => words(m, k).label))));
    this.picker = new HeadPicker({ layer: 'align-layer', head: 'align-head', grid: 'btn-align-all-heads' }, () => this.draw());
    this.picker.layer = -1;  // the last layer (of a decoder, where the alignment is usually clearest)
    this.canvas = h('canvas', { id: 'align-heatmap', class: 'heatmap', tabindex: '0', role: 'img', 'aria-label': tr((m) => m.translate.align.mapLabel) });
    this.overlay = h('canvas', { class: 'heatmap-overlay', 'aria-hidden': 'true' });
    this.rowLabels = h('div', { id: 'align-rows', class: 'tick-labels rows', 'aria-hidden': 'true', translate: 'no' });
    this.colLabels = h('div', { id: 'align-cols', class: 'tick-labels cols', 'aria-hidden': 'true', translate: 'no' });
    this.axisY = h('div', { class: 'axis-y small muted' });
    this.axisX = h('div', { class: 'axis-x small muted' });
    this.single = h('div', { class: 'heatmap-wrap' }, this.axisY, this.rowLabels,
      h('div', { class: 'heatmap-stack' }, this.canvas, this.overlay), this.colLabels, this.axisX);
    this.grid = h('div', { id: 'align-heads-grid', class: 'heads-grid', hidden: true });
    this.note = new NoteLine(h('p', { id: 'align-note', class: 'muted small', 'aria-live': 'polite' }));
    this.note.set(this.needModel);
    this.pairLine = h('p', { id: 'align-pair', class: 'align-pair', translate: 'no' });
    this.body = h('div', { class: 'inspect-body', hidden: true },
      this.pairLine,
      h('div', { class: 'row' },
        h('label', { for: 'align-map' }, tr((m) => m.translate.align.attention)), this.mapSel,
        ...this.picker.controls(),
        h('span', { class: 'legend small' }, tr((m) => m.inspect.legendWeight), h('span', { class: 'legend-bar viridis' }), tr((m) => m.inspect.legendScale))),
      this.single, this.grid);
    const head = panelHeader(5, tr((m) => m.translate.align.title), '');
    head.querySelector('.explain')!.append(...explainWithExample());
    this.el = h('section', { id: 'alignment', class: 'card wide', 'aria-labelledby': 'alignment-title', hidden: true },
      head,
      h('div', { class: 'row' }, h('label', { for: 'align-source' }, tr((m) => m.translate.align.show)), this.source, this.anotherBtn, this.runBtn,
        h('label', { class: 'check' }, this.live, tr((m) => m.inspect.live))),
      this.custom, this.note.el, this.body);
    this.el.querySelector('h2')!.id = 'alignment-title';
    this.wire(store, handlers);
  }

  private wire(store: View<S>, handlers: AlignmentHandlers): void {
    this.source.addEventListener('change', () => handlers.onSource(this.source.value as AlignSource));
    this.anotherBtn.addEventListener('click', () => handlers.onAnotherPair());
    this.runBtn.addEventListener('click', () => handlers.onRequest());
    this.live.addEventListener('change', () => handlers.onLive(this.live.checked));
    const custom = () => handlers.onCustom({ source: this.customSrc.value, target: this.customTgt.value });
    for (const input of [this.customSrc, this.customTgt]) {
      input.addEventListener('input', custom);
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') handlers.onRequest();
      });
    }
    this.mapSel.addEventListener('change', () => {
      this.kind = this.mapSel.value as MapKind;
      this.show();
    });
    this.canvas.addEventListener('mousemove', (e) => this.onCanvasMove(e));
    this.canvas.addEventListener('mouseleave', () => this.hover(null, null));
    this.canvas.addEventListener('keydown', (e) => this.onCanvasKey(e));
    this.canvas.addEventListener('blur', () => this.hover(null, null));
    new IntersectionObserver((entries) => handlers.onVisible(entries.some((e) => e.isIntersecting))).observe(this.el);
    window.addEventListener('resize', () => this.draw());

    watch(store, ['mode'], (st) => (this.el.hidden = st.mode !== 'seq2seq'));
    watch(store, ['alignSource'], (st) => {
      this.source.value = st.alignSource;
      this.custom.hidden = st.alignSource !== 'custom';
      this.anotherBtn.hidden = st.alignSource !== 'pair';
    });
    watch(store, ['inspectLive'], (st) => (this.live.checked = st.inspectLive));
    watch(store, ['alignment'], (st) => {
      this.data = st.alignment;
      if (st.alignment) this.show();
    });
    watch(store, ['model', 'inspectNote', 'mode'], (st) => {
      if (!st.model || st.mode !== 'seq2seq') {
        this.runBtn.disabled = this.anotherBtn.disabled = true;
        this.note.set(this.needModel);
        this.body.hidden = true;
        this.data = null;
        return;
      }
      this.runBtn.disabled = this.anotherBtn.disabled = false;
      if (st.inspectNote) this.note.set(st.inspectNote);
    });
    // the axes and the tick labels' titles are worded when drawn: again at a switch
    watch(store, ['locale'], () => {
      this.drawAxes();
      this.draw();
    });
  }

  private readonly needModel = (m: Messages) => m.translate.align.needModel;

  /** The chosen kind of attention of the current inspection: selectors, pair line, map. */
  private show(): void {
    const d = this.data;
    if (!d) return;
    const maps = availableMaps(d);
    for (const o of this.mapSel.options) o.hidden = o.disabled = !maps.includes(o.value as MapKind);
    if (!maps.includes(this.kind)) this.mapSel.value = this.kind = 'cross';
    const view = attentionMap(d, this.kind);
    const changed = !this.view || this.view.layers !== view.layers || this.view.kind !== view.kind || this.picker.headSel.options.length !== d.NH;
    this.view = view;
    if (changed) {
      this.picker.setCounts(view.layers, d.NH, /*lastLayer=*/true);
    }
    const dec = new TextDecoder();
    const bytes = (t: Int32Array) => new Uint8Array(Array.from(t).filter((x) => x < 256));
    const line = `${dec.decode(bytes(d.src))}  →  ${dec.decode(bytes(d.tgtIn))}`;
    if (this.pairLine.textContent !== line) this.pairLine.textContent = line;
    this.body.hidden = false;
    this.drawAxes();
    this.draw();
  }

  /** The axes of the chosen kind of map (the decoder's columns name ⟨BOS⟩: a token, marked as data). */
  private drawAxes(): void {
    const m = words(t(), this.kind);
    this.axisY.replaceChildren(m.rowAxis);
    this.axisX.replaceChildren(withData((slot) => m.colAxis(slot(0)), ['⟨BOS⟩']));
  }

  private masked(): [number, number, number] {
    return parseRgb(cssVar('--masked'), [200, 200, 200]);
  }

  private draw(): void {
    const v = this.view;
    const d = this.data;
    if (!v || !d) return;
    this.single.hidden = this.picker.showGrid;
    this.grid.hidden = !this.picker.showGrid;
    const masked = v.causal ? this.masked() : null;
    if (!this.picker.showGrid) {
      const avail = Math.max(160, Math.min(520, this.el.clientWidth - 120));
      this.cell = Math.max(2, Math.min(36, Math.floor(avail / Math.max(v.rows, v.cols))));
      drawMatrix(this.canvas, v.weights, (this.picker.layer * d.NH + this.picker.head) * v.rows * v.cols, v.rows, v.cols, this.cell, masked);
      Object.assign(this.canvas.dataset, { kind: v.kind, layer: String(this.picker.layer), head: String(this.picker.head), rows: String(v.rows), cols: String(v.cols),
        drawn: String(Number(this.canvas.dataset.drawn ?? 0) + 1), step: String(d.step) });
      drawMatrixHighlight(this.overlay, v.rows, v.cols, this.cell, this.hoverQ, this.hoverK, cssVar('--accent') || '#e0662a', v.causal);
      const m = t().translate.align;
      drawTicks(this.rowLabels, v.rowLabels, this.cell, false, (i) => m.rowTick(i, v.rowLabels[i]));
      drawTicks(this.colLabels, v.colLabels, this.cell, true, (i) => m.columnTick(i, v.colLabels[i]));
    } else {
      clear(this.grid);
      this.grid.style.setProperty('--cols', String(d.NH));
      const avail = Math.max(320, this.el.clientWidth - 60);
      const size = Math.max(48, Math.min(180, Math.floor(avail / d.NH) - 12));
      const cell = Math.max(1, size / Math.max(v.rows, v.cols));
      for (let l = 0; l < v.layers; l++) {
        for (let n = 0; n < d.NH; n++) {
          const c = h('canvas', { 'aria-hidden': 'true' });
          drawMatrix(c, v.weights, (l * d.NH + n) * v.rows * v.cols, v.rows, v.cols, cell, masked);
          this.grid.append(this.picker.cell(l, n, c));
        }
      }
      this.grid.dataset.count = String(v.layers * d.NH);
    }
  }

  private hover(q: number | null, k: number | null): void {
    this.hoverQ = q;
    this.hoverK = k;
    const v = this.view;
    const d = this.data;
    if (!v || !d) return;
    if (!this.picker.showGrid) drawMatrixHighlight(this.overlay, v.rows, v.cols, this.cell, q, k, cssVar('--accent') || '#e0662a', v.causal);
    if (q === null || k === null) {
      hideTooltip();
      return;
    }
    const w = v.causal && k > q ? 0 : v.weights[(this.picker.layer * d.NH + this.picker.head) * v.rows * v.cols + q * v.cols + k];
    const m = t().translate;
    const tip = h('div', { class: 'tip-attn' },
      h('div', { class: 'tip-title' }, withData((slot) => words(t(), v.kind).tip(q, slot(0), k, slot(1)), [v.rowLabels[q], v.colLabels[k]])),
      h('div', {}, v.causal && k > q ? m.align.maskedTip : m.align.weightTip(w.toFixed(4), this.picker.layer, this.picker.head)));
    const r = this.canvas.getBoundingClientRect();
    const x = r.left + (k + 1) * this.cell;
    const y = r.top + (q + 1) * this.cell;
    showTooltip(tip, { left: x + 8, right: x + 8, top: y - this.cell, bottom: y + 4 });
  }

  private onCanvasMove(e: MouseEvent): void {
    const v = this.view;
    if (!v) return;
    const r = this.canvas.getBoundingClientRect();
    const k = Math.floor((e.clientX - r.left) / (r.width / v.cols));
    const q = Math.floor((e.clientY - r.top) / (r.height / v.rows));
    if (q < 0 || k < 0 || q >= v.rows || k >= v.cols) return this.hover(null, null);
    if (q !== this.hoverQ || k !== this.hoverK) this.hover(q, k);
  }

  private onCanvasKey(e: KeyboardEvent): void {
    const v = this.view;
    if (!v) return;
    const cell = moveCell(e.key, this.hoverQ ?? 0, this.hoverK ?? 0, v.rows, v.cols, v.causal);
    if (cell === null) return;
    if (cell === 'leave') return this.hover(null, null);
    e.preventDefault();
    this.hover(cell[0], cell[1]);
  }
}

/** The panel's explanation: the catalogue's words around the seed's example pair (data, marked translate="no"). */
function explainWithExample(): Node[] {
  const ex = (text: string) => h('span', { translate: 'no' }, text);
  return [tr((m) => m.translate.align.explain1), ex('我 爱 吃 火锅 → I like to eat hot pot'), tr((m) => m.translate.align.explain2), ex('“I”'),
    tr((m) => m.translate.align.explain3), ex('我'), tr((m) => m.translate.align.explain4), ex('“hot pot”'), tr((m) => m.translate.align.explain3), ex('火锅'),
    tr((m) => m.translate.align.explain5)].map((x) => (x instanceof Node ? x : h('span', {}, x)));
}
