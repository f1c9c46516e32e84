// worker.ts (translate) — the seq2seq model translating a source (greedy or beam search).
import { handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needSession } from '../../worker/state';
import type { TranslateCalls } from './messages';

export function translateWorker(): WorkerFeature<CoreState> {
  return {
    name: 'translate',
    handlers: handlers<TranslateCalls, CoreState>({
      translate(msg, ctx) {
        const s = needSession(ctx.state);
        const source = new Uint8Array(msg.source);
        const r = s.translate(source, msg.options);
        return { step: s.step(), source, text: r.text, tokens: r.tokens, probs: r.probs, logProb: r.logProb, finished: r.finished, beam: msg.options.beam ?? 1 };
      },
    }),
  };
}
