// worker.ts (learn) — one traced training step of the walkthrough's model (core learn.h).
import { asCoded } from '../../lib/coded';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule } from '../../worker/state';
import type { LearnCalls } from './messages';

export function learnWorker(): WorkerFeature<CoreState> {
  return {
    name: 'learn',
    handlers: handlers<LearnCalls, CoreState>({
      learn(msg, ctx) {
        try {
          return { trace: needModule(ctx.state).learnTrace(msg.model, msg.edits), error: null };
        } catch (e) {
          return { trace: null, error: asCoded(e) };
        }
      },
    }),
  };
}
