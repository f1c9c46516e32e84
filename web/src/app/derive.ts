// derive.ts — values computed from the run state, never stored: what Start does and whether it
// can, the status line, the ETA. Pure functions (unit-tested in web/test/run-state.test.ts).
import { formatCount, formatDuration, formatParams, formatRate } from '../format';
import type { FullConfig } from '../protocol';
import { checkCorpusLength } from '../settings';
import type { RunState } from './state';

type S = Readonly<RunState>;

/** Why the corpus can't hold one window of the settings' context ('' when it can). */
export function corpusLengthError(s: S): string {
  return s.settings ? checkCorpusLength(s.settings, s.corpus?.stats.size ?? null) : '';
}

/** The core accepted the current form, for the current text. */
export function settingsOk(s: S): boolean {
  return !!s.settings && !!s.verdict && s.verdict.id === s.validateId && !s.verdict.problems.length && !corpusLengthError(s);
}

/** Creating or loading a model: the controls wait. */
export function isBusy(s: S): boolean {
  return s.creating || !!s.loading;
}

export function canStart(s: S): boolean {
  return !!s.ready && !!s.corpus && (s.model ? true : settingsOk(s));
}

/** The tooltip of a disabled Start ('' when it can start). */
export function startBlockedReason(s: S): string {
  if (!s.ready) return 'The model code is still loading';
  if (!s.corpus) return 'Choose a text first';
  if (!s.model && !settingsOk(s)) return 'Fix the settings first';
  return '';
}

export type StartLabel = 'Pause' | 'Start' | 'Train more' | 'Resume';

export function startLabel(s: S): StartLabel {
  return s.running ? 'Pause' : !s.model ? 'Start' : s.finished ? 'Train more' : 'Resume';
}

export function startDisabled(s: S): boolean {
  return isBusy(s) || (!s.running && !canStart(s));
}

/** The length of the schedule: the model's, or the one the form would create. */
export function totalSteps(s: S): number {
  return s.model?.config.max_iters ?? s.settings?.max_iters ?? 0;
}

/** The core's run loop estimates it (evaluations included); none once the schedule is done. */
export function etaMs(s: S): number | null {
  return s.step < totalSteps(s) ? s.etaMs : null;
}

export function pageMode(s: S): 'running' | 'paused' | 'idle' {
  return s.running ? 'running' : s.model ? 'paused' : 'idle';
}

export function statusLine(s: S): string {
  const m = s.model;
  if (!s.ready) return 'Loading the model code…';
  if (s.creating) return 'Creating the model…';
  if (s.running) return `Training at ${formatRate(s.tokensPerSec)} tokens/s…`;
  if (m && s.finished) return `Finished the schedule (${formatCount(m.config.max_iters)} steps). "Train more" continues at the final learning rate.`;
  if (m) return `Paused at step ${formatCount(s.step)}. ${formatParams(m.parameters)} parameters, trained for ${formatDuration(s.elapsedMs)}.`;
  if (!s.corpus) return 'Choose a text, then press Start.';
  return 'Ready: Start creates a model with random weights and trains it.';
}

export function describeModel(c: Partial<Pick<FullConfig, 'n_layer' | 'n_head' | 'n_embd' | 'block_size'>>): string {
  if (c.n_layer === undefined) return 'a model';  // a run saved by an older version of the page
  return `${c.n_layer} layers × ${c.n_head} heads, width ${c.n_embd}, context ${c.block_size}`;
}

/** Per-byte loss −ln p(byte | the bytes before it) of an inspection (NaN for the first byte). */
export function tokenLosses(d: { T: number; bytes: Uint8Array; probs: Float32Array }): number[] {
  const out: number[] = [];
  for (let t = 0; t < d.T; t++) out.push(t === 0 ? NaN : -Math.log(Math.max(1e-30, d.probs[(t - 1) * 256 + d.bytes[t]])));
  return out;
}
