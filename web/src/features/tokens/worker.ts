// worker.ts (tokens) — the run's tokenizer in the worker: learned from the training split of the
// worker's text (tokenizerForRun, also what session.create uses for a tokenizer 'bpe' config), or
// loaded from a file; and the Tokens view's questions (a text as chips, the merges, a prefix of them).
// Learning runs in the worker's thread: a Cancel reaches it through a shared flag the progress
// callback reads (a cross-origin-isolated page); without one it finishes and its result is dropped.
import type { Tokenizer, TokenizerTrainProgress } from '../../../../wasm/tinygpt';
import { codedError } from '../../lib/coded';
import { isTranslator } from '../../lib/model-kind';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule } from '../../worker/state';
import { type Corpus, corpusFor, type DataState } from '../data/worker';
import type { MergeRow, TokenChips, TokenizerInfo, TokensCalls, TrainProgress } from './messages';

const PROGRESS_MS = 100;

export interface TokensState extends CoreState, DataState {
  tokens: {
    next: Tokenizer | null;      // the tokenizer the next run of tokenizer 'bpe' uses (trained or loaded)
    from: Corpus | null;         // the text it was learned from (null: loaded from a file)
    info: TokenizerInfo | null;  // of `next`
    flag: Int32Array | null;     // set to 1 by the page's Cancel
  };
}

export const initialTokens = (): Pick<TokensState, 'tokens'> => ({ tokens: { next: null, from: null, info: null, flag: null } });

/** The live model's tokenizer described (null: it reads bytes, or there is none); the handle is let go. */
function liveInfo(st: TokensState): TokenizerInfo | null {
  const t = st.session?.tokenizer() ?? null;
  if (!t) return null;
  try {
    return describe(t, 'model', '');
  } finally {
    t.delete();
  }
}

/** What the Tokens view shows: the live model's tokenizer, else the next run's. */
const shownInfo = (st: TokensState): TokenizerInfo | null => liveInfo(st) ?? (st.tokens.next ? st.tokens.info : null);

/** The tokenizer the view shows (a live model's is a new handle: withShown deletes it). */
function shown(st: TokensState): { t: Tokenizer; info: TokenizerInfo } | null {
  const live = st.session?.tokenizer() ?? null;
  if (live) return { t: live, info: describe(live, 'model', '') };
  const n = st.tokens.next;
  return n && st.tokens.info ? { t: n, info: st.tokens.info } : null;
}

function describe(t: Tokenizer, source: TokenizerInfo['source'], name: string): TokenizerInfo {
  const s = t.trainingStats();
  const m = t.merges();
  let steppable = true;
  for (let r = 0; r < m.id.length && steppable; r++) steppable = m.id[r] === 256 + r;
  return { source, name, vocab: t.vocabSize(), merges: m.id.length, fingerprint: t.fingerprint(),
    trainingTokensPerByte: s.bytes ? s.tokens / s.bytes : 0, steppable };
}

function setNext(ctx: Ctx<TokensState>, t: Tokenizer, from: Corpus | null, info: TokenizerInfo): void {
  const k = ctx.state.tokens;
  k.next?.delete();
  k.next = t;
  k.from = from;
  k.info = info;
  if (!liveInfo(ctx.state)) ctx.emit('tokenizer', { info });
}

/** A progress callback for the module: events at most every PROGRESS_MS, false once the page cancelled. */
function progressTo(ctx: Ctx<TokensState>): (p: TokenizerTrainProgress) => boolean {
  let last = -Infinity;
  const flag = ctx.state.tokens.flag;
  if (flag) Atomics.store(flag, 0, 0);
  return (p) => {
    const now = performance.now();
    if (now - last >= PROGRESS_MS || p.done === p.total) {
      last = now;
      ctx.emit('tokensProgress', { phase: p.phase, done: p.done, total: p.total } satisfies TrainProgress);
    }
    return !(flag && Atomics.load(flag, 0) === 1);
  };
}

/** The vocabulary learned or loaded for the next run, if it is of `vocab` tokens and of this text (null otherwise). */
export function nextTokenizer(st: TokensState, vocab: number): Tokenizer | null {
  const k = st.tokens;
  return k.next && k.next.vocabSize() === vocab && (k.from === null || k.from === st.corpus) ? k.next : null;
}

/**
 * The tokenizer of a run of `vocab` tokens on the worker's text: the one learned or loaded before if
 * it fits, else learned now from the text's training split (as `tinygpt train --vocab_size N`).
 * Throws the core's coded message (tokenizer.vocab_too_large: how many merges the text allows), or
 * tokens.cancelled.
 */
export function tokenizerForRun(ctx: Ctx<TokensState>, model: string, vocab: number): Tokenizer {
  const st = ctx.state;
  const have = nextTokenizer(st, vocab);
  if (have) return have;
  const c = corpusFor(st, model);
  if (!c) throw codedError('worker.no_corpus', 'a vocabulary is learned from a text: load one first');
  const M = needModule(st);
  const progress = progressTo(ctx);
  // a text: its training split (the bytes before the last tenth); a translator's pairs: the whole file
  // (sources and targets share it, the held-out pairs are chosen once they are tokens), as the CLI
  const bytes = c.bytes, translator = isTranslator(model);
  const t = c.files ? M.trainTokenizerForRun(c.files.corpus, vocab, progress)
    : M.trainTokenizer(translator ? bytes! : bytes!.subarray(0, bytes!.length - Math.floor(bytes!.length * 0.1)), vocab, progress);
  if (!t) throw codedError('tokens.cancelled', 'learning the vocabulary was cancelled');
  setNext(ctx, t, c, describe(t, 'trained', ''));
  return t;
}

/** A tokenizer file (or GPT-2's two): told apart by its content, as the core's Tokenizer::load. */
function readFiles(M: ReturnType<typeof needModule>, files: { name: string; bytes: ArrayBuffer }[]): Tokenizer {
  const text = (b: ArrayBuffer) => new TextDecoder().decode(b);
  if (files.length === 2) {
    const vocab = files.find((f) => /\.json$/i.test(f.name)), merges = files.find((f) => !/\.json$/i.test(f.name));
    if (!vocab || !merges) throw codedError('tokens.two_files', 'two files are GPT-2\'s vocab.json and merges.txt');
    return M.tokenizerFromGpt2(text(vocab.bytes), text(merges.bytes));
  }
  if (files.length !== 1) throw codedError('tokens.two_files', 'give one tokenizer file, or GPT-2\'s vocab.json and merges.txt');
  const b = new Uint8Array(files[0].bytes);
  if (b.length >= 8 && new TextDecoder().decode(b.subarray(0, 8)) === 'TGPTTOKN') return M.tokenizerFromBytes(b);
  return M.tokenizerFromJson(text(files[0].bytes));
}

function chips(t: Tokenizer, text: Uint8Array): TokenChips {
  const ids = t.encode(text);
  const lengths = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) lengths[i] = t.tokenBytes(ids[i]).length;
  return { ids, labels: t.tokenTexts(ids), lengths, pieces: t.pieces(text), bytes: text.length, tokensPerByte: text.length ? ids.length / text.length : 0 };
}

function mergeRows(t: Tokenizer, from: number, count: number): MergeRow[] {
  const m = t.merges();
  const rows: MergeRow[] = [];
  for (let r = Math.max(0, from); r < Math.min(m.id.length, from + count); r++) {
    const [left, right, made] = t.tokenTexts([m.left[r], m.right[r], m.id[r]]);
    rows.push({ rank: r, id: m.id[r], left, right, made, count: m.count[r] });
  }
  return rows;
}

/** Runs `fn` on the tokenizer shown, deleting the copy a live model's would be. */
function withShown<R>(st: TokensState, fn: (t: Tokenizer) => R): R {
  const s = shown(st);
  if (!s) throw codedError('tokens.none', 'the run reads bytes: choose BPE, or load a tokenizer');
  try {
    return fn(s.t);
  } finally {
    if (s.info.source === 'model') s.t.delete();
  }
}

export function tokensWorker(): WorkerFeature<TokensState> {
  return {
    name: 'tokens',
    initial: initialTokens,
    handlers: handlers<TokensCalls, TokensState>({
      tokensSetup: (msg, ctx) => void (ctx.state.tokens.flag = msg.flag ? new Int32Array(msg.flag) : null),
      tokensTrain: (msg, ctx) => describe(tokenizerForRun(ctx, 'gpt', msg.vocab), 'trained', ''),
      tokensLoad(msg, ctx) {
        const t = readFiles(needModule(ctx.state), msg.files);
        const info = describe(t, 'loaded', msg.files.map((f) => f.name).join(' + '));
        setNext(ctx, t, null, info);
        return info;
      },
      tokensInfo: (_msg, ctx) => shownInfo(ctx.state),
      tokensShow(msg, ctx) {
        return withShown(ctx.state, (t) => {
          const all = t.merges().id.length;
          if (msg.merges < 0 || msg.merges >= all) return chips(t, new Uint8Array(msg.text));
          const p = t.prefix(msg.merges);
          try {
            return chips(p, new Uint8Array(msg.text));
          } finally {
            p.delete();
          }
        });
      },
      tokensMerges: (msg, ctx) => withShown(ctx.state, (t) => mergeRows(t, msg.from, msg.count)),
    }),
    hooks: {
      // the page shows the tokenizer of the model it is told of (or the next run's when it reads bytes)
      modelShown: (ctx) => ctx.emit('tokenizer', { info: shownInfo(ctx.state) }),
      modelDropped: (ctx) => ctx.emit('tokenizer', { info: shownInfo(ctx.state) }),
    },
  };
}
