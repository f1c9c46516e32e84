// scan.worker.ts (data) — one streaming pass over a large text's files, in a worker of its own so
// that neither the page nor training waits for it: the statistics (CorpusAnalyzer: bytes, distinct
// bytes, characters, lines, entropy baselines) and, when the browser has room, a copy of every
// file in OPFS that the trainer reads from afterwards and a reload finds again (lib/opfs.ts).
// It holds one chunk of the file at a time (the browser's stream: 64 KiB to a few MiB).
import { keptDir, openSyncHandle, removeKept, type SyncHandle } from '../../lib/opfs';
import { CorpusAnalyzer, type CorpusStats } from './corpus';

export interface ScanRequest {
  files: File[];
  keep: string | null;   // the corpus id to keep the copy under, or null: no copy
  analyse: boolean;      // statistics of the bytes (a text; shards hold tokens)
}
export type ScanReply =
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; stats: Omit<CorpusStats, 'fingerprint'> | null; kept: boolean; keepError: string | null; readError: string | null };

const PROGRESS_MS = 100;

function reply(r: ScanReply): void {
  postMessage(r);
}

function errorName(e: unknown): string {
  return e instanceof DOMException ? e.name : e instanceof Error ? e.message : String(e);
}

async function scan({ files, keep, analyse }: ScanRequest): Promise<void> {
  const total = files.reduce((a, f) => a + f.size, 0);
  const analyzer = analyse ? new CorpusAnalyzer({ fingerprint: false }) : null;
  let keepError: string | null = null;
  let dir = null as FileSystemDirectoryHandle | null;
  if (keep) {
    try {
      dir = await keptDir(keep, true);
    } catch (e) {
      keepError = errorName(e);
    }
  }
  let done = 0, shown = 0;
  for (let k = 0; k < files.length; k++) {
    let h: SyncHandle | null = null;
    if (dir) {
      try {
        h = await openSyncHandle(dir, k, true);
        h.truncate(0);
      } catch (e) {
        keepError = errorName(e);
      }
    }
    const reader = files[k].stream().getReader();
    let at = 0;
    try {
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        analyzer?.update(value);
        if (h) {
          try {
            // a write that does not fit: the quota is exceeded (QuotaExceededError), the copy given up
            if (h.write(value, { at }) !== value.length) throw new DOMException('the copy did not fit', 'QuotaExceededError');
          } catch (e) {
            keepError = errorName(e);
            h.close();
            h = null;
          }
        }
        at += value.length;
        done += value.length;
        const now = performance.now();
        if (now - shown >= PROGRESS_MS) {
          shown = now;
          reply({ type: 'progress', done, total });
        }
      }
    } catch (e) {
      // the file changed or went away while it was read: the statistics are not the file's
      h?.close();
      if (keep) await removeKept(keep);
      reply({ type: 'done', stats: null, kept: false, keepError, readError: errorName(e) });
      return;
    }
    if (h) {
      h.flush();
      h.close();
    }
    if (keepError) dir = null;
  }
  if (keep && keepError) await removeKept(keep);
  const stats = analyzer?.finish() ?? null;
  reply({ type: 'progress', done, total });
  reply({ type: 'done', stats, kept: !!keep && !keepError, keepError, readError: null });
}

onmessage = (e: MessageEvent<ScanRequest>) => void scan(e.data);
