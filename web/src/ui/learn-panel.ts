// learn-panel.ts — "Learn by hand": one training step of docs/walkthrough.md's tiny GPT, box by
// box. Every number comes from the core (the module's learnTrace, run in the worker); this file
// only lays them out. Loaded on demand (main.ts imports it when the mode is opened), so the page's
// first payload does not carry it.
import './learn-panel.css';

import { docHref, locale, type Msg, t, tr } from '../i18n';
import { type Coded, coreNode } from '../i18n/core-messages';
import type { LearnEdits, LearnTrace } from '../protocol';
import { clear, h, setText } from './dom';
import { docAnchor, equationOf, formatValue, markdownSection, withCode, type Worded } from './learn-format';

export type WalkModelName = 'walkthrough' | 'two-heads';
type LearnEntry = LearnTrace['entries'][number];

export interface LearnApi {
  /**
   * The core's trace of one step of `model` with `edits`, or the core's message for a refused
   * edit (with its `code` and `args` when the worker sends them: the page words it, coreNode).
   */
  trace(model: WalkModelName, edits: LearnEdits): Promise<{ trace: LearnTrace | null; error: string | null } & Coded>;
}

/** The boxes of the step's graph, in the order data flows through them: a message, or math (a string, kept as it is). */
const GRAPH: { node: string; label: Msg | string }[] = [
  { node: 'data', label: (m) => m.learn.graph.data },
  { node: 'params', label: (m) => m.learn.graph.params },
  { node: 'embedding', label: 'W_te[x] + W_pe' },
  { node: 'ln_1', label: 'LN₁' },
  { node: 'qkv', label: 'Q K V' },
  { node: 'attention', label: (m) => m.learn.graph.attention },
  { node: 'attn_proj', label: (m) => m.learn.graph.attnProj },
  { node: 'residual_1', label: (m) => m.learn.graph.residual },
  { node: 'ln_2', label: 'LN₂' },
  { node: 'mlp', label: (m) => m.learn.graph.mlp },
  { node: 'residual_2', label: (m) => m.learn.graph.residual },
  { node: 'ln_f', label: 'LN_f' },
  { node: 'lm_head', label: (m) => m.learn.graph.lmHead },
  { node: 'loss', label: (m) => m.learn.graph.loss },
  { node: 'adamw', label: (m) => m.learn.graph.adamw },
];

const PHASES: LearnEntry['phase'][] = ['data', 'forward', 'backward', 'update'];

const MODELS: { name: WalkModelName; label: Msg }[] = [
  { name: 'walkthrough', label: (m) => m.learn.models.walkthrough },
  { name: 'two-heads', label: (m) => m.learn.models.twoHeads },
];

type Parts = (Node | string)[];

/** Words with identifiers in them (learn-format's Worded) as DOM: the identifiers as code. */
function wordedNodes(parts: Worded): Parts {
  return parts.map((p) => (typeof p === 'string' ? p : h('code', {}, p.code)));
}

export class LearnPanel {
  readonly el: HTMLElement;
  private model: WalkModelName = 'walkthrough';
  private tokens: number[] = [];
  private defaultTokens: number[] = [];
  private weightEdits = new Map<string, { param: string; index: number; value: number }>();
  private trace: LearnTrace | null = null;
  private index = 0;                       // the current box
  private requestId = 0;
  private status: HTMLElement;
  private statusParts: () => Parts = () => [];   // worded at every render: a language switch rewords it
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
    this.prevBtn = h('button', { type: 'button', id: 'walk-prev', onclick: () => this.go(this.index - 1) }, tr((m) => m.learn.back));
    this.nextBtn = h('button', { type: 'button', id: 'walk-next', class: 'primary', onclick: () => this.go(this.index + 1) }, tr((m) => m.learn.next));
    this.lossEl = h('span', { class: 'walk-loss' });
    this.modelSel = h('select', { id: 'walk-model', onchange: () => void this.switchModel(this.modelSel.value as WalkModelName) },
      ...MODELS.map((m) => h('option', { value: m.name }, tr(m.label))));
    this.tokenInputs = h('span', { class: 'walk-tokens' });
    this.weightParam = h('select', { id: 'walk-weight-param', 'aria-label': tr((m) => m.learn.weightTensor) });
    this.weightIndex = h('input', { id: 'walk-weight-index', type: 'number', min: 0, step: 1, value: 0, 'aria-label': tr((m) => m.learn.flatIndex) });
    this.weightValue = h('input', { id: 'walk-weight-value', type: 'number', step: 'any', 'aria-label': tr((m) => m.learn.newValue) });
    const weightForm = h('form', { class: 'walk-weight', onsubmit: (e: Event) => { e.preventDefault(); void this.applyWeight(); } },
      h('label', { for: 'walk-weight-param' }, tr((m) => m.learn.editWeight)), this.weightParam,
      h('label', { for: 'walk-weight-index' }, tr((m) => m.learn.index)), this.weightIndex,
      h('label', { for: 'walk-weight-value' }, tr((m) => m.learn.value)), this.weightValue,
      h('button', { type: 'submit', id: 'walk-weight-apply' }, tr((m) => m.learn.apply)),
      h('button', { type: 'button', id: 'walk-reset', onclick: () => void this.resetEdits() }, tr((m) => m.learn.undoAll)));
    this.graph = h('ol', { class: 'walk-graph', 'aria-label': tr((m) => m.learn.graphLabel) },
      ...GRAPH.map(({ node, label }) => {
        const b = h('button', { type: 'button', 'data-node': node, onclick: () => this.jumpToNode(node) },
          typeof label === 'string' ? h('span', { translate: 'no' }, label) : tr(label));
        this.graphNodes.set(node, b);
        return h('li', {}, b);
      }));
    const phases = h('div', { class: 'walk-phases', role: 'group', 'aria-label': tr((m) => m.learn.phasesLabel) },
      ...PHASES.map((phase) => {
        const b = h('button', { type: 'button', 'data-phase': phase, onclick: () => this.jumpToPhase(phase) }, tr((m) => m.learn.phases[phase]));
        this.phaseButtons.set(phase, b);
        return b;
      }));
    this.boxes = h('ol', { class: 'walk-boxes', 'aria-label': tr((m) => m.learn.boxesLabel) });
    this.el = h('div', { class: 'walk', id: 'walk', onkeydown: (e: Event) => this.onKey(e as KeyboardEvent) },
      h('p', { class: 'explain' }, tr((m) => m.learn.explain1), tr((m) => m.learn.explain2)),
      h('div', { class: 'walk-controls' },
        h('label', { for: 'walk-model' }, tr((m) => m.learn.model)), this.modelSel,
        h('span', { class: 'walk-tokens-label' }, tr((m) => m.learn.tokens)), this.tokenInputs, this.lossEl),
      weightForm,
      this.status,
      h('div', { class: 'walk-nav' }, this.prevBtn, this.counter, this.nextBtn, phases),
      this.graph,
      this.boxes);
    // a language switch: the boxes, the inputs' labels and the status line are worded again
    locale.listen(() => queueMicrotask(() => this.relabel()));
  }

  async start(): Promise<void> {
    await this.switchModel('walkthrough');
  }

  private relabel(): void {
    this.renderStatus();
    if (!this.trace) return;
    this.render();
    this.go(this.index, false);
  }

  private setStatus(bad: boolean, parts: () => Parts): void {
    this.status.classList.toggle('bad', bad);
    this.statusParts = parts;
    this.renderStatus();
  }

  private renderStatus(): void {
    this.status.replaceChildren(...this.statusParts());
  }

  /** Asks the core for the trace; on a refused edit keeps everything as it was and says why. */
  private async recompute(edits: LearnEdits, keepName: string | null): Promise<boolean> {
    const id = ++this.requestId;
    this.setStatus(this.status.classList.contains('bad'), () => [t().learn.computing]);
    const answer = await this.api.trace(this.model, edits);
    const { trace, error } = answer;
    if (id !== this.requestId) return false;  // a newer request wins
    if (!trace) {
      this.setStatus(true, () => [t().learn.notChanged, error ? coreNode(error, answer) : t().learn.refused]);
      this.renderInputs();  // back to the values that are in effect
      return false;
    }
    this.trace = trace;
    this.tokens = [...trace.model.tokens];
    if (keepName === null) this.defaultTokens = [...this.tokens];
    this.weightEdits = new Map((edits.weights ?? []).map((w) => [`${w.param}[${w.index}]`, w]));
    this.render();
    const keep = keepName ? trace.entries.findIndex((e) => e.name === keepName) : -1;
    this.go(keep >= 0 ? keep : Math.min(this.index, trace.entries.length - 1), false);
    const edited = this.weightEdits.size > 0 || this.tokens.join() !== this.defaultTokens.join();
    this.setStatus(false, edited ? () => [t().learn.recomputed, ...this.describeEdits(), t().learn.recomputedEnd] : () => [t().learn.ownNumbers]);
    return true;
  }

  /** The edits in effect: the tokens, then each edited weight (an identifier: code). */
  private describeEdits(): Parts {
    const tokens = [...this.tokens];
    const weights = [...this.weightEdits.values()];
    const parts: Parts = [t().learn.editedTokens(tokens.join(', '))];
    for (const w of weights) parts.push(t().learn.editSep, h('code', {}, `${w.param}[${w.index}] = ${w.value}`));
    return parts;
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
      const max = (this.trace?.model.V ?? 4) - 1;
      this.setStatus(true, () => [t().learn.notChanged, t().learn.tokenRange(position, max)]);
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
      this.setStatus(true, () => [t().learn.notChanged, t().learn.valueNumber]);
      return;
    }
    const weights = new Map(this.weightEdits);
    weights.set(`${param}[${index}]`, { param, index, value });
    await this.recompute({ tokens: this.tokens, weights: [...weights.values()] }, this.current()?.name ?? null);
  }

  private current(): LearnEntry | null {
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
    const trace = this.trace;
    if (!trace) return;
    this.index = Math.max(0, Math.min(trace.entries.length - 1, i));
    const e = trace.entries[this.index];
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
    this.counter.replaceChildren(`${this.index + 1} / ${trace.entries.length}: `, h('span', { translate: 'no' }, e.name));
    this.prevBtn.disabled = this.index === 0;
    this.nextBtn.disabled = this.index === trace.entries.length - 1;
    if (scroll) this.boxEls[this.index]?.scrollIntoView({ block: 'nearest' });
  }


  private renderInputs(): void {
    const trace = this.trace;
    clear(this.tokenInputs);
    if (!trace) return;
    this.tokens.forEach((tok, p) => {
      const role = p < trace.model.T ? (p === 0 ? 'x' : 'xy') : 'y';
      const input = h('input', {
        type: 'number', min: 0, max: trace.model.V - 1, step: 1, value: tok, class: 'walk-token', id: `walk-token-${p}`,
        'aria-label': t().learn.token(p, role),
        onchange: (ev: Event) => void this.setToken(p, (ev.target as HTMLInputElement).value),
      });
      this.tokenInputs.append(input);
    });
    const current = this.weightParam.value;
    clear(this.weightParam);
    for (const p of trace.model.params) this.weightParam.append(h('option', { value: p.name, translate: 'no' }, `${p.name} (${p.shape.join('×')})`));
    if (trace.model.params.some((p) => p.name === current)) this.weightParam.value = current;
  }

  private render(): void {
    const trace = this.trace!;
    this.renderInputs();
    setText(this.lossEl, t().learn.loss(formatValue(trace.loss)), trace.loss);
    clear(this.boxes);
    this.boxEls = trace.entries.map((e, i) => this.box(e, i));
    this.boxes.append(...this.boxEls);
    requestAnimationFrame(() => this.markScrollable());
  }

  /** A table wider than its box scrolls: then it takes the focus, so the keyboard can scroll it too. */
  private markScrollable(): void {
    for (const table of this.boxes.querySelectorAll<HTMLElement>('.walk-tensor')) {
      if (table.scrollWidth > table.clientWidth + 1) {
        table.tabIndex = 0;
        table.setAttribute('aria-label', t().learn.tensorScrolls(table.closest<HTMLElement>('.walk-box')?.dataset.name ?? '?'));
      } else table.removeAttribute('tabindex');
    }
  }

  private box(e: LearnEntry, i: number): HTMLElement {
    const [page, anchor = ''] = e.doc.split('#');
    const doc = h('div', { class: 'walk-doc', hidden: true });
    const section = docAnchor(e.doc, locale.get());
    const link = h('a', {
      href: docHref(page, section), target: '_blank', rel: 'noopener', class: 'walk-fn',
      onclick: (ev: Event) => { ev.preventDefault(); void this.toggleDoc(doc, page, section); },
    }, h('code', {}, e.function), ' — ', h('span', { translate: 'no' }, page.replace('.md', ''), anchor ? ` § ${section}` : ''));
    const edited = this.isEditedParam(e);
    const wide = (e.shape[e.shape.length - 1] ?? 1) > 6;  // a wide tensor gets the whole row
    const { math, words } = equationOf(e, this.trace!);
    return h('li', {
      class: `walk-box phase-${e.phase}${edited ? ' edited' : ''}${wide ? ' wide' : ''}`, 'data-name': e.name, 'data-phase': e.phase,
      'data-node': e.node, tabindex: -1, onclick: () => this.go(i, false),
    },
      h('header', {},
        h('span', { class: 'walk-index' }, String(i + 1)),
        h('span', { class: 'walk-name', translate: 'no' }, e.name),
        h('span', { class: 'walk-shape' }, `(${e.shape.join(', ')})`),
        h('span', { class: 'walk-phase' }, t().learn.phaseTag[e.phase])),
      h('p', { class: 'walk-eq' }, math !== null ? h('span', { class: 'walk-math', translate: 'no' }, math) : null, ...(words ? wordedNodes(words(t())) : [])),
      this.tensor(e),
      h('p', { class: 'walk-src' }, t().learn.computedBy, link),
      doc);
  }

  private isEditedParam(e: LearnEntry): boolean {
    if (e.node !== 'params') return false;
    for (const w of this.weightEdits.values()) if (w.param === e.name) return true;
    return false;
  }

  /** The tensor as a table: the last dimension across, every other index down (numbers: not for translation). */
  private tensor(e: LearnEntry): HTMLElement {
    const shape = e.shape.length ? e.shape : [1];
    const cols = shape[shape.length - 1];
    const rows = Math.max(1, e.values.length / Math.max(1, cols));
    const lead = shape.slice(0, -1);
    const table = h('table', { class: 'walk-tensor', translate: 'no' });
    const isParam = e.node === 'params';
    for (let r = 0; r < rows; r++) {
      const idx: number[] = [];
      let rem = r;
      for (let d = lead.length - 1; d >= 0; d--) { idx.unshift(rem % lead[d]); rem = Math.floor(rem / lead[d]); }
      const row = h('tr', {}, h('th', { scope: 'row' }, lead.length ? `[${idx.join(',')}]` : ''));
      for (let c = 0; c < cols; c++) {
        const flat = r * cols + c;
        const v = e.values[flat];
        const td = h('td', { 'data-v': String(v), 'data-i': flat }, formatValue(v));
        if (isParam) {
          td.title = t().learn.clickToEdit(`${e.name}[${flat}]`);
          td.addEventListener('click', () => this.pickWeight(e.name, flat, v));
        }
        row.append(td);
      }
      table.append(row);
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

  /** Shows (or hides) the box's docs section, from the page in the current language. */
  private async toggleDoc(el: HTMLElement, page: string, anchor: string): Promise<void> {
    if (!el.hidden) { el.hidden = true; return; }
    const href = docHref(page);
    let shown: Node;
    try {
      let md = this.docCache.get(href);
      if (!md) {
        md = fetch(href).then((r) => { if (!r.ok) throw new Error(`${r.status}`); return r.text(); });
        this.docCache.set(href, md);
      }
      const text = markdownSection(await md, anchor);
      shown = text !== null ? (await import('./doc-section')).renderDocSection(text)
        : h('p', { class: 'small' }, ...wordedNodes(withCode(t().learn.noSection, `${href}#${anchor}`)));
    } catch (err) {
      this.docCache.delete(href);
      shown = h('p', { class: 'small bad' }, ...wordedNodes(withCode(t().learn.docFailed, href)),
        ' (', h('code', {}, err instanceof Error ? err.message : String(err)), ')');
    }
    el.replaceChildren(shown);
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
