// messages.ts — looking inside: the attention maps and next-byte distributions of a text (the
// language model), and the translator's three kinds of attention for a source and a target.
import type { TranslationInspection } from '../../../../wasm/tinygpt';

export interface Inspection {
  step: number;
  bytes: Uint8Array;        // the T bytes inspected (the last `context` bytes of the text)
  T: number;
  L: number;
  NH: number;
  attention: Float32Array;  // (L, NH, T, T): rows sum to 1, zero above the diagonal
  probs: Float32Array;      // (T, 256): p(next byte | bytes 0..t)
}

/** The seq2seq model reading a source and a target (Session.inspectTranslation). Tokens: bytes, 256 BOS, 257 EOS. */
export interface Alignment extends TranslationInspection {
  step: number;             // the model step
}

export interface InspectCalls {
  /** A text (transferred), or a slice of the worker's data at `corpusOffset`. */
  inspect(msg: { text: ArrayBuffer | null; corpusOffset?: number }): Inspection;
  /** The translator reading a source and a target (transferred). */
  inspectTranslation(msg: { source: ArrayBuffer; target: ArrayBuffer }): Alignment;
}
