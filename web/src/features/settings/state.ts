// state.ts (settings) — the form built from the core's schema, and the core's verdict on it.
import type { Preset } from '../../../../wasm/tinygpt';
import type { FieldSpec, FullConfig, Mode } from './schema';
import { checkCorpusLength } from './schema';
import type { Verdict } from './messages';

export interface SettingsSlice {
  mode: Mode;                             // what is trained: a language model or a translator (the family of the config's `model`)
  schema: FieldSpec[];                    // configSchema(), sent with 'ready'
  presets: Preset[];                      // presets(), the same as the CLI's --preset
  settings: FullConfig | null;            // null: a field is unusable, or no schema yet
  formSettings: FullConfig | null;        // rewrites the form when replaced (a preset, a model's or a checkpoint's settings)
  verdict: (Verdict & { id: number }) | null;
  validateId: number;
  presetVerdicts: Record<string, Verdict>;
  textSize: number | null;                // the size of the mode's text (features/data says; null: none, or pairs)
}

/** Why the text can't hold one window of the settings' context ('' when it can). Pairs: the core checks them. */
export function corpusLengthError(s: Pick<SettingsSlice, 'settings' | 'textSize'>): string {
  return s.settings ? checkCorpusLength(s.settings, s.textSize) : '';
}

/** The core accepted the current form, for the current text. */
export function settingsOk(s: Pick<SettingsSlice, 'settings' | 'verdict' | 'validateId' | 'textSize'>): boolean {
  return !!s.settings && !!s.verdict && s.verdict.id === s.validateId && !s.verdict.problems.length && !corpusLengthError(s);
}
