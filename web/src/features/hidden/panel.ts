// panel.ts (hidden) — "What a cell remembers": the text coloured by one unit's activation (h, the
// LSTM's cell state c, or a gate), every gate of that unit under it, and a search for the units
// that follow a pattern (inside quotes, the position in the line, vowels, ...). Karpathy's
// "unreasonable effectiveness" cells are found this way: a unit that is on inside quotes.
import { type MapStore, view, watch } from '../../app/store';
import { isRecurrent } from '../../lib/model-kind';
import { t, tr } from '../../i18n';
import { clear, coreInline, h, panelHeader, setText } from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import { activationColor, activationKinds, gateNames, seriesScale, type TraceCell, traceCells, unitSeries } from './derive';
import type { HiddenTrace, UnitMatch } from './messages';
import type { HiddenSlice, UnitChoice } from './state';

export interface HiddenHandlers {
  onTrace(text: string): void;
  onSearch(pattern: string, text: string): void;
  onUnit(choice: UnitChoice): void;
}

/** A few lines to trace before the person types their own: the play, then a quotation. */
export const DEFAULT_TEXT = 'ROMEO:\nBut, soft! what light through yonder window breaks?\nIt is the east, and Juliet is the sun.\n\n' +
  'JULIET:\nO Romeo, Romeo! wherefore art thou Romeo?\n\nThe nurse said "she is in her chamber" and went out.\n';

type S = HiddenSlice & SettingsSlice & SessionSlice;

export class HiddenPanel {
  readonly el: HTMLElement;
  private text: HTMLTextAreaElement;
  private layer: HTMLSelectElement;
  private unit: HTMLInputElement;
  private what: HTMLSelectElement;
  private pattern: HTMLSelectElement;
  private view: HTMLElement;
  private gates: HTMLElement;
  private matches: HTMLElement;
  private status: HTMLElement;

  constructor(store: MapStore<HiddenSlice>, settings: MapStore<SettingsSlice>, session: MapStore<SessionSlice>, private handlers: HiddenHandlers) {
    this.text = h('textarea', { id: 'hidden-text', rows: 4, spellcheck: 'false' });
    this.text.value = DEFAULT_TEXT;
    const traceBtn = h('button', { id: 'hidden-trace', type: 'button', class: 'primary' }, tr((m) => m.hidden.trace));
    traceBtn.addEventListener('click', () => handlers.onTrace(this.text.value));
    this.layer = h('select', { id: 'hidden-layer' });
    this.unit = h('input', { id: 'hidden-unit', type: 'number', min: 0, step: 1, value: '0' });
    this.what = h('select', { id: 'hidden-what' });
    for (const el of [this.layer, this.unit, this.what]) el.addEventListener('change', () => handlers.onUnit(this.choice()));
    this.pattern = h('select', { id: 'hidden-pattern' });
    const searchBtn = h('button', { id: 'hidden-search', type: 'button' }, tr((m) => m.hidden.search));
    searchBtn.addEventListener('click', () => handlers.onSearch(this.pattern.value, this.text.value));
    // the text's bytes are data (translate="no"); the gates' names are ours
    this.view = h('div', { id: 'hidden-view', class: 'hidden-view', role: 'img', 'aria-label': tr((m) => m.hidden.viewLabel), translate: 'no' });
    this.gates = h('div', { id: 'hidden-gates', class: 'hidden-gates' });
    this.matches = h('ol', { id: 'hidden-matches', class: 'hidden-matches' });
    this.status = h('p', { id: 'hidden-status', class: 'muted small', 'aria-live': 'polite' });
    this.el = h('section', { id: 'hidden', class: 'card wide', 'aria-labelledby': 'hidden-title' },
      panelHeader(9, tr((m) => m.hidden.title), tr((m) => m.hidden.explain)),
      h('div', { class: 'knob prompt-knob' }, h('label', { for: 'hidden-text' }, tr((m) => m.hidden.textLabel)), this.text),
      h('div', { class: 'row' }, traceBtn, this.status),
      h('div', { class: 'row' },
        h('label', { for: 'hidden-layer' }, tr((m) => m.hidden.layer)), this.layer,
        h('label', { for: 'hidden-unit' }, tr((m) => m.hidden.unit)), this.unit,
        h('label', { for: 'hidden-what' }, tr((m) => m.hidden.what)), this.what),
      this.view, this.gates,
      h('h3', {}, tr((m) => m.hidden.searchTitle)),
      h('p', { class: 'muted small' }, tr((m) => m.hidden.searchExplain)),
      h('div', { class: 'row' }, h('label', { for: 'hidden-pattern' }, tr((m) => m.hidden.pattern)), this.pattern, searchBtn),
      this.matches);
    this.el.querySelector('h2')!.id = 'hidden-title';
    const all = view(store, settings, session);
    // a recurrent language model's view: the form's or the live model's kind
    watch(all, ['mode', 'formSettings', 'model'], (s) => (this.el.hidden = s.mode !== 'gpt' || !isRecurrent(s.model?.config.model ?? s.formSettings?.model)));
    watch(all, ['hiddenPatterns', 'locale'], (s) => this.fillPatterns(s));
    watch(all, ['hiddenTrace', 'hiddenUnit', 'locale'], (s) => this.draw(s));
    watch(all, ['hiddenMatches', 'locale'], (s) => this.listMatches(s.hiddenMatches));
    watch(all, ['hiddenBusy', 'hiddenError', 'hiddenTrace', 'hiddenTraceStep', 'model', 'locale'], (s) => this.showStatus(s));
    watch(all, ['model', 'hiddenBusy'], (s) => {
      traceBtn.disabled = !s.model || s.hiddenBusy;
      searchBtn.disabled = !s.model || s.hiddenBusy;
    });
  }

  private choice(): UnitChoice {
    return { layer: Number(this.layer.value) || 0, unit: Math.max(0, Math.floor(Number(this.unit.value) || 0)), what: this.what.value || 'h' };
  }

  private fillPatterns(s: S): void {
    const keep = this.pattern.value;
    clear(this.pattern);
    for (const p of s.hiddenPatterns) {
      const words = (t().hidden.patterns as Record<string, string>)[p.name];
      this.pattern.append(h('option', { value: p.name }, words ?? p.description));
    }
    if (keep) this.pattern.value = keep;
  }

  /** The selectors follow the trace's shape; the text is coloured by the chosen unit. */
  private draw(s: S): void {
    const tr_ = s.hiddenTrace;
    clear(this.view);
    clear(this.gates);
    for (const o of this.what.options) o.textContent = (t().hidden.kinds as Record<string, string>)[o.value] ?? o.value;  // worded again at a switch
    if (!tr_) return;
    if (this.layer.options.length !== tr_.L) {
      clear(this.layer);
      for (let l = 0; l < tr_.L; l++) this.layer.append(h('option', { value: l }, String(l + 1)));
    }
    const kinds = activationKinds(tr_.kind);
    if ([...this.what.options].map((o) => o.value).join() !== kinds.join()) {
      clear(this.what);
      for (const k of kinds) this.what.append(h('option', { value: k }));
    }
    for (const o of this.what.options) o.textContent = (t().hidden.kinds as Record<string, string>)[o.value] ?? o.value;  // worded again at a switch
    const c = s.hiddenUnit;
    this.layer.value = String(Math.min(c.layer, tr_.L - 1));
    this.unit.max = String(tr_.H - 1);
    this.unit.value = String(Math.min(c.unit, tr_.H - 1));
    this.what.value = kinds.includes(c.what) ? c.what : 'h';
    const choice = this.choice();
    // a byte model's cells are the bytes; a BPE model's its tokens, labelled by their text
    const bpe = s.model?.config.tokenizer === 'bpe';
    const cells = traceCells(tr_, new TextEncoder().encode(s.hiddenTraceText), bpe);
    this.view.dataset.cells = String(cells.length);
    this.view.classList.toggle('tokens', bpe);
    this.drawText(tr_, cells, choice);
    this.drawGates(tr_, cells, choice);
  }

  private drawText(tr_: HiddenTrace, cells: TraceCell[], c: UnitChoice): void {
    const x = unitSeries(tr_, c.layer, c.unit, c.what);
    const scale = c.what === 'h' || c.what === 'c' ? seriesScale(x) : 1;
    this.view.dataset.unit = `${c.layer}:${c.unit}:${c.what}`;
    cells.forEach((cell, i) => {
      const span = h('span', { class: 'hb', style: `background:${activationColor(x[i], scale)}`, title: x[i].toFixed(3), 'data-v': x[i].toFixed(4) },
        cell.glyph);
      this.view.append(span);
      if (cell.newline) this.view.append(h('br'));
    });
  }

  /** Every gate of the unit, one strip each under the text (LSTM i f g o, GRU r z n). */
  private drawGates(tr_: HiddenTrace, cells: TraceCell[], c: UnitChoice): void {
    const names = gateNames(tr_.kind);
    if (!names.length) return;
    this.gates.append(h('p', { class: 'muted small' }, t().hidden.gatesOf(c.layer + 1, c.unit)));
    for (const g of names) {
      const x = unitSeries(tr_, c.layer, c.unit, g);
      const row = h('div', { class: 'gate-row', 'data-gate': g },
        h('span', { class: 'gate-name' }, (t().hidden.kinds as Record<string, string>)[g] ?? g));
      cells.forEach((cell, i) => row.append(h('span', { class: 'gc', translate: 'no', style: `background:${activationColor(x[i], 1)}`, title: `${cell.glyph} ${x[i].toFixed(3)}` })));
      this.gates.append(row);
    }
  }

  private listMatches(list: UnitMatch[] | null): void {
    clear(this.matches);
    for (const u of list ?? []) {
      const b = h('button', { type: 'button', class: 'link', 'data-layer': u.layer, 'data-unit': u.unit, 'data-state': u.state },
        t().hidden.match(u.layer + 1, u.unit, (t().hidden.kinds as Record<string, string>)[u.state] ?? u.state, (u.correlation >= 0 ? '+' : '') + u.correlation.toFixed(3)));
      b.addEventListener('click', () => this.handlers.onUnit({ layer: u.layer, unit: u.unit, what: u.state }));
      this.matches.append(h('li', {}, b));
    }
  }

  private showStatus(s: S): void {
    if (s.hiddenError) return void this.status.replaceChildren(coreInline(s.hiddenError.message, s.hiddenError));
    const m = t().hidden;
    const traced = s.model?.config.tokenizer === 'bpe' ? m.tracedTokens : m.traced;
    setText(this.status, !s.model ? m.noModel : s.hiddenBusy ? m.busy : s.hiddenTrace ? traced(s.hiddenTrace.T, s.hiddenTraceStep, s.hiddenTrace.L, s.hiddenTrace.H) : m.notYet);
  }
}
