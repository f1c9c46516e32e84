// chart.ts — the loss curves (uPlot: 50 kB, canvas, fast enough to redraw tens of thousands of
// points several times a second). x is the step; train loss per step (faint), its moving
// average, and the validation loss at the steps where it was measured.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import { cssVar } from './dom';

const EMA = 0.9;   // about the last 10 steps

export class LossChart {
  private u: uPlot | null = null;
  private x: number[] = [0];
  private train: (number | null)[] = [null];
  private ema: (number | null)[] = [null];
  private val: (number | null)[] = [null];
  private emaState = 0;
  private emaCount = 0;
  private dirty = false;
  private lastDraw = 0;
  private observer: ResizeObserver;

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
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, font, label: 'loss (nats per byte)', labelFont: font, labelSize: 18, size: 48 },
      ],
      series: [
        { label: 'step' },
        { label: 'train', stroke: cssVar('--train-faint') || 'rgba(70,120,220,0.35)', width: 1, points: { show: false }, value: (_u, v) => (v == null ? '—' : v.toFixed(3)) },
        { label: 'train (avg)', stroke: cssVar('--train') || '#3a6fd8', width: 2, points: { show: false }, value: (_u, v) => (v == null ? '—' : v.toFixed(3)) },
        { label: 'validation', stroke: cssVar('--val') || '#e0662a', width: 2, spanGaps: true, points: { show: true, size: 6 }, value: (_u, v) => (v == null ? '—' : v.toFixed(3)) },
      ],
    };
    this.u = new uPlot(opts, this.data(), this.host);
  }

  private data(): uPlot.AlignedData {
    return [this.x, this.train, this.ema, this.val] as uPlot.AlignedData;
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

  clear(): void {
    this.x = [0];
    this.train = [null];
    this.ema = [null];
    this.val = [null];
    this.emaState = 0;
    this.emaCount = 0;
    this.schedule(true);
  }

  /** Losses of steps first, first+1, ... (step numbers start at 1). */
  appendTrain(first: number, losses: ArrayLike<number>): void {
    this.grow(first + losses.length - 1);
    for (let i = 0; i < losses.length; i++) {
      const l = losses[i];
      this.train[first + i] = l;
      this.emaState = EMA * this.emaState + (1 - EMA) * l;
      this.emaCount++;
      this.ema[first + i] = this.emaState / (1 - Math.pow(EMA, this.emaCount));
    }
    this.schedule();
  }

  addVal(step: number, loss: number): void {
    this.grow(step);
    this.val[step] = loss;
    this.schedule();
  }

  /** The smoothed train loss at the last step. */
  smoothed(): number | null {
    return this.emaCount ? this.emaState / (1 - Math.pow(EMA, this.emaCount)) : null;
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
    }), wait);
  }
}
