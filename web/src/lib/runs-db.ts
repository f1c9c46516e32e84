// runs-db.ts — a run's save into IndexedDB, shared by the page (app/db.ts, the saves it makes) and
// the worker (features/runs' worker side: the save made when the page goes away). The database is
// opened and upgraded by the page (app/db.ts); the worker opens it at the same version only once
// the page has.
//
// A run's checkpoint lives in `checkpoints` under a key of its own (checkpointKeyOf) and its record
// in `runs` points at it; a save replaces both in one transaction (IndexedDB commits a transaction
// whole or not at all), so a tab closed in the middle leaves the previous save intact.
//
// Two ways to write, for two moments:
// - writeSave (the page, any time): reads the stored record first; a save taken before the one
//   already stored (`savedAt`, stamped when the checkpoint was asked for, is older) changes
//   nothing, so two saves on their way at once land in the order they were taken.
// - writeSaveAtOnce (the worker, when the page goes away): every request and the commit are issued
//   in the same task, with nothing awaited in between. A worker whose page is gone runs no further
//   task (its closing flag is set), but what it asked of the database before that is done: a save
//   that awaited a read first would not land. It is the newest save by construction; what it
//   needs of the stored record (the name the person gave the run, its creation time) comes with it.
import type { IDBPDatabase } from 'idb';

/** The database of the runs: its name and the version app/db.ts upgrades it to. */
export const RUNS_DB = { name: 'tinygpt', version: 2 } as const;

/** The BroadcastChannel on which a write of the runs is announced: every tab reads the list again (app/locks.ts). */
export const RUNS_CHANNEL = 'tinygpt-runs';

/** What every save record has (app/db.ts's RunSave has more). */
export interface SaveBase { id: string; name: string; createdAt: number; savedAt: number; step: number }
/** Where a run's checkpoint is: the record in `checkpoints`, and its size. */
export interface CheckpointPointer { checkpointKey: string; checkpointBytes: number }

export function newId(prefix: string): string {
  const r = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `${prefix}-${r}`;
}

/**
 * A save handed to the keeper (features/runs/keeper.ts): the run's record and its checkpoint
 * (transferred); `seq` names the reply. `announce`: the keeper tells every tab that the runs changed
 * (a save made when the page goes away: its page may not be there to say it); a periodic save is
 * announced by its page, to the other tabs only.
 */
export interface KeeperSave { seq: number; run: SaveBase; checkpoint: ArrayBuffer; announce: boolean }
/** Asks the keeper to answer `{ flushed: seq }` once every save handed to it before has landed (or failed). */
export interface KeeperFlush { flush: number }
export type KeeperReply = { seq: number; ok: true; step: number; bytes: number; savedAt: number } | { seq: number; ok: false; error: string };

/**
 * A failed write in words that keep the browser's name for it (a QuotaExceededError reaches the
 * page across a worker as text: isQuotaError finds it there).
 */
export function saveErrorText(e: unknown): string {
  if (e instanceof DOMException || (e instanceof Error && e.name !== 'Error')) return `${e.name}: ${e.message}`;
  return String(e instanceof Error ? e.message : e);
}

/** Whether a failed write (an error, or saveErrorText's words) was the storage being full. */
export function isQuotaError(e: unknown): boolean {
  return (e instanceof DOMException && e.name === 'QuotaExceededError') || /QuotaExceededError/.test(e instanceof Error ? e.message : String(e));
}

/** A run's checkpoint record: one per run, replaced by each save (runs saved before had keys of their own). */
export function checkpointKeyOf(runId: string): string {
  return `ckpt-${runId}`;
}

function recordOf<R extends SaveBase>(run: R, checkpoint: ArrayBuffer): R & CheckpointPointer {
  return { ...run, checkpointKey: checkpointKeyOf(run.id), checkpointBytes: checkpoint.byteLength };
}

/**
 * Writes a save (the page's way): the checkpoint, then the run's record pointing at it, in one
 * transaction; the run's name and creation time stay as stored (the person may have renamed it).
 * Returns the run's record as it is afterwards (the stored one, unchanged, if it was newer).
 */
export async function writeSave<R extends SaveBase>(db: IDBPDatabase, run: R, checkpoint: ArrayBuffer): Promise<R & CheckpointPointer> {
  const tx = db.transaction(['runs', 'checkpoints'], 'readwrite');
  const runs = tx.objectStore('runs');
  const previous = (await runs.get(run.id)) as (R & CheckpointPointer) | undefined;
  if (previous && previous.savedAt > run.savedAt) {
    await tx.done;
    return previous;
  }
  const record = recordOf({ ...run, name: previous?.name ?? run.name, createdAt: previous?.createdAt ?? run.createdAt }, checkpoint);
  await tx.objectStore('checkpoints').put({ key: record.checkpointKey, runId: run.id, bytes: checkpoint });
  await runs.put(record);
  // a run saved before checkpoints had one key per run: its old record goes
  if (previous && previous.checkpointKey !== record.checkpointKey) await tx.objectStore('checkpoints').delete(previous.checkpointKey);
  await tx.done;
  return record;
}

/**
 * Writes a save with every request issued now (the worker's way, when the page goes away): `run`
 * carries the stored name and creation time. The promise settles when it is committed, for a page
 * that is still there to hear it; the write does not depend on anyone awaiting it. (A run saved
 * before checkpoints had one key per run leaves its old record behind: app/db.ts drops checkpoints
 * no run points at when the page opens.)
 */
export function writeSaveAtOnce<R extends SaveBase>(db: IDBPDatabase, run: R, checkpoint: ArrayBuffer): Promise<R & CheckpointPointer> {
  const record = recordOf(run, checkpoint);
  const tx = db.transaction(['runs', 'checkpoints'], 'readwrite');
  const requests = [
    tx.objectStore('checkpoints').put({ key: record.checkpointKey, runId: run.id, bytes: checkpoint }),
    tx.objectStore('runs').put(record),
  ];
  tx.commit();   // nothing more comes: the database need not wait for this worker's next task
  return Promise.all([...requests, tx.done]).then(() => record);
}
