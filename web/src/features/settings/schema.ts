// schema.ts — the knobs of a run, as the core's config schema describes them.
//
// The page declares no knob of its own: the worker sends the schema (`configSchema()`: name, type,
// default, range, group, label, help of every field) and the presets (`presets()`) when the module
// is ready, and the settings panel is built from them. Ranges and the rules between fields are the
// core's (`checkConfig`); the page only parses the form (a field that is not a number at all) and
// checks what the core can't see (the corpus length).
import type { FieldSpec, FullConfig, Preset } from '../../../../wasm/tinygpt';
import { type Messages, t } from '../../i18n';
import type { Mode, ModelKind } from '../session/messages';

export type { FieldSpec, FullConfig, Mode, ModelKind, Preset };
export type Key = keyof FullConfig;

/**
 * A field's label and help in the page's language: the catalogue's (settings.fields, by name),
 * else the core's English (`known` false: shown marked as such). web/test/core-text.test.ts
 * checks that the catalogue's English is the core's.
 */
export function fieldText(f: { name: string; label: string; help: string }, m: Messages = t()): { label: string; help: string; known: boolean } {
  const w = Object.hasOwn(m.settings.fields, f.name) ? m.settings.fields[f.name] : undefined;
  return w ? { ...w, known: true } : { label: f.label, help: f.help, known: false };
}

/** A preset's label and blurb in the page's language (settings.presets, by name), else the core's English. */
export function presetText(p: { name: string; label: string; blurb: string }, m: Messages = t()): { label: string; blurb: string; known: boolean } {
  const w = Object.hasOwn(m.settings.presets, p.name) ? m.settings.presets[p.name] : undefined;
  return w ? { ...w, known: true } : { label: p.label, blurb: p.blurb, known: false };
}

/** The fields the form shows for a model kind, in the schema's order (the kind itself is a mode, not a knob). */
export function knobsFor(schema: FieldSpec[], kind: string): FieldSpec[] {
  return schema.filter((f) => f.type !== 'choice' && f.kinds.includes(kind));
}

/** The presets of a model kind (the config's `model`: 'gpt', 'lstm', 'seq2seq', ...). */
export function presetsFor(presets: Preset[], kind: string): Preset[] {
  return presets.filter((p) => p.config.model === kind);
}

/**
 * The preset an architecture starts at when it is chosen: the one of the same size as the form's
 * (S -> lstm-S, tiny -> gru-tiny, ...), else the kind's first.
 */
export function presetForKind(presets: Preset[], kind: ModelKind, from: string): Preset | undefined {
  const size = /tiny/.test(from) ? 'tiny' : 'S';
  const mine = presets.filter((p) => p.config.model === kind);
  return mine.find((p) => p.name === (kind === 'gpt' ? size : `${kind}-${size}`)) ?? mine[0];
}

/** An input's step: integers by 1, reals free. */
export function inputStep(f: FieldSpec): string {
  return f.type === 'integer' ? '1' : 'any';
}

export interface Parsed {
  settings: FullConfig | null;
  errors: Partial<Record<Key, string>>;
}

/** Parses raw form values (strings) over a base config, with a message per field that is not a number (in the page's language). */
export function parseSettings(knobs: FieldSpec[], base: FullConfig, raw: Partial<Record<Key, string>>): Parsed {
  const errors: Partial<Record<Key, string>> = {};
  const out: Record<string, unknown> = { ...base };
  const m = t();
  for (const k of knobs) {
    const text = (raw[k.name] ?? '').trim();
    if (text === '') {
      errors[k.name] = m.settings.isEmpty(fieldText(k, m).label);
      continue;
    }
    const v = Number(text);
    if (!Number.isFinite(v)) {
      errors[k.name] = m.settings.notNumber(fieldText(k, m).label);
      continue;
    }
    out[k.name] = v;
  }
  return { settings: Object.keys(errors).length ? null : (out as unknown as FullConfig), errors };
}

/** The core keeps reals as float32, so 3e-3 comes back as 0.003000000026...; six digits give what a person typed. */
export function normalise(schema: FieldSpec[], c: FullConfig): FullConfig {
  const r: Record<string, unknown> = { ...c };
  for (const f of schema) if (f.type === 'real') r[f.name] = Number((c[f.name] as number).toPrecision(6));
  return r as unknown as FullConfig;
}

/** Whether choosing preset `p` over the form `current` keeps the form's tokenizer: yes when `p` reads
 *  bytes (most presets set the model's size and schedule only) and the form's tokenizer is not the
 *  vocabulary of a preset that has one (fast's BPE 4,096 goes when another preset is chosen). */
export function keepsTokenizer(presets: Preset[], p: Preset, current: FullConfig): boolean {
  if (p.config.tokenizer !== 'bytes') return false;
  return !presets.some((q) => q.config.tokenizer !== 'bytes' && q.config.tokenizer === current.tokenizer && q.config.vocab_size === current.vocab_size);
}

/** Which preset these settings are, if any (over the fields the form shows, the tokenizer's aside: a preset keeps it). */
export function presetOf(knobs: FieldSpec[], presets: Preset[], s: FullConfig): string {
  const shape = knobs.filter((k) => k.name !== 'vocab_size');
  for (const p of presets) if (shape.every((k) => sameValue(p.config[k.name], s[k.name]))) return p.name;
  return 'custom';
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a));
  return a === b;
}

/** Settings as form strings. */
export function toFormValues(knobs: FieldSpec[], s: FullConfig): Partial<Record<Key, string>> {
  const r: Partial<Record<Key, string>> = {};
  for (const k of knobs) r[k.name] = String(s[k.name]);
  return r;
}

/** The corpus must hold at least one training window ('' when it does; else why not, in the page's language). */
export function checkCorpusLength(s: Pick<FullConfig, 'block_size'>, corpusSize: number | null): string {
  if (corpusSize === null) return '';
  if (corpusSize < s.block_size + 1) return t().settings.corpusTooShort(corpusSize, s.block_size + 1);
  return '';
}
