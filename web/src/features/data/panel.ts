// panel.ts (data) — choosing the data to learn from: drop, file picker, the built-in corpus or (to
// translate) a built-in task; what the text is made of, or how the core read the pairs; and why
// a file was refused.
import type { ShardEntry, TaskInfo } from '../../../../wasm/tinygpt';
import { type MapStore, view, watch } from '../../app/store';
import { type Locale, type Messages, type Tr, t, tr } from '../../i18n';
import { formatBytes, formatCount } from '../../lib/format';
import { hexChip, segmentUtf8 } from '../../lib/utf8';
import { clear, coreInline, h, panelHeader, setText, withData } from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import type { CorpusStats } from './corpus';
import { modeCorpus, pairsReport, previewPairs } from './derive';
import { scanSay } from './stream';
import type { CorpusBusy, CorpusProblem, CorpusState, DataSlice } from './state';

type S = DataSlice & SettingsSlice & SessionSlice & { locale: Locale };

export interface DataHandlers {
  /** Files chosen or dropped: one text (or pairs, or a model file), or several llm.c shards. */
  onFiles(files: File[]): void;
  /** keyboard: chosen with Enter or Space (the page then moves the focus on to Start) */
  onBuiltin(keyboard: boolean): void;
  /** A built-in translation task (builtinTasks()). */
  onTask(name: string, keyboard: boolean): void;
  /** One of the refused file's actions (e.g. "Train anyway"), or Cancel (null). */
  onProblem(actionId: string | null): void;
  /** A text that was not UTF-8: take it converted to UTF-8 (true) or as its raw bytes (false). */
  onEncoding(convert: boolean): void;
}

/** A built-in task's description: the catalogue's (by name), else the core's English, marked as such. */
export function taskDescription(task: TaskInfo): Tr | HTMLElement {
  if (task.name in t().data.tasks) return tr((m) => m.data.tasks[task.name] ?? task.description);
  return h('span', { translate: 'no', lang: 'en' }, task.description);
}

const tasksOf = (): Record<string, string> => t().data.tasks;

/** The bytes of a set of shards on disk: their headers and tokens. */
function shardBytes(shards: ShardEntry[]): number {
  return shards.reduce((a, x) => a + 1024 + x.tokens * (x.version === 1 ? 2 : 4), 0);
}

/** A label and a value of the stats lists (the value's raw number in data-value). */
function stat(id: string, label: Tr, value: string | Tr, raw: number | string, title?: Tr): HTMLElement {
  return h('div', { class: 'stat', title: title ?? null }, h('dt', {}, label), h('dd', { id, 'data-value': String(raw) }, value));
}

export interface CorpusView {
  name: string;
  builtin: boolean;
  stats: CorpusStats;
  preview: Uint8Array;   // the first bytes of the text
  files: boolean;        // read from the file(s) a window at a time
  scanned: boolean;      // the statistics are the whole text's (false while a file's pass runs)
  scan: CorpusState['scan'];
  shards: ShardEntry[];
  encoding?: CorpusState['encoding'];
}

export class DataPanel {
  readonly el: HTMLElement;
  private info: HTMLElement;
  private problem: HTMLElement;
  private busy: HTMLElement;
  private input: HTMLInputElement;
  private folderInput: HTMLInputElement;
  private pickFolder: HTMLElement;
  private scanBar: HTMLProgressElement | null = null;
  private scanText: HTMLElement | null = null;
  private builtinBtn: HTMLButtonElement;
  private tasksEl: HTMLElement;
  private hint: HTMLElement;
  private explain: HTMLElement;
  private shown: CorpusState | null | undefined = undefined;   // what `info` shows
  private shownReport = '';
  private shownKey = '';

  constructor(data: MapStore<DataSlice>, settings: MapStore<SettingsSlice>, session: MapStore<SessionSlice>, private handlers: DataHandlers) {
    const store = view(data, settings, session);
    // not a tab stop of its own (it has no visible focus): the label below is the keyboard's way in
    this.input = h('input', { type: 'file', id: 'corpus-file', class: 'visually-hidden', multiple: true, tabindex: '-1' });
    this.input.addEventListener('change', () => {
      const files = Array.from(this.input.files ?? []);
      if (files.length) handlers.onFiles(files);
      this.input.value = '';
    });
    // a folder of llm.c shards (webkitdirectory: every browser with a file picker has it)
    this.folderInput = h('input', { type: 'file', id: 'corpus-folder', class: 'visually-hidden', multiple: true, tabindex: '-1', 'aria-label': tr((m) => m.data.chooseFolder) });
    this.folderInput.setAttribute('webkitdirectory', '');
    this.folderInput.addEventListener('change', () => {
      const files = Array.from(this.folderInput.files ?? []);
      if (files.length) handlers.onFiles(files);
      this.folderInput.value = '';
    });
    this.builtinBtn = h('button', { id: 'btn-shakespeare', class: 'primary', type: 'button' }, tr((m) => m.data.shakespeare));
    this.builtinBtn.addEventListener('click', (e) => handlers.onBuiltin(e.detail === 0));   // detail 0: Enter or Space
    const pick = h('label', { class: 'button', for: 'corpus-file' }, tr((m) => m.data.chooseFile));
    pick.setAttribute('tabindex', '0');
    pick.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        this.input.click();
      }
    });
    this.pickFolder = h('label', { class: 'button', for: 'corpus-folder' }, tr((m) => m.data.chooseFolder));
    this.pickFolder.setAttribute('tabindex', '0');
    this.pickFolder.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        this.folderInput.click();
      }
    });
    this.busy = h('p', { class: 'busy', hidden: true, role: 'status' });
    this.problem = h('div', { id: 'corpus-message', class: 'problem', role: 'alert', hidden: true });
    this.info = h('div', { id: 'corpus-info', class: 'corpus-info' });
    this.tasksEl = h('div', { id: 'tasks', class: 'tasks', role: 'group', 'aria-label': tr((m) => m.data.tasksLabel) });
    this.hint = h('span', { class: 'hint' });
    const header = panelHeader(1, tr((m) => m.data.title), '');
    this.explain = header.querySelector('.explain')!;
    this.el = h('section', { id: 'data', class: 'card', 'aria-labelledby': 'data-title' },
      header,
      this.tasksEl,
      h('div', { class: 'row' }, this.builtinBtn, pick, this.input, this.pickFolder, this.folderInput, this.hint),
      this.busy, this.problem, this.info);
    this.el.querySelector('h2')!.id = 'data-title';
    // what the store says in sentences is worded here, at render time: a language switch rewords it
    watch(store, ['corpusBusy', 'locale'], (st) => this.setBusy(st.corpusBusy));
    watch(store, ['corpusProblem', 'locale'], (st) => this.showProblem(st.corpusProblem));
    watch(store, ['tasks'], (st) => this.showTasks(st.tasks));
    watch(store, ['mode', 'locale'], (st) => {
      const pairs = st.mode === 'seq2seq';
      const m = t().data;
      setText(this.explain, m.explain[st.mode]);
      this.builtinBtn.hidden = pairs;
      this.pickFolder.hidden = pairs;
      this.tasksEl.hidden = !pairs;
      setText(this.hint, pairs ? m.hint.pairs : m.hint.text);
      this.input.accept = pairs ? '.tsv,.txt,text/tab-separated-values,text/plain' : '';
    });
    watch(store, ['corpus', 'mode', 'verdict', 'validateId', 'model', 'locale'], (st) => this.sync(st));
  }

  /** Keyboard focus on the first way to choose data: the built-in text, or the first built-in task. */
  focusFirst(): void {
    const first = this.builtinBtn.hidden ? this.tasksEl.querySelector<HTMLButtonElement>('button') : this.builtinBtn;
    first?.focus();
  }

  /** Shows the mode's data (a text, or pairs with the core's report), or what to do without any. */
  private sync(st: S): void {
    const c = modeCorpus(st);
    const report = pairsReport(st)?.report.message ?? '';
    for (const b of this.tasksEl.querySelectorAll<HTMLButtonElement>('button[data-task]')) {
      b.setAttribute('aria-pressed', String(!!c?.ref.task && b.dataset.task === c.ref.task));
    }
    const key = `${st.mode}|${st.locale}`;   // the core's report may be worded by code: rebuilt at a switch
    if (c === this.shown && report === this.shownReport && key === this.shownKey) return;
    // a file's statistics pass moved on: its bar only (the rest, the preview with it, stays as it is)
    const was = this.shown;
    if (c && was && c.ref.id === was.ref.id && c.stats === was.stats && c.scan && report === this.shownReport && key === this.shownKey) {
      this.shown = c;
      this.showScan(c.scan);
      return;
    }
    this.shown = c;
    this.shownReport = report;
    this.shownKey = key;
    if (!c) {
      clear(this.info);
      const pairs = st.mode === 'seq2seq';
      this.info.append(h('p', { class: 'muted' }, tr((m) => (pairs ? m.data.empty.pairs : m.data.empty.text))));
      return;
    }
    if (c.kind === 'pairs') this.showPairs(c, st);
    else {
      this.show({
        name: c.ref.name, builtin: c.ref.builtin, stats: c.stats, preview: c.preview, files: !!c.ref.files,
        scanned: !c.ref.files || !!c.scanned, scan: c.scan ?? null, shards: c.shards ?? [], encoding: c.encoding,
      });
    }
  }

  private showTasks(tasks: TaskInfo[]): void {
    clear(this.tasksEl);
    for (const t of tasks) {
      const known = t.name in tasksOf();
      const b = h('button', { type: 'button', class: 'task', 'data-task': t.name, 'aria-pressed': 'false',
        title: known ? tr((m) => m.data.tasks[t.name] ?? t.description) : null },
      h('span', { class: 'task-name', translate: 'no' }, t.name), h('span', { class: 'task-blurb' }, taskDescription(t)));
      b.addEventListener('click', (e) => this.handlers.onTask(t.name, e.detail === 0));
      this.tasksEl.append(b);
    }
  }

  /** Pairs: how the core read them (pairs used and held out, lines skipped and why), and the first ones. */
  private showPairs(c: CorpusState, st: S): void {
    clear(this.info);
    const r = pairsReport(st);
    const task = c.ref.task ? st.tasks.find((t) => t.name === c.ref.task) : undefined;
    this.info.append(
      h('p', { class: 'corpus-name' }, h('strong', { id: 'corpus-name', translate: 'no' }, c.ref.name),
        c.ref.task ? h('span', { class: 'tag' }, tr((m) => m.data.builtinTask)) : null,
        h('span', { class: 'muted' }, ` · ${formatBytes(c.stats.size)}`)));
    if (task) this.info.append(h('p', { id: 'task-description', class: 'small' }, taskDescription(task)));
    const note = this.encodingNote({ name: c.ref.name, encoding: c.encoding });
    if (note) this.info.append(note);
    if (r) {
      this.info.append(
        h('dl', { class: 'stats' },
          stat('pairs-count', tr((m) => m.data.pairs), formatCount(r.pairs), r.pairs, tr((m) => m.data.pairsTitle)),
          stat('pairs-held-out', tr((m) => m.data.heldOut), formatCount(r.valPairs), r.valPairs, tr((m) => m.data.heldOutTitle)),
          stat('pairs-longest', tr((m) => m.data.longest), tr((m) => m.data.longestValue(r.longestSource, r.longestTarget)),
            `${r.longestSource}/${r.longestTarget}`, tr((m) => m.data.longestTitle))),
        // the report is the core's sentence (tinygpt::PairsReport): shown by coreInline
        h('p', { id: 'pairs-report', class: 'small pairs-report', 'data-pairs': String(r.pairs) },
          tr((m) => m.data.coreRead), coreInline(r.report.message, r.report), tr((m) => m.data.fullStop)));
    }
    const pairs = previewPairs(c.preview, 8, c.preview.length >= c.stats.size);
    const table = h('table', { id: 'pairs-preview', class: 'pairs-table' },
      h('caption', { class: 'visually-hidden' }, tr((m) => m.data.firstPairs)),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, tr((m) => m.data.source)), h('th', { scope: 'col' }, tr((m) => m.data.target)))),
      h('tbody', {}, ...pairs.map((p) => h('tr', {}, h('td', { translate: 'no' }, p.source), h('td', { translate: 'no' }, p.target)))));
    this.info.append(h('h3', { class: 'small-title' }, tr((m) => m.data.firstPairs)),
      h('div', { class: 'pairs-scroll', tabindex: '0', 'aria-label': tr((m) => m.data.firstPairs) }, table));
  }

  private setBusy(b: CorpusBusy | null): void {
    this.busy.hidden = !b;
    this.busy.replaceChildren(...(b ? [withData(b.say(t()), b.data)] : []));
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
    const m = t();
    const said = p.core ? [coreInline(p.core.text, p.core.from)] : [];
    const words = p.message ? [withData(p.message(m), p.data)] : [];
    this.problem.append(h('strong', {}, withData(p.title(m), p.data)), h('p', {}, ...said, said.length && words.length ? ' ' : null, ...words));
    // pairs offered: how the translator would read every line (the core's report)
    if (p.report) this.problem.append(h('p', { id: 'offer-report', class: 'small' }, m.data.problem.translatorWould, coreInline(p.report.text, p.report.from), m.data.fullStop));
    const row = h('div', { class: 'row' });
    for (const a of p.actions) {
      const b = h('button', { type: 'button', id: `btn-${a.id}`, class: 'primary' }, withData(a.label(m), p.data));
      b.addEventListener('click', () => this.handlers.onProblem(a.id));
      row.append(b);
    }
    const dismiss = h('button', { type: 'button' }, p.actions.length ? m.common.cancel : m.data.ok);
    dismiss.addEventListener('click', () => this.handlers.onProblem(null));
    row.append(dismiss);
    this.problem.append(row);
  }

  private show(c: CorpusView): void {
    const s = c.stats;
    clear(this.info);
    this.scanBar = null;
    this.scanText = null;
    const invalidNote = (m: Messages) => (s.invalid > 0 ? m.data.invalid(s.invalid, formatCount(s.invalid)) : m.data.allValid);
    const invalidSentence = (m: Messages) => (s.invalid ? m.data.sentence(invalidNote(m)) : '');
    const known = c.scanned;
    const value = (v: string | Tr) => (known ? v : tr((m) => m.data.pending));
    const bits = (nats: number) => (nats / Math.LN2).toFixed(2);
    this.info.append(
      h('p', { class: 'corpus-name' }, h('strong', { id: 'corpus-name', translate: 'no' }, c.name),
        c.builtin ? h('span', { class: 'tag' }, tr((m) => m.data.builtIn)) : null,
        c.files ? h('span', { class: 'tag', id: 'corpus-streamed', title: tr((m) => m.data.streamedTitle) }, tr((m) => m.data.streamed)) : null,
        h('span', { class: 'muted' }, ` · ${formatBytes(c.shards.length ? shardBytes(c.shards) : s.size)}`)));
    if (c.scan) this.info.append(this.scanRow(c.scan));
    if (c.shards.length) return this.showShards(c);
    this.info.append(
      h('dl', { class: 'stats' },
        stat('corpus-bytes', tr((m) => m.data.bytes), formatCount(s.size), s.size),
        stat('corpus-distinct', tr((m) => m.data.distinct), value(tr((m) => m.data.distinctValue(s.distinct))), known ? s.distinct : '', tr((m) => m.data.distinctTitle)),
        stat('corpus-chars', tr((m) => m.data.chars), value(formatCount(s.chars)), known ? s.chars : '', tr((m) => m.data.charsTitle(formatCount(s.multibyte), invalidNote(m)))),
        stat('corpus-lines', tr((m) => m.data.lines), value(formatCount(s.lines)), known ? s.lines : ''),
        stat('corpus-baselines', tr((m) => m.data.baselines), value(tr((m) => m.data.baselinesValue(bits(s.unigram), bits(s.bigram)))),
          known ? `${s.unigram} ${s.bigram}` : '', tr((m) => m.data.baselinesTitle))),
      h('p', { class: 'muted small', hidden: !known }, tr((m) => (s.multibyte > 0
        ? `${m.data.multibyteNote(formatCount(s.multibyte))} ${invalidSentence(m)}`
        : `${m.data.oneByteNote} ${invalidSentence(m)}`))),
      h('h3', { class: 'small-title' }, tr((m) => m.data.beginning)),
      this.renderPreview(c.preview, s.size));
    const note = this.encodingNote(c);
    if (note) this.info.querySelector('.corpus-name')!.after(note);
  }

  /** A text that was not UTF-8: said so, with the one click that takes the other reading. */
  private encodingNote(c: Pick<CorpusView, 'name' | 'encoding'>): HTMLElement | null {
    const e = c.encoding;
    if (!e) return null;
    const button = h('button', { type: 'button', id: e.converted ? 'btn-raw-bytes' : 'btn-to-utf8', class: 'small-button' },
      tr((m) => (e.converted ? m.data.action.rawBytes : m.data.action.toUtf8)));
    button.addEventListener('click', () => this.handlers.onEncoding(!e.converted));
    return h('p', { id: 'corpus-encoding', class: 'corpus-note small', 'data-converted': String(e.converted), role: 'status' },
      withData((slot) => (e.converted ? t().data.encodingNote.converted(slot(0), slot(1)) : t().data.encodingNote.raw(slot(0), slot(1))), [c.name, e.label]),
      ' ', button);
  }

  /** A file's statistics pass: a bar and what it is doing (updated in place: showScan). */
  private scanRow(scan: NonNullable<CorpusState['scan']>): HTMLElement {
    this.scanBar = h('progress', { id: 'corpus-scan', max: '1', value: String(scan.done / Math.max(1, scan.total)) }) as HTMLProgressElement;
    this.scanText = h('span', { class: 'small muted' });
    this.showScan(scan);
    return h('p', { class: 'scan' }, this.scanBar, ' ', this.scanText);
  }

  private showScan(scan: NonNullable<CorpusState['scan']>): void {
    if (!this.scanBar || !this.scanText) return;
    this.scanBar.value = scan.done / Math.max(1, scan.total);
    setText(this.scanText, scanSay(scan)(t()));
  }

  /** llm.c shards: how many, their tokens, and each one. */
  private showShards(c: CorpusView): void {
    const train = c.shards.filter((x) => x.split === 'train'), val = c.shards.filter((x) => x.split === 'val');
    const tokens = c.shards.reduce((a, x) => a + x.tokens, 0);
    this.info.append(
      h('dl', { class: 'stats' },
        stat('corpus-shards', tr((m) => m.data.shards), tr((m) => m.data.shardsValue(train.length, val.length)), c.shards.length),
        stat('corpus-tokens', tr((m) => m.data.tokens), formatCount(tokens), tokens)),
      h('h3', { class: 'small-title' }, tr((m) => m.data.shardList)),
      h('ul', { id: 'corpus-shards-list', class: 'small shard-list', translate: 'no' },
        ...c.shards.map((x) => h('li', {}, tr((m) => m.data.shardLine(x.name, formatCount(x.tokens), x.version))))));
  }

  private renderPreview(bytes: Uint8Array, total: number): HTMLElement {
    const pre = h('pre', { id: 'corpus-preview', class: 'preview', tabindex: '0', 'aria-label': tr((m) => m.data.previewLabel) });
    // a sequence cut by the end of the preview is not invalid: it continues in the file
    const cut = bytes.length < total;
    for (const seg of segmentUtf8(bytes, { final: !cut })) {
      if (seg.kind === 'char') pre.append(seg.text);
      else pre.append(h('span', { class: seg.partial ? 'chip partial' : 'chip',
        title: tr((m) => (seg.partial ? m.data.chipPartial : m.data.chipInvalid)) }, hexChip(seg.bytes)));
    }
    if (cut) pre.append(h('span', { class: 'muted' }, ' …'));
    return pre;
  }
}
