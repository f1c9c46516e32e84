// panel.ts (inspect) — looking inside the model on one text: its tokens, the attention map of any
// layer and head (or all of them), and how surprising each byte was to the model.
import { type MapStore, type View, view, watch } from '../../app/store';
import { type Locale, type Messages, t, tr } from '../../i18n';
import { formatProb } from '../../lib/format';
import { alternativeLabel, byteLabel, byteLabels, byteRole, hex, windowSegments } from '../../lib/utf8';
import {
  clear, colorCss, cssVar, drawAttention, drawHighlight, drawTicks, h, HeadPicker, hideTooltip, moveCell, NoteLine, panelHeader, showTooltip, withData,
} from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import type { Inspection as InspectionMsg } from './messages';
import type { InspectSlice, InspectSource } from './state';

/** The stores a "look inside" panel shows. */
export interface InspectStores { inspect: MapStore<InspectSlice>; settings: MapStore<SettingsSlice>; session: MapStore<SessionSlice> }

export interface InspectHandlers {
  /** Look inside the chosen text now. */
  onRequest(): void;
  onSource(source: InspectSource): void;
  onText(text: string): void;
  onLive(live: boolean): void;
  onAnotherSlice(): void;
  /** The panel scrolled into or out of view. */
  onVisible(visible: boolean): void;
}

/** A blind guess over the model's tokens: ln V nats (ln 256 for bytes), the loss strip's full shade. */
const lnV = (d: { V?: number }) => Math.log(d.V ?? 256);
const isBpe = (d: { V?: number }) => (d.V ?? 256) !== 256;

function parseRgb(css: string, fallback: [number, number, number]): [number, number, number] {
  const m = /rgba?\((\d+)[ ,]+(\d+)[ ,]+(\d+)/.exec(css) ?? /#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(css);
  if (!m) return fallback;
  const base = css.startsWith('#') ? 16 : 10;
  return [parseInt(m[1], base), parseInt(m[2], base), parseInt(m[3], base)];
}

export class InspectPanel {
  readonly el: HTMLElement;
  private source: HTMLSelectElement;
  private live: HTMLInputElement;
  private custom: HTMLTextAreaElement;
  private sliceBtn: HTMLButtonElement;
  private runBtn: HTMLButtonElement;
  private readonly picker: HeadPicker;  // layer, head, all heads
  private tokensEl: HTMLElement;
  private lossEl: HTMLElement;
  private lossSummary: NoteLine;
  private canvas: HTMLCanvasElement;
  private overlay: HTMLCanvasElement;
  private rowLabels: HTMLElement;   // the characters of the rows (queries) and columns (keys)
  private colLabels: HTMLElement;
  private single: HTMLElement;
  private grid: HTMLElement;
  private note: NoteLine;
  private body: HTMLElement;
  private data: InspectionMsg | null = null;
  private cells: HTMLElement[] = [];
  private labels: string[] = [];
  private charStart: number[] = [];   // for each byte, where its character starts (itself if none)
  private lossCells: HTMLElement[] = [];
  private hoverQ: number | null = null;
  private hoverK: number | null = null;
  private size = 0;
  private losses: number[] = [];
  private attention: HTMLElement;
  private noAttention: HTMLElement;

  constructor(stores: InspectStores, handlers: InspectHandlers) {
    const store = view(stores.inspect, stores.settings, stores.session);
    this.source = h('select', { id: 'inspect-source' },
      h('option', { value: 'corpus' }, tr((m) => m.inspect.sourceCorpus)),
      h('option', { value: 'prompt' }, tr((m) => m.inspect.sourcePrompt)),
      h('option', { value: 'sample' }, tr((m) => m.inspect.sourceSample)),
      h('option', { value: 'custom' }, tr((m) => m.inspect.sourceCustom)));
    this.custom = h('textarea', { id: 'inspect-text', rows: 2, hidden: true, placeholder: tr((m) => m.inspect.customPlaceholder), spellcheck: 'false', 'aria-label': tr((m) => m.inspect.customLabel) });
    this.sliceBtn = h('button', { type: 'button', id: 'btn-another-slice' }, tr((m) => m.inspect.anotherSlice));
    this.runBtn = h('button', { type: 'button', id: 'btn-inspect', class: 'primary' }, tr((m) => m.inspect.lookInside));
    this.live = h('input', { type: 'checkbox', id: 'inspect-live', checked: true });
    this.picker = new HeadPicker({ layer: 'inspect-layer', head: 'inspect-head', grid: 'btn-all-heads' }, () => this.draw());
    // the strips and the ticks show the text's bytes: data (translate="no")
    this.tokensEl = h('div', { id: 'inspect-tokens', class: 'token-strip', tabindex: '0', 'aria-label': tr((m) => m.inspect.tokensLabel), translate: 'no' });
    this.lossEl = h('div', { id: 'token-loss', class: 'token-strip loss-strip', tabindex: '0', 'aria-label': tr((m) => m.inspect.lossLabel), translate: 'no' });
    this.lossSummary = new NoteLine(h('p', { id: 'loss-summary', class: 'muted small' }));
    this.canvas = h('canvas', { id: 'heatmap', class: 'heatmap', tabindex: '0', role: 'img', 'aria-label': tr((m) => m.inspect.mapLabel) });
    this.overlay = h('canvas', { class: 'heatmap-overlay', 'aria-hidden': 'true' });
    this.rowLabels = h('div', { id: 'heatmap-rows', class: 'tick-labels rows', 'aria-hidden': 'true', translate: 'no' });
    this.colLabels = h('div', { id: 'heatmap-cols', class: 'tick-labels cols', 'aria-hidden': 'true', translate: 'no' });
    this.single = h('div', { class: 'heatmap-wrap' },
      h('div', { class: 'axis-y small muted' }, tr((m) => m.inspect.rowAxis)),
      this.rowLabels,
      h('div', { class: 'heatmap-stack' }, this.canvas, this.overlay),
      this.colLabels,
      h('div', { class: 'axis-x small muted' }, tr((m) => m.inspect.colAxis)));
    this.grid = h('div', { id: 'heads-grid', class: 'heads-grid', hidden: true });
    this.note = new NoteLine(h('p', { id: 'inspect-note', class: 'muted small', 'aria-live': 'polite' }));
    this.note.set(this.needModel);
    // a recurrent model has no attention: its maps give way to a note (its memory: features/hidden)
    this.attention = h('div', { class: 'inspect-attention' },
      h('div', { class: 'row' },
        ...this.picker.controls(),
        h('span', { class: 'legend small' }, tr((m) => m.inspect.legendWeight), h('span', { class: 'legend-bar viridis' }), tr((m) => m.inspect.legendScale))),
      this.single, this.grid);
    this.noAttention = h('p', { id: 'inspect-no-attention', class: 'muted small', hidden: true }, tr((m) => m.watch.noAttention));
    this.body = h('div', { class: 'inspect-body', hidden: true },
      h('h3', { class: 'small-title' }, tr((m) => m.inspect.tokensTitle)),
      this.tokensEl,
      this.attention, this.noAttention,
      h('h3', { class: 'small-title' }, tr((m) => m.inspect.lossTitle)),
      h('p', { class: 'muted small' }, tr((m) => m.inspect.lossExplain)),
      this.lossEl, this.lossSummary.el);
    this.el = h('section', { id: 'inspect', class: 'card wide', 'aria-labelledby': 'inspect-title' },
      panelHeader(5, tr((m) => m.inspect.title), tr((m) => m.inspect.explain)),
      h('div', { class: 'row' }, h('label', { for: 'inspect-source' }, tr((m) => m.inspect.text)), this.source, this.sliceBtn, this.runBtn,
        h('label', { class: 'check' }, this.live, tr((m) => m.inspect.live))),
      this.custom, this.note.el, this.body);
    this.el.querySelector('h2')!.id = 'inspect-title';

    this.wire(store, handlers);
  }

  /** DOM events to handlers, and the store's inspection, note and source to the DOM. */
  private wire(store: View<InspectSlice & SettingsSlice & SessionSlice & { locale: Locale }>, handlers: InspectHandlers): void {
    this.source.addEventListener('change', () => handlers.onSource(this.source.value as InspectSource));
    this.sliceBtn.addEventListener('click', () => handlers.onAnotherSlice());
    this.runBtn.addEventListener('click', () => handlers.onRequest());
    this.custom.addEventListener('input', () => handlers.onText(this.custom.value));
    this.live.addEventListener('change', () => handlers.onLive(this.live.checked));
    this.custom.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) handlers.onRequest();
    });
    this.canvas.addEventListener('mousemove', (e) => this.onCanvasMove(e));
    this.canvas.addEventListener('mouseleave', () => this.hover(null, null));
    this.canvas.addEventListener('keydown', (e) => this.onCanvasKey(e));
    this.canvas.addEventListener('blur', () => this.hover(null, null));
    this.tokensEl.addEventListener('mouseover', (e) => {
      const t = Number((e.target as HTMLElement).closest<HTMLElement>('[data-t]')?.dataset.t);
      if (Number.isFinite(t)) this.hover(t, null, (e.target as HTMLElement).closest<HTMLElement>('[data-t]')!);
    });
    this.tokensEl.addEventListener('mouseleave', () => this.hover(null, null));
    this.tokensEl.addEventListener('keydown', (e) => this.onStripKey(e, 'tokens'));
    this.lossEl.addEventListener('mouseover', (e) => {
      const c = (e.target as HTMLElement).closest<HTMLElement>('[data-t]');
      if (c) this.showLossTip(Number(c.dataset.t), c);
    });
    this.lossEl.addEventListener('mouseleave', () => hideTooltip());
    this.lossEl.addEventListener('keydown', (e) => this.onStripKey(e, 'loss'));
    this.lossEl.addEventListener('blur', () => hideTooltip());
    new IntersectionObserver((entries) => handlers.onVisible(entries.some((e) => e.isIntersecting))).observe(this.el);
    window.addEventListener('resize', () => this.draw());

    watch(store, ['mode'], (st) => (this.el.hidden = st.mode !== 'gpt'));
    watch(store, ['inspectLive'], (st) => (this.live.checked = st.inspectLive));
    watch(store, ['inspectSource'], (st) => {
      this.source.value = st.inspectSource;
      this.custom.hidden = st.inspectSource !== 'custom';
      this.sliceBtn.hidden = st.inspectSource !== 'corpus';
    });
    watch(store, ['inspection'], (st) => {
      if (st.inspection) this.show(st.inspection, st.tokenLosses);
    });
    watch(store, ['model', 'inspectNote'], (st) => {
      if (!st.model) this.disable();
      else {
        this.runBtn.disabled = this.sliceBtn.disabled = false;
        if (st.inspectNote) this.note.set(st.inspectNote);
      }
    });
    // the strips' group titles and the ticks' titles are worded when drawn: again at a switch
    watch(store, ['locale'], () => {
      if (this.data) this.show(this.data, this.losses);
    });
  }

  private readonly needModel = (m: Messages) => m.inspect.needModel;

  private disable(): void {
    this.runBtn.disabled = true;
    this.sliceBtn.disabled = true;
    this.note.set(this.needModel);
    this.body.hidden = true;
    this.data = null;
  }

  private show(d: InspectionMsg, losses: number[]): void {
    const first = !this.data || this.data.L !== d.L || this.data.NH !== d.NH;
    this.data = d;
    if (first) {
      this.picker.setCounts(d.L, d.NH);
    }
    this.body.hidden = false;
    this.attention.hidden = d.L === 0;
    this.noAttention.hidden = d.L !== 0;
    this.losses = losses;
    this.renderTokens();
    this.renderLoss();
    if (d.L > 0) this.draw();
  }

  private masked(): [number, number, number] {
    return parseRgb(cssVar('--masked'), [200, 200, 200]);
  }

  private draw(): void {
    const d = this.data;
    if (!d || d.L === 0) return;
    const T = d.T;
    this.single.hidden = this.picker.showGrid;
    this.grid.hidden = !this.picker.showGrid;
    if (!this.picker.showGrid) {
      const avail = Math.max(160, Math.min(480, this.el.clientWidth - 80));
      const cell = Math.max(1, Math.floor(avail / T));
      this.size = cell * T;
      drawAttention(this.canvas, d.attention, (this.picker.layer * d.NH + this.picker.head) * T * T, T, this.size, this.masked());
      this.canvas.dataset.layer = String(this.picker.layer);
      this.canvas.dataset.head = String(this.picker.head);
      this.canvas.dataset.t = String(T);
      this.canvas.dataset.drawn = String(Number(this.canvas.dataset.drawn ?? 0) + 1);
      drawHighlight(this.overlay, T, this.size, this.hoverQ, this.hoverK, cssVar('--accent') || '#e0662a');
      this.drawTicks(cell);
    } else {
      clear(this.grid);
      this.grid.style.setProperty('--cols', String(d.NH));
      const avail = Math.max(320, this.el.clientWidth - 60);
      const size = Math.max(48, Math.min(160, Math.floor(avail / d.NH) - 12));
      for (let l = 0; l < d.L; l++) {
        for (let n = 0; n < d.NH; n++) {
          const c = h('canvas', { 'aria-hidden': 'true' });
          drawAttention(c, d.attention, (l * d.NH + n) * T * T, T, size, this.masked());
          this.grid.append(this.picker.cell(l, n, c));
        }
      }
      this.grid.dataset.count = String(d.L * d.NH);
    }
    this.shadeTokens();
  }

  /** The character of each row and column beside the map (every k-th when the cells are small). */
  private drawTicks(cell: number): void {
    const labels = Array.from({ length: this.data!.T }, (_, t) => this.label(t));
    const m = t().inspect;
    const tick = isBpe(this.data!) ? m.tokenTick : m.byteTick;
    drawTicks(this.rowLabels, labels, cell, false, (i) => tick(i));
    drawTicks(this.colLabels, labels, cell, true, (i) => tick(i));
  }

  private label(t: number): string {
    const d = this.data!;
    if (isBpe(d)) return d.labels[t];
    return this.labels[t] ?? byteLabel(d.bytes[t]).text;
  }

  /** A BPE model's strip: one cell per token, labelled by its text. */
  private renderTokenStrip(el: HTMLElement, decorate: (cell: HTMLElement, t: number) => void): HTMLElement[] {
    const d = this.data!;
    clear(el);
    const cells: HTMLElement[] = [];
    for (let t = 0; t < d.T; t++) {
      this.charStart[t] = t;
      const c = h('span', { class: 'cell token', 'data-t': t }, d.labels[t]);
      cells[t] = c;
      decorate(c, t);
      el.append(c);
    }
    return cells;
  }

  /**
   * One cell per byte into `el`; the bytes of a multi-byte character are grouped under their
   * glyph (or "invalid" for bytes that form no character). Also fills `labels`.
   */
  private renderStrip(el: HTMLElement, decorate: (cell: HTMLElement, t: number) => void): HTMLElement[] {
    const d = this.data!;
    if (isBpe(d)) return this.renderTokenStrip(el, decorate);
    clear(el);
    const cells: HTMLElement[] = [];
    const cell = (t: number, text: string, cls: string) => {
      const c = h('span', { class: `cell ${cls}`, 'data-t': t }, text);
      cells[t] = c;
      decorate(c, t);
      return c;
    };
    // a character cut off by the end of the text is shown as cut, not invalid; the window may
    // begin inside a character: its leading continuation bytes form one group
    const { segs, lead } = windowSegments(d.bytes);
    const labels = byteLabels(d.bytes);
    for (const seg of segs) {
      for (let i = 0; i < seg.length; i++) this.charStart[seg.start + i] = seg.kind === 'char' ? seg.start : seg.start + i;
      if (seg.kind === 'char' && seg.length === 1) {
        this.labels[seg.start] = labels[seg.start];
        el.append(cell(seg.start, labels[seg.start], 'ascii'));
        continue;
      }
      const partial = seg.kind === 'bytes' && seg.partial;
      // continuation bytes at the very start: the window began inside a character
      const continued = lead > 0 && seg.start === 0;
      const m = t().inspect.group;
      const glyph = seg.kind === 'char' ? seg.text : partial ? m.cut : continued ? '…' : m.invalid;
      const title = seg.kind === 'char' ? m.charTitle(seg.text, seg.length) : partial ? m.cutTitle : continued ? m.continuedTitle : m.invalidTitle;
      const kind = seg.kind === 'char' ? '' : continued ? ' continued' : partial ? ' partial' : ' invalid';
      // the strip is data (translate="no"); the words for bytes that form no character are the page's
      const group = h('span', { class: `group${kind}`, title },
        h('span', { class: 'glyph', translate: seg.kind === 'char' ? null : 'yes' }, glyph));
      const inner = h('span', { class: 'cells' });
      for (let i = 0; i < seg.length; i++) {
        const t = seg.start + i;
        this.labels[t] = labels[t];
        inner.append(cell(t, hex(d.bytes[t]), 'hex'));
      }
      group.append(inner);
      el.append(group);
    }
    return cells;
  }

  /** The token strip: attention of the hovered query is shown on it. */
  private renderTokens(): void {
    this.labels = [];
    this.cells = this.renderStrip(this.tokensEl, () => undefined);
  }

  /** Shades the token cells by the attention of the hovered query (or clears them). */
  private shadeTokens(): void {
    const d = this.data;
    if (!d || d.L === 0) return;  // no attention to shade with
    const q = this.hoverQ;
    const off = (this.picker.layer * d.NH + this.picker.head) * d.T * d.T;
    for (let t = 0; t < this.cells.length; t++) {
      const c = this.cells[t];
      if (!c) continue;
      c.classList.toggle('query', q === t);
      if (q === null || t > q) {
        c.style.removeProperty('--w');
        c.style.removeProperty('background');
        c.classList.toggle('future', q !== null && t > q);
        continue;
      }
      c.classList.remove('future');
      const w = d.attention[off + q * d.T + t];
      c.style.background = colorCss(w);
      c.style.setProperty('--w', w.toFixed(3));
      c.classList.toggle('bright', Math.sqrt(w) > 0.6);
    }
  }

  private hover(q: number | null, k: number | null, anchor?: HTMLElement): void {
    this.hoverQ = q;
    this.hoverK = k;
    if (!this.picker.showGrid && this.data) drawHighlight(this.overlay, this.data.T, this.size, q, k, cssVar('--accent') || '#e0662a');
    this.shadeTokens();
    if (q === null || !this.data || this.data.L === 0) {  // a recurrent model: no attention to tell of
      hideTooltip();
      return;
    }
    const d = this.data;
    const off = (this.picker.layer * d.NH + this.picker.head) * d.T * d.T + q * d.T;
    const m = t().inspect;
    const tip = h('div', { class: 'tip-attn' });
    if (k !== null) {
      const w = k <= q ? d.attention[off + k] : 0;
      tip.append(h('div', { class: 'tip-title' }, withData((slot) => m.tip.pair(q, slot(0), k, slot(1)), [this.label(q), this.label(k)])),
        h('div', {}, k <= q ? m.tip.weight(w.toFixed(4)) : m.tip.masked));
    } else {
      // the strongest few weights of this row
      const row = Array.from({ length: q + 1 }, (_, i) => [i, d.attention[off + i]] as [number, number]).sort((a, b) => b[1] - a[1]).slice(0, 5);
      tip.append(h('div', { class: 'tip-title' }, withData((slot) => m.tip.looksAt(q, slot(0), this.picker.layer, this.picker.head), [this.label(q)])));
      const list = h('ol', { class: 'alts' });
      for (const [i, w] of row) list.append(h('li', {}, h('span', { class: 'alt-label', translate: 'no' }, `${i} “${this.label(i)}”`), h('span', { class: 'bar', style: `--w:${(w * 100).toFixed(1)}%` }), h('span', { class: 'alt-p' }, w.toFixed(3))));
      tip.append(list);
    }
    if (anchor) showTooltip(tip, anchor.getBoundingClientRect());
    else {
      const r = this.canvas.getBoundingClientRect();
      const cell = this.size / d.T;
      const x = r.left + ((k ?? 0) + 1) * cell;
      const y = r.top + (q + 1) * cell;
      showTooltip(tip, { left: x + 8, right: x + 8, top: y - cell, bottom: y + 4 });
    }
  }

  private onCanvasMove(e: MouseEvent): void {
    const d = this.data;
    if (!d) return;
    const r = this.canvas.getBoundingClientRect();
    const cell = r.width / d.T;
    const k = Math.floor((e.clientX - r.left) / cell);
    const q = Math.floor((e.clientY - r.top) / cell);
    if (q < 0 || k < 0 || q >= d.T || k >= d.T) return this.hover(null, null);
    if (q !== this.hoverQ || k !== this.hoverK) this.hover(q, k);
  }

  private onCanvasKey(e: KeyboardEvent): void {
    const d = this.data;
    if (!d) return;
    const cell = moveCell(e.key, this.hoverQ ?? 0, this.hoverK ?? 0, d.T, d.T, true);
    if (cell === null) return;
    if (cell === 'leave') return this.hover(null, null);
    e.preventDefault();
    this.hover(cell[0], cell[1]);
  }

  private onStripKey(e: KeyboardEvent, which: 'tokens' | 'loss'): void {
    const d = this.data;
    if (!d) return;
    const cur = which === 'tokens' ? this.hoverQ ?? -1 : Number(this.lossEl.dataset.active ?? -1);
    let t = cur;
    if (e.key === 'ArrowRight') t = Math.min(d.T - 1, cur + 1);
    else if (e.key === 'ArrowLeft') t = Math.max(0, cur < 0 ? d.T - 1 : cur - 1);
    else if (e.key === 'Escape') {
      if (which === 'tokens') this.hover(null, null);
      hideTooltip();
      return;
    } else return;
    e.preventDefault();
    if (which === 'tokens') this.hover(t, null, this.cells[t]);
    else {
      this.lossEl.dataset.active = String(t);
      this.showLossTip(t, this.lossCells[t]);
    }
  }

  /** Per-byte loss from the inspection's next-byte distributions. */
  private renderLoss(): void {
    const d = this.data!;
    clear(this.lossEl);
    this.lossCells = [];
    let sum = 0;
    for (let t = 1; t < d.T; t++) sum += this.losses[t];
    this.lossCells = this.renderStrip(this.lossEl, (c, t) => {
      const loss = this.losses[t];
      if (Number.isFinite(loss)) {
        c.style.setProperty('--s', Math.min(1, loss / lnV(d)).toFixed(3));
        c.dataset.loss = loss.toFixed(4);
      } else c.classList.add('unpredicted');
    });
    const mean = d.T > 1 ? sum / (d.T - 1) : NaN;
    this.lossEl.dataset.mean = Number.isFinite(mean) ? mean.toFixed(4) : '';
    let worst = 1;
    for (let t = 2; t < d.T; t++) if (this.losses[t] > this.losses[worst]) worst = t;
    const worstLabel = this.label(worst), worstLoss = this.losses[worst];
    this.lossSummary.set(d.T > 1
      ? { draw: () => withData((slot) => (isBpe(d) ? t().inspect.lossSummaryTokens : t().inspect.lossSummary)(mean.toFixed(3), lnV(d).toFixed(2), worst, slot(0), worstLoss.toFixed(2)), [worstLabel]) }
      : (m) => m.inspect.oneByte);
  }

  /** A BPE model's token: its loss, and the five tokens the model thought likeliest there. */
  private tokenLossTip(i: number): HTMLElement {
    const d = this.data!;
    const m = t().inspect;
    const box = h('div', { class: 'tip-sample' }, h('div', { class: 'tip-title' }, withData((slot) => m.tip.token(i, d.tokens[i], slot(0)), [d.labels[i]])));
    if (i === 0) {
      box.append(h('div', { class: 'muted' }, m.tip.firstNotPredicted));
      return box;
    }
    const V = d.V;
    box.append(h('div', {}, m.tip.loss(formatProb(d.probs[(i - 1) * V + d.tokens[i]]), this.losses[i].toFixed(3))), h('div', { class: 'tip-sub' }, m.tip.expected));
    const list = h('ol', { class: 'alts' });
    for (let r = 0; r < 5; r++) {
      const j = d.top![(i - 1) * 5 + r], q = d.probs[(i - 1) * V + j];
      list.append(h('li', { class: j === d.tokens[i] ? 'chosen' : '' }, h('span', { class: 'alt-label', translate: 'no' }, d.topLabels![(i - 1) * 5 + r]),
        h('span', { class: 'bar', style: `--w:${(q * 100).toFixed(1)}%` }), h('span', { class: 'alt-p' }, formatProb(q))));
    }
    box.append(list);
    return box;
  }

  private showLossTip(i: number, anchor: HTMLElement | undefined): void {
    const d = this.data;
    if (!d || !anchor) return;
    const m = t().inspect;
    const box = h('div', { class: 'tip-sample' });
    const b = d.bytes[i];
    if (isBpe(d)) return showTooltip(this.tokenLossTip(i), anchor.getBoundingClientRect());
    if (i === 0) {
      box.append(h('div', { class: 'tip-title' }, withData((slot) => m.tip.byte(0, slot(0)), [this.label(0)])), h('div', { class: 'muted' }, m.tip.firstNotPredicted));
    } else {
      const p = d.probs[(i - 1) * 256 + b];
      box.append(h('div', { class: 'tip-title' }, withData((slot) => m.tip.byteRole(i, slot(0), slot(1), byteRole(b)), [this.label(i), hex(b)])),
        h('div', {}, m.tip.loss(formatProb(p), this.losses[i].toFixed(3))),
        h('div', { class: 'tip-sub' }, m.tip.expected));
      const row = Array.from(d.probs.subarray((i - 1) * 256, i * 256));
      const top = row.map((q, j) => [j, q] as [number, number]).sort((x, y) => y[1] - x[1]).slice(0, 5);
      const list = h('ol', { class: 'alts' });
      const prefix = Array.from(d.bytes.subarray(this.charStart[i] ?? i, i));
      for (const [j, q] of top) {
        const lab = alternativeLabel(prefix, j);
        list.append(h('li', { class: j === b ? 'chosen' : '' }, h('span', { class: `alt-label ${lab.kind}`, translate: 'no' }, lab.text),
          h('span', { class: 'bar', style: `--w:${(q * 100).toFixed(1)}%` }), h('span', { class: 'alt-p' }, formatProb(q))));
      }
      box.append(list);
    }
    showTooltip(box, anchor.getBoundingClientRect());
  }
}
