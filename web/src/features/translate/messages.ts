// messages.ts — translating with the seq2seq model.
import type { Translation as CoreTranslation, TranslateOptions } from '../../../../wasm/tinygpt';

export type { TranslateOptions };

/** A translation by the seq2seq model (Session.translate: its text, probabilities, log p, whether it ended). */
export interface Translation extends Omit<CoreTranslation, 'score'> {
  step: number;             // the model step that translated
  source: Uint8Array;
  beam: number;
}

export interface TranslateCalls {
  /** Translates a source (transferred). */
  translate(msg: { source: ArrayBuffer; options: TranslateOptions }): Translation;
}
