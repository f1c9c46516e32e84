// worker.ts (inspect) — the attention maps of a text or a slice of the data (on the GPU when the
// model is there), and the translator's.
import type { Session } from '../../../../wasm/tinygpt';
import { codedError } from '../../lib/coded';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needSession } from '../../worker/state';
import { corpusBytes, type DataState } from '../data/worker';
import { onGpuBytesOr, onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { InspectCalls, Inspection } from './messages';

type S = DataState & WebgpuState;

/** A BPE model's five likeliest next tokens at each position, with their texts (the page has no vocabulary to label them). */
function likeliest(s: Session, probs: Float32Array, T: number, V: number): { top: Int32Array; topLabels: string[] } {
  const top = new Int32Array(T * 5);
  for (let t = 0; t < T; t++) {
    const row = probs.subarray(t * V, (t + 1) * V);
    const best: number[] = [];
    for (let v = 0; v < V; v++) {
      let at = best.length;
      while (at > 0 && row[best[at - 1]] < row[v]) at--;
      if (at < 5) best.splice(at, 0, v), best.length = Math.min(5, best.length);
    }
    top.set(best, t * 5);
  }
  return { top, topLabels: s.tokenTexts(top) };
}

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
        const r: Partial<Pick<Inspection, 'V' | 'tokens' | 'labels'>> & Pick<Inspection, 'T' | 'L' | 'NH' | 'attention' | 'probs'> =
          await onGpuBytesOr(ctx, (b) => b.inspect(text), () => s.inspect(text));
        // the GPU's (a byte model's): its tokens are the text's last T bytes
        const tokens = r.tokens ?? Int32Array.from(text.subarray(text.length - r.T));
        const labels = r.labels ?? s.tokenTexts(tokens);
        const V = r.V ?? 256;
        const out: Inspection = { step: s.step(), bytes: text.slice(Math.max(0, text.length - r.T)), T: r.T, L: r.L, NH: r.NH, V, tokens, labels,
          attention: r.attention, probs: r.probs };
        if (V !== 256) Object.assign(out, likeliest(s, r.probs, r.T, V));
        return out;
      },
      async inspectTranslation(msg, ctx) {
        const s = needSession(ctx.state);
        const cpu = () => ({ step: s.step(), ...s.inspectTranslation(new Uint8Array(msg.source), new Uint8Array(msg.target)) });
        // a translator training on the GPU: its maps from the GPU's weights (the host's are behind)
        const b = ctx.state.gpu;
        return b && b.translates ? onGpuOr(ctx, (g) => g.inspectTranslation(new Uint8Array(msg.source), new Uint8Array(msg.target)).then((r) => ({ step: s.step(), ...r })), cpu) : cpu();
      },
    }),
  };
}
