// columns.ts — the loss chart's data (chart.ts), bounded: one column per drawn step, at most
// MAX_COLUMNS of them however long the run. Every step is drawn until there are more; then every
// second one (the stride doubles), then every fourth, ... The steps with an evaluation are always
// kept (their train loss too, so that the train line has no gap there). A chart is a few hundred
// pixels wide (at most about 2,000 device pixels): 1,024 to 2,048 columns draw the same curves, and the
// page's memory stays flat over a long run (bench/soak.mjs: a column per step grew the page's heap by
// 40% in 30 minutes of config S; 4,096 columns, about 330 KB of boxed numbers, still 7% of it).
// Pure data, no DOM (web/test/columns.test.ts).
import type { LossHistory } from './history';

export const MAX_COLUMNS = 2048;

export class ChartColumns {
  x: number[] = [0];                     // the step of each column, ascending
  train: (number | null)[] = [null];
  ema: (number | null)[] = [null];
  val: (number | null)[] = [null];
  exact: (number | null)[] = [null];     // seq2seq: held-out exact match, in percent
  cer: (number | null)[] = [null];       // seq2seq: character error rate, in percent
  /** Train steps drawn: those that are a multiple of it (and those with an evaluation). */
  stride = 1;
  private source: LossHistory | null = null;
  private trainSeen = 0;
  private valSeen = 0;
  private valRevision = 0;

  constructor(private readonly max = MAX_COLUMNS) {}

  /** What is drawn. */
  get history(): LossHistory | null {
    return this.source;
  }

  /**
   * Takes in what the history added since the last call, or all of it if it is another one.
   * 'same': nothing changed; 'grew': columns were added or changed; 'new': another history.
   */
  sync(h: LossHistory): 'same' | 'grew' | 'new' {
    const replaced = h !== this.source;
    if (replaced) {
      this.source = h;
      this.trainSeen = this.valSeen = this.valRevision = 0;
      this.stride = 1;
      this.x = [0];
      this.train = [null];
      this.ema = [null];
      this.val = [null];
      this.exact = [null];
      this.cer = [null];
    }
    if (this.trainSeen === h.train.length && this.valRevision === h.valRevision) return replaced ? 'new' : 'same';
    for (let i = this.trainSeen; i < h.train.length; i++) {
      const step = h.first + i;
      if (step % this.stride !== 0) continue;
      const j = this.at(step);
      this.train[j] = h.train.at(i);
      this.ema[j] = h.ema.at(i);
      if (this.x.length > this.max) this.thin();
    }
    // the last evaluation drawn may have been replaced (evaluated again at the same step)
    const pct = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v * 100 : null);
    for (let i = Math.max(0, this.valSeen - 1); i < h.valSteps.length; i++) {
      const step = h.valSteps[i];
      const j = this.at(step);
      this.val[j] = h.valLosses[i];
      this.exact[j] = pct(h.valExactMatch[i]);
      this.cer[j] = pct(h.valCer[i]);
      // the train loss at an evaluated step is drawn too: no gap in its line
      const k = step - h.first;
      if (k >= 0 && k < h.train.length) {
        this.train[j] = h.train.at(k);
        this.ema[j] = h.ema.at(k);
      }
      if (this.x.length > this.max) this.thin();
    }
    this.trainSeen = h.train.length;
    this.valSeen = h.valSteps.length;
    this.valRevision = h.valRevision;
    return replaced ? 'new' : 'grew';
  }

  /** The column of `step`, made if there is none (steps mostly come in order: it is the last). */
  private at(step: number): number {
    let j = this.x.length;
    while (j > 0 && this.x[j - 1] > step) j--;
    if (j > 0 && this.x[j - 1] === step) return j - 1;
    if (j === this.x.length) {
      this.x.push(step);
      this.train.push(null);
      this.ema.push(null);
      this.val.push(null);
      this.exact.push(null);
      this.cer.push(null);
    } else {
      this.x.splice(j, 0, step);
      this.train.splice(j, 0, null);
      this.ema.splice(j, 0, null);
      this.val.splice(j, 0, null);
      this.exact.splice(j, 0, null);
      this.cer.splice(j, 0, null);
    }
    return j;
  }

  /** Every second drawn train step goes (the stride doubles); step 0 and evaluated steps stay. */
  private thin(): void {
    const stride = this.stride * 2;
    const keep: number[] = [];
    for (let j = 0; j < this.x.length; j++)
      if (j === 0 || this.x[j] % stride === 0 || this.val[j] != null || this.exact[j] != null || this.cer[j] != null) keep.push(j);
    if (keep.length === this.x.length) return;   // only evaluations left to drop: they stay
    this.stride = stride;
    const pick = <T>(a: T[]) => keep.map((j) => a[j]);
    this.x = pick(this.x);
    this.train = pick(this.train);
    this.ema = pick(this.ema);
    this.val = pick(this.val);
    this.exact = pick(this.exact);
    this.cer = pick(this.cer);
  }

  /** The step of column `idx` (the cursor's), or Infinity for none (the cursor is off the chart). */
  stepAt(idx: number | null): number {
    return idx == null ? Infinity : this.x[idx] ?? Infinity;
  }
}
