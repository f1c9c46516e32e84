// loader.ts (data) — from a file (dropped or chosen), the built-in text or a built-in translation
// task to the worker: tells checkpoints from texts and texts from pairs, refuses what can't be
// trained on with a message (keeping the previous data), analyses the bytes in chunks, stores the
// text for resuming, and sends it. Each mode has its own data (a text for the language model,
// pairs for the translator): switching modes puts one aside and brings the other back.
import type { PairsReport, Sniffed } from '../../../../wasm/tinygpt';
import type { CorpusRef } from '../../app/db';
import type { Storage } from '../../app/storage';
import { type MapStore, patch } from '../../app/store';
import { type Messages, type Msg, t } from '../../i18n';
import { isSafetensors } from '../../lib/checkpoint';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import { coreInline, h, hideTooltip, notify, withData } from '../../ui';
import type { Runtime } from '../runtime';
import type { Mode, Session } from '../session';
import type { Settings } from '../settings';
import { type CorpusStats, STREAM_ABOVE_BYTES, analyzeCorpus, checkSize, readHead } from './corpus';
import { corpusKindFor, modeCorpus } from './derive';
import type { CorpusKind, DataCalls, FilesTaken } from './messages';
import type { CorpusProblem, CorpusState, DataSlice } from './state';
import { CorpusStream, pendingStats } from './stream';

export const BUILTIN = { name: 'tinyshakespeare.txt', url: './data/tinyshakespeare.txt' };
/** How much of a file the sniffer looks at. */
const SNIFF_BYTES = 256 * 1024;
/** The built-in tasks are generated with this seed: the bytes of `tinygpt train --task NAME` (its --task_seed 1). */
export const TASK_SEED = 1;
/** The task translation mode starts with: the seed's Chinese -> English phrases. */
export const FIRST_TASK = 'zh-en';
/** llm.c's token shard magic (the first int32 of its header). */
const SHARD_MAGIC = 20240520;

/** Texts above this are read from the file a window at a time; `?stream=0` takes every text so (tests, bench:data). */
function streamAbove(): number {
  const v = typeof location !== 'undefined' ? new URLSearchParams(location.search).get('stream') : null;
  return v !== null && /^\d+$/.test(v) ? Number(v) : STREAM_ABOVE_BYTES;
}

const isShardHead = (head: Uint8Array) => head.length >= 4 && new DataView(head.buffer, head.byteOffset, 4).getInt32(0, true) === SHARD_MAGIC;
const isShardName = (name: string) => /\.bin$/.test(name) && /_(train|val)_/.test(name);


/** The block size the offer of a file of pairs reads it at: lines too long for the translator's form are its business later. */
const OFFER_BLOCK_SIZE = 1024;

/** A file taken converted from another encoding (the sniffer's): what its other reading needs. */
interface Encoded { file: File; encoding: string; label: string; kind: CorpusKind }

/** An encoding's name as people know it. */
function encodingLabel(encoding: string): string {
  return encoding === 'windows-1252' ? 'Windows-1252' : encoding === 'iso-8859-1' ? 'Latin-1' : encoding.toUpperCase();
}

/** What the loader needs from the rest of the page. */
export interface LoaderDeps {
  runtime: Runtime;
  settings: Settings;
  session: Session;
  storage: Storage;
}

/**
 * Model files are other features' business: a checkpoint, or a .safetensors model (a new run from
 * its weights): features/runs; a Hugging Face folder, and a file of an export format (true: said so,
 * nothing more to do): features/export.
 */
export interface ModelFiles {
  checkpoint(file: File): Promise<void>;
  safetensors(file: File): Promise<void>;
  folder(files: File[]): Promise<void>;
  exportFile(file: File, head: Uint8Array): Promise<boolean>;
}

export class CorpusLoader {
  /** What the actions of the problem shown do ("Train anyway"). */
  private problemActions = new Map<string, () => void>();
  private lastStore: Promise<void> = Promise.resolve();   // the last text being written to IndexedDB
  /** The data of the other mode, put aside when the mode switched (its bytes: the site, the core, or IndexedDB). */
  private parked = new Map<CorpusKind, CorpusState>();
  /** A mode switch that brings its own data (a dropped file of pairs): no built-in task then. */
  private switchingWithData = false;
  /** The last file taken converted from another encoding: its other reading is one click away. */
  private encoded: Encoded | null = null;

  /** Set by features/runs and features/export: where checkpoints and model files go. */
  modelFiles: Partial<ModelFiles> = {};

  /** Large texts and shards: read from their files, scanned and kept in the background. */
  private readonly stream: CorpusStream;

  constructor(private readonly $: MapStore<DataSlice>, private readonly port: Port<DataCalls, object>, private readonly deps: LoaderDeps) {
    this.stream = new CorpusStream($, port, () => deps.storage.db);
  }

  /** What the loader is doing, worded at render time; `data`: the file's name in it. */
  private busy(say: Msg | null, ...data: string[]): void {
    patch(this.$, { corpusBusy: say ? { say, data } : null });
  }

  private problem(corpusProblem: CorpusProblem | null): void {
    patch(this.$, { corpusProblem });
  }

  /** A refused file: worded at render time (`data`: the values in the words that are data, e.g. the file's name). */
  private showProblem(p: Omit<CorpusProblem, 'actions'>, actions: { id: string; label: Msg; run: () => void }[] = []): void {
    this.problemActions = new Map(actions.map((a) => [a.id, a.run]));
    this.problem({ ...p, actions: actions.map(({ id, label }) => ({ id, label })) });
  }

  dismissProblem(): void {
    this.problemActions.clear();
    this.problem(null);
  }

  problemAction(id: string): void {
    const run = this.problemActions.get(id);
    this.dismissProblem();
    run?.();
  }

  /** Resolves once the module is loaded: a file dropped before waits for it (it needs the sniffer). */
  private async whenReady(what: Msg, ...data: string[]): Promise<void> {
    const runtime = this.deps.runtime;
    if (runtime.$.get().ready) return;
    this.busy((m) => m.data.busy.waiting(what(m)), ...data);
    try {
      await runtime.whenReady();
    } finally {
      this.busy(null);
    }
  }

  /** The core's verdict on a file's first bytes (core/include/tinygpt/sniff.h). */
  private sniff(head: Uint8Array, size: number, name: string): Promise<Sniffed> {
    // a copy: the message transfers its buffer, and the caller still reads the head
    return this.port.call('sniff', { head: head.slice().buffer, size, name });
  }

  private get mode(): Mode {
    return this.deps.settings.$.get().mode;
  }

  /** Several files (or a folder's): llm.c token shards, one corpus; one file goes to handleFile. */
  async handleFiles(files: File[]): Promise<void> {
    if (files.length === 1) return this.handleFile(files[0]);
    hideTooltip();
    // a Hugging Face model folder (config.json beside model.safetensors)
    if (this.modelFiles.folder && files.some((f) => f.name === 'config.json')) return this.modelFiles.folder(files);
    const shards = files.filter((f) => isShardName(f.name));
    if (!shards.length || this.mode !== 'gpt') {
      this.showProblem({ kind: 'shards', title: (m) => m.data.problem.notShards, message: (m) => m.data.problem.notShardsWhy, data: [] });
      return;
    }
    await this.whenReady(() => shards[0].name, shards[0].name);
    const dir = shards[0].webkitRelativePath.split('/').slice(0, -1).join('/');
    return this.takeFiles(shards, true, dir || shards[0].name.replace(/_(train|val)_.*$/, ''));
  }

  async handleFile(file: File): Promise<void> {
    hideTooltip();
    let head: Uint8Array;
    let verdict: Sniffed;
    try {
      await this.whenReady(() => file.name, file.name);
      head = await readHead(file, SNIFF_BYTES);
      verdict = await this.sniff(head, file.size, file.name);
    } catch (e) {
      this.showProblem(readFailed((m) => m.data.problem.cantRead(file.name), e, null, file.name));
      return;
    }
    // a model file (tinygpt export) is binary to the sniffer: its safetensors header says what it is
    if (verdict.kind !== 'checkpoint' && isSafetensors(head, file.size)) return this.modelFiles.safetensors?.(file);
    // a GGUF or ONNX file tinygpt exported: said to be one, not taken as binary data
    if (verdict.kind !== 'checkpoint' && (await this.modelFiles.exportFile?.(file, head))) return;
    // an llm.c token shard: the corpus of one shard (the core says what is wrong with a bad one)
    if (isShardHead(head) && this.mode === 'gpt') return this.takeFiles([file], true, file.name);
    if (verdict.kind === 'tsv_pairs' && this.mode === 'gpt') return this.offerPairs(file, verdict);
    switch (verdict.kind) {
      case 'checkpoint':
        return this.modelFiles.checkpoint?.(file);
      case 'not_checkpoint':
        // the checkpoint loader's refusal, not "train anyway": the name says it should be one
        notify(h('span', {}, withData(t().data.notice.notCheckpoint(file.name), [file.name]), coreInline(verdict.message, verdict), ' ',
          t().data.notice.unchanged), 'error');
        return;
      default:
        return this.loadTextFile(file, verdict);
    }
  }

  private currentContext(): number {
    return this.deps.session.$.get().model?.config.block_size ?? this.deps.settings.$.get().settings?.block_size ?? 64;
  }

  /** The data kind of the current mode. */
  private kind(): CorpusKind {
    return corpusKindFor(this.mode);
  }

  /**
   * Pairs are what the translator learns from: offered, with how it would read every line (the
   * core's report: its bad lines by number), or taken as text. A language model of the time and
   * its text stay until the person chooses; choosing translation resets it first (its run is kept).
   */
  private async offerPairs(file: File, verdict: Sniffed): Promise<void> {
    const model = !!this.deps.session.$.get().model;
    const report = await this.translatorReport(file);
    this.showProblem({
      kind: 'pairs', title: (m) => m.data.problem.holdsPairs(file.name), core: { text: verdict.message, from: verdict },
      message: model ? (m) => m.data.problem.pairsLocked : (m) => m.data.problem.pairsSwitchable, data: [file.name],
      ...(report ? { report: { text: report.report.message, from: report.report } } : {}),
    }, [
      model ? { id: 'reset-translation', label: (m) => m.data.action.resetTranslation, run: () => void this.resetAndSwitch(file) }
        : { id: 'switch-translation', label: (m) => m.data.action.switchTranslation, run: () => void this.switchAndLoad(file) },
      { id: 'as-text', label: (m) => m.data.action.asText, run: () => void this.loadTextFile(file, verdict, 'text') },
    ]);
  }

  /** The translator's reading of a whole file of pairs (null: unreadable, or not one usable pair). */
  private async translatorReport(file: File): Promise<PairsReport | null> {
    if (checkSize(file.size, 0)) return null;
    try {
      return await this.port.call('pairsReport', { bytes: await file.arrayBuffer(), blockSize: OFFER_BLOCK_SIZE });
    } catch {
      return null;
    }
  }

  private async resetAndSwitch(file: File): Promise<void> {
    await this.deps.session.reset();   // features/runs saves the run first
    await this.switchAndLoad(file);
  }

  private async switchAndLoad(file: File): Promise<void> {
    this.switchingWithData = true;
    try {
      this.deps.settings.setMode('seq2seq');
    } finally {
      this.switchingWithData = false;
    }
    await this.loadTextFile(file, null, 'pairs');
  }

  private async loadTextFile(file: File, verdict: Sniffed | null, kind: CorpusKind = this.kind()): Promise<void> {
    if (kind === 'text' && file.size > streamAbove() && file.size >= this.currentContext() + 1) return this.loadLargeText(file, verdict);
    // pairs: the core's TSV reader judges the length (a window of context + 1 bytes is the language model's need)
    const size = checkSize(file.size, kind === 'pairs' ? 0 : this.currentContext(), true);
    if (size) {
      const kept = (m: Messages) => (kind === 'pairs' ? m.data.problem.keptPairs : m.data.problem.keptText);
      this.showProblem({
        kind: size.kind, title: (m) => m.data.problem[size.kind](file.name), message: (m) => `${size.message(m)} ${kept(m)}`, data: [file.name],
      });
      return;
    }
    this.dismissProblem();
    this.busy((m) => m.data.busy.reading(file.name), file.name);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (e) {
      this.busy(null);
      this.showProblem(readFailed((m) => m.data.problem.cantRead(file.name), e, (m) => m.data.problem.keptText, file.name));
      return;
    }
    const stats = await analyzeCorpus(bytes, (f) => this.busy((m) => m.data.busy.analysing(file.name, Math.round(f * 100)), file.name));
    this.busy(null);
    const asIs = { id: 'train-anyway', label: (m: Messages) => m.data.action.asIs, run: () => this.accept(file.name, bytes, stats, false, kind) };
    switch (verdict?.kind) {
      case 'binary':
        this.showProblem({
          kind: 'binary', title: (m) => m.data.problem.notText(file.name), core: { text: verdict.message, from: verdict },
          message: (m) => m.data.problem.notTextKept, data: [file.name],
        }, [{ ...asIs, label: (m) => m.data.action.anyway }]);
        return;
      case 'latin1_text':
      case 'utf16_text':
        // taken converted to UTF-8 at once, with a note that says so and takes the raw bytes in one click
        this.encoded = { file, encoding: verdict.encoding, label: encodingLabel(verdict.encoding), kind };
        return this.convert(bytes, this.encoded);
      case 'utf8_text':
        if (!verdict.lowVariety) break;
        // one byte over and over (or nearly): said so; the current text and model stay unless asked
        this.showProblem({
          kind: 'lowVariety', title: (m) => m.data.problem.lowVariety(file.name), core: { text: verdict.message, from: verdict },
          message: (m) => m.data.problem.lowVarietyKept, data: [file.name],
        }, [{ ...asIs, label: (m) => m.data.action.useAnyway }]);
        return;
      default:
        break;
    }
    this.accept(file.name, bytes, stats, false, kind);
  }

  /** A text too large to hold: its bytes as they are, read from the file (not converted: that would need it whole). */
  private loadLargeText(file: File, verdict: Sniffed | null): Promise<void> | void {
    const take = () => void this.takeFiles([file], false, file.name);
    switch (verdict?.kind) {
      case 'binary':
        this.showProblem({
          kind: 'binary', title: (m) => m.data.problem.notText(file.name), core: { text: verdict.message, from: verdict },
          message: (m) => m.data.problem.notTextKept, data: [file.name],
        }, [{ id: 'train-anyway', label: (m) => m.data.action.anyway, run: take }]);
        return;
      case 'latin1_text':
      case 'utf16_text': {
        const encoding = verdict.encoding;
        this.showProblem({
          kind: 'encoding', title: (m) => m.data.problem.encoding(file.name, encoding), core: { text: verdict.message, from: verdict },
          message: (m) => m.data.problem.tooLargeToConvert(encoding), data: [file.name],
        }, [{ id: 'train-anyway', label: (m) => m.data.action.asIs, run: take }]);
        return;
      }
      case 'utf8_text':
        if (!verdict.lowVariety) return this.takeFiles([file], false, file.name);
        this.showProblem({
          kind: 'lowVariety', title: (m) => m.data.problem.lowVariety(file.name), core: { text: verdict.message, from: verdict },
          message: (m) => m.data.problem.lowVarietyKept, data: [file.name],
        }, [{ id: 'train-anyway', label: (m) => m.data.action.useAnyway, run: take }]);
        return;
      default:
        return this.takeFiles([file], false, file.name);
    }
  }

  /**
   * A text or shards read from files: the worker takes them first (training can start at once),
   * then their statistics and their copy come in the background (stream.ts).
   */
  private async takeFiles(files: File[], shards: boolean, name: string): Promise<void> {
    this.dismissProblem();
    this.stream.stop();
    this.busy((m) => m.data.busy.reading(name), name);
    const preview = shards ? new Uint8Array(0) : await readHead(files[0], 3000).catch(() => new Uint8Array(0));
    const ref: CorpusRef = { id: '', name, size: 0, builtin: false, kind: 'text', files: { names: files.map((f) => f.name), shards } };
    const pending: CorpusState = { ref, stats: pendingStats({ name, id: '', size: 0, trainSize: 0, fingerprint: '', shards: [] }), preview, kind: 'text', pairs: null };
    patch(this.$, { pendingCorpus: pending });
    let taken: FilesTaken;
    try {
      taken = await this.port.call('setCorpusFiles', { files, name, shards });
    } catch (e) {
      this.busy(null);
      if (this.$.get().pendingCorpus === pending) this.refused(pending, e as Coded);
      return;
    }
    this.busy(null);
    if (this.$.get().pendingCorpus !== pending) return;
    const c = this.filesState({ ...ref, id: taken.id, size: taken.size }, taken, preview, null);
    void this.deps.storage.locks.holdCorpus(c.ref.id);
    this.taken(c);
    void this.stream.start(c, files);
  }

  /** The page's state of a corpus read from files; stats: known ones (kept), else those of the pass to come. */
  private filesState(ref: CorpusRef, taken: FilesTaken, preview: Uint8Array, stats: CorpusStats | null): CorpusState {
    const total = ref.size;
    return {
      ref, preview, kind: 'text', pairs: null, shards: taken.shards,
      stats: stats ?? pendingStats(taken), scanned: !!stats, scan: stats ? null : { done: 0, total, keeping: false },
    };
  }

  /**
   * A corpus read from files taken again (a reload, a resumed run, a mode switch): its copy in
   * OPFS, or this visit's Files; a problem asking for the file again when neither is there.
   */
  private async reopenFiles(ref: CorpusRef): Promise<boolean> {
    const got = await this.stream.reopen(ref);
    if (!got) {
      this.showProblem({ kind: 'gone', title: (m) => m.data.problem.notAgain(ref.name), message: (m) => m.data.problem.dropAgain(ref.name), data: [ref.name] });
      return false;
    }
    const files = this.stream.filesOf(ref.id);
    const preview = ref.files!.shards || !files ? new Uint8Array(0) : await readHead(files[0], 3000).catch(() => new Uint8Array(0));
    const c = this.filesState(ref, got.taken, preview, got.stats as CorpusStats | null);
    void this.deps.storage.locks.holdCorpus(ref.id);
    this.taken(c);
    if (!got.stats && files) void this.stream.start(c, files);
    return true;
  }

  /** Re-encodes a text to UTF-8 (what the model's byte vocabulary reads best) and takes it. */
  private async convert(bytes: Uint8Array, e: Encoded): Promise<void> {
    const utf8 = new TextEncoder().encode(new TextDecoder(e.encoding).decode(bytes));
    this.accept(e.file.name, utf8, await analyzeCorpus(utf8), false, e.kind, undefined, { label: e.label, converted: true });
  }

  /** The current text that was not UTF-8: converted (true) or its raw bytes (false), read again from its file. */
  async useEncoding(convert: boolean): Promise<void> {
    const e = this.encoded;
    const current = this.$.get().corpus;
    if (!e || !current?.encoding || current.encoding.converted === convert || current.ref.name !== e.file.name) return;
    let raw: Uint8Array;
    try {
      raw = new Uint8Array(await e.file.arrayBuffer());
    } catch (err) {
      this.showProblem(readFailed((m) => m.data.problem.cantRead(e.file.name), err, (m) => m.data.problem.keptText, e.file.name));
      return;
    }
    if (convert) return this.convert(raw, e);
    this.accept(e.file.name, raw, await analyzeCorpus(raw), false, e.kind, undefined, { label: e.label, converted: false });
  }

  /** A built-in task's pairs, generated by the core (the same bytes as `tinygpt train --task NAME`). */
  private taskBytes(name: string): Promise<Uint8Array> {
    return this.port.call('builtinTask', { name, seed: TASK_SEED });
  }

  /** Takes a built-in translation task (builtinTasks(): zh-en, reverse, numbers, dates). */
  async loadTask(name: string): Promise<void> {
    this.dismissProblem();
    try {
      await this.whenReady((m) => m.data.what.task(name), name);
      const bytes = await this.taskBytes(name);
      this.accept(name, bytes, await analyzeCorpus(bytes), true, 'pairs', name);
    } catch (e) {
      this.showProblem(readFailed((m) => m.data.problem.noTask(name), e, null, name));
    }
  }

  /**
   * A resumed run's data, handed to the worker before its checkpoint: a text or pairs (pairs read at
   * the run's block_size), or files from their kept copy. Throws when they are gone.
   */
  async reopen(ref: CorpusRef, blockSize: number): Promise<void> {
    if (ref.files) {
      await this.whenReady(() => ref.name, ref.name);
      if (!(await this.reopenFiles(ref))) throw new Error(t().runs.dataGone(false, ref.name));
      return;
    }
    const bytes = await this.bytesOf(ref);
    if (!bytes) throw new Error(t().runs.dataGone(ref.kind === 'pairs', ref.name));
    void this.send(ref, bytes, await analyzeCorpus(bytes), bytes.buffer as ArrayBuffer, blockSize);
  }

  /** The bytes of a corpus taken before: the site's text, a task from the core, or a file from IndexedDB (null if gone). */
  async bytesOf(ref: CorpusRef): Promise<Uint8Array | null> {
    if (ref.files) return null;
    if (ref.task) return this.taskBytes(ref.task);
    if (ref.builtin) return this.fetchBuiltin();
    const c = await this.deps.storage.db?.getCorpus(ref.id);
    return c ? new Uint8Array(c.bytes) : null;
  }

  /** The mode switched: the current data is put aside and the new mode's comes back (or, for translation, the first task). */
  modeChanged(mode: Mode): void {
    const kind = corpusKindFor(mode);
    const corpus = this.$.get().corpus;
    this.dismissProblem();
    if (corpus && corpus.kind !== kind) {
      this.parked.set(corpus.kind, corpus);
      patch(this.$, { corpus: null });
    }
    if (this.restoreFor(kind) || this.switchingWithData) return;
    if (kind === 'pairs') void this.loadTask(FIRST_TASK);
  }

  /** Brings back the data of a kind that was put aside (a model of that kind was loaded): true if there is some. */
  restoreFor(kind: CorpusKind): boolean {
    const c = this.parked.get(kind);
    if (!c) return false;
    const current = this.$.get().corpus;
    if (current && current.kind !== kind) this.parked.set(current.kind, current);
    this.parked.delete(kind);
    void this.restore(c.ref);
    return true;
  }

  async fetchBuiltin(): Promise<Uint8Array> {
    const r = await fetch(BUILTIN.url);
    if (!r.ok) throw new Error(`${BUILTIN.url}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  }

  async loadBuiltin(): Promise<void> {
    this.dismissProblem();
    try {
      await this.whenReady((m) => m.data.what.builtin);
      this.busy((m) => m.data.busy.builtin);
      const bytes = await this.fetchBuiltin();
      const stats = await analyzeCorpus(bytes);
      this.busy(null);
      this.accept(BUILTIN.name, bytes, stats, true);
    } catch (e) {
      this.busy(null);
      this.showProblem(readFailed((m) => m.data.problem.noBuiltin, e, null));
    }
  }

  private accept(name: string, bytes: Uint8Array, stats: CorpusStats, builtin: boolean, kind: CorpusKind = this.kind(), task?: string,
    encoding?: CorpusState['encoding']): void {
    if (kind === 'text') this.stream.stop();
    const ref: CorpusRef = { id: `${stats.fingerprint}-${stats.size}`, name, size: stats.size, builtin, kind, ...(task ? { task } : {}) };
    const buffer = bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer as ArrayBuffer : bytes.slice().buffer;
    const db = this.deps.storage.db;
    if (!builtin) void this.deps.storage.locks.holdCorpus(ref.id);
    if (!builtin && db) {
      // IndexedDB copies the bytes during this call, before they are transferred to the worker below
      this.lastStore = db.putCorpus(ref, buffer).then(() => undefined, (e) => {
        // the browser's own words (IndexedDB), shown as it wrote them
        notify(() => h('span', {}, withData(t().data.notice.notStored(errorText(e)), [errorText(e)])), 'warning');
      });
    }
    void this.send(ref, bytes, stats, buffer, this.currentContext(), encoding);
  }

  /** Takes data again (after the service worker's reload, features/offline, or a mode switch): from IndexedDB, the site or the core. */
  async restore(ref: CorpusRef): Promise<void> {
    try {
      await this.whenReady(() => ref.name, ref.name);
      if (ref.files) {
        await this.reopenFiles(ref);
        return;
      }
      const bytes = await this.bytesOf(ref);
      if (!bytes) return;
      if (!ref.builtin) void this.deps.storage.locks.holdCorpus(ref.id);
      this.send(ref, bytes, await analyzeCorpus(bytes));
    } catch (e) {
      this.showProblem(readFailed((m) => m.data.problem.notAgain(ref.name), e, null, ref.name));
    }
  }

  /**
   * Hands data to the worker; the store takes it as the corpus when the worker accepts it. Pairs
   * are read by the core at `blockSize` (the model's, the form's, or a resumed run's).
   */
  async send(ref: CorpusRef, bytes: Uint8Array, stats: CorpusStats, buffer = bytes.buffer as ArrayBuffer, blockSize = this.currentContext(),
    encoding?: CorpusState['encoding']): Promise<void> {
    const kind = ref.kind ?? 'text';
    // pairs: the preview is for showing the first pairs (and picking one for the attention maps)
    const c: CorpusState = { ref, stats, preview: bytes.slice(0, kind === 'pairs' ? 16384 : 3000), kind, pairs: null, ...(encoding ? { encoding } : {}) };
    patch(this.$, { pendingCorpus: c });
    try {
      const taken = await this.port.call('setCorpus', { bytes: buffer, name: ref.name, kind, blockSize });
      if (this.$.get().pendingCorpus === c) this.taken({ ...c, pairs: taken.pairs });
    } catch (e) {
      if (this.$.get().pendingCorpus === c) this.refused(c, e as Coded);
    }
  }

  /** The worker took the data: it is the page's now. */
  private taken(c: CorpusState): void {
    const before = this.$.get().corpus;
    const replaced = before !== null && before.kind === c.kind;
    patch(this.$, { corpus: c, pendingCorpus: null, corpusProblem: null });
    const session = this.deps.session.$.get();
    if (session.model && replaced) notify(() => withData((slot) => t().run.nowTrainsOn(slot(0)), [c.ref.name]), 'info');
    else if (!session.model && c.kind === 'pairs') this.deps.settings.revalidate();   // how the core reads them at the form's block_size
  }

  /** The worker refused the data (too short for the model, no usable pair): the core's message, then what is kept. */
  private refused(c: CorpusState, e: Coded): void {
    const pairs = c.kind === 'pairs';
    const name = c.ref.name;
    const current = this.$.get().corpus;
    const keptPairs = current ? current.kind === 'pairs' : null;
    patch(this.$, {
      pendingCorpus: null, corpusBusy: null,
      corpusProblem: {
        kind: 'core', title: (x) => x.data.problem.cantUse(name ?? x.data.problem.theseData(pairs)), core: { text: sentence(e.message), from: e },
        message: keptPairs === null ? null : (x) => (keptPairs ? x.data.problem.keptPairs : x.data.problem.keptText), data: [name], actions: [],
      },
    });
  }

  /** The mode's data, for the settings' check that a text holds one window. */
  textSize(): number | null {
    const c = modeCorpus({ corpus: this.$.get().corpus, mode: this.mode });
    return c && c.kind === 'text' ? c.ref.size || c.stats.size : null;
  }

  /** Resolves when the last text taken is in IndexedDB (or failed to get there). */
  stored(): Promise<void> {
    return this.lastStore;
  }
}

/** The core's message as a sentence: capitalised, with one full stop (some already end with one). */
function sentence(s: string): string {
  const t = s.trim();
  const c = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(c) ? c : `${c}.`;
}

function errorText(e: unknown): string {
  return String(e instanceof Error ? e.message : e);
}

/**
 * A file or text that could not be read: the error's own text (the browser's, the worker's or the
 * core's: not the page's words, so shown as such by coreInline), then what happens now.
 */
function readFailed(title: Msg, e: unknown, after: Msg | null, ...data: string[]): Omit<CorpusProblem, 'actions'> {
  return { kind: 'read', title, core: { text: errorText(e), from: typeof e === 'object' && e !== null ? e : undefined }, message: after, data };
}
