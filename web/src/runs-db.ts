// runs-db.ts — the runs kept in this browser, in IndexedDB (through `idb`, a 1 kB promise wrapper).
//
// Every run has its own record under its own id (settings, corpus reference, step, losses,
// time) and points at its latest checkpoint, which lives in `checkpoints` under a key of its own.
// A save writes the new checkpoint record and then moves the run's pointer to it, in one
// transaction (IndexedDB commits a transaction whole or not at all), and only then drops the
// checkpoint it replaced: a tab closed in the middle leaves the previous save intact.
// Corpora are stored once, by fingerprint, in `corpora` (the built-in one never: the site and its
// offline cache have it). Nothing here deletes a run or a text on its own: `deleteRun` is called
// when the person deletes one, and a text goes with the last run that used it (unless a tab has
// it open: see runs-lock.ts).
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

import type { FullConfig } from './protocol';

export interface CorpusRef {
  id: string;          // FNV-1a 64 fingerprint + size
  name: string;
  size: number;
  builtin: boolean;
}

export interface RunRecord {
  id: string;
  name: string;
  createdAt: number;
  savedAt: number;
  step: number;
  settings: FullConfig;   // older pages stored other names: read with care (derive.ts describeModel)
  corpus: CorpusRef;
  elapsedMs: number;
  variant: string;
  lastLoss: number | null;
  valLoss: number | null;
  checkpointKey: string;     // the record in `checkpoints`
  checkpointBytes: number;
}

/** What a save writes (the record's pointer and sizes are filled in by `saveRun`). */
export type RunSave = Omit<RunRecord, 'checkpointKey' | 'checkpointBytes'>;

export interface StoredCheckpoint { key: string; runId: string; bytes: ArrayBuffer }

export interface StoredCorpus {
  id: string;
  name: string;
  size: number;
  bytes: ArrayBuffer;
  savedAt: number;
}

/** The single autosaved run of version 1 of this database (migrated to a run record). */
interface LegacyRun extends Omit<RunSave, 'id' | 'name' | 'createdAt' | 'lastLoss' | 'valLoss'> { id: 'current'; checkpoint: ArrayBuffer }

interface Schema extends DBSchema {
  runs: { key: string; value: RunRecord };
  checkpoints: { key: string; value: StoredCheckpoint };
  corpora: { key: string; value: StoredCorpus };
}

export function newId(prefix: string): string {
  const r = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `${prefix}-${r}`;
}

export class RunsDb {
  private constructor(private db: IDBPDatabase<Schema>) {}

  static async open(name = 'tinygpt'): Promise<RunsDb> {
    const db = await openDB<Schema>(name, 2, {
      async upgrade(d, oldVersion, _newVersion, tx) {
        if (oldVersion < 1) {
          d.createObjectStore('runs', { keyPath: 'id' });
          d.createObjectStore('corpora', { keyPath: 'id' });
        }
        if (oldVersion < 2) {
          d.createObjectStore('checkpoints', { keyPath: 'key' });
          // version 1 kept one run under the id 'current', its checkpoint inline
          const runs = tx.objectStore('runs');
          const old = (await runs.get('current')) as unknown as LegacyRun | undefined;
          if (old) {
            const id = newId('run');
            const key = newId('ckpt');
            await tx.objectStore('checkpoints').put({ key, runId: id, bytes: old.checkpoint });
            await runs.delete('current');
            await runs.put({
              id, name: old.corpus.name, createdAt: old.savedAt, savedAt: old.savedAt, step: old.step, settings: old.settings,
              corpus: old.corpus, elapsedMs: old.elapsedMs, variant: old.variant, lastLoss: null, valLoss: null,
              checkpointKey: key, checkpointBytes: old.checkpoint.byteLength,
            });
          }
        }
      },
    });
    return new RunsDb(db);
  }

  /** Every run, the most recently saved first. */
  async listRuns(): Promise<RunRecord[]> {
    const all = await this.db.getAll('runs');
    return all.sort((a, b) => b.savedAt - a.savedAt);
  }

  getRun(id: string): Promise<RunRecord | undefined> {
    return this.db.get('runs', id);
  }

  async getCheckpoint(run: RunRecord): Promise<ArrayBuffer> {
    const c = await this.db.get('checkpoints', run.checkpointKey);
    if (!c) throw new Error(`the checkpoint of "${run.name}" is missing from this browser's storage`);
    return c.bytes;
  }

  /** Writes a checkpoint as a new record, then points the run at it, then drops the old one. */
  async saveRun(run: RunSave, checkpoint: ArrayBuffer): Promise<RunRecord> {
    const tx = this.db.transaction(['runs', 'checkpoints'], 'readwrite');
    const key = newId('ckpt');
    await tx.objectStore('checkpoints').put({ key, runId: run.id, bytes: checkpoint });
    const previous = await tx.objectStore('runs').get(run.id);
    const record: RunRecord = { ...run, name: previous?.name ?? run.name, createdAt: previous?.createdAt ?? run.createdAt, checkpointKey: key, checkpointBytes: checkpoint.byteLength };
    await tx.objectStore('runs').put(record);
    if (previous && previous.checkpointKey !== key) await tx.objectStore('checkpoints').delete(previous.checkpointKey);
    await tx.done;
    return record;
  }

  async renameRun(id: string, name: string): Promise<void> {
    const tx = this.db.transaction('runs', 'readwrite');
    const r = await tx.store.get(id);
    if (r) await tx.store.put({ ...r, name });
    await tx.done;
  }

  /** Deletes a run, its checkpoint, and its text if no other run uses it and `keepCorpus` allows. */
  async deleteRun(id: string, keepCorpus: (corpusId: string) => boolean = () => false): Promise<void> {
    const tx = this.db.transaction(['runs', 'checkpoints', 'corpora'], 'readwrite');
    const runs = tx.objectStore('runs');
    const r = await runs.get(id);
    if (r) {
      await runs.delete(id);
      await tx.objectStore('checkpoints').delete(r.checkpointKey);
      const others = (await runs.getAll()).some((o) => o.corpus.id === r.corpus.id);
      if (!r.corpus.builtin && !others && !keepCorpus(r.corpus.id)) await tx.objectStore('corpora').delete(r.corpus.id);
    }
    await tx.done;
  }

  /** Stores the bytes now (IndexedDB clones them during the call, so they may be transferred right after). */
  putCorpus(ref: CorpusRef, bytes: ArrayBuffer): Promise<string> {
    return this.db.put('corpora', { id: ref.id, name: ref.name, size: ref.size, bytes, savedAt: Date.now() });
  }

  async hasCorpus(id: string): Promise<boolean> {
    return (await this.db.getKey('corpora', id)) !== undefined;
  }

  getCorpus(id: string): Promise<StoredCorpus | undefined> {
    return this.db.get('corpora', id);
  }

  /** Texts no run uses (dropped but never trained on), for the caller to clean up. */
  async orphanCorpora(): Promise<string[]> {
    const used = new Set((await this.db.getAll('runs')).map((r) => r.corpus.id));
    return (await this.db.getAllKeys('corpora')).filter((k) => !used.has(k));
  }

  deleteCorpus(id: string): Promise<void> {
    return this.db.delete('corpora', id);
  }
}
