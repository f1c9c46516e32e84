// history.ts — the loss curves of the current model as the page keeps them: the chart's bounded
// columns (columns.ts), the last RECENT steps' train loss and moving average, and the validation
// losses at the steps where they were measured (with the translator's held-out exact match and
// character error rate). Append-only, so it is mutated in place and the store's `historyRev`
// announces growth; a new model gets a new LossHistory.
//
// The page keeps no per-step series of the whole run: the core has it (the run's History, saved in
// every checkpoint), and the chart draws at most MAX_COLUMNS columns. So the page's memory stays flat
// however long the run (bench/soak.mjs: 8 bytes a step grew the page's heap 6.6% in 30 minutes).
// The recent steps are kept for what needs a step's exact value: the train loss beside an
// evaluation that arrives after its step, and the curve a NaN-guard rollback goes back to.
import { ChartColumns, MAX_COLUMNS } from './columns';

const EMA = 0.9;   // about the last 10 steps
export const RECENT = 4096;

/** The last `capacity` values of an append-only series: at(i) for i in [start, length). Float64: the
 * moving average a rollback goes on from is exactly the one it had (64 kB for both series). */
export class Recent {
  private readonly values: Float64Array;
  length = 0;   // values pushed so far (all of the series, not only those held)

  constructor(readonly capacity = RECENT) {
    this.values = new Float64Array(capacity);
  }

  /** The first index still held. */
  get start(): number {
    return Math.max(0, this.length - this.capacity);
  }

  push(v: number): void {
    this.values[this.length % this.capacity] = v;
    this.length++;
  }

  has(i: number): boolean {
    return i >= this.start && i < this.length;
  }

  at(i: number): number {
    if (!this.has(i)) throw new RangeError(`value ${i} is not held (held: ${this.start} to ${this.length - 1})`);
    return this.values[i % this.capacity];
  }

  /** Values [begin, end) as a plain array (end defaults to the length); begin must still be held. */
  slice(begin = 0, end = this.length): number[] {
    const out: number[] = [];
    for (let i = begin; i < Math.min(end, this.length); i++) out.push(this.at(i));
    return out;
  }

  last(): number | null {
    return this.length ? this.at(this.length - 1) : null;
  }

  /** A copy holding the first `n` values' tail (a rollback to value n - 1). */
  truncated(n: number): Recent {
    const r = new Recent(this.capacity);
    const end = Math.min(n, this.length);
    const from = Math.min(end, Math.max(this.start, end - this.capacity));   // none held: from = end
    r.length = from;
    for (let i = from; i < end; i++) r.push(this.at(i));
    return r;
  }
}

export class LossHistory {
  /** train.at(i), ema.at(i): step first + i (steps start at 1), the last RECENT steps. */
  train: Recent;
  ema: Recent;
  /** What the chart draws: at most maxColumns columns. */
  columns: ChartColumns;
  first = 1;
  readonly valSteps: number[] = [];
  readonly valLosses: number[] = [];
  readonly valExactMatch: number[] = [];  // seq2seq: held-out exact match in [0, 1] (NaN for gpt)
  readonly valCer: number[] = [];         // seq2seq: character error rate
  private emaState = 0;
  private emaCount = 0;

  constructor(readonly maxColumns = MAX_COLUMNS, readonly recent = RECENT) {
    this.train = new Recent(recent);
    this.ema = new Recent(recent);
    this.columns = new ChartColumns(maxColumns);
  }

  /** Losses of steps `first`, first+1, ... */
  appendTrain(first: number, losses: ArrayLike<number>): void {
    if (this.train.length === 0) this.first = first;
    for (let i = 0; i < losses.length; i++) {
      const l = Math.fround(losses[i]);   // float32, as the core's losses
      this.emaState = EMA * this.emaState + (1 - EMA) * l;
      this.emaCount++;
      const ema = this.emaState / (1 - Math.pow(EMA, this.emaCount));
      this.train.push(l);
      this.ema.push(ema);
      this.columns.addTrain(this.lastStep, l, ema);
    }
  }

  /** An evaluation; a second one at the same step replaces the first, as in the core's history (Trainer::evaluate). */
  addVal(step: number, loss: number, exactMatch = NaN, cer = NaN): void {
    const n = this.valSteps.length;
    if (n > 0 && this.valSteps[n - 1] === step) {
      this.valLosses[n - 1] = loss;
      this.valExactMatch[n - 1] = exactMatch;
      this.valCer[n - 1] = cer;
    } else {
      this.valSteps.push(step);
      this.valLosses.push(loss);
      this.valExactMatch.push(exactMatch);
      this.valCer.push(cer);
    }
    // the train loss at an evaluated step is drawn too (no gap in its line), when it is still held
    const k = step - this.first;
    const held = this.train.has(k);
    this.columns.addVal(step, loss, exactMatch, cer, held ? this.train.at(k) : null, held ? this.ema.at(k) : null);
  }

  /** The smoothed train loss at the last step. */
  smoothed(): number | null {
    return this.emaCount ? this.emaState / (1 - Math.pow(EMA, this.emaCount)) : null;
  }

  /**
   * A new history with the steps after `step` dropped (the NaN guard rolled the run back to it).
   * The moving average goes on from its value at `step`: exact when the step is among the recent
   * ones (a rollback goes back to the last good state, a few hundred steps at most), else from the
   * nearest drawn column.
   */
  truncatedAt(step: number): LossHistory {
    const h = new LossHistory(this.maxColumns, this.recent);
    const keep = Math.max(0, Math.min(this.train.length, step - this.first + 1));
    h.first = this.first;
    h.train = this.train.truncated(keep);
    h.ema = this.ema.truncated(keep);
    h.columns = this.columns.truncatedAt(keep ? this.first + keep - 1 : 0);
    h.emaCount = keep;
    const ema = keep === 0 ? 0 : this.ema.has(keep - 1) ? this.ema.at(keep - 1) : h.columns.lastEma() ?? 0;
    h.emaState = ema * (1 - Math.pow(EMA, keep));   // undoes smoothed()'s bias correction
    for (let i = 0; i < this.valSteps.length; i++) {
      if (this.valSteps[i] > step) break;
      h.valSteps.push(this.valSteps[i]);
      h.valLosses.push(this.valLosses[i]);
      h.valExactMatch.push(this.valExactMatch[i]);
      h.valCer.push(this.valCer[i]);
    }
    return h;
  }

  get lastStep(): number {
    return this.train.length ? this.first + this.train.length - 1 : 0;
  }
}
