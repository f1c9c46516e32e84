// panel.ts (runs) — keeping your work: the save status ("saved 4 s ago"), "Your runs" (resume,
// rename, download, delete, sizes, the storage quota), checkpoint files; and the resume banner.
import { type MapStore, view, watch } from '../../app/store';
import { numberLocale, t, tr } from '../../i18n';
import { formatBytes, formatCount, formatLoss } from '../../lib/format';
import { clear, h, NoteLine, panelHeader, withData } from '../../ui';
import { describeModel, type SessionSlice } from '../session';
import type { ResumeOffer, RunsSlice, RunSummary } from './state';

export interface RunsHandlers {
  onDownload(): void;
  onLoadFile(file: File): void;
  onResume(runId: string): void;
  onRename(runId: string): void;
  onDownloadRun(runId: string): void;
  onDelete(runId: string): void;
  onPersist(): void;
}

/** "4 s", "3 min", "2 h" (in the page's language) */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const m = t().runs;
  if (s < 60) return m.agoSeconds(s);
  if (s < 3600) return m.agoMinutes(Math.floor(s / 60));
  return m.agoHours(Math.floor(s / 3600));
}

/** A date and time in the page's language. */
function when(at: number): string {
  return new Date(at).toLocaleString(numberLocale());
}

export class RunsPanel {
  readonly el: HTMLElement;
  private downloadBtn: HTMLButtonElement;
  private status: NoteLine;
  private list: HTMLElement;
  private storage: HTMLElement;

  private store: MapStore<RunsSlice>;

  constructor(runs: MapStore<RunsSlice>, session: MapStore<SessionSlice>, private handlers: RunsHandlers) {
    this.store = runs;
    this.downloadBtn = h('button', { id: 'btn-download', type: 'button' }, tr((m) => m.runs.download));
    this.downloadBtn.addEventListener('click', () => handlers.onDownload());
    // not a tab stop of its own (it has no visible focus): the label below is the keyboard's way in
    const input = h('input', { type: 'file', id: 'ckpt-file', class: 'visually-hidden', tabindex: '-1', accept: '.ckpt,.bin,.safetensors,application/octet-stream' });
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      if (f) handlers.onLoadFile(f);
      input.value = '';
    });
    const load = h('label', { class: 'button', for: 'ckpt-file', tabindex: '0' }, tr((m) => m.runs.load));
    load.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        input.click();
      }
    });
    this.status = new NoteLine(h('p', { id: 'autosave-status', class: 'muted small', 'aria-live': 'polite' }));
    this.list = h('ul', { id: 'runs-list', class: 'runs' });
    this.storage = h('p', { id: 'storage', class: 'muted small' });
    this.el = h('section', { id: 'runs', class: 'card wide', 'aria-labelledby': 'runs-title' },
      panelHeader(6, tr((m) => m.runs.title), ''),
      h('div', { class: 'row' }, this.downloadBtn, load, input),
      this.status.el,
      h('h3', { class: 'small-title', id: 'runs-list-title' }, tr((m) => m.runs.runs)),
      this.list, this.storage);
    this.list.setAttribute('aria-labelledby', 'runs-list-title');
    this.el.querySelector('h2')!.id = 'runs-title';
    this.el.querySelector('.explain')!.append(...explainWithCommands());
    watch(view(runs, session), ['model', 'download'], (st) => (this.downloadBtn.disabled = !st.model || st.download));
    watch(runs, ['lastSave', 'saveNote', 'locale'], () => this.showStatus());
    setInterval(() => this.showStatus(), 1000);   // "saved n s ago" counts up
    watch(runs, ['runs', 'locale'], (st) => this.showRuns(st.runs));
    watch(runs, ['storage', 'locale'], (st) => this.showStorage(st.storage));
  }

  private showStatus(): void {
    const s = this.store.get();
    const l = s.lastSave;
    if (l && !s.saveNote) {
      const step = l.step, at = l.at, bytes = l.bytes;
      this.status.set((m) => m.runs.saved(formatCount(step), ago(Date.now() - at), formatBytes(bytes)), l.step);
    } else this.status.set(s.saveNote ?? ((m) => m.runs.nothingSaved), l?.step ?? '');
  }

  private showRuns(runs: RunSummary[]): void {
    clear(this.list);
    const m = t().runs;
    if (!runs.length) {
      this.list.append(h('li', { class: 'muted small' }, m.noRuns));
      return;
    }
    for (const r of runs) {
      // action: the data-action tests click by (the English verb, lower case). A screen reader
      // hears the verb and the run's name ("Resume alpha.txt · 2 layers, width 64"): labelled by
      // the button and the name element, so the name stays data (translate="no")
      const nameId = `run-name-${r.id}`;
      const button = (action: 'resume' | 'rename' | 'download' | 'delete', handler: (id: string) => void, opts: { disabled?: boolean; title?: string; cls?: string } = {}) => {
        const id = `run-${action}-${r.id}`;
        const b = h('button', { type: 'button', id, class: `small-button ${opts.cls ?? ''}`, 'data-action': action, title: opts.title || null,
          'aria-labelledby': `${id} ${nameId}` }, m.actions[action]);
        b.disabled = !!opts.disabled;
        b.addEventListener('click', () => handler(r.id));
        return b;
      };
      const why = r.busy ? m.busyTitle : r.current ? m.currentTitle : '';
      this.list.append(h('li', { class: 'run', 'data-run': r.id, 'data-busy': String(r.busy), 'data-current': String(r.current) },
        h('div', { class: 'run-main' },
          h('strong', { class: 'run-name', id: nameId, translate: 'no' }, r.name),
          r.busy ? h('span', { class: 'tag busy' }, m.busyTag) : null,
          r.current ? h('span', { class: 'tag' }, m.currentTag) : null,
          h('span', { class: 'muted small run-meta' },
            withData((slot) => m.meta(formatCount(r.step), formatCount(r.steps), describeModel(r.config), slot(0),
              r.valLoss !== null ? formatLoss(r.valLoss) : null, when(r.savedAt), formatBytes(r.bytes)), [r.corpusName]))),
        h('div', { class: 'run-actions' },
          button('resume', this.handlers.onResume, { disabled: r.busy || r.current, title: why, cls: 'primary' }),
          button('rename', this.handlers.onRename),
          button('download', this.handlers.onDownloadRun),
          button('delete', this.handlers.onDelete, { disabled: r.busy || r.current, title: why || m.deleteTitle }))));
    }
  }

  private showStorage(s: RunsSlice['storage']): void {
    clear(this.storage);
    if (!s) return;
    const m = t().runs;
    this.storage.append(m.usage(formatBytes(s.usage), formatBytes(s.quota)));
    if (s.persisted) this.storage.append(m.persisted);
    else {
      this.storage.append(m.notPersisted);
      const b = h('button', { type: 'button', id: 'btn-persist', class: 'small-button' }, m.keepIt);
      b.addEventListener('click', () => this.handlers.onPersist());
      this.storage.append(b);
    }
  }
}

export class ResumeBanner {
  readonly el: HTMLElement;
  private text: HTMLElement;
  private offer: ResumeOffer | null = null;

  constructor(store: MapStore<RunsSlice>, onResume: (id: string) => void, onDismiss: () => void) {
    this.text = h('span', { class: 'text' });
    const resume = h('button', { type: 'button', id: 'btn-resume', class: 'primary' }, tr((m) => m.runs.actions.resume));
    const dismiss = h('button', { type: 'button', id: 'btn-discard', title: tr((m) => m.runs.notNowTitle) }, tr((m) => m.runs.notNow));
    resume.addEventListener('click', () => this.offer && onResume(this.offer.id));
    dismiss.addEventListener('click', onDismiss);
    this.el = h('div', { id: 'resume-banner', class: 'banner', role: 'region', 'aria-label': tr((m) => m.runs.bannerLabel), hidden: true }, this.text, resume, dismiss);
    watch(store, ['resumeOffer', 'locale'], (st) => this.show(st.resumeOffer));
  }

  private show(info: ResumeOffer | null): void {
    this.offer = info;
    this.el.hidden = !info;
    if (!info) return;
    this.text.replaceChildren(withData((slot) => t().runs.offer(when(info.savedAt), formatCount(info.step), formatCount(info.steps), describeModel(info.config), slot(0)),
      [info.corpusName]));
  }
}

/** The panel's explanation, with the command lines and file kinds it names as code. */
function explainWithCommands(): Node[] {
  return [tr((m) => m.runs.explain1), h('code', {}, 'tinygpt train --resume file.ckpt'), tr((m) => m.runs.explain2), h('code', {}, '.safetensors'),
    tr((m) => m.runs.explain3), h('code', {}, 'tinygpt export'), tr((m) => m.runs.explain4)].map((x) => (x instanceof Node ? x : h('span', {}, x)));
}
