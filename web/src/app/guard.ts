// guard.ts — the core's NaN guard as the page shows it: which step diverged and why, the step the
// run went back to, the learning-rate scale, and the pause after three rollbacks in a row. The
// guard itself is the core's (tinygpt::Run, run.h); the page drops the undone steps from its
// history and explains. Pure functions (unit-tested in web/test/guard.test.ts).
import type { CoreCoded, Progress, RollbackInfo } from '../protocol';
import type { LossHistory } from './history';

export interface GuardState {
  events: RollbackInfo[];   // every rollback of this model, in order
  lrScale: number;          // the learning rate is the schedule's times this (1: no rollback yet)
  paused: string | null;    // the core's reason when the guard paused the run, until training goes on
  pausedCoded?: CoreCoded;  // its code and args (train.paused), for the page's language
}

export const initialGuard = (): GuardState => ({ events: [], lrScale: 1, paused: null });

/** "the gradient norm is nan" from the core's "training diverged at step 131: the gradient norm is nan". */
export function divergedWhy(r: Pick<RollbackInfo, 'message'>): string {
  const i = r.message.indexOf(': ');
  return i >= 0 ? r.message.slice(i + 2) : r.message;
}

/** The step that diverged, counted from 1 as in the core's messages. */
export const divergedStep = (r: Pick<RollbackInfo, 'failedStep'>): number => r.failedStep + 1;

/** The guard's news in a progress message: the history without the undone steps, the new guard state. */
export function applyGuard(history: LossHistory, guard: GuardState, m: Pick<Progress, 'firstStep' | 'rollbacks' | 'pausedBecause' | 'pausedCoded'>):
  { history: LossHistory; guard: GuardState } | null {
  const rollbacks = m.rollbacks ?? [];
  if (!rollbacks.length && !m.pausedBecause) return null;
  const last = rollbacks[rollbacks.length - 1];
  return {
    // the slice's losses start after firstStep: everything later in the history was undone
    history: rollbacks.length ? history.truncatedAt(m.firstStep ?? last.restoredStep) : history,
    guard: {
      events: [...guard.events, ...rollbacks],
      lrScale: last ? last.lrScale : guard.lrScale,
      paused: m.pausedBecause || null,
      ...(m.pausedBecause && m.pausedCoded ? { pausedCoded: m.pausedCoded } : {}),
    },
  };
}
