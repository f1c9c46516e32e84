// messages.ts — translating with the seq2seq model.
import type { TranslateOptions } from '../../../../wasm/tinygpt';

export type { TranslateOptions };

/** A translation by the seq2seq model (Session.translate). */
export interface Translation {
  step: number;             // the model step that translated
  source: Uint8Array;
  text: Uint8Array;         // UTF-8 bytes, without EOS
  probs: Float32Array;      // p of each output byte, then of EOS if finished
  logProb: number;
  finished: boolean;        // ended with EOS (false: stopped at the length limit)
  beam: number;
}

export interface TranslateCalls {
  /** Translates a source (transferred). */
  translate(msg: { source: ArrayBuffer; options: TranslateOptions }): Translation;
}
