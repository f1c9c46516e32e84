// messages.ts — keeping runs: checkpoints out of the worker (autosave, download) and into it
// (resume, a dropped file), a .safetensors model as a new run, a stored run's curves.
import type { FullConfig, History } from '../../../../wasm/tinygpt';
import type { SaveBase } from '../../lib/runs-db';
import type { ModelSummary } from '../session/messages';

/** A stored run's config, step and loss curves (the module's History). */
export interface RunCurves extends Pick<History, 'train' | 'valSteps' | 'valLosses' | 'tokensPerByte'> {
  config: FullConfig;
  step: number;
}

export interface RunsCalls {
  /** A checkpoint of the current model (the native CLI's format): a download. */
  save(msg: Record<string, never>): { step: number; bytes: Uint8Array };
  /**
   * A save of the run: the worker takes a checkpoint of the current model and has it written into
   * IndexedDB (by the keeper, or itself: lib/runs-db.ts), never through the page, whose main thread
   * would clone its many MB. `hide`: the page goes away (hidden, closed, reloaded) and may be gone
   * before a reply could reach it. `run`: the run's whole record (app/db.ts's RunSave; typed here by
   * what the worker reads of it), written with the checkpoint's step.
   */
  saveToDb(msg: { run: SaveBase; hide: boolean }): { step: number; bytes: number; savedAt: number };
  /** The page has opened (and upgraded) the runs' database: the worker opens its own connection now, ahead of saveToDb. */
  openRunsDb(msg: Record<string, never>): void;
  /** The keeper's port (features/runs/keeper.ts, a SharedWorker that outlives the page): saveToDb hands its saves to it. */
  useKeeper(msg: { port: MessagePort }): void;
  /** Replaces the model with a checkpoint's (transferred). On failure the current model is untouched. */
  load(msg: { bytes: ArrayBuffer; reason: 'file' | 'resume'; name: string }): ModelSummary;
  /** A new run from a .safetensors model file (transferred): its weights and config, step 0; the data is kept. */
  loadSafetensors(msg: { bytes: ArrayBuffer; name: string }): ModelSummary;
  /** The loss curves and config of a stored run's checkpoint (transferred), for "compare runs". */
  runCurves(msg: { bytes: ArrayBuffer }): RunCurves;
}
