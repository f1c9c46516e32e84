// inspector.ts (inspect) — when the maps are asked for: on request, after a new model or new
// data, when training pauses, and while training once a second if the panel is visible and
// follows it ("live"). One request at a time; an answer to an older one is dropped.
import { type MapStore, patch, watch } from '../../app/store';
import type { Messages } from '../../i18n';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import type { Note } from '../../ui';
import { type Data, defaultPair, previewPairs } from '../data';
import { type Sample, sampleText } from '../sample';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { Train } from '../train';
import type { Translate } from '../translate';
import { alignmentInput, tokenLosses } from './derive';
import type { InspectCalls } from './messages';
import type { InspectSlice } from './state';

const LIVE_INSPECT_MS = 1000;

export interface InspectDeps { settings: Settings; data: Data; session: Session; train: Train; sample: Sample; translate: Translate }

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export class Inspector {
  constructor(private readonly $: MapStore<InspectSlice>, private readonly port: Port<InspectCalls, object>, private readonly d: InspectDeps) {
    const { session, data, train, translate } = d;
    watch(session.$, ['lastModel'], ({ lastModel }) => {
      if (!lastModel) return;
      patch($, { alignment: null, inspection: null });
      if (data.$.get().corpus) this.inspect();
    });
    let hadModel = false;
    watch(session.$, ['model'], ({ model }) => {
      if (!model && hadModel) patch($, { inspection: null, tokenLosses: [], inspectNote: null, alignment: null });
      hadModel = !!model;
    });
    // new data: a slice from its start, a pair of it for the translator's maps
    watch(data.$, ['corpus'], ({ corpus }) => {
      if (!corpus) return;
      const alignPair = corpus.kind === 'pairs' ? defaultPair(previewPairs(corpus.preview)) : $.get().alignPair;
      patch($, { corpusOffset: 0, alignPair });
      const s = session.$.get();
      if (s.model && !s.loading) this.inspect();
    });
    watch(train.$, ['running'], ({ running }) => void (!running && this.refresh()));
    watch(train.$, ['step'], () => this.live());
    watch(translate.$, ['translation'], ({ translation }) => {
      if (translation?.result && !translation.busy && $.get().alignSource === 'translation') this.inspect();
    });
  }

  private note(inspectNote: Note): void {
    patch(this.$, { inspectNote });
  }

  /** Asks for the attention maps of the chosen text (or, translating, of the chosen pair). */
  inspect(): void {
    const s = this.$.get();
    if (!this.d.session.$.get().model) return;
    if (this.d.settings.$.get().mode === 'seq2seq') return this.inspectTranslation();
    let text: Uint8Array | null = null;
    const enc = new TextEncoder();
    if (s.inspectSource === 'corpus') {
      if (!this.d.data.$.get().corpus) return this.note((x) => x.inspect.notes.chooseText);
    } else if (s.inspectSource === 'prompt') {
      text = enc.encode(this.d.sample.$.get().samplePrompt);
      if (!text.length) text = enc.encode('\n');
    } else if (s.inspectSource === 'sample') {
      text = sampleText(this.d.sample.$.get());
      if (!text.length) return this.note((x) => x.inspect.notes.sampleFirst);
    } else {
      text = enc.encode(s.inspectText);
      if (!text.length) return this.note((x) => x.inspect.notes.typeText);
    }
    const id = s.inspectId + 1;
    const len = text ? text.length : null;
    patch(this.$, { inspectId: id, inspectInFlight: true, inspectLen: len });
    this.port.call('inspect', { text: text ? text.buffer as ArrayBuffer : null, corpusOffset: s.corpusOffset }).then((m) => {
      if (id !== this.$.get().inspectId) return;
      const of = len !== null && len > m.T ? len : null;
      patch(this.$, {
        inspectInFlight: false, lastInspectAt: performance.now(), inspection: m, tokenLosses: tokenLosses(m),
        inspectNote: (x) => x.inspect.notes.inspected(m.T, m.step) + (of !== null ? x.inspect.notes.cut(m.T, of) : ''),
      });
    }, (e: Coded) => this.failed(id, e));
  }

  /** The translator's attention maps for the chosen source and target (alignmentInput). */
  private inspectTranslation(): void {
    const s = this.$.get();
    const input = alignmentInput({ ...s, ...this.d.translate.$.get() });
    if (!input) {
      const why: (x: Messages) => string = s.alignSource === 'translation' ? (x) => x.translate.notes.translateFirst
        : s.alignSource === 'custom' ? (x) => x.translate.notes.typePair : (x) => x.translate.notes.choosePairs;
      return this.note(why);
    }
    const id = s.inspectId + 1;
    const enc = new TextEncoder();
    patch(this.$, { inspectId: id, inspectInFlight: true });
    this.port.call('inspectTranslation', { source: enc.encode(input.source).buffer as ArrayBuffer, target: enc.encode(input.target).buffer as ArrayBuffer }).then((m) => {
      if (id !== this.$.get().inspectId) return;
      patch(this.$, {
        inspectInFlight: false, lastInspectAt: performance.now(), alignment: m,
        inspectNote: (x) => x.translate.notes.inspected(m.S, m.T, m.step, '⟨BOS⟩'),
      });
    }, (e: Coded) => this.failed(id, e));
  }

  private failed(id: number, e: Coded): void {
    if (id === this.$.get().inspectId) patch(this.$, { inspectInFlight: false, inspectNote: { core: capitalise(e.message), from: e } });
  }

  /** What the visible "look inside" panel shows, and whether it is on screen (the mode's panel). */
  private shown(): { visible: boolean; step: number | null } {
    const s = this.$.get();
    return this.d.settings.$.get().mode === 'seq2seq'
      ? { visible: s.alignVisible, step: s.alignment?.step ?? null }
      : { visible: s.inspectVisible, step: s.inspection?.step ?? null };
  }

  /** Brings the attention maps up to date with the model (on pause, or when scrolled into view). */
  refresh(): void {
    const { step } = this.shown();
    if (!this.d.session.$.get().model || this.$.get().inspectInFlight || step === null || step === this.d.train.$.get().step) return;
    this.inspect();
  }

  private live(): void {
    const s = this.$.get();
    const { visible, step } = this.shown();
    if (!visible || !s.inspectLive || s.inspectInFlight || step === null) return;
    if (performance.now() - s.lastInspectAt < LIVE_INSPECT_MS) return;
    this.inspect();
  }

  /** Another slice of the data, at random. */
  anotherSlice(): void {
    const c = this.d.data.$.get().corpus;
    const model = this.d.session.$.get().model;
    if (!c || !model) return;
    const max = Math.max(0, c.stats.size - model.config.block_size);
    patch(this.$, { corpusOffset: Math.floor(Math.random() * (max + 1)), inspectSource: 'corpus' });
    this.inspect();
  }

  /** Another pair of the data for the translator's maps (of the first ones the page has seen). */
  anotherPair(): void {
    const c = this.d.data.$.get().corpus;
    if (c?.kind !== 'pairs') return;
    const pairs = previewPairs(c.preview, 200);
    if (!pairs.length) return;
    let k = Math.floor(Math.random() * pairs.length);
    if (pairs.length > 1 && pairs[k].source === this.$.get().alignPair?.source) k = (k + 1) % pairs.length;
    patch(this.$, { alignPair: pairs[k], alignSource: 'pair' });
    this.inspect();
  }
}
