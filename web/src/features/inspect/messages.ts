// messages.ts — looking inside: the attention maps and next-byte distributions of a text (the
// language model), and the translator's three kinds of attention for a source and a target.
import type { Inspection as CoreInspection, TranslationInspection } from '../../../../wasm/tinygpt';

/** The module's inspection (attention (L, NH, T, T), next-token probabilities (T, V)) of these tokens. */
export interface Inspection extends CoreInspection {
  step: number;
  bytes: Uint8Array;        // a byte model: the T bytes inspected (the last `context` bytes of the text); a BPE model: the text's tail
  /** A BPE model's: the five likeliest next tokens after each position (T, 5) and their texts (absent for bytes). */
  top?: Int32Array;
  topLabels?: string[];
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
