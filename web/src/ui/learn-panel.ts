// learn-panel.ts — "Learn by hand": one training step of docs/walkthrough.md's tiny GPT, box by
// box. Every number comes from the core (the module's walkTrace, run in the worker); this file
// only lays them out. Loaded on demand (main.ts imports it when the mode is opened), so the page's
// first payload does not carry it.
import './learn-panel.css';

import type { WalkEdits, WalkTrace } from '../protocol';
import { clear, h, setText } from './dom';
import { formatValue, markdownSection } from './learn-format';

export type WalkModelName = 'walkthrough' | 'two-heads';
type WalkEntry = WalkTrace['entries'][number];

export interface LearnApi {
  /** The core's trace of one step of `model` with `edits`, or the core's message for a refused edit. */
  trace(model: WalkModelName, edits: WalkEdits): Promise<{ trace: WalkTrace | null; error: string | null }>;
}

/** The boxes of the step's graph, in the order data flows through them. */
const GRAPH: { node: string; label: string }[] = [
  { node: 'data', label: 'tokens → x, y' },
  { node: 'params', label: 'weights' },
  { node: 'embedding', label: 'W_te[x] + W_pe' },
  { node: 'ln_1', label: 'LN₁' },
  { node: 'qkv', label: 'Q K V' },
  { node: 'attention', label: 'scores · mask · softmax · PV' },
  { node: 'attn_proj', label: 'proj' },
  { node: 'residual_1', label: '+ residual' },
  { node: 'ln_2', label: 'LN₂' },
  { node: 'mlp', label: 'MLP (GELU)' },
  { node: 'residual_2', label: '+ residual' },
  { node: 'ln_f', label: 'LN_f' },
  { node: 'lm_head', label: 'logits' },
  { node: 'loss', label: 'softmax + CE' },
  { node: 'adamw', label: 'clip + AdamW' },
];

const PHASES: { phase: WalkEntry['phase']; label: string }[] = [
  { phase: 'data', label: 'Data' },
  { phase: 'forward', label: 'Forward' },
  { phase: 'backward', label: 'Backward' },
  { phase: 'update', label: 'Update' },
];

const MODELS: { name: WalkModelName; label: string }[] = [
  { name: 'walkthrough', label: 'The walkthrough: one head, V = 4' },
  { name: 'two-heads', label: 'Two heads, V = 8' },
];

export class LearnPanel {
  readonly el: HTMLElement;
  private model: WalkModelName = 'walkthrough';
  private tokens: number[] = [];
  private defaultTokens: number[] = [];
  private weightEdits = new Map<string, { param: string; index: number; value: number }>();
  private trace: WalkTrace | null = null;
  private index = 0;                       // the current box
  private requestId = 0;
  private status: HTMLElement;
  private graph: HTMLElement;
  private graphNodes = new Map<string, HTMLButtonElement>();
  private phaseButtons = new Map<string, HTMLButtonElement>();
  private boxes: HTMLElement;
  private boxEls: HTMLElement[] = [];
  private counter: HTMLElement;
  private prevBtn: HTMLButtonElement;
  private nextBtn: HTMLButtonElement;
  private tokenInputs: HTMLElement;
  private modelSel: HTMLSelectElement;
  private weightParam: HTMLSelectElement;
  private weightIndex: HTMLInputElement;
  private weightValue: HTMLInputElement;
  private lossEl: HTMLElement;
  private docCache = new Map<string, Promise<string>>();

  constructor(private api: LearnApi) {
    this.status = h('p', { class: 'walk-status', role: 'status', 'aria-live': 'polite' });
    this.counter = h('span', { class: 'walk-counter', 'aria-live': 'polite' });
    this.prevBtn = h('button', { type: 'button', id: 'walk-prev', onclick: () => this.go(this.index - 1) }, '◀ Back');
    this.nextBtn = h('button', { type: 'button', id: 'walk-next', class: 'primary', onclick: () => this.go(this.index + 1) }, 'Next ▶');
    this.lossEl = h('span', { class: 'walk-loss' });
    this.modelSel = h('select', { id: 'walk-model', onchange: () => void this.switchModel(this.modelSel.value as WalkModelName) },
      ...MODELS.map((m) => h('option', { value: m.name }, m.label)));
    this.tokenInputs = h('span', { class: 'walk-tokens' });
    this.weightParam = h('select', { id: 'walk-weight-param', 'aria-label': 'Weight tensor' });
    this.weightIndex = h('input', { id: 'walk-weight-index', type: 'number', min: 0, step: 1, value: 0, 'aria-label': 'Flat index' });
    this.weightValue = h('input', { id: 'walk-weight-value', type: 'number', step: 'any', 'aria-label': 'New value' });
    const weightForm = h('form', { class: 'walk-weight', onsubmit: (e: Event) => { e.preventDefault(); void this.applyWeight(); } },
      h('label', { for: 'walk-weight-param' }, 'Edit a weight '), this.weightParam,
      h('label', { for: 'walk-weight-index' }, ' index '), this.weightIndex,
      h('label', { for: 'walk-weight-value' }, ' value '), this.weightValue,
      h('button', { type: 'submit', id: 'walk-weight-apply' }, 'Apply'),
      h('button', { type: 'button', id: 'walk-reset', onclick: () => void this.resetEdits() }, 'Undo all edits'));
    this.graph = h('ol', { class: 'walk-graph', 'aria-label': 'The step as a graph: pick a box to jump to it' },
      ...GRAPH.map(({ node, label }) => {
        const b = h('button', { type: 'button', 'data-node': node, onclick: () => this.jumpToNode(node) }, label);
        this.graphNodes.set(node, b);
        return h('li', {}, b);
      }));
    const phases = h('div', { class: 'walk-phases', role: 'group', 'aria-label': 'Jump to a phase' },
      ...PHASES.map(({ phase, label }) => {
        const b = h('button', { type: 'button', 'data-phase': phase, onclick: () => this.jumpToPhase(phase) }, label);
        this.phaseButtons.set(phase, b);
        return b;
      }));
    this.boxes = h('ol', { class: 'walk-boxes', 'aria-label': 'Every number of the step' });
    this.el = h('div', { class: 'walk', id: 'walk', onkeydown: (e: Event) => this.onKey(e as KeyboardEvent) },
      h('p', { class: 'explain' },
        'The forward pass, every gradient in the order autograd visits the nodes, then the AdamW update. ',
        'Step with ◀ ▶ (or the arrow keys); edit a token or a weight and the core computes everything after it again.'),
      h('div', { class: 'walk-controls' },
        h('label', { for: 'walk-model' }, 'Model '), this.modelSel,
        h('span', { class: 'walk-tokens-label' }, ' tokens '), this.tokenInputs, this.lossEl),
      weightForm,
      this.status,
      h('div', { class: 'walk-nav' }, this.prevBtn, this.counter, this.nextBtn, phases),
      this.graph,
      this.boxes);
  }

  async start(): Promise<void> {
    await this.switchModel('walkthrough');
  }

  /** Asks the core for the trace; on a refused edit keeps everything as it was and says why. */
  private async recompute(edits: WalkEdits, keepName: string | null): Promise<boolean> {
    const id = ++this.requestId;
    setText(this.status, 'computing…');
    const { trace, error } = await this.api.trace(this.model, edits);
    if (id !== this.requestId) return false;  // a newer request wins
    if (!trace) {
      setText(this.status, `Not changed: ${error ?? 'the core refused the edit'}`);
      this.status.classList.add('bad');
      this.renderInputs();  // back to the values that are in effect
      return false;
    }
    this.status.classList.remove('bad');
    this.trace = trace;
    this.tokens = [...trace.model.tokens];
    if (keepName === null) this.defaultTokens = [...this.tokens];
    this.weightEdits = new Map((edits.weights ?? []).map((w) => [`${w.param}[${w.index}]`, w]));
    this.render();
    const keep = keepName ? trace.entries.findIndex((e) => e.name === keepName) : -1;
    this.go(keep >= 0 ? keep : Math.min(this.index, trace.entries.length - 1), false);
    const edited = this.weightEdits.size > 0 || this.tokens.join() !== this.defaultTokens.join();
    setText(this.status, edited ? `Recomputed by the core with ${this.describeEdits()}.` : 'The model’s own numbers.');
    return true;
  }

  private describeEdits(): string {
    const parts = [`tokens [${this.tokens.join(', ')}]`];
    for (const w of this.weightEdits.values()) parts.push(`${w.param}[${w.index}] = ${w.value}`);
    return parts.join(', ');
  }

  private async switchModel(name: WalkModelName): Promise<void> {
    const before = this.model;
    this.model = name;
    this.modelSel.value = name;
    const ok = await this.recompute({ weights: [] }, null);
    if (!ok) {
      this.model = before;
      this.modelSel.value = before;
    } else this.go(0);
  }

  private async resetEdits(): Promise<void> {
    await this.recompute({ weights: [] }, this.current()?.name ?? null);
  }

  private async setToken(position: number, raw: string): Promise<void> {
    const value = Number(raw);
    const tokens = [...this.tokens];
    tokens[position] = raw.trim() === '' || !Number.isFinite(value) ? NaN : value;
    if (Number.isNaN(tokens[position])) {
      setText(this.status, `Not changed: token ${position} must be a whole number from 0 to ${(this.trace?.model.V ?? 4) - 1}`);
      this.status.classList.add('bad');
      this.renderInputs();
      return;
    }
    await this.recompute({ tokens, weights: [...this.weightEdits.values()] }, this.current()?.name ?? null);
  }

  private async applyWeight(): Promise<void> {
    const param = this.weightParam.value;
    const index = Number(this.weightIndex.value);
    const value = Number(this.weightValue.value);
    if (this.weightValue.value.trim() === '' || !Number.isFinite(value)) {
      setText(this.status, 'Not changed: the new value must be a number');
      this.status.classList.add('bad');
      return;
    }
    const weights = new Map(this.weightEdits);
    weights.set(`${param}[${index}]`, { param, index, value });
    await this.recompute({ tokens: this.tokens, weights: [...weights.values()] }, this.current()?.name ?? null);
  }

  private current(): WalkEntry | null {
    return this.trace?.entries[this.index] ?? null;
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowRight' || (e.key === 'ArrowDown' && target.closest('.walk-nav'))) { this.go(this.index + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' || (e.key === 'ArrowUp' && target.closest('.walk-nav'))) { this.go(this.index - 1); e.preventDefault(); }
    else if (e.key === 'Home') { this.go(0); e.preventDefault(); }
    else if (e.key === 'End' && this.trace) { this.go(this.trace.entries.length - 1); e.preventDefault(); }
  }

  private jumpToNode(node: string): void {
    if (!this.trace) return;
    const phase = this.current()?.phase ?? 'forward';
    const entries = this.trace.entries;
    let i = entries.findIndex((e) => e.node === node && e.phase === phase);
    if (i < 0) i = entries.findIndex((e) => e.node === node);
    if (i >= 0) this.go(i);
  }

  private jumpToPhase(phase: string): void {
    const i = this.trace?.entries.findIndex((e) => e.phase === phase) ?? -1;
    if (i >= 0) this.go(i);
  }

  /** Makes box i the current one: highlighted, scrolled into view, its graph node lit. */
  go(i: number, scroll = true): void {
    const t = this.trace;
    if (!t) return;
    this.index = Math.max(0, Math.min(t.entries.length - 1, i));
    const e = t.entries[this.index];
    this.boxEls.forEach((b, k) => {
      b.classList.toggle('current', k === this.index);
      b.classList.toggle('ahead', k > this.index);
      if (k === this.index) b.setAttribute('aria-current', 'step');
      else b.removeAttribute('aria-current');
    });
    for (const [node, b] of this.graphNodes) {
      const on = node === e.node;
      b.classList.toggle('current', on);
      b.dataset.phase = on ? e.phase : '';
      if (on) b.setAttribute('aria-current', 'step');
      else b.removeAttribute('aria-current');
    }
    for (const [phase, b] of this.phaseButtons) b.setAttribute('aria-pressed', String(phase === e.phase));
    setText(this.counter, `${this.index + 1} / ${t.entries.length}: ${e.name}`);
    this.prevBtn.disabled = this.index === 0;
    this.nextBtn.disabled = this.index === t.entries.length - 1;
    if (scroll) this.boxEls[this.index]?.scrollIntoView({ block: 'nearest' });
  }

  private renderInputs(): void {
    const t = this.trace;
    clear(this.tokenInputs);
    if (!t) return;
    this.tokens.forEach((tok, p) => {
      const role = p < t.model.T ? (p === 0 ? 'x' : p === t.model.T ? 'y' : 'x, y') : 'y';
      const input = h('input', {
        type: 'number', min: 0, max: t.model.V - 1, step: 1, value: tok, class: 'walk-token', id: `walk-token-${p}`,
        'aria-label': `Token ${p} (${role === 'x' ? 'input' : role === 'y' ? 'target' : 'input and target'})`,
        onchange: (ev: Event) => void this.setToken(p, (ev.target as HTMLInputElement).value),
      });
      this.tokenInputs.append(input);
    });
    const current = this.weightParam.value;
    clear(this.weightParam);
    for (const p of t.model.params) this.weightParam.append(h('option', { value: p.name }, `${p.name} (${p.shape.join('×')})`));
    if (t.model.params.some((p) => p.name === current)) this.weightParam.value = current;
  }

  private render(): void {
    const t = this.trace!;
    this.renderInputs();
    setText(this.lossEl, ` loss ${formatValue(t.loss)}`, t.loss);
    clear(this.boxes);
    this.boxEls = t.entries.map((e, i) => this.box(e, i));
    this.boxes.append(...this.boxEls);
    requestAnimationFrame(() => this.markScrollable());
  }

  /** A table wider than its box scrolls: then it takes the focus, so the keyboard can scroll it too. */
  private markScrollable(): void {
    for (const table of this.boxes.querySelectorAll<HTMLElement>('.walk-tensor')) {
      if (table.scrollWidth > table.clientWidth + 1) {
        table.tabIndex = 0;
        table.setAttribute('aria-label', `values of ${table.closest<HTMLElement>('.walk-box')?.dataset.name ?? 'the tensor'} (scrolls)`);
      } else table.removeAttribute('tabindex');
    }
  }

  private box(e: WalkEntry, i: number): HTMLElement {
    const [page, anchor] = e.doc.split('#');
    const doc = h('div', { class: 'walk-doc', hidden: true });
    const link = h('a', {
      href: `docs/${e.doc}`, target: '_blank', rel: 'noopener', class: 'walk-fn',
      onclick: (ev: Event) => { ev.preventDefault(); void this.toggleDoc(doc, page, anchor); },
    }, h('code', {}, e.function), ' — ', page.replace('.md', ''), anchor ? ` § ${anchor}` : '');
    const edited = this.isEditedParam(e);
    const wide = (e.shape[e.shape.length - 1] ?? 1) > 6;  // a wide tensor gets the whole row
    return h('li', {
      class: `walk-box phase-${e.phase}${edited ? ' edited' : ''}${wide ? ' wide' : ''}`, 'data-name': e.name, 'data-phase': e.phase,
      'data-node': e.node, tabindex: -1, onclick: () => this.go(i, false),
    },
      h('header', {},
        h('span', { class: 'walk-index' }, String(i + 1)),
        h('span', { class: 'walk-name' }, e.name),
        h('span', { class: 'walk-shape' }, `(${e.shape.join(', ')})`),
        h('span', { class: 'walk-phase' }, e.phase)),
      h('p', { class: 'walk-eq' }, e.equation),
      this.tensor(e),
      h('p', { class: 'walk-src' }, 'computed by ', link),
      doc);
  }

  private isEditedParam(e: WalkEntry): boolean {
    if (e.node !== 'params') return false;
    for (const w of this.weightEdits.values()) if (w.param === e.name) return true;
    return false;
  }

  /** The tensor as a table: the last dimension across, every other index down. */
  private tensor(e: WalkEntry): HTMLElement {
    const shape = e.shape.length ? e.shape : [1];
    const cols = shape[shape.length - 1];
    const rows = Math.max(1, e.values.length / Math.max(1, cols));
    const lead = shape.slice(0, -1);
    const table = h('table', { class: 'walk-tensor' });
    const isParam = e.node === 'params';
    for (let r = 0; r < rows; r++) {
      const idx: number[] = [];
      let rem = r;
      for (let d = lead.length - 1; d >= 0; d--) { idx.unshift(rem % lead[d]); rem = Math.floor(rem / lead[d]); }
      const tr = h('tr', {}, h('th', { scope: 'row' }, lead.length ? `[${idx.join(',')}]` : ''));
      for (let c = 0; c < cols; c++) {
        const flat = r * cols + c;
        const v = e.values[flat];
        const td = h('td', { 'data-v': String(v), 'data-i': flat }, formatValue(v));
        if (isParam) {
          td.title = `${e.name}[${flat}]: click to edit`;
          td.addEventListener('click', () => this.pickWeight(e.name, flat, v));
        }
        tr.append(td);
      }
      table.append(tr);
    }
    return table;
  }

  private pickWeight(param: string, index: number, value: number): void {
    this.weightParam.value = param;
    this.weightIndex.value = String(index);
    this.weightValue.value = String(value);
    this.weightValue.focus();
    this.weightValue.select();
  }

  private async toggleDoc(el: HTMLElement, page: string, anchor: string): Promise<void> {
    if (!el.hidden) { el.hidden = true; return; }
    let text: string;
    try {
      let md = this.docCache.get(page);
      if (!md) {
        md = fetch(`docs/${page}`).then((r) => { if (!r.ok) throw new Error(`${r.status}`); return r.text(); });
        this.docCache.set(page, md);
      }
      text = markdownSection(await md, anchor) ?? `(no section #${anchor} in ${page})`;
    } catch (err) {
      this.docCache.delete(page);
      text = `docs/${page} could not be loaded (${err instanceof Error ? err.message : String(err)})`;
    }
    clear(el);
    el.append(h('pre', {}, text));
    el.hidden = false;
  }
}

/** Builds the mode into `host` and loads the walkthrough's step. */
export async function mountLearn(host: HTMLElement, api: LearnApi): Promise<LearnPanel> {
  const panel = new LearnPanel(api);
  clear(host);
  host.append(panel.el);
  await panel.start();
  return panel;
}
