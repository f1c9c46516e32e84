// messages.ts — sampling: a prompt continued, streamed in chunks.
import type { SampleOptions } from '../../../../wasm/tinygpt';

export type { SampleOptions };

export interface SampleChunk {
  id: number;
  bytes: Uint8Array;
  probs: Float32Array;      // p(byte) under the model (temperature 1)
  topBytes: Uint8Array;     // (n, 5)
  topProbs: Float32Array;   // (n, 5)
  done: boolean;
  step: number;             // the model step that generated it
}

export interface SampleCalls {
  /** Streams `length` bytes after `prompt` (transferred) in chunks (sampleChunk events). */
  generate(msg: { id: number; prompt: ArrayBuffer; length: number; options: SampleOptions }): void;
  stopGeneration(msg: { id: number }): void;
}

export interface SampleEvents {
  sampleChunk: SampleChunk;
}
