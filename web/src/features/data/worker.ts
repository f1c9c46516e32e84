// worker.ts (data) — the worker keeps the data to give a new model the same text, and hands it
// to the live model of its kind: bytes in memory (a small text, pairs), or files read a window at
// a time (a large text, llm.c shards: reader.ts).
import type { PairsReport, Session } from '../../../../wasm/tinygpt';
import { isTranslator } from '../../lib/model-kind';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule } from '../../worker/state';
import { betweenSteps, type WebgpuState } from '../webgpu/worker';
import type { CorpusKind, CorpusTaken, DataCalls, FilesTaken } from './messages';
import { FileCorpus } from './reader';

export interface Corpus {
  name: string;
  kind: CorpusKind;
  bytes: Uint8Array | null;    // in memory: a text up to 64 MiB, pairs
  files: FileCorpus | null;    // read from files a window at a time
}

export interface DataState extends CoreState {
  corpus: Corpus | null;
}

export const initialData = (): Omit<DataState, keyof CoreState> => ({ corpus: null });

/** The data a model kind trains on: a text (gpt, rnn, gru, lstm) or pairs (seq2seq, lstm_seq2seq). */
export const corpusKindOf = (model: string | undefined): CorpusKind => (isTranslator(model) ? 'pairs' : 'text');

/** The worker's data if it is what a model of this kind trains on. */
export function corpusFor(st: DataState, model: string | undefined): Corpus | null {
  return st.corpus && st.corpus.kind === corpusKindOf(model) ? st.corpus : null;
}

/** Gives a session the data (throws the core's message if it refuses it). */
export function giveCorpus(s: Session, c: Corpus): void {
  if (c.files) s.useCorpus(c.files.corpus);
  else if (c.bytes) s.setCorpus(c.bytes);
}

/** Gives a session the worker's data if it is of the session's kind and the session has none (a refused one is left out). */
export function attachCorpus(st: DataState, s: Session): void {
  const c = corpusFor(st, s.kind());
  if (!c || s.hasCorpus()) return;
  try {
    giveCorpus(s, c);
  } catch {
    // e.g. pairs longer than this model's block_size: the page asks for data (ModelInfo.hasCorpus)
  }
}

/** The first bytes of the text (at most n): the estimate's sample, the inspector's slices. */
export function corpusBytes(c: Corpus, at: number, n: number): Uint8Array {
  if (c.bytes) return c.bytes.subarray(Math.max(0, at), Math.max(0, at) + n);
  const f = c.files!;
  if (f.shards) throw new Error('shards hold tokens, not a text to take a slice from');
  const size = f.corpus.size();
  const start = Math.max(0, Math.min(at, size));
  return f.readBytes(start, Math.min(n, size - start));
}

/** Makes `next` the worker's data, in the live model of its kind too (which keeps the old one if it refuses). */
function take(ctx: Ctx<DataState & WebgpuState>, next: Corpus): boolean {
  const st = ctx.state;
  const live = st.session && corpusKindOf(st.session.kind()) === next.kind ? st.session : null;
  if (live) giveCorpus(live, next);  // throws (and keeps the old corpus) if too short, or another tokenizer's shards
  const before = st.corpus;
  st.corpus = next;
  if (before?.files && before.files !== next.files) before.files.dispose();
  void ctx.fire('corpusSet', !!live);
  return !!live;
}

function setCorpus(msg: Parameters<DataCalls['setCorpus']>[0], ctx: Ctx<DataState & WebgpuState>): CorpusTaken | Promise<CorpusTaken> {
  const st = ctx.state;
  const M = needModule(st);
  const bytes = new Uint8Array(msg.bytes);
  const kind = msg.kind;
  const set = (): CorpusTaken => {
    const live = st.session && corpusKindOf(st.session.kind()) === kind ? st.session : null;
    // pairs are read by the core first: a file without a usable pair is refused with its line numbers
    const pairs: PairsReport | null = kind === 'pairs' ? M.pairsReport(bytes, live ? live.config().block_size : msg.blockSize ?? 64) : null;
    take(ctx, { bytes, files: null, name: msg.name, kind });
    return { name: msg.name, size: bytes.length, pairs };
  };
  return betweenSteps(ctx, set);  // on the GPU: between steps, the batches come from it
}

/** A corpus from files (given, or kept in OPFS), taken between steps; refused ones are let go. */
function setFiles(ctx: Ctx<DataState & WebgpuState>, name: string, open: () => FileCorpus | Promise<FileCorpus>): Promise<FilesTaken> {
  return Promise.resolve(open()).then((files) => {
    const set = (): FilesTaken => {
      try {
        take(ctx, { bytes: null, files, name, kind: 'text' });
      } catch (e) {
        if (ctx.state.corpus?.files !== files) files.dispose();   // refused: let it go (unless it is the current one)
        throw e;
      }
      return { name, ...files.info() };
    };
    return betweenSteps(ctx, set);
  });
}

export function dataWorker(): WorkerFeature<DataState & WebgpuState> {
  return {
    name: 'data',
    initial: initialData,
    handlers: handlers<DataCalls, DataState & WebgpuState>({
      setCorpus,
      setCorpusFiles: (msg, ctx) => setFiles(ctx, msg.name, () => FileCorpus.fromFiles(needModule(ctx.state), msg.files, msg.shards)),
      openKeptCorpus(msg, ctx) {
        // the copy open already (another run on the same corpus): its handles are exclusive, so it is reused
        const open = ctx.state.corpus?.files;
        if (open && open.id === msg.id) return setFiles(ctx, msg.name, () => open);
        return setFiles(ctx, msg.name, () => FileCorpus.fromKept(needModule(ctx.state), msg.id, msg.names, msg.shards));
      },
      async useKeptCopy(msg, ctx) {
        const f = ctx.state.corpus?.files;
        if (!f || f.id !== msg.id) return false;
        await f.useKept();
        return true;
      },
      corpusBytesRead: (_msg, ctx) => ctx.state.corpus?.files?.bytesRead ?? 0,
      sniff: (msg, ctx) => needModule(ctx.state).sniff(new Uint8Array(msg.head), msg.size, msg.name),
      pairsReport: (msg, ctx) => needModule(ctx.state).pairsReport(new Uint8Array(msg.bytes), msg.blockSize),
      builtinTask: (msg, ctx) => needModule(ctx.state).builtinTask(msg.name, msg.seed),
    }),
  };
}
