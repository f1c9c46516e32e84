// worker.ts (hidden) — the hidden-state view's calls on the live model (wasm hiddenTrace,
// hiddenSearch): the module computes, the page only draws.
import { codedError } from '../../lib/coded';
import { isRecurrent } from '../../lib/model-kind';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule, needSession } from '../../worker/state';
import type { HiddenCalls } from './messages';

/** The live model, if it is a recurrent one (the others have no hidden state to show). */
function recurrentSession(st: CoreState) {
  const s = needSession(st);
  if (!isRecurrent(s.kind())) throw codedError('worker.not_recurrent', 'the hidden-state view needs an rnn, gru or lstm model');
  return s;
}

export function hiddenWorker(): WorkerFeature<CoreState> {
  return {
    name: 'hidden',
    handlers: handlers<HiddenCalls, CoreState>({
      hiddenPatterns: (_msg, ctx) => needModule(ctx.state).hiddenPatterns(),
      hiddenTrace(msg, ctx) {
        const s = recurrentSession(ctx.state);
        return { trace: needModule(ctx.state).hiddenTrace(s, new Uint8Array(msg.text)), step: s.step() };
      },
      hiddenSearch(msg, ctx) {
        const s = recurrentSession(ctx.state);
        return needModule(ctx.state).hiddenSearch(s, new Uint8Array(msg.text), msg.pattern, msg.k);
      },
    }),
  };
}
