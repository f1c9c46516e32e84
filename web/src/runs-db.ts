// runs-db.ts — the autosaved run in IndexedDB (through `idb`, a 1 kB promise wrapper).
//
// One record `runs/current` holds the checkpoint bytes (the core's format, which carries the
// loss history), the page settings and a reference to the corpus. Corpora are stored once, by
// fingerprint, in `corpora` (the built-in one is never stored: it is part of the site and cached
// offline by the service worker); only the current selection and the autosaved run's corpus are
// kept.
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

import type { FullConfig } from './protocol';

export interface CorpusRef {
  id: string;          // FNV-1a 64 fingerprint + size
  name: string;
  size: number;
  builtin: boolean;
}

export interface SavedRun {
  id: 'current';
  savedAt: number;
  step: number;
  settings: FullConfig;   // older pages stored other names: read with care (see main.ts describeModel)
  checkpoint: ArrayBuffer;
  corpus: CorpusRef;
  elapsedMs: number;
  variant: string;
}

export interface StoredCorpus {
  id: string;
  name: string;
  size: number;
  bytes: ArrayBuffer;
  savedAt: number;
}

interface Schema extends DBSchema {
  runs: { key: string; value: SavedRun };
  corpora: { key: string; value: StoredCorpus };
}

export class RunsDb {
  private constructor(private db: IDBPDatabase<Schema>) {}

  static async open(name = 'tinygpt'): Promise<RunsDb> {
    const db = await openDB<Schema>(name, 1, {
      upgrade(d) {
        d.createObjectStore('runs', { keyPath: 'id' });
        d.createObjectStore('corpora', { keyPath: 'id' });
      },
    });
    return new RunsDb(db);
  }

  loadRun(): Promise<SavedRun | undefined> {
    return this.db.get('runs', 'current');
  }

  async saveRun(run: SavedRun, keepCorpora: string[]): Promise<void> {
    const tx = this.db.transaction(['runs', 'corpora'], 'readwrite');
    await tx.objectStore('runs').put(run);
    const corpora = tx.objectStore('corpora');
    for (const key of await corpora.getAllKeys()) if (!keepCorpora.includes(key)) await corpora.delete(key);
    await tx.done;
  }

  deleteRun(): Promise<void> {
    return this.db.delete('runs', 'current');
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
}
