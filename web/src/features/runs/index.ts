// runs — keeping your work: every model this tab creates or loads is a run with its own id in
// IndexedDB, saved every 10 s of training, when training stops, when a checkpoint is loaded and
// when the tab is hidden or closed; "Your runs" resumes, renames, downloads and deletes them;
// tabs share them safely (app/locks.ts); a reload offers the latest again. Checkpoint files come
// and go here too (files.ts).
import type { RunsDb } from '../../app/db';
import { map, type MapStore } from '../../app/store';
import type { Port } from '../../lib/wire';
import { Files } from './files';
import type { RunCurves, RunsCalls } from './messages';
import { RunsPanel, ResumeBanner } from './panel';
import { Runs, type RunsDeps, SAVE_EVERY_MS } from './runs';
import type { RunsSlice, RunSummary } from './state';

export { SAVE_EVERY_MS };
export type { RunCurves, RunsSlice, RunSummary };

export interface RunsFeature {
  readonly $: MapStore<RunsSlice>;
  /** Opens the database, lists the runs and offers the latest one (keepCorpus: a text not to clean up). */
  open(openDb: () => Promise<RunsDb>, keepCorpus: string | null): Promise<void>;
  /** A stored run's loss curves and config ("compare runs"); null if it is gone. */
  curves(id: string): Promise<RunCurves | null>;
  nameOf(id: string): string | null;
  loadCheckpointFile(file: File): Promise<void>;
  /** The panel (6) and the resume banner. */
  mount(slot: HTMLElement, bannerSlot: HTMLElement): void;
}

export function createRuns(port: Port<RunsCalls, object>, d: RunsDeps): RunsFeature {
  const $ = map<RunsSlice>({
    download: false, runId: null, lastSave: null, saveNote: (m) => m.runs.nothingSaved, runs: [], storage: null, resumeOffer: null,
  });
  const runs = new Runs($, port, d);
  const files = new Files($, port, d);
  // checkpoints and model files dropped as data come here
  d.data.setModelFiles({ checkpoint: (f) => files.loadCheckpoint(f), safetensors: (f) => files.loadModel(f) });
  return {
    $,
    open: (openDb, keepCorpus) => runs.open(openDb, keepCorpus),
    curves: (id) => runs.curves(id),
    nameOf: (id) => runs.nameOf(id),
    loadCheckpointFile: (f) => files.loadCheckpoint(f),
    mount(slot, bannerSlot) {
      slot.append(new RunsPanel($, d.session.$, {
        onDownload: () => void files.download(), onLoadFile: (f) => void files.loadCheckpoint(f),
        onResume: (id) => void runs.resume(id), onRename: (id) => void runs.rename(id), onDownloadRun: (id) => void runs.download(id),
        onDelete: (id) => void runs.remove(id), onPersist: () => runs.persist(),
      }).el);
      bannerSlot.append(new ResumeBanner($, (id) => void runs.resume(id), () => runs.dismissOffer()).el);
    },
  };
}
