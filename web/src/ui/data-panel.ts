// data-panel.ts — choosing the text to learn from: drop, file picker, or the built-in corpus;
// what the text is made of; and why a file was refused.
import { type CorpusProblem, type PageStore, watch } from '../app/state';
import type { CorpusStats } from '../corpus';
import { formatBytes, formatCount } from '../format';
import { hexChip, segmentUtf8 } from '../utf8';
import { clear, h, panelHeader, setText } from './dom';

export interface DataHandlers {
  onFile(file: File): void;
  onBuiltin(): void;
  /** One of the refused file's actions (e.g. "Train anyway"), or Cancel (null). */
  onProblem(actionId: string | null): void;
}

export interface CorpusView {
  name: string;
  builtin: boolean;
  stats: CorpusStats;
  preview: Uint8Array;   // the first bytes of the text
}

export class DataPanel {
  readonly el: HTMLElement;
  private info: HTMLElement;
  private problem: HTMLElement;
  private busy: HTMLElement;
  private input: HTMLInputElement;
  private builtinBtn: HTMLButtonElement;

  constructor(store: PageStore, private handlers: DataHandlers) {
    this.input = h('input', { type: 'file', id: 'corpus-file', class: 'visually-hidden' });
    this.input.addEventListener('change', () => {
      const f = this.input.files?.[0];
      if (f) handlers.onFile(f);
      this.input.value = '';
    });
    this.builtinBtn = h('button', { id: 'btn-shakespeare', class: 'primary', type: 'button' }, 'Shakespeare');
    this.builtinBtn.addEventListener('click', () => handlers.onBuiltin());
    const pick = h('label', { class: 'button', for: 'corpus-file' }, 'Choose a file…');
    pick.setAttribute('tabindex', '0');
    pick.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        this.input.click();
      }
    });
    this.busy = h('p', { class: 'busy', hidden: true, role: 'status' });
    this.problem = h('div', { id: 'corpus-message', class: 'problem', role: 'alert', hidden: true });
    this.info = h('div', { id: 'corpus-info', class: 'corpus-info' },
      h('p', { class: 'muted' }, 'No text yet. Drop a file anywhere on the page, choose one, or use the built-in tiny Shakespeare (1.1 MB).'));
    this.el = h('section', { id: 'data', class: 'card', 'aria-labelledby': 'data-title' },
      panelHeader(1, 'Data', 'The model reads raw bytes (256 possible tokens), so any text in any language works. ' +
        'It learns to predict each next byte; the last 10% of the text is held out to measure how well it generalises.'),
      h('div', { class: 'row' }, this.builtinBtn, pick, this.input, h('span', { class: 'hint' }, 'or drop a .txt file on the page')),
      this.busy, this.problem, this.info);
    this.el.querySelector('h2')!.id = 'data-title';
    watch(store, ['corpusBusy'], (st) => this.setBusy(st.corpusBusy));
    watch(store, ['corpusProblem'], (st) => this.showProblem(st.corpusProblem));
    watch(store, ['corpus'], (st) => {
      if (st.corpus) this.show({ name: st.corpus.ref.name, builtin: st.corpus.ref.builtin, stats: st.corpus.stats, preview: st.corpus.preview });
    });
  }

  private setBusy(text: string | null): void {
    this.busy.hidden = !text;
    setText(this.busy, text ?? '');
  }

  /** A refused file: the message, and the actions it offers (e.g. "Train anyway"). */
  private showProblem(p: CorpusProblem | null): void {
    clear(this.problem);
    this.problem.hidden = !p;
    if (!p) {
      delete this.problem.dataset.kind;
      return;
    }
    this.problem.dataset.kind = p.kind;
    this.problem.append(h('strong', {}, p.title), h('p', {}, p.message));
    const row = h('div', { class: 'row' });
    for (const a of p.actions) {
      const b = h('button', { type: 'button', id: `btn-${a.id}`, class: 'primary' }, a.label);
      b.addEventListener('click', () => this.handlers.onProblem(a.id));
      row.append(b);
    }
    const dismiss = h('button', { type: 'button' }, p.actions.length ? 'Cancel' : 'OK');
    dismiss.addEventListener('click', () => this.handlers.onProblem(null));
    row.append(dismiss);
    this.problem.append(row);
  }

  private show(c: CorpusView): void {
    const s = c.stats;
    clear(this.info);
    const stat = (id: string, label: string, value: string, raw: number | string, title?: string) =>
      h('div', { class: 'stat', title: title ?? null }, h('dt', {}, label), h('dd', { id, 'data-value': String(raw) }, value));
    const invalidNote = s.invalid > 0 ? `${formatCount(s.invalid)} invalid UTF-8 sequence${s.invalid === 1 ? '' : 's'}` : 'all valid UTF-8';
    this.info.append(
      h('p', { class: 'corpus-name' }, h('strong', { id: 'corpus-name' }, c.name), c.builtin ? h('span', { class: 'tag' }, 'built in') : null,
        h('span', { class: 'muted' }, ` · ${formatBytes(s.size)}`)),
      h('dl', { class: 'stats' },
        stat('corpus-bytes', 'Bytes (tokens)', formatCount(s.size), s.size),
        stat('corpus-distinct', 'Distinct bytes', `${s.distinct} of 256`, s.distinct, 'How many of the 256 possible byte values occur'),
        stat('corpus-chars', 'Characters', formatCount(s.chars), s.chars, `${formatCount(s.multibyte)} take several bytes; ${invalidNote}`),
        stat('corpus-lines', 'Lines', formatCount(s.lines), s.lines)),
      h('p', { class: 'muted small' }, s.multibyte > 0
        ? `${formatCount(s.multibyte)} characters take 2–4 bytes each in UTF-8; the model sees each byte as a separate token. ${s.invalid ? invalidNote + '.' : ''}`
        : `Every character is one byte here. ${s.invalid ? invalidNote + '.' : ''}`),
      h('h3', { class: 'small-title' }, 'Beginning of the text'),
      this.renderPreview(c.preview, s.size));
  }

  private renderPreview(bytes: Uint8Array, total: number): HTMLElement {
    const pre = h('pre', { id: 'corpus-preview', class: 'preview', tabindex: '0', 'aria-label': 'Preview of the text' });
    // a sequence cut by the end of the preview is not invalid: it continues in the file
    const cut = bytes.length < total;
    for (const seg of segmentUtf8(bytes, { final: !cut })) {
      if (seg.kind === 'char') pre.append(seg.text);
      else pre.append(h('span', { class: seg.partial ? 'chip partial' : 'chip', title: seg.partial ? 'continues after the preview' : 'not valid UTF-8' }, hexChip(seg.bytes)));
    }
    if (cut) pre.append(h('span', { class: 'muted' }, ' …'));
    return pre;
  }
}
