// keep-panel.ts — checkpoints (download / load) and the autosave status; the resume banner.
import { type PageStore, type ResumeOffer, watch } from '../app/state';
import { formatCount } from '../format';
import { h, panelHeader, setText } from './dom';

export interface KeepHandlers {
  onDownload(): void;
  onLoadFile(file: File): void;
}

export class KeepPanel {
  readonly el: HTMLElement;
  private downloadBtn: HTMLButtonElement;
  private status: HTMLElement;

  constructor(store: PageStore, handlers: KeepHandlers) {
    this.downloadBtn = h('button', { id: 'btn-download', type: 'button' }, 'Download checkpoint');
    this.downloadBtn.addEventListener('click', () => handlers.onDownload());
    const input = h('input', { type: 'file', id: 'ckpt-file', class: 'visually-hidden', accept: '.ckpt,.bin,.safetensors,application/octet-stream' });
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      if (f) handlers.onLoadFile(f);
      input.value = '';
    });
    const load = h('label', { class: 'button', for: 'ckpt-file', tabindex: '0' }, 'Load checkpoint…');
    load.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        input.click();
      }
    });
    this.status = h('p', { id: 'autosave-status', class: 'muted small', 'aria-live': 'polite' }, 'Nothing saved yet.');
    this.el = h('section', { id: 'keep', class: 'card', 'aria-labelledby': 'keep-title' },
      panelHeader(6, 'Keep your work', 'The run is saved in this browser every few hundred steps and whenever you pause, so a reload ' +
        'can resume it exactly. A checkpoint file holds the weights, the optimizer state and the loss history, in the same format ' +
        'as the command-line tool (tinygpt train --resume file.ckpt). Drop one on the page to load it, or a .safetensors model ' +
        '(tinygpt export) to start a new run from its weights.'),
      h('div', { class: 'row' }, this.downloadBtn, load, input),
      this.status);
    this.el.querySelector('h2')!.id = 'keep-title';
    watch(store, ['model', 'download'], (st) => (this.downloadBtn.disabled = !st.model || st.download));
    watch(store, ['saveStatus'], (st) => setText(this.status, st.saveStatus.text, st.saveStatus.step ?? ''));
  }
}

export class ResumeBanner {
  readonly el: HTMLElement;
  private text: HTMLElement;

  constructor(store: PageStore, onResume: () => void, onDiscard: () => void) {
    this.text = h('span', { class: 'text' });
    const resume = h('button', { type: 'button', id: 'btn-resume', class: 'primary' }, 'Resume');
    const discard = h('button', { type: 'button', id: 'btn-discard' }, 'Discard');
    resume.addEventListener('click', onResume);
    discard.addEventListener('click', onDiscard);
    this.el = h('div', { id: 'resume-banner', class: 'banner', role: 'region', 'aria-label': 'Saved run', hidden: true }, this.text, resume, discard);
    watch(store, ['resumeOffer'], (st) => this.show(st.resumeOffer));
  }

  private show(info: ResumeOffer | null): void {
    this.el.hidden = !info;
    if (!info) return;
    const when = new Date(info.savedAt).toLocaleString();
    setText(this.text, `A run was saved in this browser on ${when}: step ${formatCount(info.step)} of ${formatCount(info.steps)}, ` +
      `${info.model}, trained on ${info.corpusName}. Continue exactly where it stopped?`);
  }
}
