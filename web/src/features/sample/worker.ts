// worker.ts (sample) — generation, streamed in chunks between the loop's other work. It takes
// priority over training while it runs, so a sample always comes from one fixed model.
import type { Generated, Session } from '../../../../wasm/tinygpt';
import { codedError } from '../../lib/coded';
import { type Ctx, handlers, type LoopTask, type WorkerFeature } from '../../worker/registry';
import { type CoreState, needSession } from '../../worker/state';
import { fallBack, type GeneratedChunk, isGpuBackendError, onGpuBytesOr, type WebgpuState } from '../webgpu/worker';
import type { SampleCalls, SampleChunk } from './messages';

const GEN_CHUNK_MS = 40;      // target wall time of one generation chunk

interface Generation { id: number; remaining: number; chunk: number; msPerByte: number; step: number }

export interface SampleState extends CoreState, WebgpuState {
  generation: Generation | null;
  startingGeneration: number | null;  // on the GPU: the id of a generation whose prompt is being read
}

export const initialSample = (): Pick<SampleState, 'generation' | 'startingGeneration'> => ({ generation: null, startingGeneration: null });

const empty = (id: number, step: number): SampleChunk => ({
  id, tokens: new Int32Array(0), bytes: new Uint8Array(0), ends: new Uint32Array(0), probs: new Float32Array(0),
  topTokens: new Int32Array(0), topProbs: new Float32Array(0), done: true, step,
});

/** The GPU's chunk (a byte model: a token is a byte) in the module's shape. */
function fromGpu(c: GeneratedChunk): Generated {
  const n = c.bytes.length;
  return { tokens: Int32Array.from(c.bytes), bytes: c.bytes, ends: Uint32Array.from({ length: n }, (_, i) => i + 1), probs: c.probs,
    topTokens: Int32Array.from(c.topBytes), topProbs: c.topProbs };
}

/** A BPE model's chunk carries its tokens' texts (the page labels them; a byte model's are its bytes). */
function labelled(s: Session, r: Generated): Pick<SampleChunk, 'labels' | 'topLabels'> {
  if (s.config().tokenizer !== 'bpe') return {};
  return { labels: s.tokenTexts(r.tokens), topLabels: s.tokenTexts(r.topTokens) };
}

function sendChunk(ctx: Ctx<SampleState>, g: Generation, r: Generated, n: number, ms: number): void {
  g.remaining -= n;
  g.msPerByte = ms / Math.max(1, n);
  // double the chunk at most (8, 16, 32, ...) up to about GEN_CHUNK_MS of work: text appears at once and then flows
  g.chunk = Math.max(4, Math.min(512, g.chunk * 2, Math.round(GEN_CHUNK_MS / Math.max(0.01, g.msPerByte))));
  const done = g.remaining <= 0;
  const s = ctx.state.session;
  ctx.emit('sampleChunk', { id: g.id, ...r, ...(s ? labelled(s, r) : {}), done, step: g.step } satisfies SampleChunk);
  if (done && ctx.state.generation === g) ctx.state.generation = null;
}

async function generateChunk(ctx: Ctx<SampleState>): Promise<void> {
  const st = ctx.state;
  const g = st.generation!;
  const s = st.session;
  if (!s) { st.generation = null; return; }
  const n = Math.min(g.remaining, g.chunk);
  const t0 = performance.now();
  const b = st.gpu?.readsBytes ? st.gpu : null;  // a BPE model samples on the host (onGpuBytesOr)
  try {
    const r = b ? fromGpu(await b.generateNext(n)) : s.generateNext(n);
    if (st.generation === g) sendChunk(ctx, g, r, n, performance.now() - t0);
  } catch (e) {
    if (b && isGpuBackendError(e)) return fallBack(ctx, b, e);   // its gpuLost hook ends the generation
    if (st.generation !== g) return;
    st.generation = null;
    ctx.fail('generate', e);
  }
}

const generationTask: LoopTask<SampleState> = {
  name: 'generate',
  priority: 0,
  wants: (ctx) => ctx.state.generation !== null,
  run: generateChunk,
};

async function generate(msg: Parameters<SampleCalls['generate']>[0], ctx: Ctx<SampleState>): Promise<void> {
  const st = ctx.state;
  const s = needSession(st);
  const prompt = new Uint8Array(msg.prompt);
  st.startingGeneration = msg.id;  // a stopGeneration meanwhile cancels it
  try {
    await onGpuBytesOr(ctx, (b) => b.beginGeneration(prompt, msg.options), () => s.beginGeneration(prompt, msg.options));
  } catch (e) {
    if (st.startingGeneration === msg.id) st.startingGeneration = null;
    throw e;
  }
  if (st.startingGeneration !== msg.id) return;  // stopped meanwhile (the stop sent the last chunk)
  st.startingGeneration = null;
  if (msg.length <= 0) return void ctx.emit('sampleChunk', empty(msg.id, s.step()));
  st.generation = { id: msg.id, remaining: msg.length, chunk: 8, msPerByte: 0, step: s.step() };
  ctx.wake();
}

export function sampleWorker(): WorkerFeature<SampleState> {
  return {
    name: 'sample',
    initial: initialSample,
    handlers: handlers<SampleCalls, SampleState>({
      generate,
      stopGeneration(msg, ctx) {
        const st = ctx.state;
        if (st.generation?.id !== msg.id && st.startingGeneration !== msg.id) return;
        st.generation = null;
        st.startingGeneration = null;
        ctx.emit('sampleChunk', empty(msg.id, st.session ? st.session.step() : 0));
      },
    }),
    hooks: {
      modelGone: (ctx) => void (ctx.state.generation = null),
      gpuLost(ctx, _rewound, why) {
        if (!ctx.state.generation) return;
        ctx.state.generation = null;
        ctx.fail('generate', codedError('gpu.generate_lost', `${why.message}; generate again (now on the CPU)`, { kind: why.kind }));
      },
    },
    tasks: [generationTask],
  };
}
