// messages.ts — translating with the seq2seq model.
import type { Translation as CoreTranslation, TranslateOptions } from '../../../../wasm/tinygpt';

export type { TranslateOptions };

/** A translation by the seq2seq model (Session.translate: its text, probabilities, log p, whether it ended). */
export interface Translation extends Omit<CoreTranslation, 'score'> {
  step: number;             // the model step that translated
  source: Uint8Array;
  beam: number;
  where: TranslationWhere;  // where it ran and how long it took
}

/** Where a translation ran: 'cpu' the model is on the CPU; on WebGPU, 'gpu' its decoder or 'host' the CPU
 *  with the GPU's weights (brought back first in syncMs when the GPU had stepped since: null otherwise). */
export interface TranslationWhere {
  route: 'cpu' | 'gpu' | 'host';
  ms: number;
  syncMs: number | null;
  why?: 'measure' | 'faster';   // on WebGPU: the route was being measured, or measured the faster (route.ts)
}

export interface TranslateCalls {
  /** Translates a source (transferred). */
  translate(msg: { source: ArrayBuffer; options: TranslateOptions }): Translation;
}
