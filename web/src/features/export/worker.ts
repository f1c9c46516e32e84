// worker.ts (export) — the live model in other tools' formats (wasm/export.cpp): on the GPU its
// weights come back to the host first; a Hugging Face folder's files become a model file.
import { asCoded } from '../../lib/coded';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needModule, needSession } from '../../worker/state';
import { onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { ExportCalls } from './messages';

type S = WebgpuState;

export function exportWorker(): WorkerFeature<S> {
  return {
    name: 'export',
    initial: () => ({}),
    handlers: handlers<ExportCalls, S>({
      async exportModel(msg, ctx) {
        const s = needSession(ctx.state);
        await onGpuOr(ctx, (b) => b.syncHost(), () => undefined);   // training on the GPU: its weights to the host
        return { files: needModule(ctx.state).exportModel(s, msg.format, msg.options), step: s.step() };
      },
      async exportCheck(msg, ctx) {
        const M = needModule(ctx.state);
        const s = needSession(ctx.state);
        await onGpuOr(ctx, (b) => b.syncHost(), () => undefined);
        const onnx = M.exportModel(s, 'onnx', {})[0].bytes;
        // the prompt's tokens: its bytes for a byte model, else the run's BPE tokens
        const tok = s.tokenizer();
        const ids = tok ? tok.encode(msg.prompt) : Int32Array.from(msg.prompt);
        const logits = M.exportLogits(s, ids);
        const vocab = logits.length / ids.length;
        const continuation = s.generate(msg.prompt, msg.tokens, { temperature: 0 }).tokens;
        // every token's bytes, one after the other (ends[v]: where token v's end), to decode ONNX Runtime's tokens
        const pieces = Array.from({ length: vocab }, (_, v) => (tok ? tok.tokenBytes(v) : Uint8Array.of(v)));
        tok?.delete();
        const ends = new Uint32Array(vocab);
        let at = 0;
        pieces.forEach((p, v) => { at += p.length; ends[v] = at; });
        const bytes = new Uint8Array(at);
        pieces.forEach((p, v) => bytes.set(p, ends[v] - p.length));
        return { onnx, ids, logits, vocab, continuation, tokenBytes: { bytes, ends } };
      },
      exportFormatOf(msg, ctx) {
        try {
          needModule(ctx.state).refuseExportFormat(new Uint8Array(msg.head), msg.name);
          return { problem: null };
        } catch (e) {
          return { problem: asCoded(e) };
        }
      },
      modelFileFromFolder(msg, ctx) {
        const files = Object.fromEntries(Object.entries(msg.files).map(([name, b]) => [name, new Uint8Array(b)]));
        return { bytes: needModule(ctx.state).modelFileFromFolder(files) };
      },
    }),
  };
}
