// carry-over.ts — what the page keeps across the service worker's one reload on a first visit
// (sw-register.ts): the settings and the chosen text. The text's bytes are already in IndexedDB
// (the corpus loader stores every text it takes; the built-in one is part of the site); only
// their reference travels, in sessionStorage, which lives exactly as long as the tab.
import type { CorpusRef } from '../runs-db';
import type { FullConfig } from '../protocol';
import type { PageStore } from './state';

const KEY = 'tinygpt-carry-over';

export interface CarryOver { settings: FullConfig | null; corpus: CorpusRef | null }

/** Waits until no text is being read or handed to the worker, then writes what to carry over. */
export async function saveCarryOver(store: PageStore, stored: () => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => {
    const idle = () => !store.get().corpusBusy && !store.get().pendingCorpus;
    if (idle()) return resolve();
    const off = store.listen(() => {
      if (idle()) {
        off();
        resolve();
      }
    });
  });
  await stored();
  const s = store.get();
  const carry: CarryOver = { settings: s.settings, corpus: s.corpus?.ref ?? null };
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
