// corpus-loader.ts — from a file (dropped or chosen) or the built-in text to the worker: tells
// checkpoints from texts, refuses what can't be trained on with a message (keeping the previous
// text), analyses the bytes in chunks, stores the text for resuming, and sends it.
import { isCheckpoint } from '../checkpoint';
import type { ClientLike } from './controller';
import { type CorpusStats, analyzeCorpus, checkSize, checkText, readHead } from '../corpus';
import type { CorpusRef, RunsDb } from '../runs-db';
import { PRESETS } from '../settings';
import { notify } from '../ui/messages';
import { hideTooltip } from '../ui/tooltip';
import { type CorpusProblem, type PageStore, patch } from './state';

export const BUILTIN = { name: 'tinyshakespeare.txt', url: './data/tinyshakespeare.txt' };

export type CorpusLoader = ReturnType<typeof createCorpusLoader>;

export function createCorpusLoader(store: PageStore, client: ClientLike, deps: {
  db: () => RunsDb | null;
  loadCheckpointFile: (file: File) => Promise<void>;
}) {
  const busy = (corpusBusy: string | null) => patch(store, { corpusBusy });
  const problem = (corpusProblem: CorpusProblem | null) => patch(store, { corpusProblem });
  /** What the actions of the problem shown do ("Train anyway"). */
  let problemActions = new Map<string, () => void>();

  function showProblem(title: string, message: string, kind: string, actions: { id: string; label: string; run: () => void }[] = []): void {
    problemActions = new Map(actions.map((a) => [a.id, a.run]));
    problem({ title, message, kind, actions: actions.map(({ id, label }) => ({ id, label })) });
  }

  function dismissProblem(): void {
    problemActions.clear();
    problem(null);
  }

  function problemAction(id: string): void {
    const run = problemActions.get(id);
    dismissProblem();
    run?.();
  }

  async function handleFile(file: File): Promise<void> {
    hideTooltip();
    let head: Uint8Array;
    try {
      head = await readHead(file, 8);
    } catch (e) {
      showProblem(`Can't read ${file.name}`, String(e instanceof Error ? e.message : e), 'read');
      return;
    }
    if (isCheckpoint(head)) return deps.loadCheckpointFile(file);
    return loadTextFile(file);
  }

  function currentContext(): number {
    const s = store.get();
    return s.model?.config.context ?? s.settings?.context ?? PRESETS.small.context;
  }

  async function loadTextFile(file: File): Promise<void> {
    const size = checkSize(file.size, currentContext());
    if (size) {
      const titles = { empty: `${file.name} is empty`, tooLarge: `${file.name} is too large`, tooShort: `${file.name} is too short`, binary: '' };
      showProblem(titles[size.kind], `${size.message} The previous text is kept.`, size.kind);
      return;
    }
    dismissProblem();
    busy(`Reading ${file.name}…`);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (e) {
      busy(null);
      showProblem(`Can't read ${file.name}`, `${e instanceof Error ? e.message : e}. The previous text is kept.`, 'read');
      return;
    }
    const stats = await analyzeCorpus(bytes, (f) => busy(`Analysing ${file.name}… ${Math.round(f * 100)}%`));
    busy(null);
    const binary = checkText(stats);
    if (binary) {
      showProblem(`${file.name} doesn't look like text`, `${binary.message} The previous text is kept unless you choose to train on it.`, 'binary',
        [{ id: 'train-anyway', label: 'Train anyway', run: () => accept(file.name, bytes, stats, false) }]);
      return;
    }
    accept(file.name, bytes, stats, false);
  }

  async function fetchBuiltin(): Promise<Uint8Array> {
    const r = await fetch(BUILTIN.url);
    if (!r.ok) throw new Error(`${BUILTIN.url}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  }

  async function loadBuiltin(): Promise<void> {
    dismissProblem();
    busy('Loading tiny Shakespeare…');
    try {
      const bytes = await fetchBuiltin();
      const stats = await analyzeCorpus(bytes);
      busy(null);
      accept(BUILTIN.name, bytes, stats, true);
    } catch (e) {
      busy(null);
      showProblem('Could not load the built-in text', String(e instanceof Error ? e.message : e), 'read');
    }
  }

  function accept(name: string, bytes: Uint8Array, stats: CorpusStats, builtin: boolean): void {
    const ref: CorpusRef = { id: `${stats.fingerprint}-${stats.size}`, name, size: stats.size, builtin };
    const buffer = bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer as ArrayBuffer : bytes.slice().buffer;
    const db = deps.db();
    if (!builtin && db) {
      // IndexedDB copies the bytes during this call, before they are transferred to the worker below
      db.putCorpus(ref, buffer).catch((e) => notify(`This text can't be stored in the browser, so the run won't be resumable after a reload (${e instanceof Error ? e.message : e}).`, 'warning'));
    }
    send(ref, bytes, stats, buffer);
  }

  /** Hands a text to the worker; the store takes it as the corpus when the worker accepts it. */
  function send(ref: CorpusRef, bytes: Uint8Array, stats: CorpusStats, buffer = bytes.buffer as ArrayBuffer): void {
    patch(store, { pendingCorpus: { ref, stats, preview: bytes.slice(0, 3000) } });
    client.send({ type: 'setCorpus', bytes: buffer, name: ref.name });
  }

  return { handleFile, loadBuiltin, fetchBuiltin, send, problemAction, dismissProblem };
}
