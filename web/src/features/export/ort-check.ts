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
  continuation: Int32Array;   // the core's tokens
  tokenBytes: { bytes: Uint8Array; ends: Uint32Array };   // to decode tokens: token v is bytes[ends[v - 1] .. ends[v])
  prompt: string;
  shape: { n_layer: number; n_head: number; n_embd: number };
}

type Ort = typeof import('onnxruntime-web/wasm');

const argmax = (row: Float32Array): number => {
  let best = 0;
  for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;   // ties: the lower id, as the core
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
    const tokens: number[] = [];
    let next = argmax(logits.subarray((T - 1) * V, T * V));
    while (tokens.length < c.continuation.length) {
      tokens.push(next);
      if (tokens.length === c.continuation.length) break;
      out = await session.run(feeds(ort, [next], T + tokens.length - 1, c.shape, out));
      next = argmax(out.logits.data as Float32Array);
    }
    const firstDifference = tokens.findIndex((id, i) => id !== c.continuation[i]);
    const text = (ids: ArrayLike<number>) => {
      const { bytes, ends } = c.tokenBytes;
      const parts = Array.from(ids, (v) => bytes.subarray(v ? ends[v - 1] : 0, ends[v]));
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) all.set(p, at), at += p.length;
      return new TextDecoder().decode(all);
    };
    return { prompt: c.prompt, core: text(c.continuation), onnx: text(tokens), tokens: tokens.length, firstDifference, maxDiff };
  } finally {
    await session.release();
  }
}
