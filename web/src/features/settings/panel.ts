// panel.ts (settings) — presets and every knob of a run, built from the core's config schema, with
// the core's own verdict on the combination (parameter count, memory, or what is wrong and where)
// before anything starts.
import { type MapStore, type View, view, watch } from '../../app/store';
import type { Locale } from '../../i18n';
import { formatBytes, formatParams } from '../../lib/format';
import { type Msg, t, tr } from '../../i18n';
import { coreInline, h, panelHeader, setText } from '../../ui';
import type { SessionSlice } from '../session';
import type { Verdict } from './messages';
import {
  type FieldSpec, type FullConfig, type Key, type Preset, fieldText, inputStep, keepsTokenizer, knobsFor, parseSettings, presetOf, presetsFor, presetText, toFormValues,
} from './schema';
import { corpusLengthError, type SettingsSlice } from './state';

type S = SettingsSlice & SessionSlice;

/** The lock of the form: while a model exists its settings are fixed (the `run` group stays editable). */
export function settingsLock(s: Pick<SessionSlice, 'model' | 'creating'>): { locked: boolean; note: Msg | null } {
  if (s.model) return { locked: true, note: (m) => m.settings.locked };
  if (s.creating) return { locked: true, note: (m) => m.settings.creating };
  return { locked: false, note: null };
}

/** The core's English for a name the catalogue does not know, marked as such (a newer core than the page). */
const coreWords = (text: string) => h('span', { translate: 'no', lang: 'en' }, text);

export class SettingsPanel {
  readonly el: HTMLElement;
  /** Where the architecture choice goes (architecture.ts), above the presets. */
  readonly archSlot: HTMLElement = h('div', { class: 'arch-slot' });
  private knobs: FieldSpec[] = [];
  private presets: Preset[] = [];
  private base: FullConfig | null = null;     // fields the form does not show keep these values
  private inputs = new Map<Key, HTMLInputElement>();
  private fieldErrors = new Map<Key, HTMLElement>();
  private presetButtons = new Map<string, HTMLButtonElement>();
  private presetEstimates = new Map<string, HTMLElement>();
  private presetsEl: HTMLElement;
  private groupsEl: HTMLElement;
  private more: HTMLDetailsElement;           // the knobs, behind a disclosure until opened
  private estimate: HTMLElement;
  private error: HTMLElement;
  private lockNote: HTMLElement;
  private explain: HTMLElement;
  private locked = false;

  private schema: FieldSpec[] = [];
  private mode = '';

  /** The knobs are data: the core's configSchema() and presets(), from the store (sent with 'ready'). */
  /** onKeyboardPick: a preset was chosen with the keyboard (the page moves the focus on to Start). */
  constructor(settings: MapStore<SettingsSlice>, session: MapStore<SessionSlice>, private onChange: (settings: FullConfig | null) => void,
    private onKeyboardPick: () => void = () => undefined) {
    this.presetsEl = h('div', { class: 'presets', role: 'group', 'aria-label': tr((m) => m.settings.presetsLabel) });
    this.groupsEl = h('div', { class: 'knob-groups' }, h('p', { class: 'help' }, tr((m) => m.settings.loading)));
    // every knob behind one disclosure: the keyboard path from a preset to Start does not pass them
    this.more = h('details', { id: 'settings-more', class: 'settings-more' },
      h('summary', {}, tr((m) => m.settings.allSettings)), this.groupsEl) as HTMLDetailsElement;
    this.estimate = h('p', { id: 'estimate', class: 'estimate', 'aria-live': 'polite' }, '…');
    this.error = h('p', { id: 'settings-error', class: 'settings-error', role: 'alert', hidden: true });
    this.lockNote = h('p', { class: 'lock-note', hidden: true });
    const header = panelHeader(2, tr((m) => m.settings.title), '');
    this.explain = header.querySelector('.explain')!;
    this.el = h('section', { id: 'settings', class: 'card', 'aria-labelledby': 'settings-title' },
      header, this.archSlot, this.presetsEl, this.estimate, this.error, this.lockNote, this.more);
    this.el.querySelector('h2')!.id = 'settings-title';
    this.subscribe(view(settings, session));
  }

  /** The form, the presets' sizes, the lock and the verdict follow the store. */
  private subscribe(store: View<S & { locale: Locale }>): void {
    // the knobs and presets of the form's model kind (the mode): rebuilt when it changes
    watch(store, ['schema', 'presets', 'formSettings'], (st) => {
      if (!st.formSettings) return;
      if (st.schema !== this.schema || st.formSettings.model !== this.mode) {
        this.schema = st.schema;
        this.mode = st.formSettings.model;
        this.build(st.schema, presetsFor(st.presets, this.mode), st.formSettings);
        for (const [name, v] of Object.entries(st.presetVerdicts)) this.setPresetVerdict(name, v);
      } else this.set(st.formSettings);
    });
    watch(store, ['formSettings', 'locale'], (st) => {
      const m = t().settings;
      const kind = st.formSettings?.model ?? 'gpt';
      setText(this.explain, (m.explain as Record<string, string>)[kind] ?? m.explain.gpt);
    });
    watch(store, ['presetVerdicts', 'locale'], (st) => {
      for (const [name, v] of Object.entries(st.presetVerdicts)) this.setPresetVerdict(name, v);
    });
    watch(store, ['model', 'creating', 'schema', 'locale'], (st) => {
      const { locked, note } = settingsLock(st);
      this.setLocked(locked, note ? note(t()) : '');
    });
    // the form's own messages (a field that is not a number) are worded when it is read: again at a switch
    watch(store, ['locale'], () => {
      if (this.ready && this.inputs.size) this.read();
    });
    watch(store, ['model', 'settings', 'verdict', 'textSize', 'schema', 'locale'], (st) => this.showVerdict(st));
  }

  /** The core's verdict on the form (or the model's size once one exists). */
  private showVerdict(st: S): void {
    if (!this.ready) return;
    if (st.model) this.setVerdict({ problems: [], parameters: st.model.parameters, trainingBytes: st.verdict?.trainingBytes ?? 0 });
    else if (!st.settings) this.setFieldProblem();
    else if (st.verdict) this.setVerdict(st.verdict, corpusLengthError(st));   // while one is asked for, the last one stays
  }

  get ready(): boolean {
    return this.base !== null;
  }

  /** Builds the presets and the knobs from the module's schema; shows `initial`. */
  private build(schema: FieldSpec[], presets: Preset[], initial: FullConfig): void {
    this.knobs = knobsFor(schema, initial.model);
    this.presets = presets;
    this.presetsEl.replaceChildren();
    this.presetButtons.clear();
    this.presetEstimates.clear();
    for (const p of presets) {
      const est = h('span', { class: 'preset-est' }, '…');
      const known = presetText(p).known;
      const b = h('button', { type: 'button', class: 'preset', 'data-preset': p.name, 'aria-pressed': 'false' },
        h('span', { class: 'preset-name' }, known ? tr((m) => presetText(p, m).label) : coreWords(p.label)),
        h('span', { class: 'preset-blurb' }, known ? tr((m) => presetText(p, m).blurb) : coreWords(p.blurb)), est);
      b.addEventListener('click', (e) => {
        if (this.locked) return;
        // a preset sets the model's size and schedule; the tokenizer chosen stays, unless the preset
        // has a vocabulary of its own (fast) or the current one came with such a preset
        this.set(this.base && keepsTokenizer(presets, p, this.base) ? { ...p.config, tokenizer: this.base.tokenizer, vocab_size: this.base.vocab_size } : p.config);
        this.emit();
        if (e.detail === 0) this.onKeyboardPick();   // Enter or Space (a mouse click has detail >= 1)
      });
      this.presetButtons.set(p.name, b);
      this.presetEstimates.set(p.name, est);
      this.presetsEl.append(b);
    }
    this.inputs.clear();
    this.fieldErrors.clear();
    this.groupsEl.replaceChildren();
    for (const group of ['model', 'training', 'run'] as const) {
      const fields = this.knobs.filter((k) => k.group === group);
      if (!fields.length) continue;
      const fs = h('fieldset', { class: 'knobs' }, h('legend', {}, tr((m) => m.settings.groups[group])));
      for (const k of fields) {
        const id = `knob-${k.name}`;
        const input = h('input', {
          id, name: k.name, type: 'number', inputmode: k.type === 'integer' ? 'numeric' : 'decimal', step: inputStep(k),
          'aria-describedby': `${id}-help ${id}-err`, required: true, title: tr((m) => m.settings.knobTitle(k.name, k.range)),
        });
        input.addEventListener('input', () => this.emit());
        const err = h('span', { id: `${id}-err`, class: 'field-error', 'aria-live': 'polite' });
        this.inputs.set(k.name, input);
        this.fieldErrors.set(k.name, err);
        // the catalogue's wording of the core's label and help (by name), else the core's English, marked
        const known = fieldText(k).known;
        fs.append(h('div', { class: 'knob' },
          h('label', { for: id }, known ? tr((m) => fieldText(k, m).label) : coreWords(k.label)), input,
          h('span', { id: `${id}-help`, class: 'help' },
            known ? tr((m) => m.data.sentence(capitalise(fieldText(k, m).help))) : coreWords(`${capitalise(k.help)}.`)), err));
      }
      this.groupsEl.append(fs);
    }
    this.set(initial);
    this.setLocked(this.locked, this.lockNote.textContent ?? '');
  }

  private set(s: FullConfig): void {
    this.base = s;
    const v = toFormValues(this.knobs, s);
    for (const [k, input] of this.inputs) input.value = v[k] ?? '';
    this.markPreset();
  }

  /** The current form as settings (null if a field is unusable; messages are shown per field). */
  read(): FullConfig | null {
    if (!this.base) return null;
    const { settings, errors } = this.parse();
    for (const [k, el] of this.fieldErrors) {
      setText(el, errors[k] ?? '');
      this.inputs.get(k)!.setAttribute('aria-invalid', errors[k] ? 'true' : 'false');
    }
    return settings;
  }

  private parse() {
    const raw: Partial<Record<Key, string>> = {};
    for (const [k, input] of this.inputs) raw[k] = input.value;
    return parseSettings(this.knobs, this.base!, raw);
  }

  private emit(): void {
    this.markPreset();
    this.onChange(this.read());
  }

  private markPreset(): void {
    const s = this.parse().settings;
    const p = s ? presetOf(this.knobs, this.presets, s) : 'custom';
    for (const [name, b] of this.presetButtons) b.setAttribute('aria-pressed', String(name === p));
    this.el.dataset.preset = p;
  }

  private setPresetVerdict(name: string, v: Verdict): void {
    const el = this.presetEstimates.get(name);
    const m = t().settings;
    if (el) setText(el, v.problems.length ? m.notPossible : m.presetEstimate(formatParams(v.parameters), formatBytes(v.trainingBytes)));
  }

  /** The core's verdict on the current settings (and the page's corpus-length check). */
  private setVerdict(v: Verdict | null, extraError = ''): void {
    if (!v) {
      setText(this.estimate, '…');
      this.error.hidden = true;
      return;
    }
    if (v.parameters > 0) setText(this.estimate, t().settings.estimate(formatParams(v.parameters), formatBytes(v.trainingBytes)), v.parameters);
    else setText(this.estimate, '');
    // each problem next to its field, and the first one above the form: the core's words (coreInline)
    for (const [k, el] of this.fieldErrors) {
      const p = v.problems.find((x) => x.field === k);
      if (p) el.replaceChildren(coreInline(capitalise(p.message), p));
      this.inputs.get(k)!.setAttribute('aria-invalid', p ? 'true' : 'false');
      if (p) this.more.open = true;   // the field and its message, shown
    }
    const first = v.problems.find((p) => p.message);
    this.error.hidden = !first && !extraError;
    this.error.replaceChildren(...(first ? [t().settings.cantStart, coreInline(first.message, first)] : extraError ? [t().settings.cantStart + extraError] : []));
  }

  private setFieldProblem(): void {
    setText(this.estimate, '');
    this.error.hidden = true;
    this.error.replaceChildren();
  }

  /** While a model exists its settings are fixed (the `run` group, e.g. eval_interval, stays editable). */
  private setLocked(locked: boolean, note = ''): void {
    this.locked = locked;
    for (const k of this.knobs) this.inputs.get(k.name)!.disabled = locked && k.group !== 'run';
    for (const b of this.presetButtons.values()) b.disabled = locked;
    this.lockNote.hidden = !locked;
    setText(this.lockNote, note);
    this.el.classList.toggle('locked', locked);
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
