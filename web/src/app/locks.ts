// locks.ts — tabs of the page coordinate with Web Locks: the tab that trains a run holds the
// exclusive lock "tinygpt-run-<id>" and is the only one that writes it; every other tab sees the
// run as busy (navigator.locks.query) and can't resume or delete it until that tab lets go (it
// does on reset, on replacing the model, and when it closes, which releases every lock). A tab
// also holds a shared lock on the text it has chosen, so cleaning up texts no run uses never
// takes another tab's. A BroadcastChannel tells the other tabs to re-read the list after a write.

import { RUNS_CHANNEL } from '../lib/runs-db';

const RUN = 'tinygpt-run-';
const CORPUS = 'tinygpt-corpus-';

const locks: LockManager | null = typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : null;

export class TabLocks {
  // lock name -> release, and the request's promise: it settles once the lock is really free
  // (locks.query() still lists a lock for a moment after its release is called)
  private held = new Map<string, { release: () => void; freed: Promise<unknown> }>();
  private channel: BroadcastChannel | null = typeof BroadcastChannel === 'function' ? new BroadcastChannel(RUNS_CHANNEL) : null;

  /** Calls fn when another tab wrote or claimed a run. */
  onChange(fn: () => void): void {
    this.channel?.addEventListener('message', () => fn());
  }

  /** Tells the other tabs to re-read the runs. */
  announce(): void {
    this.channel?.postMessage('changed');
  }

  private async take(name: string, mode: LockMode): Promise<boolean> {
    if (this.held.has(name)) return true;
    if (!locks) return true;   // no Web Locks: a lone tab owns everything
    return new Promise<boolean>((resolve) => {
      let release: () => void = () => {};
      const freed = locks.request(name, { mode, ifAvailable: true }, (lock) => {
        if (!lock) {
          resolve(false);
          return undefined;
        }
        this.held.set(name, { release: () => release(), freed });
        resolve(true);
        return new Promise<void>((r) => (release = r));
      });
    });
  }

  /** Lets go of a lock; resolves once other tabs (and locks.query) see it free. */
  private drop(name: string): Promise<unknown> {
    const h = this.held.get(name);
    this.held.delete(name);
    if (!h) return Promise.resolve();
    h.release();
    return h.freed.catch(() => undefined);
  }

  /** Makes this tab the writer of a run; false when another tab has it. */
  async claimRun(id: string): Promise<boolean> {
    const ok = await this.take(RUN + id, 'exclusive');
    if (ok) this.announce();
    return ok;
  }

  /** Lets go of a run; resolves (after telling the other tabs) once the lock is free. */
  async releaseRun(id: string): Promise<void> {
    if (!this.held.has(RUN + id)) return;
    await this.drop(RUN + id);
    this.announce();
  }

  /** Holds the chosen text (shared), letting go of the one before. */
  async holdCorpus(id: string): Promise<void> {
    for (const name of [...this.held.keys()]) if (name.startsWith(CORPUS) && name !== CORPUS + id) void this.drop(name);
    await this.take(CORPUS + id, 'shared');
  }

  /** Runs and texts held by any tab (this one included). */
  async heldByAnyTab(): Promise<{ runs: Set<string>; corpora: Set<string> }> {
    const runs = new Set<string>(), corpora = new Set<string>();
    if (!locks) return { runs, corpora };
    const q = await locks.query();
    for (const l of q.held ?? []) {
      if (l.name?.startsWith(RUN)) runs.add(l.name.slice(RUN.length));
      else if (l.name?.startsWith(CORPUS)) corpora.add(l.name.slice(CORPUS.length));
    }
    return { runs, corpora };
  }

  ownsRun(id: string): boolean {
    return this.held.has(RUN + id);
  }
}
