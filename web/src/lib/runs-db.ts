// runs-db.ts — the one write of a run's save into IndexedDB, shared by the page (app/db.ts, the
// saves it makes) and the worker (features/runs' worker side: the save made when the page goes
// away, which must not wait for the page). The database is opened and upgraded by the page
// (app/db.ts); the worker opens it at the same version only once the page has.
//
// A save writes the new checkpoint record and then moves the run's pointer to it, in one
// transaction (IndexedDB commits a transaction whole or not at all), and only then drops the
// checkpoint it replaced: a tab closed in the middle leaves the previous save intact. A save taken
// before the one already stored (its `savedAt`, stamped when the checkpoint was asked for, is
// older) changes nothing: two saves on their way at once land in the order they were taken.
import type { IDBPDatabase } from 'idb';

/** The database of the runs: its name and the version app/db.ts upgrades it to. */
export const RUNS_DB = { name: 'tinygpt', version: 2 } as const;

/** What every save record has (app/db.ts's RunSave has more). */
export interface SaveBase { id: string; name: string; createdAt: number; savedAt: number; step: number }
/** Where a run's checkpoint is: the record in `checkpoints`, and its size. */
export interface CheckpointPointer { checkpointKey: string; checkpointBytes: number }

export function newId(prefix: string): string {
  const r = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `${prefix}-${r}`;
}

/**
 * Writes a checkpoint as a new record, points the run at it and drops the old one, in one
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
  const key = newId('ckpt');
  await tx.objectStore('checkpoints').put({ key, runId: run.id, bytes: checkpoint });
  const record: R & CheckpointPointer = {
    ...run, name: previous?.name ?? run.name, createdAt: previous?.createdAt ?? run.createdAt, checkpointKey: key, checkpointBytes: checkpoint.byteLength,
  };
  await runs.put(record);
  if (previous && previous.checkpointKey !== key) await tx.objectStore('checkpoints').delete(previous.checkpointKey);
  await tx.done;
  return record;
}
