// chart.ts — the loss curves (uPlot: 50 kB, canvas, fast enough to redraw tens of thousands of
// points several times a second). x is the step; train loss per step (faint), its moving
// average, and the validation loss at the steps where it was measured; the data's entropy
// baselines (the core's, insight.h) as dashed reference lines; nats or bits per byte.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import type { LossHistory } from '../app/history';
import type { Baselines } from '../protocol';
import { cssVar } from './dom';

export class LossChart {
  private u: uPlot | null = null;
  private x: number[] = [0];
  private train: (number | null)[] = [null];
  private ema: (number | null)[] = [null];
  private val: (number | null)[] = [null];
  private source: LossHistory | null = null;   // what is drawn, and how much of it
  private trainSeen = 0;
  private valSeen = 0;
  private dirty = false;
  private lastDraw = 0;
  private observer: ResizeObserver;
  private scale = 1;                         // 1: nats per byte; 1 / ln 2: bits
  private baselines: Baselines | null = null;

  constructor(private host: HTMLElement) {
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(host);
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.rebuild());
    this.rebuild();
  }

  private rebuild(): void {
    this.u?.destroy();
    const axis = cssVar('--muted') || '#666';
    const grid = cssVar('--grid') || 'rgba(128,128,128,0.15)';
    const font = '12px system-ui, sans-serif';
    const opts: uPlot.Options = {
      width: Math.max(280, this.host.clientWidth),
      height: 260,
      cursor: { drag: { x: true, y: false } },
      legend: { live: true },
      scales: { x: { time: false } },
      axes: [
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, font, label: 'step', labelFont: font, labelSize: 18 },
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, font, label: this.scale === 1 ? 'loss (nats per byte)' : 'loss (bits per byte)', labelFont: font, labelSize: 18, size: 48 },
      ],
      series: [
        { label: 'step' },
        { label: 'train', stroke: cssVar('--train-faint') || 'rgba(70,120,220,0.35)', width: 1, points: { show: false }, value: (_u, _v, _si, idx) => this.legend(this.train, idx) },
        { label: 'train (avg)', stroke: cssVar('--train') || '#3a6fd8', width: 2, points: { show: false }, value: (_u, _v, _si, idx) => this.legend(this.ema, idx) },
        // a marker at each evaluated step, lines only between them (nothing before the first)
        { label: 'validation', stroke: cssVar('--val') || '#e0662a', width: 2, spanGaps: true,
          points: { show: (u, si) => (u.data[si] as (number | null)[]).some((v) => v != null), size: 8, width: 2, fill: cssVar('--card') || '#fff' },
          value: (_u, _v, _si, idx) => this.legendVal(idx) },
      ],
      hooks: { draw: [(u) => this.drawBaselines(u, axis)] },
    };
    this.u = new uPlot(opts, this.data(), this.host);
  }

  /** Loss in nats (scale 1) or bits (1 / ln 2) per byte. */
  setUnit(bits: boolean): void {
    const scale = bits ? 1 / Math.LN2 : 1;
    if (scale === this.scale) return;
    this.scale = scale;
    this.rebuild();
  }

  setBaselines(b: Baselines | null): void {
    this.baselines = b;
    this.u?.redraw(false);
  }

  /** Dashed lines at the baselines, labelled at the right end, where they fall inside the y range. */
  private drawBaselines(u: uPlot, color: string): void {
    const b = this.baselines;
    if (!b) return;
    const ctx = u.ctx;
    const dpr = window.devicePixelRatio || 1;
    ctx.save();
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    ctx.fillStyle = color;
    ctx.strokeStyle = color;
    ctx.lineWidth = dpr;
    ctx.setLineDash([5 * dpr, 4 * dpr]);
    ctx.textAlign = 'right';
    for (const [name, nats] of [['uniform over the bytes seen', b.uniform], ['unigram', b.unigram], ['bigram', b.bigram]] as const) {
      const v = nats * this.scale;
      const min = u.scales.y.min ?? 0, max = u.scales.y.max ?? 0;
      if (v < min || v > max) continue;
      const y = Math.round(u.valToPos(v, 'y', true)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(u.bbox.left, y);
      ctx.lineTo(u.bbox.left + u.bbox.width, y);
      ctx.stroke();
      ctx.fillText(`${name} ${v.toFixed(2)}`, u.bbox.left + u.bbox.width - 4 * dpr, y - 3 * dpr);
    }
    ctx.restore();
  }

  /** Live legend: the value at the cursor, or the latest one when the cursor is off the chart. */
  private legend(series: (number | null)[], idx: number | null): string {
    const v = idx == null ? series[series.length - 1] : series[idx];
    return v == null ? '—' : (v * this.scale).toFixed(3);
  }

  /** Validation is measured now and then: the legend shows the last measurement at or before the cursor. */
  private legendVal(idx: number | null): string {
    const steps = this.source?.valSteps ?? [];
    const losses = this.source?.valLosses ?? [];
    const at = idx ?? Infinity;
    for (let i = steps.length - 1; i >= 0; i--) if (steps[i] <= at) return `${(losses[i] * this.scale).toFixed(3)} @ ${steps[i]}`;
    return '—';
  }

  private data(): uPlot.AlignedData {
    if (this.scale === 1) return [this.x, this.train, this.ema, this.val] as uPlot.AlignedData;
    const k = this.scale;
    const f = (a: (number | null)[]) => a.map((v) => (v == null ? v : v * k));
    return [this.x, f(this.train), f(this.ema), f(this.val)] as uPlot.AlignedData;
  }

  private resize(): void {
    if (!this.u) return;
    const w = Math.max(280, this.host.clientWidth);
    if (Math.abs(w - this.u.width) > 1) this.u.setSize({ width: w, height: 260 });
  }

  private grow(step: number): void {
    while (this.x.length <= step) {
      this.x.push(this.x.length);
      this.train.push(null);
      this.ema.push(null);
      this.val.push(null);
    }
  }

  /** Draws a history: what was added since the last call, or all of it if it is another one. */
  sync(h: LossHistory): void {
    const replaced = h !== this.source;
    if (replaced) {
      this.source = h;
      this.trainSeen = this.valSeen = 0;
      this.x = [0];
      this.train = [null];
      this.ema = [null];
      this.val = [null];
      if (h.train.length === 0 && h.valSteps.length === 0) {
        this.schedule(true);
        return;
      }
    }
    if (this.trainSeen === h.train.length && this.valSeen === h.valSteps.length) return;
    this.grow(h.lastStep);
    for (let i = this.trainSeen; i < h.train.length; i++) {
      this.train[h.first + i] = h.train[i];
      this.ema[h.first + i] = h.ema[i];
    }
    for (let i = this.valSeen; i < h.valSteps.length; i++) {
      this.grow(h.valSteps[i]);
      this.val[h.valSteps[i]] = h.valLosses[i];
    }
    this.trainSeen = h.train.length;
    this.valSeen = h.valSteps.length;
    this.host.dataset.valPoints = String(this.val.filter((v) => v != null).length);
    this.schedule(replaced);
  }

  /** Redraws at most about 5 times a second (data arrive every slice). */
  private schedule(now = false): void {
    this.dirty = true;
    const wait = now ? 0 : Math.max(0, 200 - (performance.now() - this.lastDraw));
    setTimeout(() => requestAnimationFrame(() => {
      if (!this.dirty || !this.u) return;
      this.dirty = false;
      this.lastDraw = performance.now();
      this.u.setData(this.data());
      // the cursor is off the chart: the legend shows the latest values, not "—"
      if (this.u.cursor.idx == null) this.u.setLegend({ idx: null as unknown as number });
    }), wait);
  }
}
