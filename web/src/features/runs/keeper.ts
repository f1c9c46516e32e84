/// <reference lib="webworker" />
// keeper.ts (runs) — the keeper of the saves made when the page goes away: a SharedWorker started
// with extendedLifetime, so that it outlives the page (and the training worker, which goes with the
// page). The training worker hands it the checkpoint the moment the page hides (one postMessage, at
// once); the keeper writes it into IndexedDB (lib/runs-db.ts writeSave) whether or not anyone is
// still there to hear it. The periodic saves come the same way: a checkpoint of many MB written by
// the page would be copied on its main thread (IndexedDB clones a value when it is put), hundreds
// of ms on a busy machine (bench/soak.mjs). Measured in Chromium: a save written by the training worker itself is
// cut off by the page's end now and then (its transaction aborted with the worker); one handed to
// this keeper lands. One keeper serves every tab of the page (each tab connects its own port).
import { type IDBPDatabase, openDB } from 'idb';

import { type KeeperFlush, type KeeperReply, type KeeperSave, RUNS_CHANNEL, RUNS_DB, saveErrorText, writeSave } from '../../lib/runs-db';

declare const self: SharedWorkerGlobalScope;

function keeper(): void {
  let db: Promise<IDBPDatabase> | null = null;
  // opened on the first save: by then the page has opened and upgraded the database (app/db.ts)
  const database = (): Promise<IDBPDatabase> => {
    if (!db) {
      const opened: Promise<IDBPDatabase> = openDB(RUNS_DB.name, RUNS_DB.version, {
        blocking: () => void opened.then((d) => d.close()).finally(() => void (db === opened && (db = null))),
      });
      db = opened;
      opened.catch(() => void (db === opened && (db = null)));
    }
    return db;
  };
  // the pages read the list again when a save lands (the page reloaded meanwhile offers the new step)
  const announce = new BroadcastChannel(RUNS_CHANNEL);
  // the writes in the order they came (a later save of a run wins anyway); a flush waits for them
  let writes: Promise<unknown> = Promise.resolve();
  self.addEventListener('connect', (e) => {
    const port = e.ports[0];
    port.onmessage = (m: MessageEvent<KeeperSave | KeeperFlush>) => {
      // a page that just started (a reload) asks before it reads a run: the save its previous
      // self handed over on the way out may still be on its way into IndexedDB
      if ('flush' in m.data) {
        const { flush } = m.data;
        return void writes.then(() => port.postMessage({ flushed: flush }));
      }
      const { seq, run, checkpoint, announce: tell } = m.data;
      const write = writes.then(async () => {
        try {
          const r = await writeSave(await database(), run, checkpoint);
          if (tell) announce.postMessage('changed');
          port.postMessage({ seq, ok: true, step: r.step, bytes: r.checkpointBytes, savedAt: r.savedAt } satisfies KeeperReply);
        } catch (err) {
          port.postMessage({ seq, ok: false, error: saveErrorText(err) } satisfies KeeperReply);
        }
      });
      writes = write;
    };
  });
}

keeper();
