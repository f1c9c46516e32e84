// worker.ts (share) — links to runs (the core's share::make_link / parse_link), and a replay's
// first losses compared with its link's, bit for bit (share::check_replay), until the core's
// verdict is final.
import type { ReplayCheck, Session, ShareLink } from '../../../../wasm/tinygpt';
import { asCoded } from '../../lib/coded';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { needModule, needSession } from '../../worker/state';
import { trainingVariant, type WebgpuState } from '../webgpu/worker';
import type { ShareCalls } from './messages';

export interface ShareState extends WebgpuState {
  replayLink: ShareLink | null;   // a shared run being replayed: its first losses are checked
}

export const initialShare = (): Pick<ShareState, 'replayLink'> => ({ replayLink: null });

/** A BPE run's tokenizer fingerprint ('' for bytes). */
function tokenizerOf(s: Session): string {
  const t = s.tokenizer();
  if (!t) return '';
  try {
    return t.fingerprint();
  } finally {
    t.delete();
  }
}

/** The replay learned another vocabulary than the link's: not the shared run, whatever its losses. */
function otherTokenizer(link: ShareLink, s: Session, M: ReturnType<typeof needModule>): ReplayCheck | null {
  const other = M.checkTokenizer(link, tokenizerOf(s));
  if (!other) return null;
  return { ...other, status: 'diverged', compared: 0, expected: link.losses.length, divergedAt: 0, linkLoss: 0, runLoss: 0,
    linkBitsPerByte: NaN, runBitsPerByte: NaN, sameVariant: true, maxDifference: 0, final: true };
}

function checkReplay(ctx: Ctx<ShareState>): void {
  const st = ctx.state;
  const link = st.replayLink;
  const s = st.session;
  if (!link || !s || s.step() === 0) return;
  const variant = trainingVariant(st);
  const check = otherTokenizer(link, s, needModule(st)) ?? needModule(st).checkReplay(link, s.history().train.subarray(0, link.losses.length), variant);
  if (!check.final) return;
  st.replayLink = null;
  ctx.emit('replayCheck', { check, variant });
}

export function shareWorker(): WorkerFeature<ShareState> {
  return {
    name: 'share',
    initial: initialShare,
    handlers: handlers<ShareCalls, ShareState>({
      share(msg, ctx) {
        try {
          const s = needSession(ctx.state);
          // a BPE run: its tokenizer (the replay learns it again and must get the same) and tokens per byte (its check in bits per byte)
          const link = { config: s.config(), variant: trainingVariant(ctx.state), corpus: msg.corpus, losses: s.history().train.slice(0, 50),
            tokenizer: tokenizerOf(s), tokensPerByte: s.config().tokenizer === 'bpe' ? s.tokensPerByte() : 0 };
          return { url: needModule(ctx.state).makeShareLink(link, msg.base), error: null };
        } catch (e) {
          return { url: '', error: asCoded(e) };
        }
      },
      openLink(msg, ctx) {
        const M = needModule(ctx.state);
        try {
          return { link: M.parseShareLink(msg.url), error: null, variant: M.buildVariant() };
        } catch (e) {
          return { link: null, error: asCoded(e), variant: M.buildVariant() };
        }
      },
      replay(msg, ctx) {
        ctx.state.replayLink = msg.link;
        checkReplay(ctx);
      },
    }),
    hooks: {
      modelGone: (ctx) => void (ctx.state.replayLink = null),
      slice: (ctx) => checkReplay(ctx),
    },
  };
}
