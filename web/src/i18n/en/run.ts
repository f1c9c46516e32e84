// run — what the features say in notices and ask in confirmations about the live model: loading,
// resuming, finishing, the NaN guard, downloads, and failures (the worker's words follow a frame
// of ours; data such as a file's name arrives as a parameter, marked by the page).
export const run = {
  onCpu: ': training runs on the CPU.',
  // after WebGPU's reason for giving up on the model (features/webgpu/backend.ts fallbackMessage words the English page)
  gpuContinues: (limits: boolean, step: number, lost: number) => limits ? ': this model trains on the CPU.'
    : lost > 0 ? `: the run continues on the CPU from step ${step}, the last state brought back from the GPU (the ${lost} ` +
      `step${lost === 1 ? '' : 's'} after it are trained again).`
    : `: the run continues on the CPU at step ${step}; nothing was lost.`,
  nowTrainsOn: (name: string) => `The model now trains on ${name}.`,
  theCheckpoint: 'the checkpoint',
  loaded: (name: string, model: string, step: string) => `Loaded ${name}: ${model}, step ${step}.`,
  chooseData: (pairs: boolean) => `Choose the ${pairs ? 'pairs' : 'text'} this model was trained on to continue training it.`,
  otherData: (pairs: boolean) => `This checkpoint was trained on different ${pairs ? 'pairs' : 'text'}; training now continues on the current ${pairs ? 'ones' : 'one'}.`,
  resumed: (step: string) => `Resumed the saved run at step ${step}.`,
  finished: (steps: string) => `Finished the schedule: ${steps} steps.`,
  dataPaused: 'Training paused: ',
  guardPaused: 'Training paused by the NaN guard: three steps in a row diverged. See the Train panel.',
  stalled: (seconds: number) => `Training has not moved for ${seconds} s: the training worker is not answering (it may be stuck). Reload the page to go on from the last save. `,
  reload: 'Reload',
  threadDied: (why: string) => `One of the training threads stopped (${why}). Training goes on with one thread; nothing was lost. Reload the page to use every core again.`,
  guardRollback: (step: number, why: string, restored: number, lrScale: number) =>
    `Step ${step} diverged (${why}): back to step ${restored}, learning rate × ${lrScale}.`,
  /** Followed by the command that continues it (as code). */
  downloaded: (name: string, bytes: string) => `Saved ${name} (${bytes} bytes). Continue it with: `,
  initFailed: 'The model could not be loaded: ',
  createFailed: 'Could not create the model: ',
  /** Followed by the worker's reason, then `unchanged`. */
  loadFailed: (name: string) => `Could not load ${name}: `,
  unchanged: '. The current model is unchanged.',
  curvesFailed: 'Could not read that run: ',
  saveFailed: 'Could not save: ',
  cantRead: (name: string, why: string) => `Can't read ${name}: ${why}`,
  notCheckpoint: (name: string, magic: string) => `${name} is not a tinygpt checkpoint (it doesn't start with ${magic}). The current model is unchanged.`,
  confirmLoad: (step: string, name: string) => `Replace the current model (step ${step}) with ${name}? The current run stays in Your runs.`,
  confirmModelFile: (step: string, name: string) =>
    `Replace the current model (step ${step}) with a new run from ${name}? The current run stays in Your runs.`,
  loading: (name: string) => `Loading ${name}…`,
  growing: 'Growing…',
};
