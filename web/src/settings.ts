// settings.ts — presets and the knobs of a run, parsed from the form. Cross-field rules
// (width divisible by heads, memory limit, ...) are the core's: the worker asks
// `validateConfig` and the page shows its message as is. Only what the core can't see
// (a field that is not a number at all, the corpus length) is checked here.
import type { ModelSettings } from './protocol';

export interface UiSettings extends ModelSettings {
  evalEvery: number;   // validation every N steps (0 = only when asked)
}

export type PresetName = 'tiny' | 'small' | 'medium';

export const PRESETS: Record<PresetName, UiSettings> = {
  // trains in seconds: for a first look and for tests
  tiny: { layers: 2, heads: 2, width: 64, context: 32, batch: 8, lr: 3e-3, warmup: 20, steps: 500, weightDecay: 0.1, seed: 1337, evalEvery: 50 },
  // config "S", nanoGPT's CPU shakespeare_char setting (val loss about 1.88 after 2000 steps)
  small: { layers: 4, heads: 4, width: 128, context: 64, batch: 12, lr: 1e-3, warmup: 100, steps: 2000, weightDecay: 0.1, seed: 1337, evalEvery: 100 },
  // several times slower per step: for a machine with threads and some patience
  medium: { layers: 6, heads: 6, width: 192, context: 128, batch: 16, lr: 6e-4, warmup: 200, steps: 4000, weightDecay: 0.1, seed: 1337, evalEvery: 200 },
};

export const PRESET_BLURB: Record<PresetName, string> = {
  tiny: 'Learns letter pairs in seconds.',
  small: 'Config S: words and names in a few minutes.',
  medium: 'Longer context and more capacity; slow without threads.',
};

export type Key = keyof UiSettings;

export interface KnobSpec {
  key: Key;
  label: string;
  group: 'model' | 'training';
  integer: boolean;
  min: number;          // the smallest value the form accepts (the core checks the rest)
  step: number | 'any';
  help: string;
}

export const KNOBS: KnobSpec[] = [
  { key: 'layers', label: 'Layers', group: 'model', integer: true, min: 1, step: 1, help: 'Transformer blocks stacked on each other.' },
  { key: 'heads', label: 'Heads', group: 'model', integer: true, min: 1, step: 1, help: 'Attention heads per layer; the width is split between them.' },
  { key: 'width', label: 'Width', group: 'model', integer: true, min: 1, step: 8, help: 'Size of each byte\'s vector (n_embd).' },
  { key: 'context', label: 'Context', group: 'model', integer: true, min: 1, step: 8, help: 'How many previous bytes the model sees.' },
  { key: 'batch', label: 'Batch', group: 'training', integer: true, min: 1, step: 1, help: 'Windows of text per step.' },
  { key: 'lr', label: 'Learning rate', group: 'training', integer: false, min: 0, step: 'any', help: 'Peak step size of AdamW (cosine decay to a tenth).' },
  { key: 'warmup', label: 'Warmup', group: 'training', integer: true, min: 0, step: 10, help: 'Steps of linear ramp-up of the learning rate.' },
  { key: 'steps', label: 'Steps', group: 'training', integer: true, min: 1, step: 100, help: 'Length of the run (the learning-rate schedule).' },
  { key: 'weightDecay', label: 'Weight decay', group: 'training', integer: false, min: 0, step: 'any', help: 'Pulls weights towards zero (AdamW).' },
  { key: 'seed', label: 'Seed', group: 'training', integer: true, min: 0, step: 1, help: 'Random start and order of the data: same seed, same run.' },
  { key: 'evalEvery', label: 'Validate every', group: 'training', integer: true, min: 0, step: 10, help: 'Steps between validation losses (0: only on demand).' },
];

export interface Parsed {
  settings: UiSettings | null;
  errors: Partial<Record<Key, string>>;
}

/** Parses raw form values (strings) into settings, with a message per field that is not usable. */
export function parseSettings(raw: Partial<Record<Key, string>>): Parsed {
  const errors: Partial<Record<Key, string>> = {};
  const out: Partial<UiSettings> = {};
  for (const k of KNOBS) {
    const text = (raw[k.key] ?? '').trim();
    if (text === '') {
      errors[k.key] = `${k.label} is empty`;
      continue;
    }
    const v = Number(text);
    if (!Number.isFinite(v)) {
      errors[k.key] = `${k.label} must be a number`;
      continue;
    }
    if (k.integer && !Number.isInteger(v)) {
      errors[k.key] = `${k.label} must be a whole number`;
      continue;
    }
    if (v < k.min) {
      errors[k.key] = `${k.label} must be at least ${k.min}`;
      continue;
    }
    if (k.key === 'lr' && v === 0) {
      errors[k.key] = 'Learning rate must be above 0';
      continue;
    }
    out[k.key] = v;
  }
  return { settings: Object.keys(errors).length ? null : (out as UiSettings), errors };
}

/** Which preset these settings are, if any. */
export function presetOf(s: UiSettings): PresetName | 'custom' {
  for (const name of Object.keys(PRESETS) as PresetName[]) {
    const p = PRESETS[name];
    if (KNOBS.every((k) => p[k.key] === s[k.key])) return name;
  }
  return 'custom';
}

/** The corpus must hold at least one training window. */
export function checkCorpusLength(s: Pick<UiSettings, 'context'>, corpusSize: number | null): string {
  if (corpusSize === null) return '';
  if (corpusSize < s.context + 1)
    return `the corpus has ${corpusSize} bytes, fewer than context + 1 = ${s.context + 1}: use a longer text or a shorter context`;
  return '';
}

/** Settings as form strings. */
export function toFormValues(s: UiSettings): Record<Key, string> {
  const r = {} as Record<Key, string>;
  for (const k of KNOBS) r[k.key] = String(s[k.key]);
  return r;
}

/**
 * The core keeps lr and weight decay as float32, so 3e-3 comes back as 0.003000000026...;
 * six significant digits give the number a person typed.
 */
export function normalise<T extends ModelSettings>(s: T): T {
  const r = { ...s };
  for (const k of KNOBS) {
    const key = k.key as keyof T;
    const v = r[key];
    if (!k.integer && typeof v === 'number') (r[key] as number) = Number(v.toPrecision(6));
  }
  return r;
}

export function sameModel(a: ModelSettings, b: ModelSettings): boolean {
  return (['layers', 'heads', 'width', 'context', 'batch', 'lr', 'warmup', 'steps', 'weightDecay', 'seed'] as const)
    .every((k) => Math.abs(a[k] - b[k]) <= 1e-7 * Math.max(1, Math.abs(a[k])));
}
