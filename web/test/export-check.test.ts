// "Check in ONNX Runtime" (features/export) for a BPE run: the worker's exportCheck gives the prompt
// in the run's tokens and every token's bytes; ort-check's runCheck runs the ONNX export in
// onnxruntime-web, continues the prompt greedily with past keys/values and decodes both
// continuations with the run's tokenizer: the same tokens and text as tinygpt's, the prompt's logits
// within 1e-4. (The page's end-to-end test checks a byte model the same way in Chromium.)
import { expect, it } from 'vitest';

import { runCheck } from '../src/features/export/ort-check';
import { exportWorker } from '../src/features/export/worker';
import { loadScalar, shakespeare } from './wasm';

it('checks a BPE model in ONNX Runtime in its own tokens', async () => {
  const M = await loadScalar();
  const text = shakespeare().subarray(0, 100_000);
  const tok = M.trainTokenizer(text, 300, null)!;
  const s = new M.Session({ model: 'gpt', tie_weights: 1, tokenizer: 'bpe', vocab_size: 300, n_layer: 1, n_head: 2, n_embd: 32, block_size: 32,
    batch_size: 8, max_iters: 60, warmup_iters: 2, learning_rate: 3e-3, eval_interval: 0, eval_iters: 1, seed: 3 });
  s.setTokenizer(tok);
  s.setCorpus(text);
  s.advance(60, 0);
  const prompt = new TextEncoder().encode('ROMEO:\nWhat ');
  type ExportCheck = (msg: { prompt: Uint8Array; tokens: number }, ctx: unknown) => Promise<Omit<Parameters<typeof runCheck>[0], 'prompt' | 'shape'>>;
  const exportCheck = exportWorker().handlers?.exportCheck as unknown as ExportCheck;
  const w = await exportCheck({ prompt, tokens: 12 }, { state: { M, session: s } });
  expect(Array.from(w.ids)).toEqual(Array.from(tok.encode(prompt)));
  expect(w.ids.length).toBeLessThan(prompt.length);   // merged tokens
  expect(w.vocab).toBe(300);
  expect(w.tokenBytes.ends[299]).toBe(w.tokenBytes.bytes.length);
  const c = await runCheck({ ...w, prompt: 'ROMEO:\nWhat ', shape: s.config() });
  const ours = s.generate(prompt, 12, { temperature: 0 });
  expect(c.tokens).toBe(12);
  expect(c.firstDifference).toBe(-1);
  expect(c.core).toBe(new TextDecoder().decode(ours.bytes));
  expect(c.onnx).toBe(c.core);
  expect(c.maxDiff).toBeLessThan(1e-4);
  s.delete();
  tok.delete();
}, 120_000);
