// columns.ts — the loss chart's data (chart.ts), bounded: one column per drawn step, at most
// MAX_COLUMNS of them however long the run. Every step is drawn until there are more; then every
// second one (the stride doubles), then every fourth, ... The steps with an evaluation are always
// kept (their train loss too, so that the train line has no gap there). A chart is a few hundred
// pixels wide (at most about 2,000 device pixels): 1,024 to 2,048 columns draw the same curves, and the
// page's memory stays flat over a long run (bench/soak.mjs: a column per step grew the page's heap by
// 40% in 30 minutes of config S; 4,096 columns, about 330 KB of boxed numbers, still 7% of it).
// The history (history.ts) feeds it as steps come: it holds no per-step series of its own. Pure
// data, no DOM (web/test/columns.test.ts).

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
  /** Bumped by every change: the chart redraws when it moved. */
  revision = 0;

  constructor(readonly max = MAX_COLUMNS) {}

  /** A train step's loss and moving average: drawn when the step is a multiple of the stride. */
  addTrain(step: number, train: number, ema: number): void {
    if (step % this.stride !== 0) return;
    const j = this.at(step);
    this.train[j] = train;
    this.ema[j] = ema;
    this.revision++;
    if (this.x.length > this.max) this.thin();
  }

  /** An evaluation (a second one at a step replaces the first), with that step's train values when known. */
  addVal(step: number, val: number, exactMatch: number, cer: number, train: number | null, ema: number | null): void {
    const pct = (v: number) => (Number.isFinite(v) ? v * 100 : null);
    const j = this.at(step);
    this.val[j] = val;
    this.exact[j] = pct(exactMatch);
    this.cer[j] = pct(cer);
    if (train !== null) this.train[j] = train;
    if (ema !== null) this.ema[j] = ema;
    this.revision++;
    if (this.x.length > this.max) this.thin();
  }

  /** A copy without the columns after `step` (a rollback to it). */
  truncatedAt(step: number): ChartColumns {
    const c = new ChartColumns(this.max);
    let n = this.x.length;
    while (n > 1 && this.x[n - 1] > step) n--;
    c.setColumns(this, (a) => a.slice(0, n));
    c.stride = this.stride;
    return c;
  }

  /** Every per-column array of `from` through `f` (the same columns of each), into this (f may return its argument). */
  private setColumns(from: ChartColumns, f: <T>(a: T[]) => T[]): void {
    this.x = f(from.x);
    this.train = f(from.train);
    this.ema = f(from.ema);
    this.val = f(from.val);
    this.exact = f(from.exact);
    this.cer = f(from.cer);
  }

  /** The moving average of the last column that has one. */
  lastEma(): number | null {
    for (let j = this.ema.length - 1; j > 0; j--) if (this.ema[j] != null) return this.ema[j];
    return null;
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
    // in place: the same arrays stay in the fields and in the chart. With new ones (map()), a soak
    // traced with --trace-deopt saw V8 drop the compiled code of the drawing functions, uPlot's and
    // ours, for a "wrong map" at a thinning, and compile it again (bench/page-harness.mjs)
    this.setColumns(this, (a) => {
      for (let k = 0; k < keep.length; k++) a[k] = a[keep[k]];
      a.length = keep.length;
      return a;
    });
  }

  /** The step of column `idx` (the cursor's), or Infinity for none (the cursor is off the chart). */
  stepAt(idx: number | null): number {
    return idx == null ? Infinity : this.x[idx] ?? Infinity;
  }
}
