// offline — the page works offline (a service worker caches the site), and on hosts that can't
// send COOP/COEP headers the service worker makes it cross-origin isolated with one reload on a
// first visit, which keeps the settings and the text chosen before it (carry-over.ts).
import { tr } from '../../i18n';
import { h, notify } from '../../ui';
import type { CorpusRef, Data } from '../data';
import type { Session } from '../session';
import type { Settings } from '../settings';
import { type CarryOver, saveCarryOver, takeCarryOver } from './carry-over';
import { registerServiceWorker } from './register';

export type { CarryOver };

export interface Offline {
  /** What the page before the service worker's reload left (once). */
  takeCarryOver(): CarryOver | null;
  /** Sets the form and the text from a carry-over. */
  apply(carried: CarryOver | null): void;
  /** Registers the service worker; `status` says "works offline" once it is there. */
  register(status: HTMLElement): Promise<void>;
}

export function createOffline(d: { data: Data; settings: Settings; session: Session }): Offline {
  return {
    takeCarryOver,
    apply(carried) {
      if (carried?.settings) d.settings.setForm(carried.settings);
      if (carried?.corpus) void d.data.restore(carried.corpus as CorpusRef);
    },
    async register(status) {
      const prepareReload = async () => {
        if (d.session.$.get().model) return false;   // a model lives in the worker only: a reload is the person's call
        await saveCarryOver(d.data, d.settings);
        return true;
      };
      const sw = await registerServiceWorker(prepareReload, (text) => notify(text, 'info', { timeout: 15000 }));
      if (sw.registered) status.append(h('span', {}, tr((m) => m.page.worksOffline)));
    },
  };
}
