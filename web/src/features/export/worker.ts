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
        const ids = Int32Array.from(msg.prompt);   // byte models: a byte is its token
        const logits = M.exportLogits(s, ids);
        const continuation = s.generate(msg.prompt, msg.tokens, { temperature: 0 }).bytes;
        return { onnx, ids, logits, vocab: logits.length / ids.length, continuation };
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
