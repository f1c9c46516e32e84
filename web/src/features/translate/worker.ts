// worker.ts (translate) — the seq2seq model translating a source (greedy, sampled or beam search).
// When the model trains on WebGPU, a translation runs either on the GPU (its decoder; the core still
// reads the source and keeps the decoding rules: the greedy picks, the sampler and its seeded
// generator, the beam's search) or on the host's CPU with the GPU's weights brought back, whichever
// measured faster (route.ts). Either way the outputs are the CPU's. A GPU failure falls back to the
// CPU like every GPU call (webgpu/worker.ts).
import type { TranslateOptions } from '../../../../wasm/tinygpt';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needSession } from '../../worker/state';
import { type GpuBackend, onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { TranslateCalls, Translation, TranslationWhere } from './messages';
import { type Mode, TranslateRouter, units } from './route';

/** Greedy decoding: what the GPU's translate program computes. */
export const greedy = (o: TranslateOptions): boolean => (o.beam ?? 1) <= 1 && !((o.temperature ?? 0) > 0);
/** Sampling (temperature > 0): the GPU decodes, the core draws (WebGpuSession.sampledTranslate); else a
 *  beam search (WebGpuSession.beamTranslate) where not greedy. */
export const sampled = (o: TranslateOptions): boolean => (o.temperature ?? 0) > 0;
// sampled first: with a beam too, its options check gives the CPU's error (they exclude each other)
const modeOf = (o: TranslateOptions): Mode => (sampled(o) ? 'sampled' : greedy(o) ? 'greedy' : 'beam');

export interface TranslateState extends WebgpuState {
  routers: WeakMap<GpuBackend, TranslateRouter>;   // per model on the GPU: what each route measured
}

type R = Pick<Translation, 'text' | 'tokens' | 'probs' | 'logProb' | 'finished'>;
/** A translation and where it ran. */
type Routed = { value: R; where: TranslationWhere };

export function translateWorker(): WorkerFeature<TranslateState> {
  return {
    name: 'translate',
    initial: () => ({ routers: new WeakMap() }),
    handlers: handlers<TranslateCalls, TranslateState>({
      async translate(msg, ctx) {
        const st = ctx.state;
        const s = needSession(st);
        const source = new Uint8Array(msg.source);
        const o = msg.options;
        const cpu = (): Routed => {
          const t0 = performance.now();
          const value = s.translate(source, o);
          return { value, where: { route: 'cpu', ms: performance.now() - t0, syncMs: null } };
        };
        const b = st.gpu;
        const r = !b || !b.translates ? cpu() : await onGpuOr(ctx, async (g): Promise<Routed> => {
          let router = st.routers.get(g);
          if (!router) st.routers.set(g, (router = new TranslateRouter()));
          const mode = modeOf(o), n = units(mode === 'beam' ? o.beam! : 1, source.length);
          const { route, why } = router.choose(mode, n, g.hostInSync);
          if (route === 'host') {
            const h = await g.onHost(() => s.translate(source, o));
            router.record('host', mode, h.ms, n);
            if (h.syncMs !== null) router.recordSync(h.syncMs);
            return { value: h.value, where: { route: 'host', ms: h.ms, syncMs: h.syncMs, why } };
          }
          const t = await g.timed((gs): Promise<R> => (mode === 'greedy' ? gs.translate(source, o.maxLen ?? 0)
            : mode === 'sampled' ? gs.sampledTranslate(source, { ...o, temperature: o.temperature! })
            : gs.beamTranslate(source, o.beam!, o.maxLen ?? 0, o.lengthPenalty ?? 1)));
          router.record('gpu', mode, t.ms, n);
          return { value: t.value, where: { route: 'gpu', ms: t.ms, syncMs: null, why } };
        }, cpu);
        const v = r.value;
        return { step: s.step(), source, text: v.text, tokens: v.tokens, probs: v.probs, logProb: v.logProb, finished: v.finished,
          beam: o.beam ?? 1, where: r.where };
      },
    }),
  };
}
