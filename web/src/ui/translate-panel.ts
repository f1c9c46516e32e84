// translate-panel.ts — the translator at work: a source in, its translation out, each character
// shaded by the probability the model gave it (the sample panel's shading), greedy or with a
// beam; the seed's sentence (我 爱 吃 火锅) and pairs of the data as examples.
import type { TranslateRequest } from '../app/controller';
import { SEED_PAIR, previewPairs } from '../app/derive';
import { type PageStore, type RunState, type TranslationState, watch } from '../app/state';
import { formatProb } from '../format';
import { charLabel, hex, hexChip, segmentUtf8 } from '../utf8';
import { clear, h, panelHeader, setText } from './dom';
import { segmentProb, shadedSpan, surprise } from './shading';
import { hideTooltip, showTooltip } from './tooltip';

export interface TranslateHandlers {
  onTranslate(req: TranslateRequest): void;
}

export class TranslatePanel {
  readonly el: HTMLElement;
  readonly source: HTMLTextAreaElement;
  private beam: HTMLInputElement;
  private btn: HTMLButtonElement;
  private seedBtn: HTMLButtonElement;
  private dataBtn: HTMLButtonElement;
  private output: HTMLElement;
  private info: HTMLElement;
  private reference: HTMLElement;
  private tokens: HTMLElement[] = [];
  private active = -1;
  private shown: TranslationState | null = null;

  constructor(private store: PageStore, private handlers: TranslateHandlers) {
    this.source = h('textarea', { id: 'translate-source', rows: 2, spellcheck: 'false', placeholder: 'A source to translate (Ctrl+Enter)', 'aria-describedby': 'translate-source-help' });
    this.beam = h('input', { id: 'translate-beam', type: 'number', value: '1', min: 1, max: 8, step: 1, 'aria-describedby': 'translate-beam-help' });
    this.btn = h('button', { id: 'btn-translate', type: 'button', class: 'primary' }, 'Translate');
    this.seedBtn = h('button', { id: 'btn-seed-example', type: 'button' }, `Try the seed's sentence: ${SEED_PAIR.source}`);
    this.dataBtn = h('button', { id: 'btn-data-example', type: 'button' }, 'A source from the data');
    this.output = h('div', {
      id: 'translate-output', class: 'sample-output translate-output', tabindex: '0', role: 'log', 'aria-live': 'polite',
      'aria-label': 'Translation. Use the arrow keys to inspect each character.',
    });
    this.info = h('p', { id: 'translate-info', class: 'muted small' }, '');
    this.reference = h('p', { id: 'translate-reference', class: 'small', hidden: true });
    this.el = h('section', { id: 'translate', class: 'card wide', 'aria-labelledby': 'translate-title', hidden: true },
      panelHeader(4, 'Translate', 'The encoder reads the whole source once; the decoder then writes the translation one byte at a time, ' +
        'each from a distribution over the 256 bytes and the end token, reading the source through cross-attention. Greedy (beam 1) takes ' +
        'the likeliest byte each time; a wider beam keeps that many candidate translations and returns the best. Shading shows how ' +
        'sure the model was of each character.'),
      h('div', { class: 'sample-grid' },
        h('div', { class: 'knob prompt-knob' }, h('label', { for: 'translate-source' }, 'Source'), this.source,
          h('span', { class: 'help', id: 'translate-source-help' }, 'The model reads at most block_size bytes of source.')),
        h('div', { class: 'knob-row' },
          h('div', { class: 'knob' }, h('label', { for: 'translate-beam' }, 'Beam width'), this.beam,
            h('span', { class: 'help', id: 'translate-beam-help' }, '1 = greedy')))),
      h('div', { class: 'row' }, this.btn, this.seedBtn, this.dataBtn, this.info),
      this.output, this.reference,
      h('p', { class: 'legend small' }, h('span', { class: 'legend-bar surprise' }), ' light: the model was sure · dark: it was a surprise (probability below 1/256); ⟨end⟩: it chose to stop'));
    this.el.querySelector('h2')!.id = 'translate-title';
    this.btn.addEventListener('click', () => this.translate());
    this.seedBtn.addEventListener('click', () => {
      this.source.value = SEED_PAIR.source;
      this.translate();
    });
    this.dataBtn.addEventListener('click', () => this.fromData());
    this.source.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.translate();
      }
    });
    this.output.addEventListener('keydown', (e) => this.onKey(e));
    this.output.addEventListener('blur', () => hideTooltip());
    this.output.addEventListener('mouseleave', () => hideTooltip());
    this.output.addEventListener('mouseover', (e) => {
      const t = (e.target as HTMLElement).closest<HTMLElement>('.tok');
      if (t) this.focusToken(Number(t.dataset.k), false);
    });
    watch(store, ['mode'], (st) => (this.el.hidden = st.mode !== 'seq2seq'));
    watch(store, ['model', 'translation', 'mode', 'corpus'], (st) => this.setEnabled(st));
    watch(store, ['translation'], (st) => this.show(st.translation));
  }

  /** The `g` shortcut in translation mode. */
  translateNow(): void {
    if (!this.btn.disabled) this.translate();
  }

  private setEnabled(s: RunState): void {
    const can = !!s.model && s.mode === 'seq2seq';
    const busy = !!s.translation?.busy;
    const why = can ? '' : 'Train or load a translator first';
    this.btn.disabled = this.seedBtn.disabled = !can || busy;
    this.dataBtn.disabled = !can || busy || s.corpus?.kind !== 'pairs';
    this.btn.title = why;
    this.seedBtn.title = why || 'The running example of the seed document';
    this.dataBtn.title = why || 'The source of a pair from the data';
    if (!can) setText(this.info, 'Train or load a translator to translate with it.');
    else if (!s.translation) setText(this.info, '');
  }

  private translate(): void {
    const beam = Math.round(Number(this.beam.value));
    if (!(beam >= 1 && beam <= 8)) {
      setText(this.info, 'Beam width must be between 1 and 8');
      return;
    }
    if (!this.source.value) {
      setText(this.info, 'Type a source first.');
      return;
    }
    this.handlers.onTranslate({ source: this.source.value, beam });
  }

  private fromData(): void {
    const c = this.store.get().corpus;
    if (c?.kind !== 'pairs') return;
    const pairs = previewPairs(c.preview, 200);
    if (!pairs.length) return;
    this.source.value = pairs[Math.floor(Math.random() * pairs.length)].source;
    this.translate();
  }

  /** Draws a translation: its characters shaded by their probability, then the end token's. */
  private show(t: TranslationState | null): void {
    if (!t) {
      clear(this.output);
      this.reference.hidden = true;
      this.shown = null;
      return;
    }
    if (t === this.shown) return;
    this.shown = t;
    this.output.classList.toggle('stale', t.busy);
    if (t.busy) {
      setText(this.info, 'Translating…');
      this.output.dataset.done = 'false';
      this.reference.hidden = true;
      return;
    }
    if (!t.result) {
      // refused (e.g. a source longer than the model reads): the message, and no stale output
      clear(this.output);
      this.tokens = [];
      this.reference.hidden = true;
      setText(this.info, t.note);
      this.output.dataset.done = 'true';
      this.output.dataset.text = '';
      this.output.dataset.error = 'true';
      return;
    }
    delete this.output.dataset.error;
    const r = t.result;
    clear(this.output);
    this.tokens = [];
    this.active = -1;
    for (const seg of segmentUtf8(r.text)) {
      const el = shadedSpan(seg, segmentProb(r.probs, seg), this.tokens.length);
      this.tokens.push(el);
      this.output.append(el);
    }
    if (r.finished) {
      const p = r.probs[r.text.length];
      const end = h('span', { class: 'tok end', 'data-k': this.tokens.length, 'data-p': p.toPrecision(4), 'data-start': r.text.length, 'data-len': 0 }, '⟨end⟩');
      end.style.setProperty('--s', surprise(p).toFixed(3));
      this.tokens.push(end);
      this.output.append(end);
    }
    const text = new TextDecoder().decode(r.text);
    this.output.dataset.done = 'true';
    this.output.dataset.text = text;
    this.output.dataset.bytes = String(r.text.length);
    setText(this.info, `${r.text.length} bytes, log p ${r.logProb.toFixed(3)}, ${r.beam > 1 ? `beam ${r.beam}` : 'greedy'}, ` +
      `${r.finished ? 'ended with ⟨end⟩' : 'stopped at the length limit'}; model at step ${r.step}.`);
    // the data's own translation of this source, when the page has seen it
    const c = this.store.get().corpus;
    const ref = c?.kind === 'pairs' ? previewPairs(c.preview, 1000).find((p) => p.source === t.source)?.target : undefined;
    const seed = t.source === SEED_PAIR.source ? SEED_PAIR.target : undefined;
    const expected = ref ?? seed;
    this.reference.hidden = expected === undefined;
    if (expected !== undefined) {
      const same = expected === text;
      this.reference.dataset.match = String(same);
      setText(this.reference, `${ref !== undefined ? 'The data' : 'The seed'} says: “${expected}” — ${same ? 'the same.' : 'not the same.'}`);
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (!this.tokens.length) return;
    let k = this.active;
    if (e.key === 'ArrowRight') k = Math.min(this.tokens.length - 1, k + 1);
    else if (e.key === 'ArrowLeft') k = Math.max(0, k < 0 ? this.tokens.length - 1 : k - 1);
    else if (e.key === 'Home') k = 0;
    else if (e.key === 'End') k = this.tokens.length - 1;
    else if (e.key === 'Escape') return hideTooltip();
    else return;
    e.preventDefault();
    this.focusToken(k, true);
  }

  private focusToken(k: number, scroll: boolean): void {
    if (k < 0 || k >= this.tokens.length) return;
    this.tokens[this.active]?.classList.remove('active');
    this.active = k;
    const el = this.tokens[k];
    el.classList.add('active');
    if (scroll) el.scrollIntoView({ block: 'nearest' });
    const r = this.shown?.result;
    if (!r) return;
    const start = Number(el.dataset.start);
    const len = Number(el.dataset.len);
    const bytes = Array.from(r.text.subarray(start, start + len));
    const title = len === 0 ? '⟨end⟩: the translation stops here'
      : el.classList.contains('chip') ? `${hexChip(bytes)} (not a complete UTF-8 character)`
        : `“${charLabel(el.textContent ?? '')}” ${len > 1 ? `= bytes ${bytes.map(hex).join(' ')}` : `(byte ${hex(bytes[0])})`}`;
    showTooltip(h('div', { class: 'tip-sample' }, h('div', { class: 'tip-title' }, title),
      h('div', { class: 'muted' }, `probability ${formatProb(Number(el.dataset.p))}${len > 1 ? ' (product over its bytes)' : ''}`)), el.getBoundingClientRect());
  }
}
