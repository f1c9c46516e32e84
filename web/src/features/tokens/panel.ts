// panel.ts (tokens) — the Tokens view: the vocabulary (learned here with a progress bar and Cancel,
// or loaded from a file), a text as token chips with their ids and tokens per byte, the merges in
// the order they were learned with their counts (a slider steps through them: the text is cut again
// after each), and a box to type a word and see how it splits.
import { type MapStore, type View, view, watch } from '../../app/store';
import { type Locale, t, tr } from '../../i18n';
import { formatCount } from '../../lib/format';
import { clear, coreInline, h, panelHeader, setText } from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import { bytesPerToken, chipsOf, clampStep, visible } from './derive';
import type { MergeRow, TokenChips, TokenizerInfo } from './messages';
import type { TokensSlice } from './state';
import './panel.css';

export interface TokensHandlers {
  onTrain(vocab: number): void;
  onCancel(): void;
  onLoad(files: File[]): void;
  onText(text: string): void;
  onStep(merges: number): void;
  onWord(word: string): void;
  canCancel: boolean;   // the page can stop the worker's learning (a shared flag)
}

type S = TokensSlice & SessionSlice & SettingsSlice;

/** Chips of a text's tokens: the label (data: translate="no"), the id and the bytes on hover. */
function drawChips(el: HTMLElement, c: TokenChips | null): void {
  clear(el);
  if (!c) return;
  for (const chip of chipsOf(c)) {
    el.append(h('span', {
      class: `chip${chip.merged ? ' merged' : ''}${chip.pieceStart ? ' piece' : ''}`, translate: 'no', 'data-id': chip.id,
      title: t().tokens.chipTitle(chip.id, chip.bytes),
    }, h('span', { class: 'chip-text' }, visible(chip.label)), h('small', { class: 'chip-id' }, String(chip.id))));
  }
  el.dataset.tokens = String(c.ids.length);
}

export class TokensPanel {
  readonly el: HTMLElement;
  private status = h('p', { id: 'tokens-status', class: 'small', 'aria-live': 'polite' });
  private progress = h('progress', { id: 'tokens-progress', max: 1, value: 0, hidden: true, 'aria-labelledby': 'tokens-progress-note' });
  private progressNote = h('span', { id: 'tokens-progress-note', class: 'small muted' });
  private cancelBtn = h('button', { id: 'tokens-cancel', type: 'button', hidden: true }, tr((m) => m.tokens.cancel));
  private vocab = h('input', { id: 'tokens-vocab', type: 'number', min: 257, max: 65536, step: 1, value: '1024' });
  private error = h('p', { id: 'tokens-error', class: 'settings-error', role: 'alert', hidden: true });
  private text = h('textarea', { id: 'tokens-text', rows: 3, spellcheck: 'false' });
  private chips = h('div', { id: 'tokens-chips', class: 'token-chips', role: 'list' });
  private rate = h('p', { id: 'tokens-rate', class: 'small muted' });
  private step = h('input', { id: 'tokens-step', type: 'range', min: 0, max: 0, step: 1, value: '0' });
  private stepNote = h('span', { id: 'tokens-step-note', class: 'small' });
  private merges = h('ol', { id: 'tokens-merges', class: 'token-merges' });
  private word = h('input', { id: 'tokens-word', type: 'text', spellcheck: 'false' });
  private wordChips = h('div', { id: 'tokens-word-chips', class: 'token-chips', role: 'list' });
  private body: HTMLElement;

  constructor(store: MapStore<TokensSlice>, session: MapStore<SessionSlice>, settings: MapStore<SettingsSlice>, private handlers: TokensHandlers) {
    const trainBtn = h('button', { id: 'tokens-train', type: 'button' }, tr((m) => m.tokens.train));
    trainBtn.addEventListener('click', () => handlers.onTrain(Number(this.vocab.value)));
    this.cancelBtn.addEventListener('click', () => handlers.onCancel());
    const file = h('input', { id: 'tokens-file', type: 'file', multiple: true, accept: '.json,.txt,.tok,.bin' });
    file.addEventListener('change', () => {
      if (file.files?.length) handlers.onLoad([...file.files]);
      file.value = '';
    });
    this.text.addEventListener('input', () => handlers.onText(this.text.value));
    this.word.addEventListener('input', () => handlers.onWord(this.word.value));
    this.step.addEventListener('input', () => handlers.onStep(Number(this.step.value)));
    const stepBy = (d: number) => () => handlers.onStep(Number(this.step.value) + d);
    const prev = h('button', { id: 'tokens-prev', type: 'button', 'aria-label': tr((m) => m.tokens.prev) }, '‹');
    const next = h('button', { id: 'tokens-next', type: 'button', 'aria-label': tr((m) => m.tokens.next) }, '›');
    prev.addEventListener('click', stepBy(-1));
    next.addEventListener('click', stepBy(1));
    this.body = h('div', { class: 'tokens-body' },
      h('div', { class: 'knob prompt-knob' }, h('label', { for: 'tokens-text' }, tr((m) => m.tokens.textLabel)), this.text),
      this.chips, this.rate,
      h('h3', {}, tr((m) => m.tokens.mergesTitle)), h('p', { class: 'small muted' }, tr((m) => m.tokens.mergesExplain)),
      h('div', { class: 'row' }, h('label', { for: 'tokens-step' }, tr((m) => m.tokens.stepLabel)), prev, this.step, next, this.stepNote),
      this.merges,
      h('div', { class: 'knob' }, h('label', { for: 'tokens-word' }, tr((m) => m.tokens.wordLabel)), this.word), this.wordChips);
    this.el = h('section', { id: 'tokens', class: 'card wide', 'aria-labelledby': 'tokens-title' },
      panelHeader(10, tr((m) => m.tokens.title), tr((m) => m.tokens.explain)),
      this.status,
      h('div', { class: 'row' }, h('label', { for: 'tokens-vocab' }, tr((m) => m.tokens.vocabLabel)), this.vocab, trainBtn,
        h('label', { for: 'tokens-file', class: 'file-button' }, tr((m) => m.tokens.load)), file),
      h('div', { class: 'row' }, this.progress, this.progressNote, this.cancelBtn),
      this.error, this.body);
    this.el.querySelector('h2')!.id = 'tokens-title';
    this.subscribe(view(store, session, settings));
  }

  private subscribe(store: View<S & { locale: Locale }>): void {
    watch(store, ['tokensText', 'tokensWord'], (s) => {
      if (document.activeElement !== this.text) this.text.value = s.tokensText;
      if (document.activeElement !== this.word) this.word.value = s.tokensWord;
    });
    watch(store, ['settings'], (s) => {
      if (s.settings?.tokenizer === 'bpe' && document.activeElement !== this.vocab) this.vocab.value = String(s.settings.vocab_size);
    });
    watch(store, ['tokenizer', 'locale'], (s) => this.showTokenizer(s.tokenizer));
    watch(store, ['tokensProgress', 'locale'], (s) => this.showProgress(s));
    watch(store, ['tokensError', 'locale'], (s) => {
      this.error.hidden = !s.tokensError;
      this.error.replaceChildren(...(s.tokensError ? [coreInline(s.tokensError.message, s.tokensError)] : []));
    });
    watch(store, ['tokensChips', 'locale'], (s) => this.showChips(s.tokensChips));
    watch(store, ['tokensWordChips'], (s) => drawChips(this.wordChips, s.tokensWordChips));
    watch(store, ['tokensMerges', 'tokensStep', 'tokenizer', 'locale'], (s) => this.showMerges(s));
  }

  private showTokenizer(tk: TokenizerInfo | null): void {
    const m = t().tokens;
    this.body.hidden = !tk;
    this.el.dataset.vocab = tk ? String(tk.vocab) : '256';
    if (!tk) return setText(this.status, m.bytesOnly);
    const how = tk.source === 'model' ? m.fromModel : tk.source === 'loaded' ? m.loaded(tk.name) : m.learned(bytesPerToken(tk.trainingTokensPerByte).toFixed(2));
    setText(this.status, m.summary(formatCount(tk.vocab), formatCount(tk.merges), how), tk.fingerprint);
    this.step.max = String(tk.merges);
    this.step.disabled = !tk.steppable;
  }

  private showProgress(s: S): void {
    const p = s.tokensProgress;
    this.progress.hidden = !p;
    this.cancelBtn.hidden = !p || !this.handlers.canCancel;
    if (!p) return setText(this.progressNote, '');
    this.progress.value = p.total ? p.done / p.total : 0;
    const m = t().tokens;
    setText(this.progressNote, p.phase === 'counting' ? m.counting(Math.round(100 * p.done / Math.max(1, p.total))) : m.merging(formatCount(p.done), formatCount(p.total)));
  }

  private showChips(c: TokenChips | null): void {
    drawChips(this.chips, c);
    setText(this.rate, c ? t().tokens.rate(formatCount(c.ids.length), formatCount(c.bytes), c.tokensPerByte.toFixed(3)) : '', c ? c.tokensPerByte.toFixed(4) : '');
  }

  private showMerges(s: S): void {
    const tk = s.tokenizer;
    if (!tk) return;
    const step = s.tokensStep < 0 ? tk.merges : clampStep(s.tokensStep, tk.merges);
    this.step.value = String(step);
    setText(this.stepNote, t().tokens.stepNote(formatCount(step), formatCount(tk.merges)), step);
    clear(this.merges);
    for (const r of s.tokensMerges) this.merges.append(this.mergeRow(r, step));
  }

  /** "e" + " " → "e " (id 256), seen 12,345 times; the merges applied to the text above are marked. */
  private mergeRow(r: MergeRow, step: number): HTMLElement {
    const tok = (x: string) => h('span', { class: 'chip', translate: 'no' }, h('span', { class: 'chip-text' }, visible(x)));
    return h('li', { value: r.rank + 1, class: r.rank < step ? 'applied' : '', 'data-rank': r.rank },
      tok(r.left), ' + ', tok(r.right), ' → ', tok(r.made), h('small', { class: 'muted' }, ` ${t().tokens.mergeCount(r.id, r.count ? formatCount(r.count) : '')}`));
  }
}
