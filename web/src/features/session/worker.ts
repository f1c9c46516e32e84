// worker.ts (session) — the live model's life: created, replaced (a checkpoint: features/runs),
// dropped. Every feature that keeps something of a model hears of it through the registry's
// hooks: modelGone before it goes, modelReady once it is the session's (threads, WebGPU),
// modelShown once the page was told ('model').
import type { Session } from '../../../../wasm/tinygpt';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule, needSession } from '../../worker/state';
import { corpusFor, type DataState, giveCorpus } from '../data/worker';
import { tokenizerForRun, type TokensState } from '../tokens/worker';
import type { ModelInfo, ModelSummary, SessionCalls } from './messages';

export interface SessionState extends CoreState, DataState, TokensState {
  keepHistory: boolean;      // create's `history` (bench:page measures with it off)
}

export const initialSession = (): Pick<SessionState, 'keepHistory'> => ({ keepHistory: true });

/** The model as the page hears of it. */
function describe(st: SessionState, reason: ModelInfo['reason'], name?: string): ModelInfo {
  const s = needSession(st);
  return {
    reason, name, config: s.config(), parameters: s.numParameters(), step: s.step(), history: s.history(), tokensPerByte: s.tokensPerByte(),
    corpusMatches: s.corpusMatchesCheckpoint(), corpusMismatch: s.corpusMismatch(), memoryBytes: needModule(st).memoryBytes(), hasCorpus: s.hasCorpus(),
  };
}

/**
 * Makes `s` the live model (the current one, if another, is deleted) and tells the page ('model',
 * its curves transferred); returns the same without the curves, for the call's reply.
 */
export async function installModel(ctx: Ctx<SessionState>, s: Session, reason: ModelInfo['reason'], name?: string): Promise<ModelSummary | null> {
  const st = ctx.state;
  await ctx.fire('modelGone');
  if (st.session && st.session !== s) st.session.delete();
  st.session = s;
  await ctx.fire('modelReady');
  if (st.session !== s) return null;   // replaced meanwhile
  const info = describe(st, reason, name);
  ctx.emit('model', info);
  await ctx.fire('modelShown');
  const { history: _sent, ...summary } = info;
  return summary;
}

/** Drops the live model. */
export async function dropModel(ctx: Ctx<SessionState>): Promise<void> {
  await ctx.fire('modelGone');
  ctx.state.session?.delete();
  ctx.state.session = null;
  await ctx.fire('modelDropped');
}

export function sessionWorker(): WorkerFeature<SessionState> {
  return {
    name: 'session',
    initial: initialSession,
    handlers: handlers<SessionCalls, SessionState>({
      async create(msg, ctx) {
        const st = ctx.state;
        const M = needModule(st);
        await dropModel(ctx);
        st.keepHistory = msg.history !== false;
        const s = new M.Session(msg.config);
        try {
          // a BPE run reads its text through its tokenizer: the one learned or loaded before, or learned now
          if (msg.config.tokenizer === 'bpe') s.setTokenizer(tokenizerForRun(ctx, msg.config.model ?? 'gpt', msg.config.vocab_size ?? 256));
          const c = corpusFor(st, msg.config.model);
          if (c) giveCorpus(s, c);
        } catch (e) {
          s.delete();
          throw e;
        }
        const info = await installModel(ctx, s, 'create');
        if (!info) throw new Error('the model was replaced while it was being created');
        return info;
      },
      reset: (_msg, ctx) => dropModel(ctx),
    }),
  };
}
