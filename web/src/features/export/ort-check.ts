// ort-check.ts (export) — the ONNX export run in onnxruntime-web, on the page's thread: loaded on
// first use only (its own chunk; its ~14 MB of wasm is fetched then, and the service worker does not
// precache it), one thread, the prompt's logits compared with the core's and the prompt continued
// greedily with past keys/values as transformers.js would.
import type { ExportCheck } from './state';

/** What the worker gave for the check (messages.ts exportCheck) and the model's shape. */
export interface CheckInput {
  onnx: Uint8Array;
  ids: Int32Array;
  logits: Float32Array;
  vocab: number;
  continuation: Uint8Array;
  prompt: string;
  shape: { n_layer: number; n_head: number; n_embd: number };
}

type Ort = typeof import('onnxruntime-web/wasm');

const argmax = (row: Float32Array): number => {
  let best = 0;
  for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;   // ties: the lower byte, as the core
  return best;
};

// the feeds of one call: `ids` after `past` (the last call's outputs, or none)
function feeds(ort: Ort, ids: number[], start: number, shape: CheckInput['shape'], past: Record<string, import('onnxruntime-web').Tensor> | null) {
  const i64 = (v: number[]) => new ort.Tensor('int64', BigInt64Array.from(v, (x) => BigInt(x)), [1, v.length]);
  const f: Record<string, import('onnxruntime-web').Tensor> = {
    input_ids: i64(ids),
    attention_mask: i64(new Array(start + ids.length).fill(1)),
    position_ids: i64(ids.map((_, i) => start + i)),
  };
  const HS = shape.n_embd / shape.n_head;
  for (let l = 0; l < shape.n_layer; l++) {
    for (const kv of ['key', 'value']) {
      f[`past_key_values.${l}.${kv}`] = past ? past[`present.${l}.${kv}`] : new ort.Tensor('float32', new Float32Array(0), [1, shape.n_head, 0, HS]);
    }
  }
  return f;
}

export async function runCheck(c: CheckInput): Promise<ExportCheck> {
  const ort: Ort = await import('onnxruntime-web/wasm');
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create(c.onnx);
  try {
    const T = c.ids.length, V = c.vocab;
    let out = await session.run(feeds(ort, Array.from(c.ids), 0, c.shape, null));
    const logits = out.logits.data as Float32Array;
    let maxDiff = 0;
    for (let i = 0; i < T * V; i++) maxDiff = Math.max(maxDiff, Math.abs(logits[i] - c.logits[i]));
    const bytes: number[] = [];
    let next = argmax(logits.subarray((T - 1) * V, T * V));
    while (bytes.length < c.continuation.length) {
      bytes.push(next);
      if (bytes.length === c.continuation.length) break;
      out = await session.run(feeds(ort, [next], T + bytes.length - 1, c.shape, out));
      next = argmax(out.logits.data as Float32Array);
    }
    const dec = new TextDecoder();
    const firstDifference = bytes.findIndex((b, i) => b !== c.continuation[i]);
    return { prompt: c.prompt, core: dec.decode(c.continuation), onnx: dec.decode(Uint8Array.from(bytes)), firstDifference, maxDiff };
  } finally {
    await session.release();
  }
}
