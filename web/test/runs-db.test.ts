// lib/runs-db.ts: a run's save, the page's way (read first: an older save changes nothing; one
// checkpoint record per run; the record of a run saved before that dropped) and the worker's way
// (every request issued before anything is awaited). Over a small in-memory stand-in for the part
// of idb's database the two use (transaction, objectStore, get, put, delete, commit, done); the
// real IndexedDB is exercised end to end by tests/e2e/reliability.e2e.test.ts.
import type { IDBPDatabase } from 'idb';
import { describe, expect, it } from 'vitest';

import { checkpointKeyOf, isQuotaError, saveErrorText, type SaveBase, writeSave, writeSaveAtOnce } from '../src/lib/runs-db';

type Stores = Record<'runs' | 'checkpoints', Map<string, Record<string, unknown>>>;

/** The database's stores, and a log of the requests in the order they were issued (`await` marks a wait). */
function fakeDb(): { db: IDBPDatabase; stores: Stores; log: string[] } {
  const stores: Stores = { runs: new Map(), checkpoints: new Map() };
  const log: string[] = [];
  const store = (name: keyof Stores) => ({
    get: (key: string) => {
      log.push(`get ${name}`);
      return Promise.resolve(stores[name].get(key));
    },
    put: (value: Record<string, unknown>) => {
      log.push(`put ${name}`);
      stores[name].set(String(value[name === 'runs' ? 'id' : 'key']), value);
      return Promise.resolve();
    },
    delete: (key: string) => {
      log.push(`delete ${name} ${key}`);
      stores[name].delete(key);
      return Promise.resolve();
    },
  });
  const db = {
    transaction: () => ({
      objectStore: store,
      commit: () => void log.push('commit'),
      done: Promise.resolve(),
    }),
  };
  return { db: db as unknown as IDBPDatabase, stores, log };
}

const run = (over: Partial<SaveBase> = {}): SaveBase => ({ id: 'run-1', name: 'a.txt · 2 layers', createdAt: 100, savedAt: 1000, step: 10, ...over });

describe('a run saved into IndexedDB (lib/runs-db.ts)', () => {
  it('writes the checkpoint under the run\'s one key and points the run at it', async () => {
    const { db, stores } = fakeDb();
    const r = await writeSave(db, run(), new ArrayBuffer(12));
    expect(r.checkpointKey).toBe(checkpointKeyOf('run-1'));
    expect(r.checkpointBytes).toBe(12);
    expect(stores.checkpoints.get(checkpointKeyOf('run-1'))?.runId).toBe('run-1');
    expect(stores.runs.get('run-1')?.step).toBe(10);
    // the next save replaces both: still one checkpoint record
    await writeSave(db, run({ savedAt: 2000, step: 20 }), new ArrayBuffer(16));
    expect(stores.checkpoints.size).toBe(1);
    expect(stores.runs.get('run-1')?.step).toBe(20);
  });

  it('keeps the later of two saves: one taken before the stored one changes nothing', async () => {
    const { db, stores } = fakeDb();
    await writeSave(db, run({ savedAt: 2000, step: 20 }), new ArrayBuffer(16));
    const r = await writeSave(db, run({ savedAt: 1500, step: 15 }), new ArrayBuffer(8));
    expect(r.step).toBe(20);                                   // what is stored, unchanged
    expect(stores.runs.get('run-1')?.step).toBe(20);
    expect(stores.runs.get('run-1')?.checkpointBytes).toBe(16);
  });

  it('keeps the name the person gave the run and its creation time', async () => {
    const { db, stores } = fakeDb();
    await writeSave(db, run(), new ArrayBuffer(4));
    stores.runs.set('run-1', { ...stores.runs.get('run-1'), name: 'my favourite run' });
    await writeSave(db, run({ name: 'a.txt · 2 layers', createdAt: 999, savedAt: 3000 }), new ArrayBuffer(4));
    expect(stores.runs.get('run-1')?.name).toBe('my favourite run');
    expect(stores.runs.get('run-1')?.createdAt).toBe(100);
  });

  it('drops the checkpoint record of a run saved when each save had a key of its own', async () => {
    const { db, stores } = fakeDb();
    stores.checkpoints.set('ckpt-old', { key: 'ckpt-old', runId: 'run-1', bytes: new ArrayBuffer(4) });
    stores.runs.set('run-1', { ...run(), checkpointKey: 'ckpt-old', checkpointBytes: 4 });
    await writeSave(db, run({ savedAt: 2000 }), new ArrayBuffer(4));
    expect([...stores.checkpoints.keys()]).toEqual([checkpointKeyOf('run-1')]);
  });

  it('the worker\'s way issues every request and the commit before it awaits anything', async () => {
    const { db, stores, log } = fakeDb();
    const written = writeSaveAtOnce(db, run({ savedAt: 5000, step: 50 }), new ArrayBuffer(8));
    // synchronously, before the first await: a worker whose page is gone runs no later task
    expect(log).toEqual(['put checkpoints', 'put runs', 'commit']);
    expect(stores.runs.get('run-1')?.checkpointKey).toBe(checkpointKeyOf('run-1'));
    expect((await written).step).toBe(50);
  });
});

describe('a failed save, told across a worker (lib/runs-db.ts)', () => {
  it('keeps the browser\'s name for it, so a full storage is still recognised on the page', () => {
    const full = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    expect(saveErrorText(full)).toBe('QuotaExceededError: The quota has been exceeded.');
    expect(isQuotaError(full)).toBe(true);
    expect(isQuotaError(saveErrorText(full))).toBe(true);
    expect(isQuotaError(new Error(saveErrorText(full)))).toBe(true);
    const other = new DOMException('The transaction was aborted.', 'AbortError');
    expect(saveErrorText(other)).toBe('AbortError: The transaction was aborted.');
    expect(isQuotaError(saveErrorText(other))).toBe(false);
    expect(saveErrorText(new Error('disk gone'))).toBe('disk gone');
  });
});
