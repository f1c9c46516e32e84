// train — start, pause, resume, reset; the run's progress (step, losses, tokens/s, learning rate,
// ETA), its curves, and what the core's NaN guard did. The core's run loop decides everything
// (run.h); the page shows it.
import { map, type MapStore, patch, type View, view, watch } from '../../app/store';
import { t } from '../../i18n';
import type { Coded } from '../../lib/coded';
import { formatCount } from '../../lib/format';
import type { Port } from '../../lib/wire';
import { coreInline, h, notify } from '../../ui';
import type { Data } from '../data';
import type { Runtime } from '../runtime';
import type { History, Session } from '../session';
import type { Settings } from '../settings';
import type { Baselines } from '../watch/messages';
import { canStart, pageMode, STALL_MS, stalledFor, type StartState } from './derive';
import { applyGuard, divergedStep, divergedWhy, initialGuard } from './guard';
import { LossHistory } from './history';
import type { EvalResult, Progress, RunState, TrainCalls, TrainEvents } from './messages';
import { GuardNotice } from './guard-notice';
import { TrainPanel } from './panel';
import { bindRunBar } from './run-bar';
import { idleTrain, type TrainSlice } from './state';

export { canStart, etaMs, pageMode, startBlockedReason, startDisabled, startLabel, STALL_MS, stalledFor, statusLine, totalSteps } from './derive';
export type { TrainSlice };

export interface Train {
  readonly $: MapStore<TrainSlice>;
  /** Start (creating the model first), pause, resume, or train more. */
  startPause(): void;
  reset(): void;
  evaluate(): void;
  /** Test hook (?test-hooks): the next `steps` steps get a NaN gradient. */
  injectNan(steps: number): void;
  /** Test hook (?test-hooks): how long a run may go without progress before the page says it is stuck. */
  setStallMs(ms: number): void;
  /** Keyboard focus on Start if it can be pressed now (true), else nothing (false). */
  focusStart(): boolean;
  /**
   * After a choice made with the keyboard (a text, a preset): the focus moves on to Start as soon
   * as it can be pressed (within START_FOCUS_WAIT_MS), unless the person moved it meanwhile.
   */
  focusStartSoon(): void;
  /** The panel (with the chart's baselines from features/watch, when it has them), the run bar. */
  mount(slot: HTMLElement, runBar: HTMLElement, baselines: MapStore<{ baselines: Baselines | null }>): TrainPanel;
}

/** Says a stall (with a reload, which goes on from the last save) while it lasts; gone when progress comes. */
function watchStalls($: MapStore<TrainSlice>): (ms: number) => void {
  let stallMs = STALL_MS;
  let notice: HTMLElement | null = null;
  const setStallMs = (ms: number): void => void (stallMs = ms);
  if (typeof window === 'undefined') return setStallMs;
  setInterval(() => {
    const quiet = stalledFor($.get(), performance.now(), stallMs);
    if (quiet !== null && !notice?.isConnected) {
      const reload = h('button', { type: 'button', id: 'btn-stalled-reload' }, t().run.reload);
      reload.addEventListener('click', () => location.reload());
      notice = notify(h('span', {}, t().run.stalled(Math.round(quiet / 1000)), reload), 'error', { id: 'run-stalled' });
    } else if (quiet === null && notice) {
      notice.remove();
      notice = null;
    }
  }, 1000);
  return setStallMs;
}

/** How long a keyboard choice waits for Start to become pressable (the data being taken) before it gives up. */
const START_FOCUS_WAIT_MS = 15_000;

/** Focus on Start now or, once it can be pressed, later (unless the person moved the focus meanwhile, or it took too long). */
function focusWhenPressable(stores: View<StartState>, focus: () => boolean): void {
  if (typeof document === 'undefined' || focus()) return;
  const from = document.activeElement;
  let off = () => undefined as void;
  const timer = setTimeout(() => off(), START_FOCUS_WAIT_MS);
  off = stores.listen(['ready', 'corpus', 'settings', 'verdict', 'model', 'creating', 'loading', 'running'], () => {
    const moved = document.activeElement !== from && document.activeElement !== document.body;
    if (moved || focus()) {
      clearTimeout(timer);
      off();
    }
  });
}

/** A model's curves and latest values (at `step`). */
function historyState(h: History, step: number, rev: number): Partial<TrainSlice> {
  const history = new LossHistory();
  if (h.train.length) history.appendTrain(1, h.train);
  for (let i = 0; i < h.valSteps.length; i++) history.addVal(h.valSteps[i], h.valLosses[i], h.valExactMatch?.[i], h.valCer?.[i]);
  const last = h.valSteps.length - 1;
  // a translator's held-out exact match and CER (NaN, or absent, for a language model)
  const metric = (m: ArrayLike<number> | undefined) => (last >= 0 && m && Number.isFinite(m[last]) ? m[last] : null);
  return {
    step, history, historyRev: rev + 1,
    lastLoss: h.train.length ? h.train[h.train.length - 1] : null,
    valLoss: last >= 0 ? h.valLosses[last] : null,
    valStep: last >= 0 ? h.valSteps[last] : null,
    valExactMatch: metric(h.valExactMatch), valCer: metric(h.valCer),
  };
}

/** The core's NaN guard undid steps (the history drops them) or paused the run: say what, where and why. */
function onGuard($: MapStore<TrainSlice>, m: Progress): void {
  const s = $.get();
  // a pause that is not the guard's: the data could not be read (a file that changed or went away)
  if (m.paused && m.paused.code !== 'train.paused') {
    const why = m.paused;
    notify(() => h('span', {}, t().run.dataPaused, coreInline(why.message, why)), 'error', { id: 'data-pause', timeout: 0 });
    m = { ...m, paused: null };
  }
  const g = applyGuard(s.history, s.guard, m);
  if (!g) return;
  const hist = g.history;
  const n = hist.valSteps.length;
  patch($, { ...g, valLoss: n ? hist.valLosses[n - 1] : null, valStep: n ? hist.valSteps[n - 1] : null });
  const r = m.rollbacks[m.rollbacks.length - 1];
  if (m.paused) notify(t().run.guardPaused, 'error', { id: 'nan-guard' });
  else if (r) notify(t().run.guardRollback(divergedStep(r), divergedWhy(r), r.restoredStep, r.lrScale), 'warning', { id: 'nan-guard', timeout: 15000 });
}

function onProgress($: MapStore<TrainSlice>, m: Progress): void {
  onGuard($, m);
  const s = $.get();
  const k = m.losses.length;
  if (k) s.history.appendTrain(m.step - k + 1, m.losses);
  const now = performance.now();
  patch($, {
    step: m.step, historyRev: s.historyRev + 1, lastLoss: k ? m.losses[k - 1] : s.history.train.last(),
    tokensPerSec: s.tokensPerSec > 0 ? 0.8 * s.tokensPerSec + 0.2 * m.tokensPerSec : m.tokensPerSec,
    lr: m.lr, gradNorm: m.gradNorm, memoryBytes: m.memoryBytes, lastTick: now, elapsedMs: s.elapsedMs + (now - s.lastTick),
    etaMs: m.etaSeconds >= 0 ? m.etaSeconds * 1000 : null,   // the core's run loop estimates it
    ...(m.pool ? { pool: m.pool } : {}),
    timing: s.timing.firstStepMs ? s.timing : { ...s.timing, firstStepMs: now },
  });
}

function onEval($: MapStore<TrainSlice>, m: EvalResult): void {
  const s = $.get();
  s.history.addVal(m.step, m.loss, m.exactMatch, m.cer);
  patch($, { valLoss: m.loss, valStep: m.step, historyRev: s.historyRev + 1, valExactMatch: m.exactMatch ?? null, valCer: m.cer ?? null });
  if (m.snapshotMs) patch($, { timing: { ...s.timing, snapshotMs: s.timing.snapshotMs + m.snapshotMs } });
}

function onState($: MapStore<TrainSlice>, m: RunState): void {
  if (m.running) patch($, { running: true, finished: false, lastTick: performance.now(), guard: { ...$.get().guard, paused: null } });
  else {
    patch($, { running: false, finished: m.reason === 'finished' });
    if (m.reason === 'finished') notify(t().run.finished(formatCount(m.step)), 'success');
  }
}

/** With a model only the schema's `run` fields change: the core's run loop takes them at its next slice. */
function followRunFields(port: Port<TrainCalls, TrainEvents>, settings: Settings, session: Session): void {
  watch(settings.$, ['settings'], ({ settings: form, schema }) => {
    const model = session.$.get().model;
    if (!model || !form) return;
    for (const f of schema.filter((x) => x.group === 'run')) {
      const name = f.name as 'eval_interval' | 'eval_iters';
      const v = form[name];
      if (v !== model.config[name] && Number.isInteger(v) && v >= f.min && v <= f.max) {
        port.send('update', { name, value: v });
        session.setRunField(name, v);
      }
    }
  });
}

export interface TrainDeps { runtime: Runtime; settings: Settings; data: Data; session: Session; keepHistory: boolean; poolStats?: boolean }

export function createTrain(port: Port<TrainCalls, TrainEvents>, deps: TrainDeps): Train {
  const { runtime, settings, data, session } = deps;
  const $ = map<TrainSlice>({ ...idleTrain(), historyRev: 0, pendingStart: false, lossUnit: 'nats', timing: { readyMs: 0, firstStepMs: 0, moduleLoadMs: 0, snapshotMs: 0 } });
  port.on('state', (m) => onState($, m));
  port.on('progress', (m) => void (session.$.get().model && onProgress($, m)));
  port.on('evalResult', (m) => onEval($, m));
  port.on('history', (m) => patch($, historyState(m.history, m.step, $.get().historyRev)));   // the run went back to its last good state
  port.onFailure('start', (e: Coded) => notify(() => coreInline(e.message.charAt(0).toUpperCase() + e.message.slice(1), e), 'error'));
  watch(runtime.$, ['ready'], ({ ready }) => {
    if (ready) patch($, { timing: { ...$.get().timing, readyMs: performance.now(), moduleLoadMs: ready.loadMs } });
  });

  const sendStart = () => {
    const model = session.$.get().model;
    if (!model) return;
    const steps = model.config.max_iters;
    port.send('start', { stopAt: $.get().step < steps ? steps : -1, ...(deps.poolStats ? { poolStats: true } : {}) });
  };
  // a new model: its curves, its time so far; Start waiting for it goes on
  watch(session.$, ['lastModel'], ({ lastModel }) => {
    if (!lastModel) return;
    const m = lastModel.info;
    const s = $.get();
    patch($, {
      ...idleTrain(), ...historyState(m.history, m.step, s.historyRev), guard: initialGuard(), memoryBytes: m.memoryBytes,
      finished: m.step >= m.config.max_iters, elapsedMs: lastModel.elapsedMs,
    });
    if ($.get().pendingStart) {
      patch($, { pendingStart: false });
      sendStart();
    }
  });
  let hadModel = false;
  watch(session.$, ['model'], ({ model }) => {
    if (!model && hadModel) patch($, { ...idleTrain(), historyRev: $.get().historyRev + 1 });   // reset: nothing trained
    hadModel = !!model;
  });
  watch(session.$, ['creating'], ({ creating, model }) => {
    if (!creating && !model) patch($, { pendingStart: false });   // the core refused the settings
  });
  followRunFields(port, settings, session);
  const setStallMs = watchStalls($);
  watch($, ['running'], (s) => void (typeof document !== 'undefined' && (document.body.dataset.state = pageMode({ ...s, ...session.$.get() }))));
  watch(session.$, ['model'], (s) => void (typeof document !== 'undefined' && (document.body.dataset.state = pageMode({ ...$.get(), ...s }))));

  const startState = () => ({ ...runtime.$.get(), ...data.$.get(), ...settings.$.get(), ...session.$.get(), ...$.get() });
  let panel: TrainPanel | null = null;
  const api: Train = {
    $,
    startPause() {
      const s = startState();
      if (s.creating || s.loading || (!s.running && !canStart(s))) return;   // the button says why (aria-disabled, title)
      if (s.running) return port.send('pause', {});
      if (s.model) return sendStart();
      if (!s.settings || !s.corpus) return;
      patch($, { pendingStart: true });
      void session.create(s.settings, deps.keepHistory);
    },
    reset: () => void session.reset(),
    evaluate: () => port.send('evaluate', {}),
    injectNan: (steps) => port.send('injectNan', { steps }),
    setStallMs,
    focusStart: () => panel?.focusStart() ?? false,
    focusStartSoon: () => focusWhenPressable(view(runtime.$, data.$, settings.$, session.$, $), () => api.focusStart()),
    mount(slot, runBar, baselines) {
      panel = new TrainPanel({ train: $, runtime: runtime.$, data: data.$, settings: settings.$, session: session.$, baselines }, {
        onStartPause: () => api.startPause(), onReset: () => api.reset(), onEvaluate: () => api.evaluate(), onUnit: (lossUnit) => patch($, { lossUnit }),
      });
      panel.el.querySelector('.progress-row')!.before(new GuardNotice($).el);
      slot.append(panel.el);
      bindRunBar(runBar, { train: $, runtime: runtime.$, data: data.$, settings: settings.$, session: session.$ }, () => api.startPause());
      return panel;
    },
  };
  return api;
}
