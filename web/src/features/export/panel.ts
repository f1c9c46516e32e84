// panel.ts (export) — "Download as…" (the formats of export.h) and the check in ONNX Runtime: the
// same prompt continued by tinygpt and by onnxruntime-web, side by side. Part of the runs panel.
import { type MapStore, view, watch } from '../../app/store';
import { t, tr } from '../../i18n';
import { clear, h, NoteLine } from '../../ui';
import type { SessionSlice } from '../session';
import type { ExportSlice } from './state';
import './panel.css';

/** The choices of the menu: a format, and for GGUF its type. */
export const CHOICES = ['safetensors', 'onnx', 'hf', 'gguf-f32', 'gguf-f16', 'gguf-q8_0'] as const;
export type ExportChoice = (typeof CHOICES)[number];

export interface ExportHandlers {
  onDownload(choice: ExportChoice): void;
  onCheck(prompt: string): void;
}

export class ExportBox {
  readonly el: HTMLElement;
  private result = h('div', { id: 'export-check-result', class: 'export-check', 'aria-live': 'polite' });
  private status: NoteLine;

  constructor(store: MapStore<ExportSlice>, session: MapStore<SessionSlice>, handlers: ExportHandlers) {
    const buttons = CHOICES.map((c) => {
      const b = h('button', { type: 'button', class: 'small-button', 'data-export': c, id: `btn-export-${c}` }, tr((m) => m.export.formats[c]));
      b.addEventListener('click', () => handlers.onDownload(c));
      return b;
    });
    const menu = h('details', { id: 'export-menu', class: 'export-menu' },
      h('summary', { title: tr((m) => m.export.menuTitle) }, tr((m) => m.export.menu)),
      h('div', { class: 'export-formats' }, ...buttons));
    const prompt = h('input', { id: 'export-prompt', type: 'text', value: 'ROMEO:', 'aria-label': tr((m) => m.export.checkPrompt), size: 16 });
    const check = h('button', { type: 'button', id: 'btn-export-check', title: tr((m) => m.export.checkHelp) }, tr((m) => m.export.check));
    check.addEventListener('click', () => handlers.onCheck(prompt.value));
    this.status = new NoteLine(h('p', { id: 'export-status', class: 'muted small' }));
    this.el = h('div', { id: 'export', class: 'export-box' }, menu,
      h('div', { class: 'row' }, prompt, check), this.status.el, this.result);
    watch(view(store, session), ['model', 'exportBusy', 'exportChecking'], (st) => {
      for (const b of buttons) b.disabled = !st.model || !!st.exportBusy;
      check.disabled = !st.model || st.exportChecking || st.model.config.model !== 'gpt';
      this.status.set(st.exportChecking ? (m) => m.export.checking : st.exportBusy ? (m) => m.export.writing : null, st.exportBusy ?? '');
    });
    watch(store, ['exportCheck', 'exportCheckError', 'locale'], (st) => this.show(st));
  }

  private show(st: ExportSlice): void {
    clear(this.result);
    const m = t().export;
    if (st.exportCheckError) {
      this.result.append(h('p', { class: 'error small' }, m.checkFailed, st.exportCheckError.message));
      return;
    }
    const c = st.exportCheck;
    if (!c) return;
    const diff = c.maxDiff.toExponential(1);
    const column = (title: string, text: string, id: string) =>
      h('div', { class: 'export-side' }, h('h4', { class: 'small-title' }, title),
        h('pre', { id, translate: 'no' }, c.prompt, h('strong', {}, text)));
    this.result.append(h('div', { class: 'export-sides' }, column(m.ours, c.core, 'export-core'), column(m.theirs, c.onnx, 'export-onnx')),
      h('p', { class: 'small', id: 'export-verdict', 'data-same': String(c.firstDifference < 0) },
        c.firstDifference < 0 ? m.same(c.tokens, diff) : m.differ(c.firstDifference, diff)));
  }
}
