// derive.ts (train) — values computed from the state, never stored: what Start does and whether
// it can, the status line, the ETA. Pure functions (unit-tested in web/test/run-state.test.ts).
// The sentences are worded in the page's language when called: their callers re-render when
// `locale` changes (they list it among the keys they watch).
import { t } from '../../i18n';
import { formatCount, formatDuration, formatParams, formatRate } from '../../lib/format';
import { type DataSlice, modeCorpus } from '../data';
import type { RuntimeSlice } from '../runtime';
import { isBusy, type SessionSlice } from '../session';
import { type SettingsSlice, settingsOk } from '../settings';
import type { TrainSlice } from './state';

/** What the Start button reads: the module, the data, the form and the model. */
export type StartState = Pick<RuntimeSlice, 'ready'> & Pick<DataSlice, 'corpus'>
  & Pick<SettingsSlice, 'mode' | 'settings' | 'verdict' | 'validateId' | 'textSize'> & Pick<SessionSlice, 'model' | 'creating' | 'loading'>
  & Pick<TrainSlice, 'running' | 'finished'>;

export function canStart(s: StartState): boolean {
  return !!s.ready && !!modeCorpus(s) && (s.model ? true : settingsOk(s));
}

/** The tooltip of a disabled Start ('' when it can start). */
export function startBlockedReason(s: StartState): string {
  const m = t().train.blocked;
  if (!s.ready) return m.loading;
  if (!modeCorpus(s)) return s.mode === 'seq2seq' ? m.noPairs : m.noText;
  if (!s.model && !settingsOk(s)) return m.settings;
  return '';
}

/** What Start does now. */
export type StartAction = 'pause' | 'start' | 'trainMore' | 'resume';

export function startAction(s: Pick<StartState, 'running' | 'model' | 'finished'>): StartAction {
  return s.running ? 'pause' : !s.model ? 'start' : s.finished ? 'trainMore' : 'resume';
}

/** The label of Start, in the page's language ("Pause", "Start", "Train more", "Resume"). */
export function startLabel(s: Pick<StartState, 'running' | 'model' | 'finished'>): string {
  return t().train[startAction(s)];
}

export function startDisabled(s: StartState): boolean {
  return isBusy(s) || (!s.running && !canStart(s));
}

/** The length of the schedule: the model's, or the one the form would create. */
export function totalSteps(s: Pick<SessionSlice, 'model'> & Pick<SettingsSlice, 'settings'>): number {
  return s.model?.config.max_iters ?? s.settings?.max_iters ?? 0;
}

/** The core's run loop estimates it (evaluations included); none once the schedule is done. */
export function etaMs(s: Pick<TrainSlice, 'step' | 'etaMs'> & Pick<SessionSlice, 'model'> & Pick<SettingsSlice, 'settings'>): number | null {
  return s.step < totalSteps(s) ? s.etaMs : null;
}

export function pageMode(s: Pick<TrainSlice, 'running'> & Pick<SessionSlice, 'model'>): 'running' | 'paused' | 'idle' {
  return s.running ? 'running' : s.model ? 'paused' : 'idle';
}

export function statusLine(s: StartState & Pick<TrainSlice, 'tokensPerSec' | 'step' | 'elapsedMs'>): string {
  const m = s.model;
  const say = t().train.status;
  if (!s.ready) return say.loading;
  if (s.creating) return say.creating;
  if (s.running) return say.training(formatRate(s.tokensPerSec));
  if (m && s.finished) return say.finished(formatCount(m.config.max_iters));
  if (m) return say.paused(formatCount(s.step), formatParams(m.parameters), formatDuration(s.elapsedMs));
  if (!modeCorpus(s)) return s.mode === 'seq2seq' ? say.noPairs : say.noText;
  return s.mode === 'seq2seq' ? say.readyPairs : say.readyText;
}

/**
 * A running run sends progress after every slice (a fraction of a second; an evaluation, a few
 * seconds). None for this long means the worker is stuck: a thread of the kernels' pool that dies
 * in the middle of its work leaves the worker waiting for it for ever, its event loop with it
 * (docs/reliability.md §6). Nothing on the page would say so; the stall watch does.
 */
export const STALL_MS = 30_000;

/** Milliseconds without progress of a running run when that is a stall, else null. */
export function stalledFor(s: { running: boolean; lastTick: number }, now: number, stallMs = STALL_MS): number | null {
  const quiet = now - s.lastTick;
  return s.running && s.lastTick > 0 && quiet >= stallMs ? quiet : null;
}
