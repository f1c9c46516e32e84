// data — what the model learns from: a text for the language model, or source<TAB>target pairs
// for the translator. From a file (dropped or chosen), the built-in text or a built-in task to the
// worker: the core's sniffer tells checkpoints from texts and texts from pairs; what can't be
// trained on is refused with a message (the previous data kept); each mode keeps its own data.
import type { CorpusRef } from '../../app/db';
import type { Storage } from '../../app/storage';
import { map, type MapStore, patch, watch } from '../../app/store';
import type { Port } from '../../lib/wire';
import type { Runtime } from '../runtime';
import type { Session } from '../session';
import type { Settings } from '../settings';
import { type CorpusStats, analyzeCorpus } from './corpus';
import { corpusKindFor, modeCorpus, pairsReport } from './derive';
import { CorpusLoader, type ModelFiles } from './loader';
import type { CorpusKind, DataCalls } from './messages';
import { DataPanel } from './panel';
import type { CorpusState, DataSlice } from './state';

export { analyzeCorpus, corpusKindFor, modeCorpus, pairsReport };
export { type Pair, SEED_PAIR, defaultPair, previewPairs } from './derive';
export { BUILTIN, FIRST_TASK, TASK_SEED } from './loader';
export type { CorpusKind, CorpusRef, CorpusState, CorpusState as Corpus, CorpusStats, DataSlice, ModelFiles };

export interface Data {
  readonly $: MapStore<DataSlice>;
  handleFile(file: File): Promise<void>;
  /** Several files, or a folder's: llm.c token shards (one file: handleFile). */
  handleFiles(files: File[]): Promise<void>;
  loadBuiltin(): Promise<void>;
  loadTask(name: string): Promise<void>;
  /** Takes data again (after the service worker's reload, or a mode switch): from IndexedDB, the site or the core. */
  restore(ref: CorpusRef): Promise<void>;
  /** Brings back the data of a kind that was put aside (a model of that kind was loaded): true if there is some. */
  restoreFor(kind: CorpusKind): boolean;
  /** Hands data to the worker (pairs read at blockSize, default the form's). */
  send(ref: CorpusRef, bytes: Uint8Array, stats: CorpusStats, blockSize?: number): Promise<void>;
  /** A resumed run's data to the worker, before its checkpoint (pairs read at blockSize); throws when it is gone. */
  reopen(ref: CorpusRef, blockSize: number): Promise<void>;
  /** Resolves when the last text taken is in IndexedDB (or failed to get there). */
  stored(): Promise<void>;
  /** Bytes the worker read from the current corpus's files so far (tests, bench:data). */
  bytesRead(): Promise<number>;
  /** Where checkpoints and model files dropped as data go (features/runs, features/export); each call adds its kinds. */
  setModelFiles(files: Partial<ModelFiles>): void;
  /** `fn` hears of data chosen with the keyboard (the built-in text, a task), once taken: the page moves the focus on to Start. */
  onKeyboardPick(fn: () => void): void;
  /** Keyboard focus on the first way to choose data (the built-in text, or the first task in translation). */
  focusFirst(): void;
  mount(slot: HTMLElement): void;
}

export function createData(port: Port<DataCalls, object>, runtime: Runtime, settings: Settings, session: Session, storage: Storage): Data {
  const $ = map<DataSlice>({ corpus: null, pendingCorpus: null, corpusBusy: null, corpusProblem: null, tasks: [] });
  const loader = new CorpusLoader($, port, { runtime, settings, session, storage });
  watch(runtime.$, ['ready'], ({ ready }) => void (ready && patch($, { tasks: ready.tasks })));
  // each mode has its own data: the loader puts one aside and brings the other back
  settings.onModeSwitched((mode) => loader.modeChanged(mode));
  // a text must hold one window of the settings' context (the settings check it)
  const size = () => settings.setTextSize(loader.textSize());
  watch($, ['corpus'], size);
  watch(settings.$, ['mode'], size);
  const keyboardPicks: (() => void)[] = [];
  let panel: DataPanel | null = null;
  const picked = (keyboard: boolean) => () => {
    if (keyboard) keyboardPicks.forEach((fn) => fn());
  };
  return {
    $,
    handleFile: (file) => loader.handleFile(file),
    handleFiles: (files) => loader.handleFiles(files),
    loadBuiltin: () => loader.loadBuiltin(),
    loadTask: (name) => loader.loadTask(name),
    restore: (ref) => loader.restore(ref),
    restoreFor: (kind) => loader.restoreFor(kind),
    reopen: (ref, blockSize) => loader.reopen(ref, blockSize),
    send: (ref, bytes, stats, blockSize) => loader.send(ref, bytes, stats, bytes.buffer as ArrayBuffer, blockSize),
    stored: () => loader.stored(),
    bytesRead: () => port.call('corpusBytesRead', {}),
    setModelFiles: (files) => void (loader.modelFiles = { ...loader.modelFiles, ...files }),
    onKeyboardPick: (fn) => void keyboardPicks.push(fn),
    focusFirst: () => panel?.focusFirst(),
    mount(slot) {
      panel = new DataPanel($, settings.$, session.$, {
        onFiles: (f) => void loader.handleFiles(f),
        onBuiltin: (keyboard) => void loader.loadBuiltin().then(picked(keyboard)),
        onTask: (name, keyboard) => void loader.loadTask(name).then(picked(keyboard)),
        onProblem: (id) => (id ? loader.problemAction(id) : loader.dismissProblem()),
        onEncoding: (convert) => void loader.useEncoding(convert),
      });
      slot.append(panel.el);
    },
  };
}

