// worker.ts (inspect) — the attention maps of a text or a slice of the data (on the GPU when the
// model is there), and the translator's.
import { codedError } from '../../lib/coded';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needSession } from '../../worker/state';
import { corpusBytes, type DataState } from '../data/worker';
import { onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { InspectCalls } from './messages';

type S = DataState & WebgpuState;

export function inspectWorker(): WorkerFeature<S> {
  return {
    name: 'inspect',
    handlers: handlers<InspectCalls, S>({
      async inspect(msg, ctx) {
        const st = ctx.state;
        const s = needSession(st);
        const T = s.config().block_size;
        let text: Uint8Array;
        if (msg.text) text = new Uint8Array(msg.text);
        else {
          const corpus = st.corpus;
          if (!corpus) throw codedError('worker.no_corpus', 'no corpus to take a slice from');
          const size = corpus.bytes ? corpus.bytes.length : corpus.files!.corpus.size();
          text = corpusBytes(corpus, Math.max(0, Math.min(msg.corpusOffset ?? 0, size - T)), T).slice();
        }
        if (text.length === 0) throw codedError('worker.inspect_empty', 'give some text to look inside (at least one byte)');
        const r = await onGpuOr(ctx, (b) => b.inspect(text), () => s.inspect(text));
        return { step: s.step(), bytes: text.slice(text.length - r.T), T: r.T, L: r.L, NH: r.NH, attention: r.attention, probs: r.probs };
      },
      inspectTranslation(msg, ctx) {
        const s = needSession(ctx.state);
        return { step: s.step(), ...s.inspectTranslation(new Uint8Array(msg.source), new Uint8Array(msg.target)) };
      },
    }),
  };
}
