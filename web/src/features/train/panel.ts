// panel.ts (train) — start / pause / resume / reset, live numbers, the progress bar and the chart.
import { type MapStore, type View, view, watch } from '../../app/store';
import { type Locale, type Messages, t, tr } from '../../i18n';
import { formatCount, formatDuration, formatLoss, formatLr, formatPercent, formatRate } from '../../lib/format';
import { h, panelHeader, setText, throttle } from '../../ui';
import type { DataSlice } from '../data';
import type { RuntimeSlice } from '../runtime';
import { isBusy, type SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import type { Baselines } from '../watch/messages';
import { LossChart } from './chart';
import { canStart, etaMs, startBlockedReason, startDisabled, startLabel, statusLine, totalSteps } from './derive';
import type { TrainSlice } from './state';

/** The stores the Train panel shows. */
export interface TrainStores {
  train: MapStore<TrainSlice>;
  runtime: MapStore<RuntimeSlice>;
  data: MapStore<DataSlice>;
  settings: MapStore<SettingsSlice>;
  session: MapStore<SessionSlice>;
}
type S = TrainSlice & RuntimeSlice & DataSlice & SettingsSlice & SessionSlice & { baselines: Baselines | null; locale: Locale };

/** The first evaluation at or under each baseline ("beats a bigram model at step 340"), null if not yet. */
export interface Crossing { name: 'uniform' | 'unigram' | 'bigram'; level: number; step: number | null }

export function crossings(b: Baselines, valSteps: readonly number[], valLosses: readonly number[]): Crossing[] {
  return (['uniform', 'unigram', 'bigram'] as const).map((name) => {
    const level = b[name];
    const i = valLosses.findIndex((l) => l <= level);
    return { name, level, step: i < 0 ? null : valSteps[i] };
  });
}

export interface TrainHandlers {
  onStartPause(): void;
  onReset(): void;
  onEvaluate(): void;
  onUnit(unit: 'nats' | 'bits'): void;
}

export interface TrainView {
  step: number;
  steps: number;              // length of the schedule
  lastLoss: number | null;
  smoothLoss: number | null;
  valLoss: number | null;
  valStep: number | null;
  tokensPerSec: number;
  lr: number | null;
  gradNorm: number | null;
  elapsedMs: number;
  etaMs: number | null;
  memoryBytes: number | null;
  valExactMatch: number | null;   // the translator's held-out exact match and CER (last evaluation)
  valCer: number | null;
}

export class TrainPanel {
  readonly el: HTMLElement;
  readonly chart: LossChart;
  private startBtn: HTMLButtonElement;
  private resetBtn: HTMLButtonElement;
  private evalBtn: HTMLButtonElement;
  private status: HTMLElement;
  private progress: HTMLProgressElement;
  private progressLabel: HTMLElement;
  private fields: Record<string, HTMLElement> = {};
  private crossingsEl: HTMLElement;
  private metricStats: HTMLElement[] = [];
  private explain: HTMLElement;

  private store: View<S>;

  constructor(stores: TrainStores & { baselines: MapStore<{ baselines: Baselines | null }> }, h_: TrainHandlers) {
    this.store = view(stores.train, stores.runtime, stores.data, stores.settings, stores.session, stores.baselines);
    const store = this.store;
    this.startBtn = h('button', { id: 'btn-start', type: 'button', class: 'primary big' }, tr((m) => m.train.start));
    this.resetBtn = h('button', { id: 'btn-reset', type: 'button' }, tr((m) => m.train.reset));
    this.evalBtn = h('button', { id: 'btn-evaluate', type: 'button', title: tr((m) => m.train.validateNowTitle) }, tr((m) => m.train.validateNow));
    this.startBtn.addEventListener('click', () => h_.onStartPause());
    this.resetBtn.addEventListener('click', () => h_.onReset());
    this.evalBtn.addEventListener('click', () => h_.onEvaluate());
    this.status = h('p', { id: 'train-status', class: 'status', role: 'status' }, tr((m) => m.train.status.noText));
    this.progress = h('progress', { id: 'train-progress', max: 1, value: 0, 'aria-label': tr((m) => m.train.progressLabel) }) as HTMLProgressElement;
    this.progressLabel = h('span', { class: 'progress-label' }, '');
    const chartHost = h('div', { id: 'loss-chart', class: 'chart', role: 'img' });
    const header = panelHeader(3, tr((m) => m.train.title), '');
    this.explain = header.querySelector('.explain')!;
    const unit = h('select', { id: 'loss-unit', 'aria-label': tr((m) => m.train.unitLabel) },
      h('option', { value: 'nats' }, tr((m) => m.train.natsPerByte)), h('option', { value: 'bits' }, tr((m) => m.train.bitsPerByte))) as HTMLSelectElement;
    unit.addEventListener('change', () => h_.onUnit(unit.value as 'nats' | 'bits'));
    this.crossingsEl = h('p', { id: 'baseline-crossings', class: 'muted small', 'aria-live': 'polite' }, '');
    const baselineNote = h('p', { class: 'explain small' }, tr((m) => m.train.baselineNote));
    this.el = h('section', { id: 'train', class: 'card wide', 'aria-labelledby': 'train-title' },
      header,
      h('div', { class: 'row controls' }, this.startBtn, this.resetBtn, this.evalBtn, this.status),
      h('div', { class: 'progress-row' }, this.progress, this.progressLabel),
      this.stats(),
      h('div', { class: 'row chart-options' }, h('label', { for: 'loss-unit' }, tr((m) => m.train.lossIn)), unit, this.crossingsEl),
      chartHost, baselineNote);
    this.el.querySelector('h2')!.id = 'train-title';
    this.chart = new LossChart(chartHost);
    watch(store, ['lossUnit', 'model', 'locale'], (st) => {
      unit.value = st.lossUnit;
      const tpb = st.model?.tokensPerByte ?? 1;
      this.chart.setUnit(st.lossUnit === 'bits', tpb);
      // a BPE model's nats are per token: the choice says so
      (unit.options[0] as HTMLOptionElement).textContent = tpb !== 1 ? t().train.natsPerToken : t().train.natsPerByte;
      this.drawCrossings(st);
    });
    watch(store, ['baselines', 'valStep', 'historyRev'], (st) => {
      this.chart.setBaselines(st.baselines);
      this.drawCrossings(st);
    });
    watch(store, ['mode', 'locale'], (st) => {
      const metrics = st.mode === 'seq2seq';
      const m = t().train;
      for (const el of this.metricStats) el.hidden = !metrics;
      setText(this.explain, m.explain[st.mode]);
      chartHost.setAttribute('aria-label', m.chartLabel[st.mode]);
      this.chart.setMetrics(metrics);
    });
    // the chart's legend and axes are drawn by uPlot from its options: made again in the new language
    watch(store, ['locale'], () => this.chart.relabel());
    watch(store, ['history', 'historyRev'], (st) => this.chart.sync(st.history));
    watch(store, ['ready', 'corpus', 'mode', 'model', 'settings', 'verdict', 'validateId', 'textSize', 'creating', 'loading', 'running', 'finished', 'locale'], (st) => {
      this.setControls(st);
      this.draw();
    });
    // a validation loss is rare and asked for (Validate now): shown at once
    watch(store, ['valLoss', 'valStep', 'valExactMatch', 'valCer'], () => this.draw());
    // Numbers change with every progress event (at most every 250 ms: train/progress.ts);
    // redrawing them more than 5 times a second would only cost painting, which is what the
    // page's main thread spends its time on while training (it shares the CPU). Under 250 ms, so
    // that the numbers of an event are drawn in the frame of its chart (train/chart.ts), not one
    // of their own.
    const drawSoon = throttle(() => this.draw(), 200);
    watch(store, ['step', 'lastLoss', 'tokensPerSec', 'lr', 'gradNorm', 'elapsedMs', 'memoryBytes'], drawSoon);
  }

  /** The numbers: step, losses, the translator's metrics (hidden for a language model), speed, time, lr, gradient norm. */
  private stats(): HTMLElement {
    type StatKey = keyof Messages['train']['stat'];
    const stat = (id: string, label: StatKey, title: StatKey) => {
      const dd = h('dd', { id }, '—');
      this.fields[id] = dd;
      return h('div', { class: 'stat', title: tr((m) => m.train.stat[title] as string) }, h('dt', {}, tr((m) => m.train.stat[label] as string)), dd);
    };
    const metric = (id: string, label: StatKey, title: StatKey) => {
      const el = stat(id, label, title);
      el.hidden = true;
      this.metricStats.push(el);
      return el;
    };
    return h('dl', { class: 'stats train-stats' },
      stat('stat-step', 'step', 'stepTitle'),
      stat('stat-loss', 'loss', 'lossTitle'),
      stat('stat-val', 'val', 'valTitle'),
      metric('stat-exact', 'exact', 'exactTitle'),
      metric('stat-cer', 'cer', 'cerTitle'),
      stat('stat-tps', 'tps', 'tpsTitle'),
      stat('stat-elapsed', 'elapsed', 'elapsedTitle'),
      stat('stat-eta', 'eta', 'etaTitle'),
      stat('stat-lr', 'lr', 'lrTitle'),
      stat('stat-grad', 'grad', 'gradTitle'));
  }

  /** "Beats a bigram model at step 340": the first evaluation at or below each baseline. */
  private drawCrossings(s: S): void {
    const b = s.baselines;
    if (!b) return setText(this.crossingsEl, '');
    const tpb = s.model?.tokensPerByte || 1;
    const k = s.lossUnit === 'bits' ? tpb / Math.LN2 : 1;
    const say = t().train.crossings;
    const unit = s.lossUnit === 'bits' ? say.bits : say.nats;
    const parts = crossings(b, s.history.valSteps, s.history.valLosses).map((c) =>
      c.step === null ? say.notYet(say.names[c.name], (c.level * k).toFixed(2), unit) : say.beats(say.names[c.name], (c.level * k).toFixed(2), formatCount(c.step)));
    setText(this.crossingsEl, say.line(parts.join(say.separator)));
  }

  /** Keyboard focus on Start (or Pause) if it can be pressed now. */
  focusStart(): boolean {
    if (this.startBtn.disabled) return false;
    this.startBtn.focus();
    return true;
  }

  private setControls(s: S): void {
    const hasModel = !!s.model;
    setText(this.startBtn, startLabel(s));
    this.startBtn.dataset.state = s.running ? 'running' : hasModel ? 'paused' : 'idle';
    // Busy (creating or loading a model) is aria-disabled, not disabled: a disabled button drops
    // the keyboard focus to the page, and Start pressed with Enter must keep it (it becomes Pause).
    this.startBtn.disabled = !s.running && !canStart(s) && !isBusy(s);
    this.startBtn.setAttribute('aria-disabled', String(startDisabled(s)));
    this.startBtn.title = startBlockedReason(s);
    this.resetBtn.disabled = !hasModel || isBusy(s);
    this.evalBtn.disabled = !hasModel || isBusy(s);
    this.el.classList.toggle('running', s.running);
  }

  private draw(): void {
    const s = this.store.get();
    this.update({
      step: s.step, steps: totalSteps(s), lastLoss: s.lastLoss, smoothLoss: s.history.smoothed(), valLoss: s.valLoss, valStep: s.valStep,
      tokensPerSec: s.tokensPerSec, lr: s.lr, gradNorm: s.gradNorm, elapsedMs: s.elapsedMs, etaMs: etaMs(s), memoryBytes: s.memoryBytes,
      valExactMatch: s.valExactMatch, valCer: s.valCer,
    });
    setText(this.status, statusLine(s));
  }

  private update(v: TrainView): void {
    const f = this.fields;
    setText(f['stat-step'], `${formatCount(v.step)} / ${formatCount(v.steps)}`, v.step);
    setText(f['stat-loss'], v.lastLoss === null ? '—' : formatLoss(v.smoothLoss ?? v.lastLoss), v.lastLoss ?? '');
    f['stat-loss'].dataset.smooth = v.smoothLoss === null ? '' : String(v.smoothLoss);
    const m = t().train.stat;
    f['stat-loss'].title = v.lastLoss === null ? '' : m.lossNow(formatLoss(v.lastLoss));
    if (v.valLoss === null) setText(f['stat-val'], '—', '');
    else {
      f['stat-val'].replaceChildren(formatLoss(v.valLoss), h('small', { title: m.valAt }, ` @ ${formatCount(v.valStep ?? 0)}`));
      f['stat-val'].dataset.value = String(v.valLoss);
    }
    setText(f['stat-exact'], formatPercent(v.valExactMatch), v.valExactMatch ?? '');
    setText(f['stat-cer'], formatPercent(v.valCer), v.valCer ?? '');
    setText(f['stat-tps'], formatRate(v.tokensPerSec), v.tokensPerSec ? Math.round(v.tokensPerSec) : '');
    setText(f['stat-elapsed'], formatDuration(v.elapsedMs), Math.round(v.elapsedMs));
    setText(f['stat-eta'], v.etaMs === null ? '—' : v.step >= v.steps ? m.done : formatDuration(v.etaMs));
    setText(f['stat-lr'], v.lr === null ? '—' : formatLr(v.lr));
    setText(f['stat-grad'], v.gradNorm === null ? '—' : v.gradNorm.toFixed(3));
    const frac = v.steps > 0 ? Math.min(1, v.step / v.steps) : 0;
    this.progress.value = frac;
    setText(this.progressLabel, `${(frac * 100).toFixed(frac < 0.1 ? 1 : 0)}%`);
  }
}
