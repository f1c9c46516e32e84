// runs — keeping your work: the panel (features/runs/panel.ts), the resume banner, and what the runs
// feature (features/runs/runs.ts, app/db.ts) says about saving, resuming, renaming and deleting runs.
export const runs = {
  title: 'Keep your work',
  // the explanation, around the commands and the file kind it names (shown as code)
  explain1: 'Each run is saved in this browser every 10 seconds of training, whenever it pauses and when the tab ' +
    'is hidden or closed, so a reload can resume it exactly. A checkpoint file holds the weights, the optimizer state and the loss ' +
    'history, in the same format as the command-line tool (',
  explain2: '). Drop one on the page to load it, or a ',
  explain3: ' model (',
  explain4: ') to start a new run from its weights.',
  download: 'Download checkpoint',
  load: 'Load checkpoint…',
  runs: 'Your runs',
  nothingSaved: 'Nothing saved yet.',
  nothingSavedYet: 'Nothing saved yet: the run is saved every 10 s of training and when it pauses.',
  saved: (step: string, ago: string, bytes: string) => `Saved in this browser at step ${step}, ${ago} ago (${bytes}).`,
  agoSeconds: (s: number) => `${s} s`,
  agoMinutes: (m: number) => `${m} min`,
  agoHours: (h: number) => `${h} h`,
  noRuns: 'None yet: a run appears here once it is saved.',
  actions: { resume: 'Resume', rename: 'Rename', download: 'Download', delete: 'Delete' },
  busyTitle: 'Open in another tab: continue it there',
  currentTitle: 'This tab is training it',
  deleteTitle: 'Delete it from this browser',
  busyTag: 'open in another tab',
  currentTag: 'this tab',
  meta: (step: string, steps: string, model: string, corpus: string, valLoss: string | null, when: string, bytes: string) =>
    `step ${step} of ${steps} · ${model} · on ${corpus}${valLoss !== null ? ` · validation ${valLoss}` : ''} · saved ${when} · ${bytes}`,
  usage: (usage: string, quota: string) => `This page uses ${usage} of the ${quota} the browser allows it. `,
  persisted: 'The browser keeps it until you delete it.',
  notPersisted: 'The browser may clear it when the disk runs low. ',
  keepIt: 'Keep it',
  // the resume banner
  bannerLabel: 'Saved run',
  offer: (when: string, step: string, steps: string, model: string, corpus: string) =>
    `A run was saved in this browser on ${when}: step ${step} of ${steps}, ${model}, trained on ${corpus}. Continue exactly where it stopped?`,
  notNow: 'Not now',
  notNowTitle: 'The run stays under Your runs',
  // features/runs/runs.ts
  autoName: {
    name: (corpus: string, size: string, width: number) => `${corpus} · ${size}, width ${width}`,
    layers: (n: number) => `${n} layers`,
    translator: (enc: number, dec: number) => `translator, ${enc} + ${dec} layers`,
    recurrent: (cell: string, layers: number, units: number) => `${cell} ${layers} × ${units} units`,
    lstmTranslator: (enc: number, dec: number, units: number) => `LSTM translator, ${enc} + ${dec} × ${units} units`,
  },
  quotaFull: (usage: string | null, quota: string | null) =>
    `the browser's storage for this page is full${usage !== null ? ` (${usage} of ${quota})` : ''}. ` +
    'Nothing was deleted: delete runs you no longer need under "Your runs" (or download them first), and the next save goes through.',
  notSaved: (why: string) => `Not saved: ${why}`,
  notSavedNotice: (why: string) => `This run was not saved: ${why}`,
  couldNotResume: 'Could not resume the saved run: ',
  unchanged: '. The current model is unchanged.',
  couldNotResumeNamed: (name: string, why: string) => `Could not resume "${name}": ${why}.`,
  gone: 'That run is no longer stored in this browser.',
  confirmReplace: (step: string, name: string, runStep: string) =>
    `Replace the current model (step ${step}) with "${name}" at step ${runStep}? The current run is saved first and stays in Your runs.`,
  openElsewhere: (name: string) => `"${name}" is open in another tab: continue it there, or close that tab first.`,
  dataGone: (pairs: boolean, name: string) =>
    `the ${pairs ? 'pairs' : 'text'} it was trained on (${name}) ${pairs ? 'are' : 'is'} no longer stored in this browser`,
  checkpointGone: (name: string) => `the checkpoint of "${name}" is missing from this browser's storage`,
  renamePrompt: 'Name of this run:',
  reading: (name: string) => `Reading ${name}…`,
  confirmDelete: (name: string, step: string, bytes: string) => `Delete "${name}" (step ${step}, ${bytes}) from this browser? This can't be undone.`,
  waiting: (step: string) => `A saved run at step ${step} is waiting (see the top of the page, or Your runs).`,
  unavailable: (why: string) => `Saving is unavailable in this browser (${why}).`,
};
