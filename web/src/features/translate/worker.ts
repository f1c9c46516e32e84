// worker.ts (translate) — the seq2seq model translating a source (greedy or beam search). When the
// model trains on WebGPU, greedy and beam-search translations run there too (the core still reads
// the source and keeps the decoding rules: the greedy picks, the beam's search); sampling brings the
// GPU's weights back and runs on the host. A GPU failure falls back to the CPU like every GPU call
// (webgpu/worker.ts).
import type { TranslateOptions } from '../../../../wasm/tinygpt';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needSession } from '../../worker/state';
import { onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { TranslateCalls, Translation } from './messages';

/** Greedy decoding: what the GPU's translate program computes. */
export const greedy = (o: TranslateOptions): boolean => (o.beam ?? 1) <= 1 && !((o.temperature ?? 0) > 0);
/** Beam search: the GPU decodes, the core searches (WebGpuSession.beamTranslate). */
export const beam = (o: TranslateOptions): boolean => (o.beam ?? 1) > 1;

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
          : await onGpuOr(ctx, (g) => (greedy(o) ? g.translate(source, o.maxLen ?? 0)
            : beam(o) ? g.beamTranslate(source, o.beam!, o.maxLen ?? 0, o.lengthPenalty ?? 1) : g.syncHost().then(cpu)), cpu);
        return { step: s.step(), source, text: r.text, tokens: r.tokens, probs: r.probs, logProb: r.logProb, finished: r.finished, beam: o.beam ?? 1 };
      },
    }),
  };
}
