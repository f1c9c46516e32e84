// stream.ts (data) — a large text or a set of llm.c shards, taken without reading it into memory:
// the worker reads the windows it samples from the Files (reader.ts) and training can start at
// once; meanwhile the scan worker streams the files once for their statistics and copies them into
// OPFS when the browser has room (scan.worker.ts), and from then on the trainer reads the copy,
// which a reload finds again (`reopen`). Without OPFS, or without room, the file trains for this
// visit only, and the page says so.
import type { CorpusRef, RunsDb } from '../../app/db';
import { patch, type MapStore } from '../../app/store';
import { notify, withData } from '../../ui';
import { type Msg, t } from '../../i18n';
import { formatBytes } from '../../lib/format';
import { canKeepFiles, removeKept, storageRoom } from '../../lib/opfs';
import type { Port } from '../../lib/wire';
import type { CorpusStats } from './corpus';
import type { DataCalls, FilesTaken } from './messages';
import type { ScanReply, ScanRequest } from './scan.worker';
import type { CorpusState, DataSlice } from './state';

/** Room kept free beyond the copy itself (the runs' checkpoints need some too). */
const ROOM_MARGIN = 64 * 1024 * 1024;

/** The statistics known before the pass: the size and the core's fingerprint. */
export function pendingStats(taken: FilesTaken): CorpusStats {
  return {
    size: taken.size, distinct: 0, chars: 0, multibyte: 0, invalid: 0, nul: 0, lines: 0, fingerprint: taken.fingerprint,
    counts: new Float64Array(256), unigram: 0, bigram: 0,
  };
}

/** Whether a copy of `total` bytes can be kept: null, or why not ('noOpfs', 'noRoom' with the room there is). */
export async function roomFor(total: number): Promise<{ why: 'noOpfs' | 'noRoom' | null; free: number }> {
  if (!canKeepFiles()) return { why: 'noOpfs', free: 0 };
  const room = await storageRoom().catch(() => null);
  if (room && room.free < total + ROOM_MARGIN) return { why: 'noRoom', free: room.free };
  return { why: null, free: room?.free ?? Infinity };
}

export class CorpusStream {
  private worker: Worker | null = null;
  private copying: string | null = null;   // the corpus whose copy the running pass writes
  /** The Files of the corpora taken in this visit (by id): a mode switch brings one back without OPFS. */
  private visit = new Map<string, File[]>();

  constructor(private readonly $: MapStore<DataSlice>, private readonly port: Port<DataCalls, object>, private readonly db: () => RunsDb | null) {}

  /** Stops a pass under way (another corpus was taken): its copy is removed unless a run uses it. */
  stop(): void {
    this.worker?.terminate();
    this.worker = null;
    // a copy cut short is not one: no record points at it yet
    if (this.copying) void removeKept(this.copying);
    this.copying = null;
  }

  filesOf(id: string): File[] | null {
    return this.visit.get(id) ?? null;
  }

  /** The worker took `c` from `files`: their statistics and their copy, in the background. */
  async start(c: CorpusState, files: File[]): Promise<void> {
    this.stop();
    this.visit.set(c.ref.id, files);
    // the same files kept before (dropped again): their copy and statistics are there already
    const before = await this.db()?.getCorpus(c.ref.id).catch(() => undefined);
    if (before?.kept && before.stats) {
      const cur = this.$.get().corpus;
      if (cur && cur.ref.id === c.ref.id) patch(this.$, { corpus: { ...cur, stats: before.stats as CorpusStats, scan: null, scanned: true } });
      await this.port.call('useKeptCopy', { id: c.ref.id });
      return;
    }
    const total = files.reduce((a, f) => a + f.size, 0);
    const keep = await this.room(c.ref.name, total);
    if (keep) this.copying = c.ref.id;
    const w = new Worker(new URL('./scan.worker.ts', import.meta.url), { type: 'module', name: 'tinygpt-scan' });
    this.worker = w;
    w.onmessage = (e: MessageEvent<ScanReply>) => {
      const r = e.data;
      const cur = this.$.get().corpus;
      const ours = cur !== null && cur.ref.id === c.ref.id;
      if (r.type === 'progress') {
        if (ours) patch(this.$, { corpus: { ...cur, scan: { done: r.done, total: r.total, keeping: keep } } });
        return;
      }
      w.terminate();
      if (this.worker === w) this.worker = null;
      if (this.copying === c.ref.id) this.copying = null;
      void this.finish(c, r, keep);
    };
    w.postMessage({ files, keep: keep ? c.ref.id : null, analyse: !c.ref.files?.shards } satisfies ScanRequest);
  }

  /** Whether the copy fits (navigator.storage.estimate()); says why not when it does not. */
  private async room(name: string, total: number): Promise<boolean> {
    const r = await roomFor(total);
    if (r.why === 'noOpfs') notify(() => withData(t().data.notice.notKeptNoOpfs(name), [name]), 'warning', { timeout: 12000 });
    if (r.why === 'noRoom') {
      const size = formatBytes(total), free = formatBytes(r.free);
      notify(() => withData(t().data.notice.notKeptNoRoom(name, size, free), [name]), 'warning', { timeout: 12000 });
    }
    return r.why === null;
  }

  private async finish(c: CorpusState, r: Extract<ScanReply, { type: 'done' }>, keep: boolean): Promise<void> {
    const name = c.ref.name;
    const stats: CorpusStats = r.stats ? { ...r.stats, fingerprint: c.stats.fingerprint } : c.stats;
    const cur = this.$.get().corpus;
    if (cur && cur.ref.id === c.ref.id) patch(this.$, { corpus: { ...cur, stats, scan: null, scanned: !!r.stats } });
    if (r.readError) notify(() => withData(t().data.notice.changedWhileRead(name, r.readError!), [name]), 'error', { timeout: 12000 });
    if (keep && !r.kept) {
      const why = r.keepError === 'QuotaExceededError' ? t().data.notice.quota : r.keepError ?? '';
      notify(() => withData(t().data.notice.notKeptFailed(name, why), [name]), 'warning', { timeout: 12000 });
    }
    if (!r.kept) return;
    const db = this.db();
    try {
      if (!db) throw new Error('no database');
      await db.putKeptCorpus(c.ref, stats);
      // the trainer reads the copy from now on (the File may change or go; the copy stays)
      await this.port.call('useKeptCopy', { id: c.ref.id });
    } catch (e) {
      await removeKept(c.ref.id);
      const why = e instanceof Error ? e.message : String(e);
      notify(() => withData(t().data.notice.notKeptFailed(name, why), [name]), 'warning', { timeout: 12000 });
    }
  }

  /**
   * A corpus read from files, taken again: its copy in OPFS (after a reload), or the Files of this
   * visit. Null when neither is there (the page asks for the file again).
   */
  async reopen(ref: CorpusRef): Promise<{ taken: FilesTaken; stats: CorpusStats | null } | null> {
    const files = ref.files!;
    const kept = await this.db()?.getCorpus(ref.id);
    if (kept?.kept) {
      const taken = await this.port.call('openKeptCorpus', { id: ref.id, name: ref.name, names: kept.kept.names, shards: kept.kept.shards });
      return { taken, stats: kept.stats ?? null };
    }
    const visit = this.visit.get(ref.id);
    if (!visit) return null;
    const taken = await this.port.call('setCorpusFiles', { files: visit, name: ref.name, shards: files.shards });
    return { taken, stats: null };
  }
}

/** "Reading x.txt for its statistics: 34% (and keeping a copy in this browser)". */
export function scanSay(scan: { done: number; total: number; keeping: boolean }): Msg {
  const pct = Math.floor((100 * scan.done) / Math.max(1, scan.total));
  return (m) => (scan.keeping ? m.data.scanKeeping(pct) : m.data.scanning(pct));
}

