// messages.ts — runs as links: a link to the current run, a link parsed, a replay compared with
// its link's first losses.
import type { ReplayCheck, ShareLink } from '../../../../wasm/tinygpt';
import type { Coded } from '../../lib/coded';

export type { ReplayCheck, ShareLink };

export interface ShareCalls {
  /** A link to the current run (its settings, text and first losses), made from the page's address `base`; or why not. */
  share(msg: { base: string; corpus: ShareLink['corpus'] }): { url: string; error: Coded | null };
  /** Parses a run link (the page was opened with one); or why it can't be replayed. */
  openLink(msg: { url: string }): { link: ShareLink | null; error: Coded | null; variant: string };
  /** Compares the current run's first losses with this link's after every slice (null: stop comparing). */
  replay(msg: { link: ShareLink | null }): void;
}

export interface ShareEvents {
  /** The replay compared with its link: sent when the core's verdict is final (matches or diverged). */
  replayCheck: { check: ReplayCheck; variant: string };
}
