// page — the frame around the panels: index.html, the header, the mode switch, the narrow-screen
// bar, the runtime badge and threads picker, the help dialog, the language switcher, main.ts's notices.
export const page = {
  title: 'tinygpt — train a GPT in your browser',
  description: 'Train a tiny byte-level GPT, or an encoder-decoder translator, in your browser tab and look inside it.',
  skip: 'Skip to training',
  tagline: 'A small GPT that learns to write, byte by byte, in this tab. Nothing leaves your computer.',
  language: 'Language',
  languageTitle: 'The language of the page (remembered in this browser)',
  runAtAGlance: 'Training at a glance',
  footer: 'The C++ core (autograd, kernels, AdamW) runs as WebAssembly in a Web Worker. Same checkpoints as the command line:',
  shortcutsButton: 'Keyboard shortcuts (?)',
  shortcutsTitle: 'Keyboard shortcuts',
  keySpace: 'Start, pause or resume training (when the focus is not in a field or on a button)',
  keyG: 'Generate a sample (in translation: translate)',
  keyHelp: 'This help',
  keyEsc: 'Close it',
  dropTitle: 'Drop the file',
  dropBefore: 'a text file to train on, a ',
  dropTsv: ' of pairs to translate, a ',
  dropCkpt: ' checkpoint or a ',
  dropSafetensors: ' model to load',
  noscript: 'tinygpt needs JavaScript and WebAssembly.',
  worksOffline: 'works offline',
  reloadForThreads: 'Reload the page to train with several threads (the offline cache is now installed).',
  translationViewsFailed: (why: string) => `The translation views could not be loaded: ${why}`,
  sharedLinkPasted: 'A shared run link: press Reset first (or open the link in a new tab) to set it up; the current model stays as it is.',
  // mode switch
  modeLegend: 'Train',
  modeGpt: 'Language model',
  modeGptBlurb: 'continues text, byte by byte (decoder-only GPT)',
  modeSeq2seq: 'Translation',
  modeSeq2seqBlurb: 'reads a source, writes its translation (encoder-decoder)',
  modeFixed: 'The current model decides this: Reset to train the other kind (or load a checkpoint of it).',
  // the bar on narrow screens
  barStep: 'step ',
  barLoss: 'loss ',
  barTokens: ' tok/s',
  // 7 and 8 (their panels load later)
  learnTitle: 'Learn by hand',
  learnExplain: 'The walkthrough’s tiny model (3 tokens, width 2, vocabulary 4): one training step with every number, as the core computes it.',
  learnOpen: 'Open one step, number by number',
  watchTitle: 'Watch it learn',
  watchExplain: 'How the model got here: snapshots taken at every evaluation (kept with the run), a generation you can ' +
    'step through and branch, and your runs side by side.',
  watchLoading: 'Loading the views…',
  // the runtime badge and the threads picker
  loadingWasm: 'loading wasm…',
  wasmFailed: 'wasm failed to load',
  threadsLabel: 'threads',
  threadsTitle: 'Kernel threads. auto: the core measures its steps and uses fewer threads while another program keeps a core busy.',
  threadsAuto: (max: number) => `auto (up to ${max})`,
  badgeAuto: 'auto',
  buildDescription: (variant: string, kernels: string, threads: number, tuner: string | null, loadMs: string) =>
    `the ${variant} build of the C++ core (${kernels} kernels, ${threads} thread${threads === 1 ? '' : 's'}` +
    (tuner !== null ? `, chosen by the core's thread tuner from the step times${tuner ? `: ${tuner}` : ''}` : '') +
    `; module loaded in ${loadMs} ms)`,
  onGpu: (adapter: string, build: string) => `Training runs on the GPU through WebGPU (${adapter}). A Web Worker runs ${build}: ` +
    'it draws the batches, keeps the run loop and the checkpoints, and takes over if the GPU fails.',
  onCpu: (build: string) => `Training runs in a Web Worker on ${build}.`,
  notThreads: (why: string) => ` Not the threads build: ${why}.`,
  notWebgpu: (why: string) => ` Not WebGPU: ${why}.`,
};
