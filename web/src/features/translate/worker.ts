// worker.ts (translate) — the seq2seq model translating a source (greedy, sampled or beam search).
// When the model trains on WebGPU, every translation runs there too: the GPU decodes, the core
// still reads the source and keeps the decoding rules (the greedy picks, the sampler and its seeded
// generator, the beam's search), so the outputs are the CPU's. A GPU failure falls back to the CPU
// like every GPU call (webgpu/worker.ts).
import type { TranslateOptions } from '../../../../wasm/tinygpt';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needSession } from '../../worker/state';
import { onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { TranslateCalls, Translation } from './messages';

/** Greedy decoding: what the GPU's translate program computes. */
export const greedy = (o: TranslateOptions): boolean => (o.beam ?? 1) <= 1 && !((o.temperature ?? 0) > 0);
/** Sampling (temperature > 0): the GPU decodes, the core draws (WebGpuSession.sampledTranslate); else a
 *  beam search (WebGpuSession.beamTranslate) where not greedy. */
export const sampled = (o: TranslateOptions): boolean => (o.temperature ?? 0) > 0;

export function translateWorker(): WorkerFeature<WebgpuState> {
  return {
    name: 'translate',
    handlers: handlers<TranslateCalls, WebgpuState>({
      async translate(msg, ctx) {
        const s = needSession(ctx.state);
        const source = new Uint8Array(msg.source);
        const o = msg.options;
        type R = Pick<Translation, 'text' | 'tokens' | 'probs' | 'logProb' | 'finished'>;
        const cpu = (): R => s.translate(source, o);
        const b = ctx.state.gpu;
        const r: R = !b || !b.translates ? cpu()
          // sampled first: with a beam too, its options check gives the CPU's error (they exclude each other)
          : await onGpuOr(ctx, (g) => (greedy(o) ? g.translate(source, o.maxLen ?? 0)
            : sampled(o) ? g.sampledTranslate(source, { ...o, temperature: o.temperature! })
            : g.beamTranslate(source, o.beam!, o.maxLen ?? 0, o.lengthPenalty ?? 1)), cpu);
        return { step: s.step(), source, text: r.text, tokens: r.tokens, probs: r.probs, logProb: r.logProb, finished: r.finished, beam: o.beam ?? 1 };
      },
    }),
  };
}
