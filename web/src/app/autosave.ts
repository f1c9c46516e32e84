// autosave.ts — keeps the run in IndexedDB so a reload can resume it: saves every
// AUTOSAVE_EVERY steps, when training stops, after a checkpoint is loaded and when the tab is
// hidden; offers the saved run after a reload (resume or discard).
import { analyzeCorpus } from '../corpus';
import { formatCount } from '../format';
import type { RunsDb, SavedRun } from '../runs-db';
import { normalise } from '../settings';
import { notify } from '../ui/messages';
import type { ClientLike } from './controller';
import type { CorpusLoader } from './corpus-loader';
import { describeModel } from './derive';
import { type PageStore, patch } from './state';

const AUTOSAVE_EVERY = 250;   // steps

export type Autosave = ReturnType<typeof createAutosave>;

export function createAutosave(store: PageStore, client: ClientLike, corpusLoader: CorpusLoader) {
  let db: RunsDb | null = null;
  let saved: SavedRun | undefined;
  let inFlight = false;
  let again = false;
  let lastStep = -1;
  const status = (text: string, step: number | null = null) => patch(store, { saveStatus: { text, step } });

  function save(): void {
    const s = store.get();
    if (!db || !s.model || !s.corpus) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    client.send({ type: 'save', reason: 'autosave' });
  }

  async function finish(step: number, bytes: ArrayBuffer): Promise<void> {
    const s = store.get();
    const corpus = s.corpus;
    try {
      if (!db || !corpus || !s.model) return;
      const run: SavedRun = {
        id: 'current', savedAt: Date.now(), step, settings: normalise({ ...s.model.config, evalEvery: s.evalEvery }),
        checkpoint: bytes, corpus: corpus.ref, elapsedMs: s.elapsedMs, variant: s.ready?.variant ?? '',
      };
      await db.saveRun(run, [corpus.ref.id]);
      lastStep = step;
      status(`Saved in this browser at step ${formatCount(step)} (${new Date().toLocaleTimeString()}), ${formatCount(bytes.byteLength)} bytes.`, step);
    } catch (e) {
      status(`Autosave failed: ${e instanceof Error ? e.message : e}`);
    } finally {
      inFlight = false;
      if (again) {
        again = false;
        const st = store.get();
        if (st.model && st.step !== lastStep) save();
      }
    }
  }

  client.on('model', (m) => {
    lastStep = m.reason === 'create' ? 0 : m.step;
    if (m.reason === 'load') save();
  });
  client.on('state', (m) => {
    if (!m.running) save();
  });
  client.on('progress', (m) => {
    if (m.step - lastStep >= AUTOSAVE_EVERY) save();
  });
  client.on('checkpoint', (m) => {
    if (m.reason === 'autosave') void finish(m.step, m.bytes);
  });
  client.on('error', (m) => {
    if (m.during === 'save') inFlight = false;
  });
  client.on('reset', () => {
    void db?.deleteRun().catch(() => undefined);
    status('Nothing saved yet.');
  });

  // the tab may be closed next
  document.addEventListener('visibilitychange', () => {
    const st = store.get();
    if (document.visibilityState === 'hidden' && st.model && st.step !== lastStep) save();
  });

  async function resume(): Promise<void> {
    const run = saved;
    if (!run) return;
    patch(store, { resumeOffer: null });
    try {
      let bytes: Uint8Array;
      if (run.corpus.builtin) bytes = await corpusLoader.fetchBuiltin();
      else {
        const c = await db!.getCorpus(run.corpus.id);
        if (!c) throw new Error(`the text it was trained on (${run.corpus.name}) is no longer stored in this browser`);
        bytes = new Uint8Array(c.bytes);
      }
      const stats = await analyzeCorpus(bytes);
      corpusLoader.send(run.corpus, bytes, stats);
      patch(store, {
        loading: { name: 'the saved run', reason: 'resume', elapsedMs: run.elapsedMs, evalEvery: run.settings.evalEvery },
        evalEvery: run.settings.evalEvery,
      });
      client.send({ type: 'load', bytes: run.checkpoint, reason: 'resume', name: 'autosave' });
    } catch (e) {
      notify(`Could not resume the saved run: ${e instanceof Error ? e.message : e}`, 'error');
    }
  }

  async function discard(): Promise<void> {
    patch(store, { resumeOffer: null });
    saved = undefined;
    await db?.deleteRun().catch(() => undefined);
  }

  /** Opens the database and offers a saved run, if any. */
  async function open(openDb: () => Promise<RunsDb>): Promise<void> {
    try {
      db = await openDb();
      saved = await db.loadRun();
      if (saved) {
        const c = saved.settings;
        patch(store, { resumeOffer: { savedAt: saved.savedAt, step: saved.step, steps: c.steps, corpusName: saved.corpus.name, model: describeModel(c) } });
        status(`A saved run at step ${formatCount(saved.step)} is waiting (see the top of the page).`);
      }
    } catch (e) {
      db = null;
      status(`Autosave is unavailable in this browser (${e instanceof Error ? e.message : e}).`);
    }
  }

  return { open, resume, discard, db: () => db, hasSaved: () => !!saved };
}
