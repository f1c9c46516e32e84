// drag-drop.ts — files dropped anywhere on the page, with an overlay while one is dragged over. A
// dropped folder gives its files (one level, as a folder of llm.c shards is laid out).

/** The files of a dropped folder (FileSystemDirectoryEntry: readEntries answers in batches). */
async function folderFiles(dir: FileSystemDirectoryEntry): Promise<File[]> {
  const reader = dir.createReader();
  const entries: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    entries.push(...batch);
  }
  const files = entries.filter((e): e is FileSystemFileEntry => e.isFile);
  return Promise.all(files.map((e) => new Promise<File>((resolve, reject) => e.file(resolve, reject))));
}

/** What was dropped: the files, a folder's files in their place. */
async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const entries = Array.from(dt.items ?? []).map((i) => (i.kind === 'file' ? i.webkitGetAsEntry?.() ?? null : null));
  if (!entries.some((e) => e?.isDirectory)) return Array.from(dt.files ?? []);
  const out: File[] = [];
  for (const e of entries) {
    if (e?.isDirectory) out.push(...(await folderFiles(e as FileSystemDirectoryEntry)));
    else if (e?.isFile) out.push(await new Promise<File>((resolve, reject) => (e as FileSystemFileEntry).file(resolve, reject)));
  }
  return out;
}

export function installDropTarget(overlay: HTMLElement, onFiles: (files: File[]) => void): void {
  let depth = 0;
  const hasFiles = (e: DragEvent) => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
  window.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer!.dropEffect = 'copy';
  });
  window.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) overlay.hidden = true;
  });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    if (!e.dataTransfer) return;
    // the entries are read now: the DataTransfer is emptied when this handler returns
    void droppedFiles(e.dataTransfer).then((files) => files.length && onFiles(files), () => {
      const f = e.dataTransfer?.files?.[0];
      if (f) onFiles([f]);
    });
  });
}
