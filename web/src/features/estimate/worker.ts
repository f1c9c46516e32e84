// worker.ts (estimate) — the core's tinygpt::preflight on the worker's text.
import { asCoded, codedError } from '../../lib/coded';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needModule } from '../../worker/state';
import type { DataState } from '../data/worker';
import { nextTokenizer, type TokensState } from '../tokens/worker';
import type { EstimateCalls } from './messages';

export function estimateWorker(): WorkerFeature<DataState & TokensState> {
  return {
    name: 'estimate',
    handlers: handlers<EstimateCalls, DataState & TokensState>({
      measure(msg, ctx) {
        try {
          const c = ctx.state.corpus;
          if (!c) throw codedError('worker.choose_text', 'choose a text first');
          const M = needModule(ctx.state);
          // a BPE config: the vocabulary learned or loaded for the next run, else a stand-in the core learns from the text's start
          const tok = msg.config.tokenizer === 'bpe' ? nextTokenizer(ctx.state, msg.config.vocab_size ?? 0) : null;
          // a text read from files is shared with the throw-away trainer, not read whole
          if (c.files) return { result: M.preflightCorpus(msg.config, c.files.corpus, msg.budgetMs, tok), error: null };
          // the text's first 64 MiB are plenty for the entropies; a subarray is not copied here
          return { result: M.preflight(msg.config, c.bytes!.subarray(0, 64 << 20), msg.budgetMs, tok), error: null };
        } catch (e) {
          return { result: null, error: asCoded(e) };
        }
      },
    }),
  };
}
