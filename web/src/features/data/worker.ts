// worker.ts (data) — the worker keeps the data to give a new model the same text, and hands it
// to the live model of its kind.
import type { PairsReport, Session } from '../../../../wasm/tinygpt';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needModule } from '../../worker/state';
import { betweenSteps, type WebgpuState } from '../webgpu/worker';
import type { CorpusKind, CorpusTaken, DataCalls } from './messages';

export interface Corpus { bytes: Uint8Array; name: string; kind: CorpusKind }

export interface DataState extends CoreState {
  corpus: Corpus | null;
}

export const initialData = (): Omit<DataState, keyof CoreState> => ({ corpus: null });

/** The data a model kind trains on: a text (gpt) or pairs (seq2seq). */
export const corpusKindOf = (model: string | undefined): CorpusKind => (model === 'seq2seq' ? 'pairs' : 'text');

/** The worker's data if it is what a model of this kind trains on. */
export function corpusFor(st: DataState, model: string | undefined): Uint8Array | null {
  return st.corpus && st.corpus.kind === corpusKindOf(model) ? st.corpus.bytes : null;
}

/** Gives a session the worker's data if it is of the session's kind and the session has none (a refused one is left out). */
export function attachCorpus(st: DataState, s: Session): void {
  const bytes = corpusFor(st, s.kind());
  if (!bytes || s.hasCorpus()) return;
  try {
    s.setCorpus(bytes);
  } catch {
    // e.g. pairs longer than this model's block_size: the page asks for data (ModelInfo.hasCorpus)
  }
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
    if (live) live.setCorpus(bytes);  // throws (and keeps the old corpus) if too short
    st.corpus = { bytes, name: msg.name, kind };
    void ctx.fire('corpusSet', !!live);
    return { name: msg.name, size: bytes.length, pairs };
  };
  return betweenSteps(ctx, set);  // on the GPU: between steps, the batches come from it
}

export function dataWorker(): WorkerFeature<DataState & WebgpuState> {
  return {
    name: 'data',
    initial: initialData,
    handlers: handlers<DataCalls, DataState & WebgpuState>({
      setCorpus,
      sniff: (msg, ctx) => needModule(ctx.state).sniff(new Uint8Array(msg.head), msg.size, msg.name),
      pairsReport: (msg, ctx) => needModule(ctx.state).pairsReport(new Uint8Array(msg.bytes), msg.blockSize),
      builtinTask: (msg, ctx) => needModule(ctx.state).builtinTask(msg.name, msg.seed),
    }),
  };
}
