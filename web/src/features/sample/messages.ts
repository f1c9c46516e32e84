// messages.ts — sampling: a prompt continued, streamed in chunks.
import type { Generated, SampleOptions } from '../../../../wasm/tinygpt';

export type { SampleOptions };

/** A chunk of a generation: the module's Generated (tokens, their bytes, probabilities, the top 5 at each). */
export interface SampleChunk extends Generated {
  id: number;
  done: boolean;
  step: number;             // the model step that generated it
  /** A BPE model's: each token's text and its alternatives' (Tokenizer.tokenText); absent for bytes. */
  labels?: string[];
  topLabels?: string[];     // (n, 5)
}

export interface SampleCalls {
  /** Streams `length` tokens (bytes, or a BPE model's tokens) after `prompt` (transferred) in chunks (sampleChunk events). */
  generate(msg: { id: number; prompt: ArrayBuffer; length: number; options: SampleOptions }): void;
  stopGeneration(msg: { id: number }): void;
}

export interface SampleEvents {
  sampleChunk: SampleChunk;
}
