// messages.ts — sampling: a prompt continued, streamed in chunks.
import type { Generated, SampleOptions } from '../../../../wasm/tinygpt';

export type { SampleOptions };

/** A chunk of a generation: the module's Generated (bytes, their probabilities, the top 5 at each). */
export interface SampleChunk extends Generated {
  id: number;
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
