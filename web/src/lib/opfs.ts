// opfs.ts — large texts kept in the browser's origin private file system (OPFS): one folder per
// corpus, `corpora/<corpus id>/<k>` the k-th file as it was dropped (names are kept elsewhere:
// OPFS names may not hold every character a file's name can). The page copies a file there
// (features/data/scan.worker.ts), the worker reads it back a window at a time through a
// synchronous handle (features/data/reader.ts), the runs' database removes it with the last run
// that used it (app/db.ts).

/** FileSystemSyncAccessHandle, as much of it as is used (declared in lib.webworker only). */
export interface SyncHandle {
  read(into: Uint8Array, options: { at: number }): number;
  write(from: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

const KEPT_DIR = 'corpora';

/**
 * Whether this browser has OPFS (the synchronous handles the copy needs exist in workers only, so
 * the page cannot ask for them: a worker without them says so when it tries, scan.worker.ts).
 */
export function canKeepFiles(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.storage?.getDirectory === 'function' && typeof FileSystemFileHandle !== 'undefined';
}

/** The folder of a corpus's copy (created with `create`); null without OPFS, or when there is none. */
export async function keptDir(id: string, create: boolean): Promise<FileSystemDirectoryHandle | null> {
  if (typeof navigator === 'undefined' || typeof navigator.storage?.getDirectory !== 'function') return null;
  try {
    const root = await navigator.storage.getDirectory();
    const corpora = await root.getDirectoryHandle(KEPT_DIR, { create });
    return await corpora.getDirectoryHandle(id, { create });
  } catch (e) {
    if (!create && e instanceof DOMException && e.name === 'NotFoundError') return null;
    throw e;
  }
}

/** A synchronous handle on the k-th file of a corpus's folder (workers only). */
export async function openSyncHandle(dir: FileSystemDirectoryHandle, k: number, create = false): Promise<SyncHandle> {
  const f = await dir.getFileHandle(String(k), { create });
  return (f as unknown as { createSyncAccessHandle(): Promise<SyncHandle> }).createSyncAccessHandle();
}

/** Removes a corpus's copy, if there is one. */
export async function removeKept(id: string): Promise<void> {
  if (typeof navigator === 'undefined' || typeof navigator.storage?.getDirectory !== 'function') return;
  try {
    const root = await navigator.storage.getDirectory();
    const corpora = await root.getDirectoryHandle(KEPT_DIR);
    await corpora.removeEntry(id, { recursive: true });
  } catch {
    // none kept, or taken already
  }
}

/** Bytes the browser still lets this site store (navigator.storage.estimate()); null where it does not say. */
export async function storageRoom(): Promise<{ free: number; quota: number } | null> {
  const est = typeof navigator !== 'undefined' ? await navigator.storage?.estimate?.() : undefined;
  if (!est || est.quota === undefined) return null;
  return { free: Math.max(0, est.quota - (est.usage ?? 0)), quota: est.quota };
}
