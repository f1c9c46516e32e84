import { MessageChannel } from 'node:worker_threads';

import { describe, expect, it } from 'vitest';

import { type FromWorker, type ToWorker, isToWorker, post, transferables } from '../src/protocol';

describe('protocol', () => {
  it('lists the buffers of every message that carries bytes, once each', () => {
    const buf = new ArrayBuffer(8);
    const cases: Array<[ToWorker | FromWorker, number]> = [
      [{ type: 'setCorpus', bytes: buf, name: 'x' }, 1],
      [{ type: 'load', bytes: buf, reason: 'file', name: 'x' }, 1],
      [{ type: 'loadSafetensors', bytes: new ArrayBuffer(8), name: 'model.safetensors' }, 1],
      [{ type: 'generate', id: 1, prompt: buf, length: 3, options: {} }, 1],
      [{ type: 'inspect', id: 1, text: buf }, 1],
      [{ type: 'inspect', id: 1, text: null, corpusOffset: 5 }, 0],
      [{ type: 'checkpoint', reason: 'download', step: 3, bytes: buf }, 1],
      [{ type: 'progress', step: 3, losses: new Float32Array(3), tokensPerSec: 1, lr: 1, gradNorm: 1, etaSeconds: 1, memoryBytes: 1 }, 1],
      [{ type: 'sampleChunk', id: 1, bytes: new Uint8Array(2), probs: new Float32Array(2), topBytes: new Uint8Array(10), topProbs: new Float32Array(10), done: false, step: 0 }, 4],
      [{ type: 'inspection', id: 1, step: 0, bytes: new Uint8Array(2), T: 2, L: 1, NH: 1, attention: new Float32Array(4), probs: new Float32Array(512) }, 3],
      [{ type: 'pause' }, 0],
      [{ type: 'evalResult', step: 1, loss: 2 }, 0],
      [{ type: 'backend', backend: 'webgpu', adapter: 'nvidia hopper', reason: '', forced: false }, 0],
      [{ type: 'backend', backend: 'wasm', adapter: 'nvidia hopper', reason: 'lost', forced: false, fallback: { kind: 'device-lost', message: 'lost', step: 2, lostSteps: 1,
        history: { train: new Float32Array(2), valSteps: new Float64Array(1), valLosses: new Float32Array(1) } } }, 3],
      [{ type: 'evalResult', step: 1, loss: 2, exactMatch: 0.5, cer: 0.1 }, 0],
      // translation
      [{ type: 'setCorpus', bytes: new ArrayBuffer(4), name: 'p.tsv', kind: 'pairs', blockSize: 9 }, 1],
      [{ type: 'builtinTask', id: 1, name: 'reverse', seed: 1 }, 0],
      [{ type: 'task', id: 1, name: 'reverse', bytes: new Uint8Array(4) }, 1],
      [{ type: 'translate', id: 1, source: new ArrayBuffer(3), options: { beam: 2 } }, 1],
      [{ type: 'inspectTranslation', id: 1, source: new ArrayBuffer(3), target: new ArrayBuffer(3) }, 2],
      [{ type: 'translation', id: 1, step: 2, source: new Uint8Array(3), text: new Uint8Array(3), probs: new Float32Array(4), logProb: -1, finished: true, beam: 1 }, 3],
      [{ type: 'translationInspection', id: 1, step: 2, S: 1, T: 2, Le: 1, Ld: 1, NH: 1, src: new Int32Array(1), tgtIn: new Int32Array(2),
        encSelf: new Float32Array(1), decSelf: new Float32Array(4), cross: new Float32Array(2), probs: new Float32Array(2 * 259) }, 6],
      [{ type: 'model', reason: 'load', config: {} as never, parameters: 1, step: 1, corpusMatches: true, memoryBytes: 1, hasCorpus: true,
        history: { train: new Float32Array(1), valSteps: new Float64Array(1), valLosses: new Float32Array(1), valExactMatch: new Float32Array(1), valCer: new Float32Array(1) } }, 5],
    ];
    for (const [msg, n] of cases) expect(transferables(msg), msg.type).toHaveLength(n);
    // two views of one buffer: listed once
    const shared = new ArrayBuffer(16);
    const m: FromWorker = { type: 'sampleChunk', id: 1, bytes: new Uint8Array(shared, 0, 4), probs: new Float32Array(shared, 4, 1), topBytes: new Uint8Array(0), topProbs: new Float32Array(0), done: true, step: 0 };
    expect(transferables(m).filter((b) => b === shared)).toHaveLength(1);
  });

  it('transfers (detaches) the buffers instead of copying them', async () => {
    const { port1, port2 } = new MessageChannel();
    const bytes = new TextEncoder().encode('hello corpus');
    const received = new Promise<ToWorker>((resolve) => {
      port2.once('message', (m: ToWorker) => resolve(m));
    });
    post(port1 as unknown as { postMessage(m: unknown, t: Transferable[]): void }, { type: 'setCorpus', bytes: bytes.buffer, name: 'a.txt' });
    expect(bytes.buffer.byteLength).toBe(0);       // detached on this side
    const got = await received;
    expect(got.type).toBe('setCorpus');
    if (got.type === 'setCorpus') expect(new TextDecoder().decode(got.bytes)).toBe('hello corpus');
    port1.close();
    port2.close();
  });

  it('recognises its own messages only', () => {
    expect(isToWorker({ type: 'pause' })).toBe(true);
    expect(isToWorker({ type: 'start', stopAt: -1 })).toBe(true);
    expect(isToWorker({ type: 'update', name: 'eval_interval', value: 10 })).toBe(true);
    expect(isToWorker({ type: 'loadSafetensors', bytes: new ArrayBuffer(0), name: 'm.safetensors' })).toBe(true);
    expect(isToWorker({ type: 'translate', id: 1, source: new ArrayBuffer(0), options: {} })).toBe(true);
    expect(isToWorker({ type: 'inspectTranslation', id: 1, source: new ArrayBuffer(0), target: new ArrayBuffer(0) })).toBe(true);
    expect(isToWorker({ type: 'builtinTask', id: 1, name: 'zh-en', seed: 1 })).toBe(true);
    expect(isToWorker({ type: 'translation' })).toBe(false);  // worker → page
    expect(isToWorker({ type: 'progress' })).toBe(false);   // worker → page
    expect(isToWorker({ type: 'bogus' })).toBe(false);
    expect(isToWorker('pause')).toBe(false);
    expect(isToWorker(null)).toBe(false);
  });
});
