// keep-panel.ts — keeping your work: the save status ("saved 4 s ago"), "Your runs" (resume,
// rename, download, delete, sizes, the storage quota), checkpoint files; and the resume banner.
import { type PageStore, type ResumeOffer, type RunState, type RunSummary, watch } from '../app/state';
import { formatBytes, formatCount, formatLoss } from '../format';
import { clear, h, panelHeader, setText } from './dom';

export interface KeepHandlers {
  onDownload(): void;
  onLoadFile(file: File): void;
  onResume(runId: string): void;
  onRename(runId: string): void;
  onDownloadRun(runId: string): void;
  onDelete(runId: string): void;
  onPersist(): void;
}

/** "4 s", "3 min", "2 h" */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h`;
}

export class KeepPanel {
  readonly el: HTMLElement;
  private downloadBtn: HTMLButtonElement;
  private status: HTMLElement;
  private list: HTMLElement;
  private storage: HTMLElement;

  constructor(private store: PageStore, private handlers: KeepHandlers) {
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
    this.list = h('ul', { id: 'runs-list', class: 'runs' });
    this.storage = h('p', { id: 'storage', class: 'muted small' });
    this.el = h('section', { id: 'keep', class: 'card wide', 'aria-labelledby': 'keep-title' },
      panelHeader(6, 'Keep your work', 'Each run is saved in this browser every 10 seconds of training, whenever it pauses and when the tab ' +
        'is hidden or closed, so a reload can resume it exactly. A checkpoint file holds the weights, the optimizer state and the loss ' +
        'history, in the same format as the command-line tool (tinygpt train --resume file.ckpt). Drop one on the page to load it, ' +
        'or a .safetensors model (tinygpt export) to start a new run from its weights.'),
      h('div', { class: 'row' }, this.downloadBtn, load, input),
      this.status,
      h('h3', { class: 'small-title', id: 'runs-title' }, 'Your runs'),
      this.list, this.storage);
    this.list.setAttribute('aria-labelledby', 'runs-title');
    this.el.querySelector('h2')!.id = 'keep-title';
    watch(store, ['model', 'download'], (st) => (this.downloadBtn.disabled = !st.model || st.download));
    watch(store, ['lastSave', 'saveNote'], () => this.showStatus());
    setInterval(() => this.showStatus(), 1000);   // "saved n s ago" counts up
    watch(store, ['runs'], (st) => this.showRuns(st.runs));
    watch(store, ['storage'], (st) => this.showStorage(st.storage));
  }

  private showStatus(): void {
    const s: RunState = this.store.get();
    const l = s.lastSave;
    if (l && !s.saveNote) {
      setText(this.status, `Saved in this browser at step ${formatCount(l.step)}, ${ago(Date.now() - l.at)} ago (${formatBytes(l.bytes)}).`, l.step);
    } else setText(this.status, s.saveNote || 'Nothing saved yet.', l?.step ?? '');
  }

  private showRuns(runs: RunSummary[]): void {
    clear(this.list);
    if (!runs.length) {
      this.list.append(h('li', { class: 'muted small' }, 'None yet: a run appears here once it is saved.'));
      return;
    }
    for (const r of runs) {
      const button = (label: string, action: (id: string) => void, opts: { disabled?: boolean; title?: string; cls?: string } = {}) => {
        const b = h('button', { type: 'button', class: `small-button ${opts.cls ?? ''}`, 'data-action': label.toLowerCase(), title: opts.title ?? null,
          'aria-label': `${label} ${r.name}` }, label);
        b.disabled = !!opts.disabled;
        b.addEventListener('click', () => action(r.id));
        return b;
      };
      const why = r.busy ? 'Open in another tab: continue it there' : r.current ? 'This tab is training it' : '';
      this.list.append(h('li', { class: 'run', 'data-run': r.id, 'data-busy': String(r.busy), 'data-current': String(r.current) },
        h('div', { class: 'run-main' },
          h('strong', { class: 'run-name' }, r.name),
          r.busy ? h('span', { class: 'tag busy' }, 'open in another tab') : null,
          r.current ? h('span', { class: 'tag' }, 'this tab') : null,
          h('span', { class: 'muted small run-meta' },
            `step ${formatCount(r.step)} of ${formatCount(r.steps)} · ${r.model} · on ${r.corpusName}` +
            `${r.valLoss !== null ? ` · validation ${formatLoss(r.valLoss)}` : ''} · saved ${new Date(r.savedAt).toLocaleString()} · ${formatBytes(r.bytes)}`)),
        h('div', { class: 'run-actions' },
          button('Resume', this.handlers.onResume, { disabled: r.busy || r.current, title: why, cls: 'primary' }),
          button('Rename', this.handlers.onRename),
          button('Download', this.handlers.onDownloadRun),
          button('Delete', this.handlers.onDelete, { disabled: r.busy || r.current, title: why || 'Delete it from this browser' }))));
    }
  }

  private showStorage(s: RunState['storage']): void {
    clear(this.storage);
    if (!s) return;
    this.storage.append(`This page uses ${formatBytes(s.usage)} of the ${formatBytes(s.quota)} the browser allows it. `);
    if (s.persisted) this.storage.append('The browser keeps it until you delete it.');
    else {
      this.storage.append('The browser may clear it when the disk runs low. ');
      const b = h('button', { type: 'button', id: 'btn-persist', class: 'small-button' }, 'Keep it');
      b.addEventListener('click', () => this.handlers.onPersist());
      this.storage.append(b);
    }
  }
}

export class ResumeBanner {
  readonly el: HTMLElement;
  private text: HTMLElement;
  private offer: ResumeOffer | null = null;

  constructor(store: PageStore, onResume: (id: string) => void, onDismiss: () => void) {
    this.text = h('span', { class: 'text' });
    const resume = h('button', { type: 'button', id: 'btn-resume', class: 'primary' }, 'Resume');
    const dismiss = h('button', { type: 'button', id: 'btn-discard', title: 'The run stays under Your runs' }, 'Not now');
    resume.addEventListener('click', () => this.offer && onResume(this.offer.id));
    dismiss.addEventListener('click', onDismiss);
    this.el = h('div', { id: 'resume-banner', class: 'banner', role: 'region', 'aria-label': 'Saved run', hidden: true }, this.text, resume, dismiss);
    watch(store, ['resumeOffer'], (st) => this.show(st.resumeOffer));
  }

  private show(info: ResumeOffer | null): void {
    this.offer = info;
    this.el.hidden = !info;
    if (!info) return;
    const when = new Date(info.savedAt).toLocaleString();
    setText(this.text, `A run was saved in this browser on ${when}: step ${formatCount(info.step)} of ${formatCount(info.steps)}, ` +
      `${info.model}, trained on ${info.corpusName}. Continue exactly where it stopped?`);
  }
}
