// replay.ts — runs as links. "Share" asks the worker for a link to the current run (the core's
// share::make_link: settings, seed, build variant, the text by name or fingerprint and size, the
// first 50 losses). A page opened with a link sets everything up from it (the core parses it,
// share::parse_link): the settings, the built-in text or a request for the person's file (checked
// by fingerprint and size), and once the run is created, the worker compares its first losses with
// the link's bit for bit (share::check_replay) and the page says "matches the shared run at step 50"
// or where it diverged. Owns the store's `replay` and `shareUrl`.
import { formatBytes } from '../format';
import { type Messages, t } from '../i18n';
import { coreInline } from '../ui/note';
import type { ReplayCheck, ShareLink } from '../protocol';
import { normalise } from '../settings';
import { h } from '../ui/dom';
import { withData } from '../ui/note';
import { notify } from '../ui/messages';
import type { ClientLike } from './controller';
import { type PageStore, type RunState, patch, watch } from './state';

export interface ReplayState {
  url: string;
  link: ShareLink;
  variant: string;            // this page's build variant (the link's may differ: then bits may too)
  corpusNote: CorpusNeed | null;   // null when the current text is the link's, else which text it needs
  active: boolean;            // the current model is the link's run: its losses are being compared
  check: ReplayCheck | null;  // the verdict, once there is one
}

export interface ShareState { url: string; step: number; error: string }

/** Which text a link needs (data: worded at render time by `needText`). */
export type CorpusNeed =
  | { kind: 'builtin'; name: string }
  | { kind: 'file'; name: string; size: number }
  | { kind: 'other'; name: string; size: number; fingerprint: string; have: { name: string; size: number; fingerprint: string } };

/** Is this the text the link's run trained on? null if it is, else which one it needs. */
export function corpusNote(link: ShareLink, corpus: RunState['corpus']): CorpusNeed | null {
  const c = link.corpus;
  if (c.builtin) return corpus?.ref.builtin && corpus.ref.name === c.builtin ? null : { kind: 'builtin', name: c.builtin };
  if (!corpus) return { kind: 'file', name: c.name, size: c.size };
  if (corpus.stats.size !== c.size || corpus.stats.fingerprint !== c.fingerprint)
    return { kind: 'other', name: c.name, size: c.size, fingerprint: c.fingerprint,
      have: { name: corpus.ref.name, size: corpus.stats.size, fingerprint: corpus.stats.fingerprint } };
  return null;
}

/** The text a link needs, in the page's language; and the values in it that are data (names, fingerprints). */
export function needText(n: CorpusNeed, m: Messages = t()): { text: string; data: string[] } {
  const say = m.share.need;
  const name = n.name || (n.kind === 'builtin' ? '' : say.sameFile);
  if (n.kind === 'builtin') return { text: say.builtin(n.name), data: [n.name] };
  if (n.kind === 'file') return { text: say.file(name, formatBytes(n.size), n.size), data: [n.name] };
  return { text: say.other(name, n.size, n.fingerprint, n.have.name, n.have.size, n.have.fingerprint), data: [n.name, n.fingerprint, n.have.name, n.have.fingerprint] };
}

/** The settings a model was made from are the link's (floats compared as the form keeps them). */
export function sameSettings(schema: RunState['schema'], a: ShareLink['config'], b: ShareLink['config']): boolean {
  const x = normalise(schema, a) as unknown as Record<string, unknown>;
  const y = normalise(schema, b) as unknown as Record<string, unknown>;
  return Object.keys(x).every((k) => x[k] === y[k]);
}

export interface ReplayDeps { loadBuiltin: () => Promise<void>; setSettings: (s: ShareLink['config']) => void }

export class Replay {
  private nextId = 1;
  private shareId = 0;
  private sentFor: unknown = null;   // the model the worker was last told about

  constructor(private store: PageStore, private client: ClientLike, private deps: ReplayDeps) {
    for (const name of ['share', 'open'] as const) (this as Record<string, unknown>)[name] = (this[name] as (...a: never[]) => unknown).bind(this);
    client.on('link', (m) => {
      if (m.error || !m.link) {
        notify(h('span', {}, t().share.cantReplay, coreInline(m.error, m)), 'error');
        return;
      }
      this.apply(m.link, m.variant);
    });
    client.on('shared', (m) => {
      if (m.id !== this.shareId) return;
      patch(this.store, { shareUrl: { url: m.url, step: this.store.get().step, error: m.error } });
    });
    client.on('replayCheck', (m) => {
      const r = this.store.get().replay;
      if (!r) return;
      patch(this.store, { replay: { ...r, check: m.check, active: false } });
      notify(h('span', {}, t().share.replay, coreInline(m.check.message, m.check), t().share.end),
        m.check.status === 'matches' ? 'success' : 'warning', { timeout: 20000, id: 'replay' });
    });
    watch(store, ['corpus'], (s) => {
      if (s.replay) patch(store, { replay: { ...s.replay, corpusNote: corpusNote(s.replay.link, s.corpus) } });
    });
    // a model made from the link's settings on the link's text is the replay: the worker compares its losses
    watch(store, ['model'], (s) => this.onModel(s));
  }

  /** The page was opened with a link: the core parses it once the module is there. */
  open(url: string): void {
    const send = () => this.client.send({ type: 'openLink', id: this.nextId++, url });
    if (this.store.get().ready) send();
    else {
      const off = this.store.listen((s) => {
        if (!s.ready) return;
        off();
        send();
      });
    }
  }

  private apply(link: ShareLink, variant: string): void {
    const s = this.store.get();
    const settings = normalise(s.schema, link.config);
    patch(this.store, {
      replay: { url: location.href, link, variant, corpusNote: corpusNote(link, s.corpus), active: false, check: null },
      formSettings: settings,
    });
    this.deps.setSettings(settings);
    if (link.corpus.builtin) void this.deps.loadBuiltin();
    const say = t().share;
    const name = link.corpus.builtin || link.corpus.name;
    const text = link.corpus.builtin ? say.need.builtin(link.corpus.builtin) : say.need.fileShort(link.corpus.name || say.need.aFile, link.corpus.size);
    notify(h('span', {}, withData(say.opened(text, link.losses.length), name ? [name] : [])), 'info', { timeout: 12000 });
  }

  private onModel(s: RunState): void {
    const r = s.replay;
    if (!r || s.model === this.sentFor) return;
    this.sentFor = s.model;
    const ours = !!s.model && s.step === 0 && sameSettings(s.schema, r.link.config, s.model.config) && !corpusNote(r.link, s.corpus);
    if (ours) this.client.send({ type: 'replay', link: r.link });
    if (ours !== r.active) patch(this.store, { replay: { ...r, active: ours, check: ours ? null : r.check } });
  }

  /** A link to the current run (the Share button). */
  share(): void {
    const s = this.store.get();
    if (!s.model || !s.corpus) return;
    const ref = s.corpus.ref;
    const corpus = ref.builtin ? { builtin: ref.name, fingerprint: '', size: s.corpus.stats.size, name: ref.name }
      : { builtin: '', fingerprint: s.corpus.stats.fingerprint, size: s.corpus.stats.size, name: ref.name };
    this.shareId = this.nextId++;
    this.client.send({ type: 'share', id: this.shareId, base: location.href.split('#')[0], corpus });
  }
}
