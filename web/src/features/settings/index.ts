// settings — the run's configuration: the model kind (the mode: a language model or a
// translator), presets and every knob of the core's config schema, and the core's verdict on the
// combination before anything starts. With a live model only the schema's `run` fields change
// (features/train sends them).
import { map, type MapStore, patch, watch } from '../../app/store';
import type { Port } from '../../lib/wire';
import type { Ready, Runtime } from '../runtime';
import type { Session } from '../session';
import type { SettingsCalls, Verdict } from './messages';
import { bindArchitecture } from './architecture';
import { bindModeSwitch } from './mode-switch';
import { bindTokenizerChoice } from './tokenizer-choice';
import { SettingsPanel } from './panel';
import { KINDS_OF, modeOf } from '../../lib/model-kind';
import { type FieldSpec, type FullConfig, type Key, type Mode, type ModelKind, knobsFor, normalise, presetForKind, presetOf, presetsFor } from './schema';
import { corpusLengthError, settingsOk, type SettingsSlice } from './state';

export { checkCorpusLength, fieldText, normalise, presetForKind, presetText } from './schema';
export { corpusLengthError, settingsOk };
export type { FieldSpec, FullConfig, Key, Mode, ModelKind, SettingsSlice, Verdict };

/** The preset a mode starts at (the form remembers what was chosen per mode after that). The language
 *  model starts at "fast": S's shape on a BPE vocabulary with a schedule of about a minute (bench:page's
 *  time to quality); S, nanoGPT's setting, is one click away. */
const MODE_PRESET: Record<Mode, string> = { gpt: 'fast', seq2seq: 's2s-small' };

export interface Settings {
  readonly $: MapStore<SettingsSlice>;
  /** The form changed (null: a field is unusable). */
  setSettings(settings: FullConfig | null): void;
  /** Rewrites the form with `config` (a shared link's, the carried-over settings) and takes it. */
  setForm(config: FullConfig): void;
  /** Switches between the language model and the translator (no model yet: Reset first, or load one). */
  setMode(mode: Mode): void;
  /** Chooses the architecture within the mode (Transformer, LSTM, GRU, RNN): the form takes its preset. */
  setKind(kind: ModelKind): void;
  /** `fn` hears of a switch the person made (features/data brings the mode's data). */
  onModeSwitched(fn: (mode: Mode) => void): void;
  /** `fn` hears of a preset chosen with the keyboard (the page moves the focus on to Start). */
  onKeyboardPick(fn: () => void): void;
  /** Asks the core again (the worker's pairs changed: it reads them at the form's block_size). */
  revalidate(): void;
  /** The size of the mode's text (null: none, or pairs): a text must hold one window of context. */
  setTextSize(size: number | null): void;
  mount(formSlot: HTMLElement, modeSlot: HTMLElement): void;
}

// the knobs and presets come from the core's schema; the form starts at the mode's preset (or at
// what the page before the service worker's reload had chosen: features/offline)
function onReady($: MapStore<SettingsSlice>, port: Port<SettingsCalls, object>, session: Session, m: Ready, validate: () => void): void {
  const s = $.get();
  const model = session.$.get().model;
  const initial = normalise(m.schema, model?.config ?? s.formSettings ?? m.presets.find((p) => p.name === MODE_PRESET[s.mode])?.config ?? m.presets[0].config);
  patch($, { schema: m.schema, presets: m.presets, formSettings: initial, settings: model ? s.settings : initial, mode: modeOf(initial.model) });
  for (const p of m.presets) {
    port.call('validate', { config: p.config }).then((v) => patch($, { presetVerdicts: { ...$.get().presetVerdicts, [p.name]: v } }), () => undefined);
  }
  validate();
}

/** The form of architecture `kind` in the mode: the preset of its size next to the form's (null: no change). */
function formForKind(s: SettingsSlice, kind: ModelKind): FullConfig | null {
  const form = s.settings ?? s.formSettings;
  if (!form || form.model === kind || !KINDS_OF[s.mode].includes(kind)) return null;
  const preset = presetForKind(s.presets, kind, presetOf(knobsFor(s.schema, form.model), presetsFor(s.presets, form.model), form));
  return preset ? normalise(s.schema, preset.config) : null;
}

export function createSettings(port: Port<SettingsCalls, object>, runtime: Runtime, session: Session): Settings {
  const $ = map<SettingsSlice>({
    mode: 'gpt', schema: [], presets: [], settings: null, formSettings: null, verdict: null, validateId: 0, presetVerdicts: {}, textSize: null,
  });
  const formByMode: Partial<Record<Mode, FullConfig | null>> = {};   // the form each mode had when it was left
  const switched: ((mode: Mode) => void)[] = [];
  const keyboardPicks: (() => void)[] = [];

  const validate = () => {
    const s = $.get();
    if (!runtime.$.get().ready || !s.settings || session.$.get().model) return;
    const id = s.validateId + 1;
    patch($, { validateId: id });
    port.call('validate', { config: s.settings }).then((v) => {
      if (id === $.get().validateId) patch($, { verdict: { ...v, id } });
    }, () => undefined);   // the failure is on the page's error list; the form waits for the next change
  };
  const setSettings = (settings: FullConfig | null) => {
    if (session.$.get().model) {
      // run fields of a live model: features/train sends them (it watches `settings`)
      if (settings) patch($, { settings });
      return;
    }
    patch($, { settings, verdict: null });
    validate();
  };

  watch(runtime.$, ['ready'], ({ ready }) => void (ready && onReady($, port, session, ready, validate)));
  // a model's settings are the form's; a model of the other kind switches the mode
  watch(session.$, ['lastModel'], ({ lastModel }) => {
    if (!lastModel) return;
    const s = $.get();
    const settings = normalise(s.schema, lastModel.info.config);
    const mode = modeOf(settings.model);
    if (mode !== s.mode) formByMode[s.mode] = s.settings ?? s.formSettings;
    patch($, { mode, settings, formSettings: settings });
  });
  watch(session.$, ['model'], ({ model }) => {
    if (!model) setSettings($.get().settings);   // no model any more: the form's verdict again
  });

  return {
    $,
    setSettings,
    setForm(config) {
      const settings = normalise($.get().schema, config);
      patch($, { formSettings: settings, mode: modeOf(settings.model) });
      setSettings(settings);
    },
    setMode(mode) {
      const s = $.get();
      if (mode === s.mode || session.$.get().model || session.$.get().creating || session.$.get().loading || !runtime.$.get().ready) return;
      formByMode[s.mode] = s.settings ?? s.formSettings;
      const preset = s.presets.find((p) => p.name === MODE_PRESET[mode]) ?? s.presets.find((p) => modeOf(p.config.model) === mode);
      const form = formByMode[mode] ?? (preset ? normalise(s.schema, preset.config) : null);
      if (!form) return;
      patch($, { mode, formSettings: form, settings: form, verdict: null });
      validate();
      for (const fn of switched) fn(mode);
    },
    setKind(kind) {
      const next = session.$.get().model || session.$.get().creating ? null : formForKind($.get(), kind);
      if (!next) return;
      patch($, { formSettings: next, settings: next, verdict: null });
      validate();
    },
    onModeSwitched: (fn) => void switched.push(fn),
    onKeyboardPick: (fn) => void keyboardPicks.push(fn),
    revalidate: validate,
    setTextSize: (textSize) => patch($, { textSize }),
    mount(formSlot, modeSlot) {
      const panel = new SettingsPanel($, session.$, setSettings, () => keyboardPicks.forEach((fn) => fn()));
      formSlot.append(panel.el);
      bindArchitecture(panel.archSlot, $, session.$, (kind) => this.setKind(kind));
      bindTokenizerChoice(panel.archSlot, $, session.$, (form) => this.setForm(form));
      bindModeSwitch(modeSlot, $, runtime.$, session.$, (mode) => this.setMode(mode));
    },
  };
}
