// messages.ts — keeping runs: checkpoints out of the worker (autosave, download) and into it
// (resume, a dropped file), a .safetensors model as a new run, a stored run's curves.
import type { FullConfig, History } from '../../../../wasm/tinygpt';
import type { ModelSummary } from '../session/messages';

/** A stored run's config, step and loss curves (the module's History). */
export interface RunCurves extends Pick<History, 'train' | 'valSteps' | 'valLosses'> {
  config: FullConfig;
  step: number;
}

export interface RunsCalls {
  /** A checkpoint of the current model (the native CLI's format). */
  save(msg: Record<string, never>): { step: number; bytes: Uint8Array };
  /** Replaces the model with a checkpoint's (transferred). On failure the current model is untouched. */
  load(msg: { bytes: ArrayBuffer; reason: 'file' | 'resume'; name: string }): ModelSummary;
  /** A new run from a .safetensors model file (transferred): its weights and config, step 0; the data is kept. */
  loadSafetensors(msg: { bytes: ArrayBuffer; name: string }): ModelSummary;
  /** The loss curves and config of a stored run's checkpoint (transferred), for "compare runs". */
  runCurves(msg: { bytes: ArrayBuffer }): RunCurves;
}
