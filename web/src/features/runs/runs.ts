// runs.ts — the runs kept in this browser ("Your runs"): every model this tab creates or loads is
// a run with its own id, saved every SAVE_EVERY_MS of training, when training stops, when a
// checkpoint is loaded, and when the tab is hidden or closed; listed with resume, rename,
// download and delete; shared safely between tabs (app/locks.ts); offered again after a reload.
// Replacing a live model always asks first, and saves it before it goes.
import { isRecurrent } from '../../lib/model-kind';
import { type RunRecord, type RunSave, RunsDb, newId } from '../../app/db';
import type { Storage } from '../../app/storage';
import { type MapStore, patch, watch } from '../../app/store';
import { type Messages, locale, t } from '../../i18n';
import { checkpointFileName } from '../../lib/checkpoint';
import { isQuotaError, type KeeperFlush } from '../../lib/runs-db';
import type { Coded } from '../../lib/coded';
import { formatBytes, formatCount } from '../../lib/format';
import type { Port } from '../../lib/wire';
import { coreInline, downloadBytes, h, notify } from '../../ui';
import { corpusKindFor, type Data } from '../data';
import type { Runtime } from '../runtime';
import { describeModel, type ModelInfo, type Session } from '../session';
import { normalise, type Settings } from '../settings';
import type { Train } from '../train';
import type { RunCurves, RunsCalls } from './messages';
import type { RunsSlice, RunSummary } from './state';

export interface RunsDeps { runtime: Runtime; settings: Settings; data: Data; session: Session; train: Train; storage: Storage }

declare global {
  /** A SharedWorker that outlives its last page for a while (Chromium 13x+; others ignore it). */
  interface WorkerOptions { extendedLifetime?: boolean }
}

/** The keeper (keeper.ts), or a new port to it: one instance per origin, script and name. */
function openKeeper(): SharedWorker {
  // written out here once: Vite bundles the worker from this very expression
  return new SharedWorker(new URL('./keeper.ts', import.meta.url), { type: 'module', name: 'tinygpt-keeper', extendedLifetime: true });
}

/** Training time between two saves: a closed tab loses at most this much. */
export const SAVE_EVERY_MS = 10_000;

export class Runs {
  private inFlight: RunSave | null = null;     // what the checkpoint on its way belongs to
  private again = false;
  private lastSaveRequest = 0;                 // performance.now() of the last save asked for
  private resuming: string | null = null;      // the run being loaded by resume()
  private keeperStarted = false;
  private offerDismissed = false;
  private persistAsked = false;

  constructor(private readonly $: MapStore<RunsSlice>, private readonly port: Port<RunsCalls, object>, private readonly d: RunsDeps) {
    const { session, train, data } = d;
    watch(session.$, ['lastModel'], ({ lastModel }) => void (lastModel && this.onModel(lastModel.info)));
    let hadModel = false;
    watch(session.$, ['model'], ({ model }) => {
      if (!model && hadModel) this.onReset();
      hadModel = !!model;
    });
    let wasRunning = false;
    watch(train.$, ['running'], ({ running }) => {
      if (running) this.lastSaveRequest = performance.now();
      else if (wasRunning) this.save();
      wasRunning = running;
    });
    watch(train.$, ['step'], () => {
      if (session.$.get().model && performance.now() - this.lastSaveRequest >= SAVE_EVERY_MS) this.save();
    });
    // a checkpoint loaded before its data (a translator dropped in language-model mode: its pairs
    // come back after it) is saved once they are there
    watch(data.$, ['corpus'], () => {
      const s = this.$.get();
      if (session.$.get().model && s.runId && !s.lastSave && this.locks.ownsRun(s.runId)) this.save();
    });
    session.beforeReplace(() => this.saveIfBehind());
    if (typeof document !== 'undefined') {
      // the tab may be closed or reloaded next: the worker saves into IndexedDB itself (a save made
      // by the page would not land: the page is torn down before the checkpoint reaches it)
      document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'hidden') this.saveOnHide();
      });
      window.addEventListener('pagehide', () => this.saveOnHide());
    }
    this.locks.onChange(() => void this.refresh());
    // the list's model descriptions are worded when listed: again in the new language
    locale.listen(() => void this.refresh());
  }

  private get locks() {
    return this.d.storage.locks;
  }

  private get db(): RunsDb | null {
    return this.d.storage.db;
  }

  private get(): RunsSlice {
    return this.$.get();
  }

  private set(changes: Partial<RunsSlice>): void {
    patch(this.$, changes);
  }

  // ------------------------------------------------------------ saving

  /** The record of a save of the current run, stamped now (null: nothing to save, or not now). */
  private saveRecord(): RunSave | null {
    const s = this.get();
    const model = this.d.session.$.get().model;
    const corpus = this.d.data.$.get().corpus;
    const settings = this.d.settings.$.get();
    const train = this.d.train.$.get();
    if (!this.db || !model || !corpus || !s.runId) return null;
    const m = model.config;
    // a model is saved with its own data: a translator loaded without its pairs waits for them
    if (corpus.kind !== corpusKindFor(settings.mode)) return null;
    // a new run's name, in the language of the day (the person may rename it: it is data from then on)
    const names = t().runs.autoName;
    const size = m.model === 'seq2seq' ? names.translator(m.n_enc_layer, m.n_dec_layer)
      : m.model === 'lstm_seq2seq' ? names.lstmTranslator(m.n_enc_layer, m.n_dec_layer, m.n_hidden)
        : isRecurrent(m.model) ? names.recurrent(m.model.toUpperCase(), m.n_layer, m.n_hidden) : names.layers(m.n_layer);
    const now = Date.now();   // savedAt: when the checkpoint was asked for (lib/runs-db.ts keeps the later of two saves)
    return {
      id: s.runId, name: names.name(corpus.ref.name, size, m.n_embd), createdAt: now, savedAt: now, step: train.step,
      settings: normalise(settings.schema, m), corpus: corpus.ref, elapsedMs: train.elapsedMs,
      variant: this.d.runtime.$.get().ready?.variant ?? '', lastLoss: train.lastLoss, valLoss: train.valLoss,
    };
  }

  private save(): void {
    if (this.inFlight) {
      if (this.saveRecord()) this.again = true;
      return;
    }
    const meta = this.saveRecord();
    if (!meta) return;
    this.inFlight = meta;
    this.lastSaveRequest = performance.now();
    // written by the worker (or the keeper it hands it to), not here: the page hears the step, the
    // size and the time, never the checkpoint's bytes (features/runs/worker.ts saveToDb)
    this.port.call('saveToDb', { run: meta, hide: false }).then((r) => this.finish(meta, r), (e: Coded) => this.failed(meta, e));
  }

  private async finish(meta: RunSave, r: { step: number; bytes: number; savedAt: number }): Promise<void> {
    try {
      if (this.get().runId === meta.id && r.step >= (this.get().lastSave?.step ?? -1)) this.set({ lastSave: { at: r.savedAt, step: r.step, bytes: r.bytes }, saveNote: null });
      this.locks.announce();   // the other tabs read the list again
      void this.askPersistence();
      // the list changes in this run's line only: it is updated in place, without reading every
      // record again (a new run, not listed yet, is)
      if (!this.updateListed(meta, r)) await this.refresh();
    } finally {
      this.settled(meta);
    }
  }

  private failed(meta: RunSave, e: Coded): void {
    const quota = isQuotaError(e.message);
    const est = this.get().storage;
    const usage = est ? [formatBytes(est.usage), formatBytes(est.quota)] as const : null;
    // the browser's own words for any other failure (its language is the browser's)
    const why = (m: Messages) => (quota ? m.runs.quotaFull(usage?.[0] ?? null, usage?.[1] ?? null) : e.message);
    this.set({ saveNote: (m) => m.runs.notSaved(why(m)) });
    if (quota) notify(t().runs.notSavedNotice(why(t())), 'error', { id: 'quota' });
    this.settled(meta);
  }

  private settled(meta: RunSave): void {
    if (this.inFlight === meta) this.inFlight = null;
    if (this.again) {
      this.again = false;
      this.saveIfBehind();
    }
  }

  /** A save of a listed run: its line shows the new step, time, loss and size. False if it is not listed. */
  private updateListed(meta: RunSave, r: { step: number; bytes: number; savedAt: number }): boolean {
    const runs = this.get().runs;
    const i = runs.findIndex((x) => x.id === meta.id);
    if (i < 0) return false;
    const old = runs[i];
    // a later save was already stored (lib/runs-db.ts keeps it): the list is read again
    if (r.savedAt !== meta.savedAt) return false;
    const line: RunSummary = { ...old, savedAt: r.savedAt, step: r.step, valLoss: meta.valLoss, bytes: r.bytes + (meta.corpus.builtin ? 0 : meta.corpus.size) };
    this.set({ runs: [line, ...runs.slice(0, i), ...runs.slice(i + 1)] });   // the most recently saved first
    void this.refreshStorage();
    return true;
  }

  private async askPersistence(): Promise<void> {
    if (this.persistAsked || !navigator.storage?.persist) return;
    this.persistAsked = true;
    await navigator.storage.persist().catch(() => false);
    await this.refreshStorage();
  }

  private async refreshStorage(): Promise<void> {
    if (!navigator.storage?.estimate) return;
    const [e, persisted] = await Promise.all([navigator.storage.estimate(), navigator.storage.persisted?.().catch(() => null) ?? null]);
    this.set({ storage: { usage: e.usage ?? 0, quota: e.quota ?? 0, persisted } });
  }

  private summary(r: RunRecord, busy: Set<string>): RunSummary {
    return {
      id: r.id, name: r.name, savedAt: r.savedAt, createdAt: r.createdAt, step: r.step, steps: r.settings.max_iters ?? 0, corpusName: r.corpus.name,
      model: describeModel(r.settings), config: r.settings, valLoss: r.valLoss, bytes: r.checkpointBytes + (r.corpus.builtin ? 0 : r.corpus.size),
      busy: busy.has(r.id) && !this.locks.ownsRun(r.id), current: this.get().runId === r.id,
    };
  }

  private async refresh(): Promise<void> {
    if (!this.db) return;
    const [records, held] = await Promise.all([this.db.listRuns(), this.locks.heldByAnyTab()]);
    const runs = records.map((r) => this.summary(r, held.runs));
    const offer = !this.d.session.$.get().model && !this.offerDismissed ? runs.find((r) => !r.busy && !r.current) : undefined;
    this.set({
      runs,
      resumeOffer: offer ? { id: offer.id, name: offer.name, savedAt: offer.savedAt, step: offer.step, steps: offer.steps, corpusName: offer.corpusName, model: offer.model, config: offer.config } : null,
    });
    void this.refreshStorage();
  }

  private onModel(m: ModelInfo): void {
    const s = this.get();
    const previous = s.runId;
    const id = m.reason === 'resume' && this.resuming ? this.resuming : newId('run');
    this.resuming = null;
    const released = previous && previous !== id ? this.locks.releaseRun(previous) : Promise.resolve();
    this.set({ runId: id, lastSave: null, saveNote: m.reason === 'create' ? (x) => x.runs.nothingSavedYet : null });
    this.lastSaveRequest = performance.now();
    if (m.reason === 'resume') {
      const r = s.runs.find((x) => x.id === id);
      if (r) this.set({ lastSave: { at: r.savedAt, step: r.step, bytes: r.bytes } });
    }
    void Promise.all([this.locks.claimRun(id), released]).then(() => {
      if (m.reason === 'load') this.save();   // a loaded checkpoint is a run of its own at once
      else void this.refresh();
    });
  }


  private onReset(): void {
    const id = this.get().runId;
    this.set({ runId: null, lastSave: null, saveNote: (x) => x.runs.nothingSaved });
    // listed again once the lock is free: a query just after the release still shows it held,
    // which would list this tab's own run as "open in another tab"
    void (id ? this.locks.releaseRun(id) : Promise.resolve()).then(() => this.refresh());
  }

  async resume(id: string): Promise<void> {
    const s = this.get();
    if (!this.db || s.runId === id) return;
    await this.keeperFlushed();   // a save of this run may still be landing (the page was reloaded)
    const run = await this.db.getRun(id);
    if (!run) return void notify(t().runs.gone, 'error');
    const model = this.d.session.$.get().model;
    if (model && !confirm(t().runs.confirmReplace(formatCount(this.d.train.$.get().step), run.name, formatCount(run.step)))) return;
    if (!(await this.locks.claimRun(id))) {
      notify(t().runs.openElsewhere(run.name), 'warning');
      return void this.refresh();
    }
    if (model) this.save();   // the worker answers in order: this checkpoint is the current model's
    this.offerDismissed = true;
    this.set({ resumeOffer: null });
    let loading = false;
    try {
      const checkpoint = await this.db.getCheckpoint(run);
      // the data first (pairs read at the run's block_size: the form may show another mode's)
      await this.d.data.reopen(run.corpus, run.settings.block_size);
      this.resuming = id;
      this.d.session.setLoading({ name: run.name, reason: 'resume', elapsedMs: run.elapsedMs });
      loading = true;
      const info = await this.port.call('load', { bytes: checkpoint, reason: 'resume', name: run.name });
      notify(t().run.resumed(formatCount(info.step)), 'success');
    } catch (e) {
      if (loading) return this.resumeFailed(e as Coded);
      void this.locks.releaseRun(id);
      // our own words (worded when thrown), or the browser's
      const why = e instanceof Error ? e.message : String(e);
      this.set({ saveNote: (m) => m.runs.couldNotResumeNamed(run.name, why) });
      notify(t().runs.couldNotResume + why, 'error');
    }
  }

  /** The worker refused the stored checkpoint: the model stays as it was. */
  private resumeFailed(e: Coded): void {
    this.d.session.setLoading(null);
    if (this.resuming) void this.locks.releaseRun(this.resuming);
    this.resuming = null;
    this.set({ saveNote: { before: (x) => x.runs.couldNotResume, core: e.message, from: e, after: (x) => x.runs.unchanged } });
    notify(() => h('span', {}, t().runs.couldNotResume, coreInline(e.message, e)), 'error');
  }

  async rename(id: string): Promise<void> {
    const r = this.get().runs.find((x) => x.id === id);
    if (!this.db || !r) return;
    const name = prompt(t().runs.renamePrompt, r.name)?.trim();
    if (!name || name === r.name) return;
    await this.db.renameRun(id, name);
    this.locks.announce();
    await this.refresh();
  }

  /** A stored run's loss curves and config ("compare runs"); null if it is gone. */
  async curves(id: string): Promise<RunCurves | null> {
    const run = await this.db?.getRun(id);
    if (!this.db || !run) return null;
    return this.port.call('runCurves', { bytes: await this.db.getCheckpoint(run) });
  }

  /** A stored run's name (for "reading …" while its curves come). */
  nameOf(id: string): string | null {
    return this.get().runs.find((r) => r.id === id)?.name ?? null;
  }

  async download(id: string): Promise<void> {
    const run = await this.db?.getRun(id);
    if (!this.db || !run) return;
    downloadBytes(checkpointFileName(run.corpus.name, run.step), await this.db.getCheckpoint(run));
  }

  async remove(id: string): Promise<void> {
    const r = this.get().runs.find((x) => x.id === id);
    if (!this.db || !r || r.busy || r.current) return;
    if (!confirm(t().runs.confirmDelete(r.name, formatCount(r.step), formatBytes(r.bytes)))) return;
    const held = await this.locks.heldByAnyTab();
    await this.db.deleteRun(id, (corpusId) => held.corpora.has(corpusId));
    this.locks.announce();
    await this.refresh();
  }

  dismissOffer(): void {
    this.offerDismissed = true;
    this.set({ resumeOffer: null });
  }

  /** Opens the database, lists the runs and offers the latest one. */
  async open(openDb: () => Promise<RunsDb>, keepCorpus: string | null = null): Promise<void> {
    try {
      this.d.storage.db = await openDb();
      const db = this.d.storage.db;
      void this.port.call('openRunsDb', {}).catch(() => undefined);   // the worker's connection, for the save on hide
      this.startKeeper();
      // texts no run uses and no tab holds (dropped, never trained on) are not kept
      const held = await this.locks.heldByAnyTab();
      for (const id of await db.orphanCorpora()) if (!held.corpora.has(id) && id !== keepCorpus) await db.deleteCorpus(id);
      await db.dropOrphanCheckpoints();
      await this.refresh();
      const offer = this.get().resumeOffer;
      if (offer) {
        const step = formatCount(offer.step);
        this.set({ saveNote: (m) => m.runs.waiting(step) });
      }
    } catch (e) {
      this.d.storage.db = null;
      const why = `${e instanceof Error ? e.message : e}`;   // the browser's words
      this.set({ saveNote: (m) => m.runs.unavailable(why) });
    }
  }

  /**
   * The page is hidden or goes away: the worker saves the run into IndexedDB itself, now, past any
   * save on its way (its checkpoint is older; the later one is kept, lib/runs-db.ts). The page may
   * be gone before the reply; if it is still here it shows the save.
   */
  saveOnHide(): void {
    if (!this.d.session.$.get().model || (!this.inFlight && this.d.train.$.get().step === this.get().lastSave?.step)) return;
    const record = this.saveRecord();
    if (!record) return;
    // the stored name (the person may have renamed the run) and creation time go with it: the
    // worker writes without reading first (lib/runs-db.ts writeSaveAtOnce)
    const stored = this.get().runs.find((r) => r.id === record.id);
    const meta = stored ? { ...record, name: stored.name, createdAt: stored.createdAt } : record;
    this.lastSaveRequest = performance.now();
    this.port.call('saveToDb', { run: meta, hide: true }).then((r) => {
      if (this.get().runId === meta.id && r.step >= (this.get().lastSave?.step ?? -1))
        this.set({ lastSave: { at: r.savedAt, step: r.step, bytes: r.bytes }, saveNote: null });
      this.locks.announce();
      void this.refresh();
    }, () => undefined);   // a failure here is a save that did not happen: the last complete one stays
  }

  /**
   * The keeper of the saves made when the page goes away (keeper.ts): a SharedWorker that outlives
   * the page (extendedLifetime), its port handed to the training worker. Without SharedWorker the
   * training worker writes those saves itself.
   */
  /**
   * Resolves once the keeper has written every save handed to it so far (at most `waitMs` later):
   * a reloaded page resumes from the save its previous self made on the way out, not from the
   * one before it while that save is still being written. A page without a keeper resolves at once.
   */
  private keeperFlushed(waitMs = 5000): Promise<void> {
    if (!this.keeperStarted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, waitMs);
      let port: MessagePort | null = null;
      function done(): void {
        clearTimeout(timer);
        port?.close();
        resolve();
      }
      try {
        port = openKeeper().port;   // the same keeper: one per script and name
        port.onmessage = (m: MessageEvent<{ flushed?: number }>) => void (m.data?.flushed === 1 && done());
        port.postMessage({ flush: 1 } satisfies KeeperFlush);
      } catch {
        done();
      }
    });
  }

  private startKeeper(): void {
    // ?keeper=off: the training worker writes those saves itself (bench/reload.mjs compares the two)
    if (typeof SharedWorker !== 'function' || new URLSearchParams(location.search).get('keeper') === 'off') return;
    try {
      const keeper = openKeeper();
      this.keeperStarted = true;
      void this.port.call('useKeeper', { port: keeper.port }).catch(() => undefined);
    } catch {
      // refused (a sandboxed frame, a private mode): the worker's own write it is
    }
  }

  /** Saves the run now if it moved since its last save (the tab may close, or the model go). */
  saveIfBehind(): void {
    if (this.d.session.$.get().model && this.d.train.$.get().step !== this.get().lastSave?.step) this.save();
  }

  /** "Keep it": asks the browser again to keep the storage. */
  persist(): void {
    this.persistAsked = false;
    void this.askPersistence();
  }

  hasOffer(): boolean {
    return !!this.get().resumeOffer;
  }
}
