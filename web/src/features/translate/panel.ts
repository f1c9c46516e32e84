// panel.ts (translate) — the translator at work: a source in, its translation out, each character
// shaded by the probability the model gave it (the sample panel's shading), greedy or with a
// beam; the seed's sentence (我 爱 吃 火锅) and pairs of the data as examples.
import { type MapStore, type View, view, watch } from '../../app/store';
import { type Locale, t, tr } from '../../i18n';
import { formatProb } from '../../lib/format';
import { segmentUtf8 } from '../../lib/utf8';
import { TokenStrip, characterTitle, clear, h, NoteLine, panelHeader, segmentProb, shadedSpan, surprise, withData } from '../../ui';
import { type DataSlice, SEED_PAIR, previewPairs } from '../data';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import type { TranslateRequest, TranslateSlice, TranslationState } from './state';

type S = TranslateSlice & SessionSlice & SettingsSlice & DataSlice & { locale: Locale };

export interface TranslateHandlers {
  onTranslate(req: TranslateRequest): void;
}

export class TranslatePanel {
  readonly el: HTMLElement;
  readonly source: HTMLTextAreaElement;
  private beam: HTMLInputElement;
  private temperature: HTMLInputElement;
  private btn: HTMLButtonElement;
  private seedBtn: HTMLButtonElement;
  private dataBtn: HTMLButtonElement;
  private output: HTMLElement;
  private strip: TokenStrip;
  private info: NoteLine;
  private reference: NoteLine;
  private shown: TranslationState | null = null;

  private store: View<S>;

  constructor(stores: { translate: MapStore<TranslateSlice>; session: MapStore<SessionSlice>; settings: MapStore<SettingsSlice>; data: MapStore<DataSlice> },
    private handlers: TranslateHandlers) {
    this.store = view(stores.translate, stores.session, stores.settings, stores.data);
    const store = this.store;
    this.source = h('textarea', { id: 'translate-source', rows: 2, spellcheck: 'false', placeholder: tr((m) => m.translate.sourcePlaceholder), 'aria-describedby': 'translate-source-help' });
    this.beam = h('input', { id: 'translate-beam', type: 'number', value: '1', min: 1, max: 8, step: 1, 'aria-describedby': 'translate-beam-help' });
    this.temperature = h('input', { id: 'translate-temperature', type: 'number', value: '0', min: 0, max: 5, step: 0.1, 'aria-describedby': 'translate-temperature-help' });
    this.btn = h('button', { id: 'btn-translate', type: 'button', class: 'primary' }, tr((m) => m.translate.translate));
    this.seedBtn = h('button', { id: 'btn-seed-example', type: 'button' }, tr((m) => m.translate.trySeed), h('span', { translate: 'no' }, SEED_PAIR.source));
    this.dataBtn = h('button', { id: 'btn-data-example', type: 'button' }, tr((m) => m.translate.fromData));
    this.output = h('div', {
      id: 'translate-output', class: 'sample-output translate-output', tabindex: '0', role: 'log', 'aria-live': 'polite',
      'aria-label': tr((m) => m.translate.outputLabel),
    });
    this.strip = new TokenStrip(this.output, (tok) => this.explain(tok));
    this.info = new NoteLine(h('p', { id: 'translate-info', class: 'muted small' }, ''));
    this.reference = new NoteLine(h('p', { id: 'translate-reference', class: 'small', hidden: true }));
    this.el = h('section', { id: 'translate', class: 'card wide', 'aria-labelledby': 'translate-title', hidden: true },
      panelHeader(4, tr((m) => m.translate.title), tr((m) => m.translate.explain)),
      h('div', { class: 'sample-grid' },
        h('div', { class: 'knob prompt-knob' }, h('label', { for: 'translate-source' }, tr((m) => m.translate.source)), this.source,
          h('span', { class: 'help', id: 'translate-source-help' }, tr((m) => m.translate.sourceHelpBefore), h('code', {}, 'block_size'), tr((m) => m.translate.sourceHelpAfter))),
        h('div', { class: 'knob-row' },
          h('div', { class: 'knob' }, h('label', { for: 'translate-beam' }, tr((m) => m.translate.beam)), this.beam,
            h('span', { class: 'help', id: 'translate-beam-help' }, tr((m) => m.translate.beamHelp))),
          h('div', { class: 'knob' }, h('label', { for: 'translate-temperature' }, tr((m) => m.translate.temperature)), this.temperature,
            h('span', { class: 'help', id: 'translate-temperature-help' }, tr((m) => m.translate.temperatureHelp))))),
      h('div', { class: 'row' }, this.btn, this.seedBtn, this.dataBtn, this.info.el),
      this.output, this.reference.el,
      h('p', { class: 'legend small' }, h('span', { class: 'legend-bar surprise' }), tr((m) => m.translate.legend), h('span', { translate: 'no' }, '⟨end⟩'), tr((m) => m.translate.legendEnd)));
    this.el.querySelector('h2')!.id = 'translate-title';
    this.btn.addEventListener('click', () => this.translate());
    this.seedBtn.addEventListener('click', () => {
      this.source.value = SEED_PAIR.source;
      this.translate();
    });
    this.dataBtn.addEventListener('click', () => this.fromData());
    this.source.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.translate();
      }
    });
    watch(store, ['mode'], (st) => (this.el.hidden = st.mode !== 'seq2seq'));
    watch(store, ['model', 'translation', 'mode', 'corpus', 'locale'], (st) => this.setEnabled(st));
    watch(store, ['translation'], (st) => this.show(st.translation));
  }

  /** The `g` shortcut in translation mode. */
  translateNow(): void {
    if (!this.btn.disabled) this.translate();
  }

  private setEnabled(s: S): void {
    const can = !!s.model && s.mode === 'seq2seq';
    const busy = !!s.translation?.busy;
    const m = t().translate;
    const why = can ? '' : m.needModelShort;
    this.btn.disabled = this.seedBtn.disabled = !can || busy;
    this.dataBtn.disabled = !can || busy || s.corpus?.kind !== 'pairs';
    this.btn.title = why;
    this.seedBtn.title = why || m.seedTitle;
    this.dataBtn.title = why || m.fromDataTitle;
    if (!can) this.info.set((x) => x.translate.needModel);
    else if (!s.translation) this.info.set(null);
  }

  private translate(): void {
    const beam = Math.round(Number(this.beam.value));
    if (!(beam >= 1 && beam <= 8)) {
      this.info.set((m) => m.translate.badBeam);
      return;
    }
    const temperature = Number(this.temperature.value || 0);
    if (!(temperature >= 0 && temperature <= 5)) {
      this.info.set((m) => m.translate.badTemperature);
      return;
    }
    if (temperature > 0 && beam > 1) {
      this.info.set((m) => m.translate.sampleOrBeam);
      return;
    }
    if (!this.source.value) {
      this.info.set((m) => m.translate.noSource);
      return;
    }
    this.handlers.onTranslate({ source: this.source.value, beam, temperature });
  }

  private fromData(): void {
    const c = this.store.get().corpus;
    if (c?.kind !== 'pairs') return;
    const pairs = previewPairs(c.preview, 200);
    if (!pairs.length) return;
    this.source.value = pairs[Math.floor(Math.random() * pairs.length)].source;
    this.translate();
  }

  /** Draws a translation: its characters shaded by their probability, then the end token's. */
  private show(tn: TranslationState | null): void {
    if (!tn) {
      clear(this.output);
      this.reference.el.hidden = true;
      this.shown = null;
      return;
    }
    if (tn === this.shown) return;
    this.shown = tn;
    this.output.classList.toggle('stale', tn.busy);
    if (tn.busy) {
      this.info.set((m) => m.translate.translating);
      this.output.dataset.done = 'false';
      this.reference.el.hidden = true;
      return;
    }
    if (!tn.result) {
      // refused (e.g. a source longer than the model reads): the message, and no stale output
      clear(this.output);
      this.strip.reset();
      this.reference.el.hidden = true;
      this.info.set(tn.note);
      this.output.dataset.done = 'true';
      this.output.dataset.text = '';
      this.output.dataset.error = 'true';
      return;
    }
    delete this.output.dataset.error;
    const r = tn.result;
    clear(this.output);
    this.strip.reset();
    for (const seg of segmentUtf8(r.text)) {
      const el = shadedSpan(seg, segmentProb(r.probs, seg), this.strip.length);
      this.strip.add(el);
      this.output.append(el);
    }
    if (r.finished) {
      const p = r.probs[r.text.length];
      const end = h('span', { class: 'tok end', 'data-k': this.strip.length, 'data-p': p.toPrecision(4), 'data-start': r.text.length, 'data-len': 0, translate: 'no' }, '⟨end⟩');
      end.style.setProperty('--s', surprise(p).toFixed(3));
      this.strip.add(end);
      this.output.append(end);
    }
    const text = new TextDecoder().decode(r.text);
    this.output.dataset.done = 'true';
    this.output.dataset.text = text;
    this.output.dataset.bytes = String(r.text.length);
    const how = { beam: tn.beam, temperature: tn.temperature, seed: tn.seed };   // as asked (the request's own seed)
    const w = r.where, ms = (x: number) => x.toFixed(x < 10 ? 1 : 0), syncMs = w.syncMs === null ? null : ms(w.syncMs);
    this.info.set({ draw: () => withData((slot) => t().translate.result(r.text.length, r.logProb.toFixed(3), how, r.finished, r.step, slot(0)) +
      t().translate.where(w.route, ms(w.ms), syncMs, w.why === 'faster'), ['⟨end⟩']) });
    // the data's own translation of this source, when the page has seen it
    const c = this.store.get().corpus;
    const ref = c?.kind === 'pairs' ? previewPairs(c.preview, 1000).find((p) => p.source === tn.source)?.target : undefined;
    const seed = tn.source === SEED_PAIR.source ? SEED_PAIR.target : undefined;
    const expected = ref ?? seed;
    this.reference.el.hidden = expected === undefined;
    if (expected !== undefined) {
      const same = expected === text;
      const fromData = ref !== undefined;
      this.reference.el.dataset.match = String(same);
      this.reference.set({ draw: () => withData((slot) => t().translate.reference(fromData, slot(0), same), [expected]) });
    }
  }

  /** Tooltip of a character of the translation (or of ⟨end⟩): what it is and its probability. */
  private explain(el: HTMLElement): HTMLElement | null {
    const r = this.shown?.result;
    if (!r) return null;
    const m = t();
    const start = Number(el.dataset.start);
    const len = Number(el.dataset.len);
    const bytes = Array.from(r.text.subarray(start, start + len));
    const title = len === 0 ? withData((slot) => m.translate.endTip(slot(0)), ['⟨end⟩']) : characterTitle(el, bytes);
    return h('div', { class: 'tip-sample' }, h('div', { class: 'tip-title' }, title),
      h('div', { class: 'muted' }, m.sample.tip.probability(formatProb(Number(el.dataset.p)), len > 1)));
  }
}
