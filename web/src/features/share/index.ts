// share — runs as links. "Share" makes a link to the current run (the core's share::make_link:
// settings, seed, build variant, the text by name or fingerprint and size, the first 50 losses).
// A page opened with a link sets everything up from it, and once the run is created the worker
// compares its first losses with the link's bit for bit: "matches the shared run at step 50".
import { map, type MapStore } from '../../app/store';
import type { Port } from '../../lib/wire';
import type { ShareCalls, ShareEvents } from './messages';
import { ReplayBanner, ShareBox } from './panel';
import { Replay, type ShareDeps, type ShareSlice } from './replay';

export { corpusNote, needText, sameSettings, type CorpusNeed, type ReplayState, type ShareState } from './replay';
export type { ShareSlice };

export interface Share {
  readonly $: MapStore<ShareSlice>;
  /** The page was opened with a run link (or one was pasted into its address). */
  open(url: string): Promise<void>;
  /** The Share button after `guard` in the Train panel; the replay banner in `bannerSlot`. */
  mount(after: Element, bannerSlot: HTMLElement): void;
}

export function createShare(port: Port<ShareCalls, ShareEvents>, d: ShareDeps): Share {
  const $ = map<ShareSlice>({ replay: null, shareUrl: null });
  const replay = new Replay($, port, d);
  return {
    $,
    open: (url) => replay.open(url),
    mount(after, bannerSlot) {
      const stores = { share: $, session: d.session.$, train: d.train.$, runtime: d.runtime.$, data: d.data.$ };
      after.after(new ShareBox(stores, () => void replay.share()).el);
      bannerSlot.append(new ReplayBanner(stores).el);
    },
  };
}
