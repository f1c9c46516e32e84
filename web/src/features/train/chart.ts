// chart.ts — the loss curves (uPlot: 50 kB, canvas, fast enough to redraw tens of thousands of
// points several times a second). x is the step; train loss per step (faint), its moving
// average, and the validation loss at the steps where it was measured; at most MAX_COLUMNS (2,048) columns,
// a long run's train steps thinned out (columns.ts). For the translator, also
// the held-out exact match and character error rate of each evaluation, in percent on a second
// axis at the right. The data's entropy baselines (the core's, watch.h) as dashed reference
// lines; nats or bits per byte.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import { ChartColumns } from './columns';
import type { LossHistory } from './history';
import { t } from '../../i18n';
import type { Baselines } from '../watch/messages';
import { cssVar } from '../../ui';

const noColumns = new ChartColumns();

export class LossChart {
  private u: uPlot | null = null;
  private h: LossHistory | null = null;        // what is drawn (its columns: how much of it)
  private drawnRevision = -1;
  private metrics = false;                     // the translator's series are shown
  private dirty = false;
  private lastDraw = 0;
  private observer: ResizeObserver;
  private scale = 1;                         // 1: nats per token; tokens per byte / ln 2: bits per byte
  private perToken = false;                  // a BPE model: its nats are per token (a byte model's are per byte)
  private baselines: Baselines | null = null;

  constructor(private host: HTMLElement) {
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(host);
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.rebuild());
    this.rebuild();
  }

  /** The language changed: uPlot draws its labels from the options, so the chart is made again. */
  relabel(): void {
    this.rebuild();
    this.schedule(true);   // the legend shows the latest values again
  }

  private rebuild(): void {
    this.u?.destroy();
    const say = t().train.chart;
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
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, font, label: say.step, labelFont: font, labelSize: 18 },
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, font, label: this.scale === 1 ? (this.perToken ? say.lossNatsToken : say.lossNats) : say.lossBits, labelFont: font, labelSize: 18, size: 48 },
      ],
      series: [
        { label: say.step },
        { label: say.train, stroke: cssVar('--train-faint') || 'rgba(70,120,220,0.35)', width: 1, points: { show: false }, value: (_u, _v, _si, idx) => this.legend('train', idx) },
        { label: say.trainAvg, stroke: cssVar('--train') || '#3a6fd8', width: 2, points: { show: false }, value: (_u, _v, _si, idx) => this.legend('ema', idx) },
        // a marker at each evaluated step, lines only between them (nothing before the first)
        { label: say.validation, stroke: cssVar('--val') || '#e0662a', width: 2, spanGaps: true,
          points: { show: (u, si) => (u.data[si] as (number | null)[]).some((v) => v != null), size: 8, width: 2, fill: cssVar('--card') || '#fff' },
          value: (_u, _v, _si, idx) => this.legendVal(idx) },
      ],
    };
    if (this.metrics) {
      const pct = (label: string, color: string, values: () => number[], dash: number[] = []): uPlot.Series => ({
        label, scale: '%', stroke: color, width: 1.5, dash, spanGaps: true,
        points: { show: (u, si) => (u.data[si] as (number | null)[]).some((v) => v != null), size: 7, width: 2, fill: cssVar('--card') || '#fff' },
        value: (_u, _v, _si, idx) => this.legendMetric(values(), idx),
      });
      // exact match is 0-100%; a CER above 100% (more edits than reference characters, early on) widens it
      opts.scales!['%'] = { range: (_u, _min, max) => [0, Math.max(100, Math.ceil(max ?? 100))] };
      opts.axes!.push({ scale: '%', side: 1, stroke: axis, grid: { show: false }, ticks: { stroke: grid }, font, label: say.heldOut, labelFont: font,
        labelSize: 18, size: 58, values: (_u, ticks) => ticks.map((t) => `${t}%`) });
      opts.series.push(
        pct(say.exact, cssVar('--ok') || '#18733f', () => this.h?.valExactMatch ?? []),
        pct(say.cer, cssVar('--warn') || '#b45f06', () => this.h?.valCer ?? [], [4, 3]));
    }
    opts.hooks = { draw: [(u) => this.drawBaselines(u, axis)] };
    this.u = new uPlot(opts, this.data(), this.host);
  }

  /**
   * Loss in nats per token (scale 1) or bits per byte (x tokens per byte / ln 2: 1 / ln 2 for bytes,
   * where a token is a byte). Runs of different vocabularies compare in bits per byte.
   */
  setUnit(bits: boolean, tokensPerByte = 1): void {
    const perToken = tokensPerByte !== 1;
    const scale = bits ? (tokensPerByte > 0 ? tokensPerByte : 1) / Math.LN2 : 1;
    if (scale === this.scale && perToken === this.perToken) return;
    this.scale = scale;
    this.perToken = perToken;
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
    const say = t().train.chart;
    for (const [name, nats] of [[say.uniform, b.uniform], [say.unigram, b.unigram], [say.bigram, b.bigram]] as const) {
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


  /** Shows (or hides) the translator's exact match and CER series. */
  setMetrics(on: boolean): void {
    if (on === this.metrics) return;
    this.metrics = on;
    this.rebuild();
  }

  /** The last exact match or CER at or before the cursor, in percent. */
  private legendMetric(values: number[], idx: number | null): string {
    const steps = this.h?.valSteps ?? [];
    const at = this.cols.stepAt(idx);
    for (let i = steps.length - 1; i >= 0; i--) if (steps[i] <= at && Number.isFinite(values[i])) return `${(values[i] * 100).toFixed(1)}% @ ${steps[i]}`;
    return '—';
  }

  /** Live legend: the value at the cursor, or the latest step's when the cursor is off the chart (maybe not drawn: columns.ts). */
  private legend(series: 'train' | 'ema', idx: number | null): string {
    const h = this.h;
    const v = idx != null ? this.cols[series][idx] : h ? h[series].last() : null;
    return v == null ? '—' : (v * this.scale).toFixed(3);
  }

  /** Validation is measured now and then: the legend shows the last measurement at or before the cursor. */
  private legendVal(idx: number | null): string {
    const steps = this.h?.valSteps ?? [];
    const losses = this.h?.valLosses ?? [];
    const at = this.cols.stepAt(idx);
    for (let i = steps.length - 1; i >= 0; i--) if (steps[i] <= at) return `${(losses[i] * this.scale).toFixed(3)} @ ${steps[i]}`;
    return '—';
  }

  private data(): uPlot.AlignedData {
    const k = this.scale;
    const f = (a: (number | null)[]) => (k === 1 ? a : a.map((v) => (v == null ? v : v * k)));
    const c = this.cols;
    const loss = [c.x, f(c.train), f(c.ema), f(c.val)];
    return (this.metrics ? [...loss, c.exact, c.cer] : loss) as uPlot.AlignedData;
  }

  private resize(): void {
    if (!this.u) return;
    const w = Math.max(280, this.host.clientWidth);
    if (Math.abs(w - this.u.width) > 1) this.u.setSize({ width: w, height: 260 });
  }

  /** Draws a history: what was added since the last call, or all of it if it is another one. */
  sync(h: LossHistory): void {
    const replaced = h !== this.h;
    if (!replaced && h.columns.revision === this.drawnRevision) return;
    this.h = h;
    this.drawnRevision = h.columns.revision;
    this.host.dataset.valPoints = String(this.cols.val.filter((v) => v != null).length);
    this.schedule(replaced);
  }

  private get cols(): ChartColumns {
    return this.h?.columns ?? noColumns;
  }

  /** Redraws at most about 5 times a second (data arrive every slice). */
  private schedule(now = false): void {
    this.dirty = true;
    const wait = now ? 0 : Math.max(0, 200 - (performance.now() - this.lastDraw));
    const draw = () => {
      if (!this.dirty || !this.u) return;
      this.dirty = false;
      this.lastDraw = performance.now();
      this.u.setData(this.data());
      // the cursor is off the chart: the legend shows the latest values, not "—"
      if (this.u.cursor.idx == null) this.u.setLegend({ idx: null as unknown as number });
    };
    // no wait: the frame the event's other changes go to (the numbers'), not one of its own
    if (wait === 0) requestAnimationFrame(draw);
    else setTimeout(() => requestAnimationFrame(draw), wait);
  }
}
