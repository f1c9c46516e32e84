// reader.ts (data, worker side) — a large text or a set of llm.c shards read a window at a time,
// the core's Corpus over JS readers (wasm/data.cpp). Each window the batcher samples is read when it
// is drawn, synchronously, into wasm memory:
//   - from the dropped File with FileReaderSync (about 0.5 ms a read in Chromium: a step of 16
//     windows pays ~8 ms) while the page copies the file into the origin private file system;
//   - then from that copy through a FileSystemSyncAccessHandle (about 1 us a read), which is also
//     how a reload finds the file again without a new drop.
// Synchronous reads keep the core's sampler as it is (a batch is drawn and read in one call, the
// same batches as in memory); an asynchronous prefetch would have to run the generator ahead of the
// step and could not read faster than the handle does.
import type { Corpus, CorpusReadError, CorpusReader, ShardEntry, TinyGPTModule } from '../../../../wasm/tinygpt';
import { keptDir, openSyncHandle, type SyncHandle } from '../../lib/opfs';

interface FileReaderSyncLike { readAsArrayBuffer(blob: Blob): ArrayBuffer }

/** Why a read of a dropped File failed, as the core names it. */
function fileError(e: unknown, name: string): CorpusReadError {
  const kind = e instanceof DOMException ? e.name : '';
  const message = e instanceof Error ? e.message : String(e);
  if (kind === 'NotFoundError') return { code: 'corpus.file_gone', message };
  if (kind === 'NotReadableError') return { code: 'corpus.file_changed', message };
  return { code: 'corpus.file_unreadable', message: `${name}: ${message}` };
}

/** One file, read from the dropped File or from its copy in OPFS. */
export class FileWindowReader implements CorpusReader {
  private handle: SyncHandle | null = null;
  private sync: FileReaderSyncLike | null = null;
  bytesRead = 0;

  constructor(readonly name: string, readonly size: number, private file: File | null) {}

  read = (at: number, n: number, into: Uint8Array): CorpusReadError | null => {
    try {
      if (this.handle) {
        const got = this.handle.read(into, { at });
        if (got !== n) return { code: 'corpus.file_changed', message: `read ${got} of ${n} bytes at ${at}` };
      } else if (this.file) {
        this.sync ??= new (globalThis as unknown as { FileReaderSync: new () => FileReaderSyncLike }).FileReaderSync();
        const got = new Uint8Array(this.sync.readAsArrayBuffer(this.file.slice(at, at + n)));
        if (got.length !== n) return { code: 'corpus.file_changed', message: `read ${got.length} of ${n} bytes at ${at}` };
        into.set(got);
      } else {
        return { code: 'corpus.file_gone', message: 'closed' };
      }
      this.bytesRead += n;
      return null;
    } catch (e) {
      return fileError(e, this.name);
    }
  };

  /** From now on, reads come from the copy (the File is let go). */
  useHandle(h: SyncHandle): void {
    this.handle?.close();
    this.handle = h;
    this.file = null;
  }

  get fromCopy(): boolean {
    return this.handle !== null;
  }

  close(): void {
    this.handle?.close();
    this.handle = null;
    this.file = null;
  }
}

/** What the worker tells the page about a corpus read from files. */
export interface FilesInfo { id: string; size: number; trainSize: number; fingerprint: string; shards: ShardEntry[] }

/** A text or shards read from files: the core's Corpus over one reader per file. */
export class FileCorpus {
  private constructor(readonly corpus: Corpus, readonly readers: FileWindowReader[], readonly shards: boolean) {}

  /** From files the page was given (a File each); throws the core's message for a bad shard. */
  static fromFiles(M: TinyGPTModule, files: File[], shards: boolean): FileCorpus {
    const readers = files.map((f) => new FileWindowReader(f.name, f.size, f));
    return FileCorpus.make(M, readers, shards);
  }

  /** From the copy kept in OPFS (after a reload); names: the files' own, in the order they were kept. */
  static async fromKept(M: TinyGPTModule, id: string, names: string[], shards: boolean): Promise<FileCorpus> {
    const dir = await keptDir(id, false);
    if (!dir) throw new Error('this browser has no origin private file system');
    const readers: FileWindowReader[] = [];
    try {
      for (let k = 0; k < names.length; k++) {
        const h = await openSyncHandle(dir, k);
        const r = new FileWindowReader(names[k], h.getSize(), null);
        r.useHandle(h);
        readers.push(r);
      }
      return FileCorpus.make(M, readers, shards);
    } catch (e) {
      readers.forEach((r) => r.close());
      throw e;
    }
  }

  private static make(M: TinyGPTModule, readers: FileWindowReader[], shards: boolean): FileCorpus {
    const corpus = shards ? M.corpusFromShards(readers) : M.corpusFromReader(readers[0]);
    return new FileCorpus(corpus, readers, shards);
  }

  get id(): string {
    return `${this.corpus.fingerprint()}-${this.corpus.size()}`;
  }

  info(): FilesInfo {
    const c = this.corpus;
    return { id: this.id, size: c.size(), trainSize: c.trainSize(), fingerprint: c.fingerprint(), shards: c.shards() };
  }

  /** Reads come from the copy in OPFS from now on (the page finished copying it there). */
  async useKept(): Promise<void> {
    const dir = await keptDir(this.id, false);
    if (!dir) return;
    for (let k = 0; k < this.readers.length; k++) {
      if (this.readers[k].fromCopy) continue;
      const h = await openSyncHandle(dir, k);
      if (h.getSize() !== this.readers[k].size) {
        h.close();
        throw new Error(`the copy of ${this.readers[k].name} is ${h.getSize()} bytes, not ${this.readers[k].size}`);
      }
      this.readers[k].useHandle(h);
    }
  }

  /** Bytes [at, at + n) of a text (the inspector's slice). */
  readBytes(at: number, n: number): Uint8Array {
    const out = new Uint8Array(n);
    const err = this.readers[0].read(at, n, out);
    if (err) throw Object.assign(new Error(err.message), { code: err.code, args: { path: this.readers[0].name } });
    return out;
  }

  get bytesRead(): number {
    return this.readers.reduce((a, r) => a + r.bytesRead, 0);
  }

  dispose(): void {
    this.readers.forEach((r) => r.close());
    this.corpus.delete();
  }
}
