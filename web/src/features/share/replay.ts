// replay.ts — runs as links. "Share" asks the worker for a link to the current run (the core's
// share::make_link: settings, seed, build variant, the text by name or fingerprint and size, the
// first 50 losses). A page opened with a link sets everything up from it (the core parses it,
// share::parse_link): the settings, the built-in text or a request for the person's file (checked
// by fingerprint and size), and once the run is created, the worker compares its first losses with
// the link's bit for bit (share::check_replay) and the page says "matches the shared run at step 50"
// or where it diverged. Owns the store's `replay` and `shareUrl`.
import { type MapStore, patch, watch } from '../../app/store';
import { type Messages, t } from '../../i18n';
import type { Coded } from '../../lib/coded';
import { formatBytes } from '../../lib/format';
import type { Port } from '../../lib/wire';
import { coreInline, h, notify, withData } from '../../ui';
import type { Data, DataSlice } from '../data';
import type { Runtime } from '../runtime';
import type { Session } from '../session';
import { type FieldSpec, normalise, type Settings } from '../settings';
import type { Train } from '../train';
import type { ReplayCheck, ShareCalls, ShareEvents, ShareLink } from './messages';

export interface ReplayState {
  url: string;
  link: ShareLink;
  variant: string;            // this page's build variant (the link's may differ: then bits may too)
  corpusNote: CorpusNeed | null;   // null when the current text is the link's, else which text it needs
  active: boolean;            // the current model is the link's run: its losses are being compared
  check: ReplayCheck | null;  // the verdict, once there is one
}

export interface ShareState { url: string; step: number; error: Coded | null }

export interface ShareSlice {
  replay: ReplayState | null;             // the page was opened with a run link
  shareUrl: ShareState | null;            // the last link made with Share
}

/** Which text a link needs (data: worded at render time by `needText`). */
export type CorpusNeed =
  | { kind: 'builtin'; name: string }
  | { kind: 'file'; name: string; size: number }
  | { kind: 'other'; name: string; size: number; fingerprint: string; have: { name: string; size: number; fingerprint: string } };

/** Is this the text the link's run trained on? null if it is, else which one it needs. */
export function corpusNote(link: ShareLink, corpus: DataSlice['corpus']): CorpusNeed | null {
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
export function sameSettings(schema: FieldSpec[], a: ShareLink['config'], b: ShareLink['config']): boolean {
  const x = normalise(schema, a) as unknown as Record<string, unknown>;
  const y = normalise(schema, b) as unknown as Record<string, unknown>;
  return Object.keys(x).every((k) => x[k] === y[k]);
}

export interface ShareDeps { runtime: Runtime; settings: Settings; data: Data; session: Session; train: Train }

export class Replay {
  private sentFor: unknown = null;   // the model the worker was last told about
  private shareCount = 0;

  constructor(private readonly $: MapStore<ShareSlice>, private readonly port: Port<ShareCalls, ShareEvents>, private readonly d: ShareDeps) {
    port.on('replayCheck', (m) => {
      const r = $.get().replay;
      if (!r) return;
      patch($, { replay: { ...r, check: m.check, active: false } });
      notify(() => h('span', {}, t().share.replay, coreInline(m.check.message, m.check), t().share.end),
        m.check.status === 'matches' ? 'success' : 'warning', { timeout: 20000, id: 'replay' });
    });
    watch(d.data.$, ['corpus'], ({ corpus }) => {
      const r = $.get().replay;
      if (r) patch($, { replay: { ...r, corpusNote: corpusNote(r.link, corpus) } });
    });
    // a model made from the link's settings on the link's text is the replay: the worker compares its losses
    watch(d.session.$, ['model'], () => this.onModel());
  }

  /** The page was opened with a link: the core parses it once the module is there. */
  async open(url: string): Promise<void> {
    await this.d.runtime.whenReady();
    const m = await this.port.call('openLink', { url });
    if (m.error || !m.link) {
      const e = m.error ?? { message: '' };
      notify(() => h('span', {}, t().share.cantReplay, coreInline(e.message, e)), 'error');
      return;
    }
    this.apply(m.link, m.variant);
  }

  private apply(link: ShareLink, variant: string): void {
    patch(this.$, { replay: { url: location.href, link, variant, corpusNote: corpusNote(link, this.d.data.$.get().corpus), active: false, check: null } });
    this.d.settings.setForm(link.config);
    if (link.corpus.builtin) void this.d.data.loadBuiltin();
    const say = t().share;
    const name = link.corpus.builtin || link.corpus.name;
    const text = link.corpus.builtin ? say.need.builtin(link.corpus.builtin) : say.need.fileShort(link.corpus.name || say.need.aFile, link.corpus.size);
    notify(() => h('span', {}, withData(say.opened(text, link.losses.length), name ? [name] : [])), 'info', { timeout: 12000 });
  }

  private onModel(): void {
    const r = this.$.get().replay;
    const model = this.d.session.$.get().model;
    if (!r || model === this.sentFor) return;
    this.sentFor = model;
    const ours = !!model && this.d.train.$.get().step === 0 && sameSettings(this.d.settings.$.get().schema, r.link.config, model.config)
      && !corpusNote(r.link, this.d.data.$.get().corpus);
    if (ours) this.port.send('replay', { link: r.link });
    if (ours !== r.active) patch(this.$, { replay: { ...r, active: ours, check: ours ? null : r.check } });
  }

  /** A link to the current run (the Share button). */
  async share(): Promise<void> {
    const c = this.d.data.$.get().corpus;
    if (!this.d.session.$.get().model || !c) return;
    const ref = c.ref;
    const corpus = ref.builtin ? { builtin: ref.name, fingerprint: '', size: c.stats.size, name: ref.name }
      : { builtin: '', fingerprint: c.stats.fingerprint, size: c.stats.size, name: ref.name };
    const n = ++this.shareCount;
    const m = await this.port.call('share', { base: location.href.split('#')[0], corpus });
    if (n === this.shareCount) patch(this.$, { shareUrl: { url: m.url, step: this.d.train.$.get().step, error: m.error } });
  }
}

export type { ReplayCheck };
