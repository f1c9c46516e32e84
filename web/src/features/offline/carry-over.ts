// carry-over.ts (offline) — what the page keeps across the service worker's one reload on a first
// visit (register.ts): the settings and the chosen text. The text's bytes are already in IndexedDB
// (the corpus loader stores every text it takes; the built-in one is part of the site); only
// their reference travels, in sessionStorage, which lives exactly as long as the tab.
import type { CorpusRef } from '../../app/db';
import type { Data } from '../data';
import type { FullConfig, Settings } from '../settings';

const KEY = 'tinygpt-carry-over';

export interface CarryOver { settings: FullConfig | null; corpus: CorpusRef | null }

/** Waits until no text is being read or handed to the worker, then writes what to carry over. */
export async function saveCarryOver(data: Data, settings: Settings): Promise<void> {
  await new Promise<void>((resolve) => {
    const idle = () => !data.$.get().corpusBusy && !data.$.get().pendingCorpus;
    if (idle()) return resolve();
    const off = data.$.listen(() => {
      if (idle()) {
        off();
        resolve();
      }
    });
  });
  await data.stored();
  const carry: CarryOver = { settings: settings.$.get().settings, corpus: data.$.get().corpus?.ref ?? null };
  sessionStorage.setItem(KEY, JSON.stringify(carry));
}

/** What the page before the reload left, once (it is removed as it is read). */
export function takeCarryOver(): CarryOver | null {
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as CarryOver;
  } catch {
    return null;
  }
}
