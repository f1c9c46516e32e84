// history.ts — the loss curves of the current model: train loss per step, its moving average,
// and the validation losses at the steps where they were measured (with the translator's
// held-out exact match and character error rate). Append-only (tens of
// thousands of points), so it is mutated in place and the store's `historyRev` announces growth;
// a new model gets a new LossHistory.
//
// The per-step series are float32 in chunks (Floats): the core's losses are float32 already, a
// chunk is the only spare room (no doubling array kept at twice its length), and a long run's
// curves cost 8 bytes a step, not a JS array's 16 to 24 (bench/soak.mjs: the page's heap over 30
// minutes of training).

const EMA = 0.9;   // about the last 10 steps
const CHUNK = 4096;

/** An append-only float32 series in fixed chunks: at(i), length, slice. */
export class Floats {
  private chunks: Float32Array[] = [];
  length = 0;

  push(v: number): void {
    const k = this.length % CHUNK;
    if (k === 0) this.chunks.push(new Float32Array(CHUNK));
    this.chunks[this.chunks.length - 1][k] = v;
    this.length++;
  }

  at(i: number): number {
    return this.chunks[Math.floor(i / CHUNK)][i % CHUNK];
  }

  /** Values [begin, end) as a plain array (end defaults to the length). */
  slice(begin = 0, end = this.length): number[] {
    const out: number[] = [];
    for (let i = Math.max(0, begin); i < Math.min(end, this.length); i++) out.push(this.at(i));
    return out;
  }

  last(): number | null {
    return this.length ? this.at(this.length - 1) : null;
  }
}

export class LossHistory {
  /** train.at(i), ema.at(i): step first + i (steps start at 1). */
  readonly train = new Floats();
  readonly ema = new Floats();
  first = 1;
  readonly valSteps: number[] = [];
  readonly valLosses: number[] = [];
  readonly valExactMatch: number[] = [];  // seq2seq: held-out exact match in [0, 1] (NaN for gpt)
  readonly valCer: number[] = [];         // seq2seq: character error rate
  private emaState = 0;
  private emaCount = 0;

  /** Losses of steps `first`, first+1, ... */
  appendTrain(first: number, losses: ArrayLike<number>): void {
    if (this.train.length === 0) this.first = first;
    for (let i = 0; i < losses.length; i++) {
      const l = Math.fround(losses[i]);   // as stored: truncatedAt recomputes the same average
      this.train.push(l);
      this.emaState = EMA * this.emaState + (1 - EMA) * l;
      this.emaCount++;
      this.ema.push(this.emaState / (1 - Math.pow(EMA, this.emaCount)));
    }
  }

  /** Bumped by every addVal (a second evaluation at one step changes values, not the length). */
  valRevision = 0;

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
    this.valRevision++;
  }

  /** The smoothed train loss at the last step. */
  smoothed(): number | null {
    return this.emaCount ? this.emaState / (1 - Math.pow(EMA, this.emaCount)) : null;
  }

  /** A new history with the steps after `step` dropped (the NaN guard rolled the run back to it). */
  truncatedAt(step: number): LossHistory {
    const h = new LossHistory();
    const keep = Math.max(0, Math.min(this.train.length, step - this.first + 1));
    if (keep > 0) h.appendTrain(this.first, this.train.slice(0, keep));
    for (let i = 0; i < this.valSteps.length; i++) if (this.valSteps[i] <= step) h.addVal(this.valSteps[i], this.valLosses[i]);
    return h;
  }

  get lastStep(): number {
    return this.train.length ? this.first + this.train.length - 1 : 0;
  }
}
