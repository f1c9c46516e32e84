// settings-panel.ts — presets and every knob of a run, with the core's own verdict on the
// combination (parameter count, memory, or why it can't be built) before anything starts.
import { corpusLengthError } from '../app/derive';
import { type PageStore, type RunState, type Verdict, watch } from '../app/state';
import { formatBytes, formatParams } from '../format';
import { KNOBS, type Key, PRESET_BLURB, PRESETS, type PresetName, type UiSettings, parseSettings, presetOf, toFormValues } from '../settings';
import { h, panelHeader, setText } from './dom';

/** The lock of the form: while a model exists its settings are fixed ("validate every" stays editable). */
export function settingsLock(s: Pick<RunState, 'model' | 'creating'>): { locked: boolean; note: string } {
  if (s.model) return { locked: true, note: 'These are the settings of the current model. Reset to choose new ones (only "Validate every" can change now).' };
  if (s.creating) return { locked: true, note: 'Creating the model…' };
  return { locked: false, note: '' };
}

export class SettingsPanel {
  readonly el: HTMLElement;
  private inputs = new Map<Key, HTMLInputElement>();
  private fieldErrors = new Map<Key, HTMLElement>();
  private presetButtons = new Map<PresetName, HTMLButtonElement>();
  private presetEstimates = new Map<PresetName, HTMLElement>();
  private estimate: HTMLElement;
  private error: HTMLElement;
  private lockNote: HTMLElement;
  private locked = false;

  /** `knobs`: the fields, as data (KNOBS today; the module's configSchema() later). */
  constructor(store: PageStore, private onChange: (settings: UiSettings | null) => void, knobs = KNOBS) {
    const presets = h('div', { class: 'presets', role: 'group', 'aria-label': 'Presets' });
    for (const name of Object.keys(PRESETS) as PresetName[]) {
      const est = h('span', { class: 'preset-est' }, '…');
      const b = h('button', { type: 'button', class: 'preset', 'data-preset': name, 'aria-pressed': 'false' },
        h('span', { class: 'preset-name' }, name), h('span', { class: 'preset-blurb' }, PRESET_BLURB[name]), est);
      b.addEventListener('click', () => {
        if (this.locked) return;
        this.set(PRESETS[name]);
        this.emit();
      });
      this.presetButtons.set(name, b);
      this.presetEstimates.set(name, est);
      presets.append(b);
    }
    const group = (which: 'model' | 'training', title: string) => {
      const fs = h('fieldset', { class: 'knobs' }, h('legend', {}, title));
      for (const k of knobs.filter((x) => x.group === which)) {
        const id = `knob-${k.key}`;
        const input = h('input', {
          id, name: k.key, type: 'number', inputmode: k.integer ? 'numeric' : 'decimal', min: k.min, step: k.step,
          'aria-describedby': `${id}-help ${id}-err`, required: true,
        });
        input.addEventListener('input', () => this.emit());
        const err = h('span', { id: `${id}-err`, class: 'field-error', 'aria-live': 'polite' });
        this.inputs.set(k.key, input);
        this.fieldErrors.set(k.key, err);
        fs.append(h('div', { class: 'knob' },
          h('label', { for: id }, k.label), input,
          h('span', { id: `${id}-help`, class: 'help' }, k.help), err));
      }
      return fs;
    };
    this.estimate = h('p', { id: 'estimate', class: 'estimate', 'aria-live': 'polite' }, '…');
    this.error = h('p', { id: 'settings-error', class: 'settings-error', role: 'alert', hidden: true });
    this.lockNote = h('p', { class: 'lock-note', hidden: true });
    this.el = h('section', { id: 'settings', class: 'card', 'aria-labelledby': 'settings-title' },
      panelHeader(2, 'Model and training', 'A GPT of this many layers, heads and width, trained with AdamW on random windows of ' +
        '"context" bytes. Bigger models learn more but each step costs more. The size and memory below come from the core itself.'),
      presets, this.estimate, this.error, this.lockNote,
      h('div', { class: 'knob-groups' }, group('model', 'Model'), group('training', 'Training')));
    this.el.querySelector('h2')!.id = 'settings-title';
    this.subscribe(store);
  }

  /** The form, the presets' sizes, the lock and the verdict follow the store. */
  private subscribe(store: PageStore): void {
    watch(store, ['formSettings'], (st) => this.set(st.formSettings));
    watch(store, ['presetVerdicts'], (st) => {
      for (const [name, v] of Object.entries(st.presetVerdicts)) this.setPresetVerdict(name as PresetName, v);
    });
    watch(store, ['model', 'creating'], (st) => {
      const { locked, note } = settingsLock(st);
      this.setLocked(locked, note);
    });
    watch(store, ['model', 'settings', 'verdict', 'corpus'], (st) => this.showVerdict(st));
  }

  /** The core's verdict on the form (or the model's size once one exists). */
  private showVerdict(st: RunState): void {
    if (st.model) this.setVerdict({ error: '', parameters: st.model.parameters, trainingBytes: st.verdict?.trainingBytes ?? 0 });
    else if (!st.settings) this.setFieldProblem();
    else if (st.verdict) this.setVerdict(st.verdict, corpusLengthError(st));   // while one is asked for, the last one stays
  }

  private set(s: UiSettings): void {
    const v = toFormValues(s);
    for (const [k, input] of this.inputs) input.value = v[k];
    this.markPreset();
  }

  /** The current form as settings (null if a field is unusable; messages are shown per field). */
  read(): UiSettings | null {
    const raw: Partial<Record<Key, string>> = {};
    for (const [k, input] of this.inputs) raw[k] = input.value;
    const { settings, errors } = parseSettings(raw);
    for (const [k, el] of this.fieldErrors) {
      setText(el, errors[k] ?? '');
      this.inputs.get(k)!.setAttribute('aria-invalid', errors[k] ? 'true' : 'false');
    }
    return settings;
  }

  private emit(): void {
    this.markPreset();
    this.onChange(this.read());
  }

  private markPreset(): void {
    const s = parseSettings(Object.fromEntries([...this.inputs].map(([k, i]) => [k, i.value]))).settings;
    const p = s ? presetOf(s) : 'custom';
    for (const [name, b] of this.presetButtons) b.setAttribute('aria-pressed', String(name === p));
    this.el.dataset.preset = p;
  }

  private setPresetVerdict(name: PresetName, v: Verdict): void {
    setText(this.presetEstimates.get(name)!, v.error ? 'not possible here' : `${formatParams(v.parameters)} params · ≈${formatBytes(v.trainingBytes)}`);
  }

  /** The core's verdict on the current settings (and the page's corpus-length check). */
  private setVerdict(v: Verdict | null, extraError = ''): void {
    if (!v) {
      setText(this.estimate, '…');
      this.error.hidden = true;
      return;
    }
    if (v.parameters > 0)
      setText(this.estimate, `${formatParams(v.parameters)} parameters · about ${formatBytes(v.trainingBytes)} of memory for training ` +
        '(weights, gradients, AdamW moments, activations)', v.parameters);
    else setText(this.estimate, '');
    const message = v.error || extraError;
    this.error.hidden = !message;
    setText(this.error, message ? `Can't start: ${message}` : '');
  }

  private setFieldProblem(): void {
    setText(this.estimate, '');
    this.error.hidden = true;
  }

  private setLocked(locked: boolean, note = ''): void {
    this.locked = locked;
    for (const [k, input] of this.inputs) input.disabled = locked && k !== 'evalEvery';
    for (const b of this.presetButtons.values()) b.disabled = locked;
    this.lockNote.hidden = !locked;
    setText(this.lockNote, note);
    this.el.classList.toggle('locked', locked);
  }
}
