// views.ts (watch) — "Watch it learn" (issue 15; docs/watch.md): how the model got from noise
// to text, drawn from the run's history of snapshots (the core takes one at every evaluation:
// core/include/tinygpt/watch.h). Loaded on demand (index.ts imports it when the panel nears the
// screen), so the page's first payload stays as it was.
//
//   time-lapse     attention maps of a fixed probe text at every snapshot: slider and play
//   embedding map  the 2-D PCA of the byte embeddings (the core's), animated by the same slider
//   step through   generation one byte at a time with the top-k candidates; any branch, a tree
//   what changed   the probe's per-byte loss at two snapshots, and loss against position
//   compare runs   validation curves of the runs stored in this browser, overlaid
//
// A translation model (seq2seq) has the same views on its own numbers: the time-lapse shows the
// decoder's cross-attention of a probe pair (target rows x source columns: the alignment appearing),
// the map the source bytes, what changed the target bytes and the end token, the tree translations.
//
// Every number comes from the core, the neighbours on the map too (cosine in the full embedding
// space: wasm watchNeighbours); this file only draws.
import { isRecurrent, isTranslator } from '../../lib/model-kind';
import uPlot from 'uplot';

import { type View, watch } from '../../app/store';
import { type Locale, locale, type Msg, t, tr } from '../../i18n';
import { coreText } from '../../i18n/core-messages';
import { formatCount, formatProb } from '../../lib/format';
import { byteLabel, byteRole, displayString } from '../../lib/utf8';
import { clear, cssVar, drawPackedAttention, h, quantisedColor, setText, withData } from '../../ui';
import type { RunCurves as RunCurvesMsg, RunsSlice } from '../runs';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import type { TrainSlice } from '../train';
import type { Snapshots as Insight } from './history';
import type { WatchSlice } from './state';

/** What the views show: the history and the tree, the loss curves, the stored runs to compare. */
export type ViewsState = WatchSlice & RunsSlice & TrainSlice & SessionSlice & SettingsSlice & { locale: Locale };
type RunState = ViewsState;

export interface WatchHandlers {
  treeStart(prompt: Uint8Array, topK: number): void;
  treeExtend(node: number, token: number): void;
  treeSelect(node: number): void;
  /** Load a stored run's curves (Runs.curves). */
  compareRun(id: string): void;
}

const PLAY_MS = 350;

/** A token's label: a byte, or a translator's BOS / EOS (data::kBos 256, kEos 257). */
function label(b: number): string {
  return b === 256 ? t().watch.bos : b === 257 ? t().watch.end : byteLabel(b).text;
}

/** Data (a byte, a prompt, a run's name): shown as it is, not for translation. */
function data(text: string, attrs: Record<string, string> = {}): HTMLElement {
  return h('span', { ...attrs, translate: 'no' }, text);
}


/**
 * A note from the store: a sentence already worded, a message worded now (a `Msg`), or a core
 * message between catalogue words (the shape of ui/note.ts's Note, where a store keeps one).
 */
type NoteLike = string | Msg | { core: string; from?: object; before?: Msg; after?: Msg } | null | undefined;
function noteText(note: NoteLike): string {
  if (!note) return '';
  if (typeof note === 'string') return note;
  if (typeof note === 'function') return note(t());
  return `${note.before?.(t()) ?? ''}${coreText(note.core, note.from)}${note.after?.(t()) ?? ''}`;
}

/** One line saying what a view shows. */
function viewHead(id: string, title: Msg, what: Msg): HTMLElement {
  return h('header', { class: 'view-head' }, h('h3', { id }, tr(title)), h('p', { class: 'explain small' }, tr(what)));
}

function masked(): [number, number, number] {
  return document.documentElement.matches('.dark') || matchMedia('(prefers-color-scheme: dark)').matches ? [40, 44, 52] : [235, 237, 242];
}

/** Colour for a change of loss: green where it fell (learned), red where it rose. */
function diffColor(d: number): string {
  const a = Math.min(1, Math.abs(d) / 2);
  return d < 0 ? `rgba(40, 170, 90, ${0.15 + 0.75 * a})` : `rgba(220, 70, 60, ${0.15 + 0.75 * a})`;
}

export class WatchViews {
  private slider: HTMLInputElement;
  private playBtn: HTMLButtonElement;
  private stepLabel: HTMLElement;
  private index = -1;          // the snapshot shown; -1: follow the newest
  private timer = 0;
  // time-lapse
  private layerSel: HTMLSelectElement;
  private headSel: HTMLSelectElement;
  private maps: HTMLElement;
  private probeEl: HTMLElement;
  private tlExplain: HTMLElement;
  private embExplain: HTMLElement;
  private promptLabel: HTMLElement;
  private treeSource = '';     // seq2seq: the source the tree translates
  // embedding map
  private emb: HTMLCanvasElement;
  private embInfo: HTMLElement;
  private embSel = -1;         // the byte (index into Insight.bytes) picked by hover or keys
  // what changed
  private aSel: HTMLSelectElement;
  private bSel: HTMLSelectElement;
  private changed: HTMLElement;
  private changedSummary: HTMLElement;
  private posCanvas: HTMLCanvasElement;
  // step through
  private prompt!: HTMLInputElement;
  private topK!: HTMLInputElement;
  private pathEl!: HTMLElement;
  private cands!: HTMLElement;
  private treeEl!: HTMLElement;
  private treeNote!: HTMLElement;
  private backBtn!: HTMLButtonElement;
  // compare
  private cmpList: HTMLElement;
  private cmpHost: HTMLElement;
  private cmpNote: HTMLElement;
  private cmpPlot: uPlot | null = null;
  private cmpChecked = new Set<string>();
  private cmpRunsKey = '';

  constructor(private store: View<ViewsState>, host: HTMLElement, private handlers: WatchHandlers) {
    // ---- the shared slider
    this.slider = h('input', { type: 'range', id: 'watch-slider', min: 0, max: 0, value: 0, 'aria-label': tr((m) => m.watch.snapshotLabel) });
    this.playBtn = h('button', { type: 'button', id: 'watch-play', 'aria-pressed': 'false' }, t().watch.play);
    this.stepLabel = h('span', { id: 'watch-step', class: 'mono', 'aria-live': 'polite' }, t().watch.noSnapshots);
    this.slider.addEventListener('input', () => {
      const k = this.count();
      this.index = Number(this.slider.value) >= k - 1 ? -1 : Number(this.slider.value);
      this.drawSnapshotViews();
    });
    this.playBtn.addEventListener('click', () => this.togglePlay());

    // ---- view 2: time-lapse
    this.layerSel = h('select', { id: 'tl-layer', 'aria-label': tr((m) => m.watch.layer) });
    this.headSel = h('select', { id: 'tl-head', 'aria-label': tr((m) => m.watch.head) });
    this.layerSel.addEventListener('change', () => this.drawMaps());
    this.headSel.addEventListener('change', () => this.drawMaps());
    this.maps = h('div', { id: 'tl-maps', class: 'tl-maps' });
    this.probeEl = h('p', { id: 'tl-probe', class: 'mono small' });

    // ---- view 3: embedding map
    this.emb = h('canvas', { id: 'emb-map', class: 'emb-map', tabindex: '0', role: 'img',
      'aria-label': tr((m) => m.watch.embLabel) });
    this.embInfo = h('p', { id: 'emb-info', class: 'small', 'aria-live': 'polite' }, t().watch.embHint);
    this.emb.addEventListener('mousemove', (e) => this.embHover(e));
    this.emb.addEventListener('keydown', (e) => this.embKey(e));

    // ---- view 5: what changed
    this.aSel = h('select', { id: 'wc-a', 'aria-label': tr((m) => m.watch.earlier) });
    this.bSel = h('select', { id: 'wc-b', 'aria-label': tr((m) => m.watch.later) });
    this.aSel.addEventListener('change', () => this.drawChanged());
    this.bSel.addEventListener('change', () => this.drawChanged());
    this.changed = h('div', { id: 'wc-tokens', class: 'token-strip' });
    this.changedSummary = h('p', { id: 'wc-summary', class: 'small' });
    this.posCanvas = h('canvas', { id: 'wc-positions', class: 'pos-curve', role: 'img', 'aria-label': tr((m) => m.watch.positionsLabel) });

    const begin = this.buildStepThrough();

    // ---- view 6: compare runs
    this.cmpList = h('div', { id: 'cmp-list', class: 'cmp-list', role: 'group', 'aria-label': tr((m) => m.watch.cmpRuns) });
    this.cmpHost = h('div', { id: 'cmp-chart', class: 'chart', role: 'img', 'aria-label': tr((m) => m.watch.cmpChart) });
    this.cmpNote = h('p', { id: 'cmp-note', class: 'small muted' });

    this.layout(host, begin);
    this.tlExplain = host.querySelector('#view-timelapse .explain')!;
    this.embExplain = host.querySelector('#view-embedding .explain')!;
    this.promptLabel = host.querySelector('label[for=st-prompt]')!;
    // 'locale': a language switch words the views again (the text drawn on canvases too)
    watch(store, ['watch', 'watchRev', 'locale'], () => this.onHistory());
    watch(store, ['tree', 'treeSelected', 'treeNote', 'locale'], (s) => this.drawTree(s));
    // validation points arrive with valStep; the list is rebuilt only when the runs change (keeps focus)
    watch(store, ['runs', 'compare', 'compareNote', 'valStep', 'model', 'runId', 'locale'], (s) => this.drawCompare(s));
    locale.listen(() => {
      setText(this.playBtn, this.timer ? t().watch.pause : t().watch.play);
      if (this.embSel < 0) setText(this.embInfo, t().watch.embHint);
    });
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.drawSnapshotViews());
    window.addEventListener('resize', () => this.drawSnapshotViews());
  }

  /** View 4's controls: a prompt, top-k, Begin and Back. */
  private buildStepThrough(): HTMLButtonElement {
    this.prompt = h('input', { type: 'text', id: 'st-prompt', value: 'ROMEO:', 'aria-label': t().watch.prompt, spellcheck: 'false' });
    this.topK = h('input', { type: 'number', id: 'st-topk', min: 2, max: 16, value: 8, 'aria-label': tr((m) => m.watch.topLabel) });
    const begin = h('button', { type: 'button', id: 'st-begin', class: 'primary' }, tr((m) => m.watch.begin));
    begin.addEventListener('click', () => {
      const k = Math.max(2, Math.min(16, Math.round(Number(this.topK.value)) || 8));
      this.treeSource = this.prompt.value;
      this.handlers.treeStart(new TextEncoder().encode(this.prompt.value), k);
    });
    this.backBtn = h('button', { type: 'button', id: 'st-back' }, tr((m) => m.watch.backOne));
    this.backBtn.addEventListener('click', () => {
      const s = this.store.get();
      const n = s.tree?.nodes[s.treeSelected];
      if (n && n.parent >= 0) this.handlers.treeSelect(n.parent);
    });
    this.pathEl = h('p', { id: 'st-path', class: 'mono st-path', 'aria-live': 'polite' });
    this.cands = h('div', { id: 'st-cands', class: 'st-cands', role: 'group', 'aria-label': tr((m) => m.watch.candidates) });
    this.treeEl = h('div', { id: 'st-tree', class: 'st-tree' });
    this.treeNote = h('p', { id: 'st-note', class: 'small muted' });

    return begin;
  }

  /** The shared slider, then the views in their grid. */
  private layout(host: HTMLElement, begin: HTMLButtonElement): void {
    host.append(
      h('div', { class: 'row watch-scrub' }, h('label', { for: 'watch-slider' }, tr((m) => m.watch.snapshot)), this.slider, this.playBtn, this.stepLabel),
      h('div', { class: 'watch-grid' },
        h('section', { class: 'view', id: 'view-timelapse', 'aria-labelledby': 'tl-title' },
          viewHead('tl-title', (m) => m.watch.tlTitle, (m) => m.watch.tlExplain),
          h('div', { class: 'row' }, h('label', {}, tr((m) => m.watch.layerLabel), this.layerSel), h('label', {}, tr((m) => m.watch.headLabel), this.headSel)),
          this.maps, this.probeEl),
        h('section', { class: 'view', id: 'view-embedding', 'aria-labelledby': 'emb-title' },
          viewHead('emb-title', (m) => m.watch.embTitle, (m) => m.watch.embExplain),
          this.emb, this.embInfo)),
      h('section', { class: 'view', id: 'view-step', 'aria-labelledby': 'st-title' },
        viewHead('st-title', (m) => m.watch.stTitle, (m) => m.watch.stExplain),
        h('div', { class: 'row' }, h('label', { for: 'st-prompt' }, t().watch.prompt), this.prompt, h('label', { for: 'st-topk' }, tr((m) => m.watch.top)), this.topK, begin, this.backBtn),
        this.pathEl, this.cands, this.treeEl, this.treeNote),
      h('section', { class: 'view', id: 'view-changed', 'aria-labelledby': 'wc-title' },
        viewHead('wc-title', (m) => m.watch.wcTitle, (m) => m.watch.wcExplain),
        h('div', { class: 'row' }, h('label', {}, tr((m) => m.watch.from), this.aSel), h('label', {}, tr((m) => m.watch.to), this.bSel)),
        this.changed, this.changedSummary, this.posCanvas),
      h('section', { class: 'view', id: 'view-compare', 'aria-labelledby': 'cmp-title' },
        viewHead('cmp-title', (m) => m.watch.cmpTitle, (m) => m.watch.cmpExplain),
        this.cmpList, this.cmpHost, this.cmpNote),
    );

  }

  private get insight(): Insight | null {   // the run's history of snapshots (the store's `watch`)
    return this.store.get().watch;
  }

  private count(): number {
    return this.insight?.snapshots.length ?? 0;
  }

  private current(): number {
    const k = this.count();
    return this.index < 0 || this.index >= k ? k - 1 : this.index;
  }

  // ------------------------------------------------------------ the slider

  private onHistory(): void {
    const ins = this.insight;
    const k = this.count();
    this.slider.max = String(Math.max(0, k - 1));
    this.slider.disabled = k < 2;
    this.playBtn.disabled = k < 2;
    if (this.index >= k) this.index = -1;
    this.slider.value = String(Math.max(0, this.current()));
    this.explainKind(ins);
    // layer and head choices follow the model
    if (ins && this.layerSel.options.length !== ins.L) {
      clear(this.layerSel);
      for (let l = 0; l < ins.L; l++) this.layerSel.append(h('option', { value: l }, String(l + 1)));
    }
    if (ins && this.headSel.options.length !== ins.NH + 1) {
      clear(this.headSel);
      this.headSel.append(h('option', { value: 'all' }, tr((m) => m.watch.allHeads)));
      for (let hd = 0; hd < ins.NH; hd++) this.headSel.append(h('option', { value: hd }, String(hd + 1)));
    }
    // the two snapshots to compare: the first and the newest unless chosen
    const keepA = this.aSel.options.length > 0 && this.aSel.selectedIndex >= 0 && this.aSel.selectedIndex < k ? this.aSel.selectedIndex : 0;
    const followB = this.bSel.selectedIndex < 0 || this.bSel.selectedIndex >= this.bSel.options.length - 1;
    const keepB = followB ? k - 1 : Math.min(this.bSel.selectedIndex, k - 1);
    for (const sel of [this.aSel, this.bSel]) {
      clear(sel);
      ins?.snapshots.forEach((s, i) => sel.append(h('option', { value: i }, t().watch.step(formatCount(s.step)))));
    }
    this.aSel.selectedIndex = Math.max(0, keepA);
    this.bSel.selectedIndex = Math.max(0, keepB);
    this.drawSnapshotViews();
  }

  /** The one-line explanations and the prompt's meaning follow the model kind. */
  private explainKind(ins: Insight | null): void {
    const s2s = isTranslator(ins?.kind);
    const m = t().watch;
    setText(this.tlExplain, s2s ? m.tlExplainS2s : m.tlExplain);
    setText(this.embExplain, s2s ? m.embExplainS2s : m.embExplain);
    setText(this.promptLabel, s2s ? m.source : m.prompt);
    this.prompt.setAttribute('aria-label', s2s ? m.sourceLabel : m.prompt);
    if (this.tlExplain.dataset.kind === (s2s ? 'seq2seq' : 'gpt')) return;
    this.tlExplain.dataset.kind = s2s ? 'seq2seq' : 'gpt';
    // a translator starts from its probe's source, a language model from a line of the play
    if (s2s && this.prompt.value === 'ROMEO:') this.prompt.value = new TextDecoder().decode(ins!.probeSource);
    else if (!s2s && ins && this.prompt.value !== 'ROMEO:' && this.prompt.dataset.fromProbe === 'true') this.prompt.value = 'ROMEO:';
    this.prompt.dataset.fromProbe = String(s2s);
  }

  private togglePlay(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = 0;
    } else {
      if (this.current() >= this.count() - 1) this.index = 0;
      this.timer = window.setInterval(() => {
        const next = this.current() + 1;
        if (next >= this.count()) {
          this.index = -1;
          this.togglePlay();
        } else this.index = next;
        this.slider.value = String(this.current());
        this.drawSnapshotViews();
      }, PLAY_MS);
    }
    this.playBtn.setAttribute('aria-pressed', String(!!this.timer));
    setText(this.playBtn, this.timer ? t().watch.pause : t().watch.play);
  }

  private drawSnapshotViews(): void {
    const ins = this.insight;
    const k = this.count();
    if (!ins || !ins.enabled || k === 0) {
      setText(this.stepLabel, ins && !ins.enabled ? t().watch.noHistory : t().watch.noSnapshotsYet);
      this.stepLabel.dataset.step = '';
      clear(this.maps);
      return;
    }
    const i = this.current();
    const s = ins.snapshots[i];
    setText(this.stepLabel, t().watch.stepOf(formatCount(s.step), i + 1, k));
    this.stepLabel.dataset.step = String(s.step);
    this.stepLabel.dataset.index = String(i);
    this.drawMaps();
    this.drawEmbedding();
    this.drawChanged();
  }

  // ------------------------------------------------------------ view 2: time-lapse

  private drawMaps(): void {
    const ins = this.insight;
    if (!ins || this.count() === 0) return;
    const snap = ins.snapshots[this.current()];
    const l = Number(this.layerSel.value) || 0;
    const all = this.headSel.value === 'all' || this.headSel.value === '';
    const heads = all ? [...Array(ins.NH).keys()] : [Number(this.headSel.value)];
    const width = this.maps.clientWidth || 320;
    const size = Math.max(96, Math.min(320, Math.floor((width - 12 * (heads.length - 1)) / heads.length)));
    clear(this.maps);
    if (ins.NH === 0) {  // a recurrent model: no attention to draw
      this.maps.append(h('p', { class: 'muted small', id: 'tl-no-attention' }, t().watch.noAttention));
      this.probeEl.replaceChildren(t().watch.probe, data(displayString(ins.probe)));
      return;
    }
    if (isTranslator(ins.kind)) return this.drawCross(snap, l, heads, width);
    for (const hd of heads) {
      const c = h('canvas', { class: 'tl-map', 'data-head': hd, role: 'img', 'aria-label': t().watch.mapLabel(l + 1, hd + 1, snap.step) });
      drawPackedAttention(c, snap.attention, ins.mapOffset(l, hd), ins.T, size, masked());
      this.maps.append(h('figure', {}, c, h('figcaption', { class: 'small muted' }, t().watch.headCaption(hd + 1))));
    }
    this.probeEl.replaceChildren(t().watch.probe, data(displayString(ins.probe)));
  }

  /** Cross-attention maps (T, S) of decoder layer l: rows the target bytes predicted (then the end), columns the source. */
  private drawCross(snap: Insight['snapshots'][number], l: number, heads: number[], width: number): void {
    const ins = this.insight!;
    const rows = [...ins.probe].map(label).concat(t().watch.end);
    const cols = [...ins.probeSource].map(label);
    const margin = 22;
    const fit = Math.floor((width - 12 * (heads.length - 1)) / heads.length) - margin;
    const cell = Math.max(8, Math.min(28, Math.floor(fit / Math.max(ins.S, ins.T))));
    for (const hd of heads) {
      const c = h('canvas', { class: 'tl-map tl-cross', 'data-head': hd, role: 'img' });
      const peaks = ins.crossPeaks(snap, l, hd);
      c.dataset.peaks = peaks.join(',');
      // the rows and columns are bytes (data): the label names them, the map is the data
      c.setAttribute('translate', 'no');
      c.setAttribute('aria-label', t().watch.crossLabel(l + 1, hd + 1, snap.step) +
        rows.map((r, q) => t().watch.looksMostAt(r, cols[peaks[q]])).join(t().watch.listSep));
      drawQuantisedMatrix(c, snap.attention, ins.crossOffset(l, hd), ins.T, ins.S, cell, margin, rows, cols);
      this.maps.append(h('figure', {}, c, h('figcaption', { class: 'small muted' }, t().watch.headCaption(hd + 1))));
    }
    const peaks = ins.crossPeaks(snap, l, 'all');
    this.maps.dataset.peaks = peaks.join(',');
    this.probeEl.replaceChildren(t().watch.probePair, data(`${displayString(ins.probeSource)} → ${displayString(ins.probe)}`), t().watch.probePairEnd);
  }

  // ------------------------------------------------------------ view 3: embedding map

  /** Canvas positions of the bytes in the current snapshot: the map scaled to fit. */
  private embPoints(): { x: number; y: number }[] {
    const ins = this.insight!;
    const xy = ins.snapshots[this.current()].embedding;
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < xy.length; i++) {
      lo = Math.min(lo, xy[i]);
      hi = Math.max(hi, xy[i]);
    }
    const span = hi - lo || 1;
    const w = this.emb.clientWidth || 320, hgt = this.emb.clientHeight || 320, pad = 14;
    const pts = [];
    for (let n = 0; n < ins.N; n++) {
      pts.push({ x: pad + ((xy[2 * n] - lo) / span) * (w - 2 * pad), y: hgt - pad - ((xy[2 * n + 1] - lo) / span) * (hgt - 2 * pad) });
    }
    return pts;
  }

  private drawEmbedding(): void {
    const ins = this.insight;
    if (!ins || this.count() === 0) return;
    const dpr = window.devicePixelRatio || 1;
    const w = this.emb.clientWidth || 320, hgt = this.emb.clientHeight || 320;
    this.emb.width = Math.round(w * dpr);
    this.emb.height = Math.round(hgt * dpr);
    const ctx = this.emb.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    ctx.font = '12px ui-monospace, monospace';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const pts = this.embPoints();
    const near = this.embSel >= 0 ? ins.nearest(this.embSel, 5).map((e) => e.index) : [];
    const fg = cssVar('--fg') || '#222';
    const tokens = ins.mapLabels.length === ins.N && ins.N > 0;   // a BPE model's map: its tokens, by their text
    for (let n = 0; n < ins.N; n++) {
      if (tokens) {
        const text = ins.mapLabels[n];
        ctx.fillStyle = n === this.embSel ? '#e0662a' : near.includes(n) ? '#2a9d5c' : ins.mapTokens[n] >= 256 ? fg : '#7a8596';
        ctx.fillText(text, pts[n].x, pts[n].y);
        continue;
      }
      const b = ins.bytes[n];
      // classes a reader looks for: letters (vowels apart), digits, space and punctuation, UTF-8 bytes
      const ch = String.fromCharCode(b);
      ctx.fillStyle = n === this.embSel ? '#e0662a' : near.includes(n) ? '#2a9d5c'
        : b >= 0x80 ? (b < 0xc0 ? '#a05ad8' : '#d85aa0') : /[aeiouAEIOU]/.test(ch) ? '#3a6fd8' : /[0-9]/.test(ch) ? '#c08a00' : /[A-Za-z]/.test(ch) ? fg : '#7a8596';
      ctx.fillText(label(b), pts[n].x, pts[n].y);
    }
    if (this.embSel >= 0 && this.embSel < ins.N) this.describeByte(this.embSel);
  }

  /** The byte's nearest in the full embedding space (the core's cosines at the newest weights). */
  private describeByte(n: number): void {
    const ins = this.insight!;
    const near = ins.nearest(n, 5);
    if (ins.mapLabels.length === ins.N) {   // a BPE model's token
      this.embInfo.replaceChildren(data(ins.mapLabels[n]),
        withData((slot) => t().watch.nearestToken(slot(0), formatCount(ins.neighbours.step)), [String(ins.mapTokens[n])]),
        data(near.map((e) => `${ins.mapLabels[e.index]} ${e.cosine.toFixed(2)}`).join(', ')));
      this.embInfo.dataset.token = String(ins.mapTokens[n]);
      this.embInfo.dataset.near = near.map((e) => ins.mapTokens[e.index]).join(',');
      return;
    }
    const b = ins.bytes[n];
    this.embInfo.replaceChildren(data(label(b)),
      withData((slot) => t().watch.nearest(slot(0), byteRole(b), formatCount(ins.neighbours.step)), [`0x${b.toString(16).padStart(2, '0')}`]),
      data(near.map((e) => `${label(ins.bytes[e.index])} ${e.cosine.toFixed(2)}`).join(', ')));
    this.embInfo.dataset.byte = String(b);
    this.embInfo.dataset.near = near.map((e) => ins.bytes[e.index]).join(',');
  }

  private embHover(e: MouseEvent): void {
    if (!this.insight || this.count() === 0) return;
    const r = this.emb.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const pts = this.embPoints();
    let best = -1, bd = 400;   // within 20 px
    pts.forEach((p, i) => {
      const d = (p.x - x) ** 2 + (p.y - y) ** 2;
      if (d < bd) [best, bd] = [i, d];
    });
    if (best >= 0 && best !== this.embSel) {
      this.embSel = best;
      this.drawEmbedding();
    }
  }

  private embKey(e: KeyboardEvent): void {
    const N = this.insight?.N ?? 0;
    if (!N) return;
    const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    this.embSel = (Math.max(0, this.embSel) + step + N) % N;
    this.drawEmbedding();
  }

  // ------------------------------------------------------------ view 5: what changed

  private drawChanged(): void {
    const ins = this.insight;
    if (!ins || this.count() === 0) return;
    const a = ins.snapshots[Math.max(0, this.aSel.selectedIndex)];
    const b = ins.snapshots[Math.max(0, this.bSel.selectedIndex)];
    if (!a || !b) return;
    clear(this.changed);
    let learned = 0, sumA = 0, sumB = 0, n = 0;
    const msg = t().watch;
    // gpt: the probe bytes; seq2seq: the target bytes, then the end token (T = target + 1)
    // a BPE language model's: the probe's tokens, by their text
    const tokens = isTranslator(ins.kind) ? [...ins.probe, 257] : [...ins.probe];
    const names = ins.probeLabels.length === ins.T ? ins.probeLabels : tokens.map(label);
    for (let pos = 0; pos < ins.T && pos < names.length; pos++) {
      const la = a.probeLoss[pos], lb = b.probeLoss[pos];
      const cell = h('span', { class: `tok${ins.probeLabels.length ? ' bpe' : ''}`, 'data-t': pos, translate: 'no' }, names[pos]);
      if (Number.isFinite(la) && Number.isFinite(lb)) {
        const d = lb - la;
        cell.style.background = diffColor(d);
        cell.title = names[pos] + msg.byteChange(la.toFixed(2), lb.toFixed(2), `${d <= 0 ? '' : '+'}${d.toFixed(2)}`);
        cell.dataset.diff = d.toFixed(4);
        if (d < -0.5) learned++;
        sumA += la;
        sumB += lb;
        n++;
      }
      this.changed.append(cell);
    }
    setText(this.changedSummary, n ? msg.summary(formatCount(a.step), formatCount(b.step), (sumA / n).toFixed(2), (sumB / n).toFixed(2), learned, n) : '');
    this.drawPositions(a.positionLoss, b.positionLoss, a.step, b.step);
  }

  /** Loss against position in the window, at both snapshots (a plain line chart on a canvas). */
  private drawPositions(a: Float32Array, b: Float32Array, stepA: number, stepB: number): void {
    const c = this.posCanvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth || 480, hgt = c.clientHeight || 160, pad = 28;
    c.width = Math.round(w * dpr);
    c.height = Math.round(hgt * dpr);
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    let hi = 0;
    for (const v of [...a, ...b]) if (Number.isFinite(v)) hi = Math.max(hi, v);
    if (!hi) return;
    const P = a.length;
    const x = (p: number) => pad + (p / Math.max(1, P - 1)) * (w - pad - 8);
    const y = (v: number) => hgt - pad + 8 - (v / hi) * (hgt - pad - 8);
    ctx.strokeStyle = cssVar('--muted') || '#666';
    ctx.fillStyle = ctx.strokeStyle;
    ctx.font = '11px system-ui, sans-serif';
    ctx.beginPath();
    ctx.moveTo(pad, 4);
    ctx.lineTo(pad, hgt - pad + 8);
    ctx.lineTo(w - 4, hgt - pad + 8);
    ctx.stroke();
    ctx.fillText(t().watch.nats(hi.toFixed(1)), 2, 12);
    ctx.fillText(t().watch.positionAxis, pad + 4, hgt - 4);
    for (const [series, color, step] of [[a, '#9aa5b8', stepA], [b, '#e0662a', stepB]] as const) {
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      let started = false;
      for (let p = 0; p < P; p++) {
        if (!Number.isFinite(series[p])) continue;
        if (started) ctx.lineTo(x(p), y(series[p]));
        else ctx.moveTo(x(p), y(series[p]));
        started = true;
      }
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.fillText(t().watch.step(String(step)), w - 70, color === '#e0662a' ? 28 : 14);
    }
  }

  // ------------------------------------------------------------ view 4: step-through generation

  private drawTree(s: RunState): void {
    setText(this.treeNote, noteText(s.treeNote) || (s.tree ? t().watch.treeInfo(formatCount(s.tree.step), s.tree.nodes.length, s.tree.positionsComputed) : t().watch.pressBegin));
    clear(this.pathEl);
    clear(this.cands);
    clear(this.treeEl);
    const tree = s.tree;
    const msg = t().watch;
    this.backBtn.disabled = !tree || tree.nodes[s.treeSelected]?.parent < 0;
    if (!tree) return;
    const sel = tree.nodes[s.treeSelected];
    // the path: prompt, then each byte as a button that walks back to it
    const path: number[] = [];
    for (let n = s.treeSelected; n > 0; n = tree.nodes[n].parent) path.unshift(n);
    const s2s = isTranslator(this.insight?.kind) || s.mode === 'seq2seq';
    // a BPE model's tokens are labelled by the core (Tokenizer.tokenText); a byte model's by the page
    const bpe = s.model?.config.tokenizer === 'bpe';
    const nodeLabel = (n: number) => (bpe ? tree.nodes[n].label : label(tree.nodes[n].token));
    this.pathEl.append(data(s2s ? `${this.treeSource} → ` : displayString(tree.prompt), { class: 'st-prompt' }));
    for (const n of path) {
      const b = h('button', { type: 'button', class: 'st-byte', 'data-node': n, title: msg.walkBack(formatProb(tree.nodes[n].prob)) }, data(nodeLabel(n)));
      b.addEventListener('click', () => this.handlers.treeSelect(n));
      this.pathEl.append(b);
    }
    this.pathEl.dataset.node = String(s.treeSelected);
    // the candidates after the selected node
    sel.topTokens.forEach((tok, i) => {
      const grown = [...sel.children].some((c) => tree.nodes[c].token === tok);
      const b = h('button', { type: 'button', class: `st-cand${grown ? ' grown' : ''}`, 'data-token': tok },
        h('span', { class: 'mono', translate: 'no' }, bpe ? sel.topLabels[i] : label(tok)), h('small', {}, ` ${formatProb(sel.topProbs[i])}`));
      b.style.setProperty('--p', String(sel.topProbs[i]));
      b.addEventListener('click', () => this.handlers.treeExtend(s.treeSelected, tok));
      this.cands.append(b);
    });
    // the tree: every branch as nested lists of buttons
    const walk = (n: number): HTMLElement => {
      const node = tree.nodes[n];
      const li = h('li', {});
      const b = h('button', { type: 'button', class: `st-node${n === s.treeSelected ? ' selected' : ''}`, 'data-node': n, 'aria-current': n === s.treeSelected ? 'true' : null },
        n === 0 ? (s2s ? msg.rootSource : msg.rootPrompt) : data(nodeLabel(n)), n === 0 ? null : ` ${formatProb(node.prob)}`);
      b.addEventListener('click', () => this.handlers.treeSelect(n));
      li.append(b);
      if (node.children.length) {
        const ul = h('ul', {});
        for (const c of node.children) ul.append(walk(c));
        li.append(ul);
      }
      return li;
    };
    this.treeEl.append(h('ul', { class: 'tree-root' }, walk(0)));
  }

  // ------------------------------------------------------------ view 6: compare runs

  private drawCompare(s: RunState): void {
    setText(this.cmpNote, noteText(s.compareNote) || (s.runs.length ? t().watch.cmpTick : t().watch.cmpNone));
    const runsKey = `${s.locale}|` + s.runs.map((r) => `${r.id}@${r.step}:${r.name}:${r.current}:${noteText(r.model)}`).join('|');
    if (runsKey !== this.cmpRunsKey) this.listRuns(s, runsKey);
    // series: the current run, then each ticked run whose curves arrived
    const runs: { name: string; steps: number[]; losses: number[]; stored?: boolean }[] = [];
    // in bits per byte: the unit that compares models of any kind and any vocabulary on one text
    // (nats per token x tokens per byte / ln 2; a byte model's tokens per byte is 1)
    const bits = (xs: ArrayLike<number>, tpb: number | undefined) => Array.from(xs, (x) => (x * (tpb || 1)) / Math.LN2);
    if (s.model && s.history.valSteps.length) runs.push({ name: t().watch.thisRun(configLine(s.model.config)), steps: s.history.valSteps, losses: bits(s.history.valLosses, s.model.tokensPerByte) });
    for (const id of this.cmpChecked) {
      const c: RunCurvesMsg | undefined = s.compare[id];
      const r = s.runs.find((x) => x.id === id);
      if (c && r && !r.current) runs.push({ name: `${r.name} (${configLine(c.config)})`, steps: [...c.valSteps], losses: bits(c.valLosses, c.tokensPerByte), stored: true });
    }
    this.cmpHost.dataset.series = String(runs.length);
    this.plotCompare(runs);
  }

  private listRuns(s: RunState, key: string): void {
    this.cmpRunsKey = key;
    clear(this.cmpList);
    for (const r of s.runs) {
      // the current run is always drawn
      const box = h('input', { type: 'checkbox', id: `cmp-${r.id}`, 'data-run': r.id, checked: r.current || this.cmpChecked.has(r.id), disabled: r.current });
      box.addEventListener('change', () => {
        if (box.checked) {
          this.cmpChecked.add(r.id);
          const have = this.store.get().compare[r.id];
          if (!have || have.step !== r.step) this.handlers.compareRun(r.id);
        } else this.cmpChecked.delete(r.id);
        this.drawCompare(this.store.get());
      });
      this.cmpList.append(h('label', { class: 'cmp-run' }, box, ' ', data(r.name), t().watch.runLine(noteText(r.model), formatCount(r.step)),
        r.current ? t().watch.thisRunTag : null));
    }
  }

  private plotCompare(runs: { name: string; steps: number[]; losses: number[]; stored?: boolean }[]): void {
    // one x axis: the union of the evaluated steps; gaps where a run has no point
    const xs = [...new Set(runs.flatMap((r) => r.steps))].sort((a, b) => a - b);
    const data = [xs, ...runs.map((r) => {
      const m = new Map(r.steps.map((st, i) => [st, r.losses[i]]));
      return xs.map((x) => m.get(x) ?? null);
    })] as uPlot.AlignedData;
    const key = `${locale.get()}|` + runs.map((r) => r.name).join('|');
    const colors = ['#3a6fd8', '#e0662a', '#2a9d5c', '#a05ad8', '#c08a00', '#d85aa0'];
    if (!this.cmpPlot || this.cmpHost.dataset.key !== key) {
      this.cmpPlot?.destroy();
      this.cmpHost.dataset.key = key;
      const axis = cssVar('--muted') || '#666';
      this.cmpPlot = new uPlot({
        width: Math.max(240, this.cmpHost.clientWidth || 320), height: 220,
        scales: { x: { time: false } },
        axes: [{ stroke: axis, label: t().watch.axisStep }, { stroke: axis, label: t().watch.axisBits, size: 48 }],
        series: [{ label: t().watch.axisStep }, ...runs.map((r, i) => ({ label: r.name, stroke: colors[i % colors.length], width: 2, spanGaps: true, points: { show: true, size: 5 } }))],
      }, data, this.cmpHost);
      // a stored run's label starts with its name: data, not for translation
      const rows = this.cmpHost.querySelectorAll('.u-legend .u-series');
      runs.forEach((r, i) => { if (r.stored) rows[i + 1]?.querySelector('.u-label')?.setAttribute('translate', 'no'); });
    } else this.cmpPlot.setData(data);
  }
}

function configLine(c: { model?: string; n_layer: number; n_embd: number; n_hidden?: number; block_size: number; learning_rate: number; batch_size: number }): string {
  const lr = +c.learning_rate.toPrecision(3);   // float32 noise off
  if (isRecurrent(c.model)) return t().watch.configRecurrent(c.model!.toUpperCase(), c.n_layer, c.n_hidden ?? NaN, c.block_size, lr, c.batch_size);
  return t().watch.config(c.n_layer, c.n_embd, c.block_size, lr, c.batch_size);
}

/**
 * Draws a full map (rows, cols) stored one byte per weight (q = round(255 sqrt(p)), watch.h) at
 * att[offset + r * cols + c], `cell` CSS pixels a weight, with the row labels on the left and the
 * column labels on top in a `margin`.
 */
function drawQuantisedMatrix(canvas: HTMLCanvasElement, att: Uint8Array, offset: number, rows: number, cols: number, cell: number,
  margin: number, rowLabels: string[], colLabels: string[]): void {
  const dpr = window.devicePixelRatio || 1;
  const w = margin + cols * cell, hgt = margin + rows * cell;
  canvas.style.width = `${w}px`;
  canvas.style.height = `${hgt}px`;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(hgt * dpr);
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, hgt);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [red, green, blue] = quantisedColor(att[offset + r * cols + c]);
      ctx.fillStyle = `rgb(${red}, ${green}, ${blue})`;
      ctx.fillRect(margin + c * cell, margin + r * cell, cell, cell);
    }
  }
  ctx.fillStyle = cssVar('--fg') || '#222';
  ctx.font = `${Math.min(12, Math.max(8, cell - 2))}px ui-monospace, monospace`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  colLabels.forEach((l, c) => ctx.fillText(l.length > 2 ? l.slice(0, 2) : l, margin + (c + 0.5) * cell, margin / 2));
  ctx.textAlign = 'right';
  const end = t().watch.end;
  rowLabels.forEach((l, r) => ctx.fillText(l === end ? '⟨/⟩' : l.length > 2 ? l.slice(0, 2) : l, margin - 3, margin + (r + 0.5) * cell));
}
