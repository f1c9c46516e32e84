// storage.ts — what the page keeps in this browser, shared by the features that keep things:
// the IndexedDB database of runs and texts (db.ts; opened by features/runs, null before and where
// IndexedDB is unavailable) and the tabs' Web Locks (locks.ts).
import type { RunsDb } from './db';
import { TabLocks } from './locks';

export class Storage {
  db: RunsDb | null = null;
  readonly locks = new TabLocks();
}
