// translate — the translator at work: a source in, its translation out (greedy or with a beam),
// each character shaded by the probability the model gave it. Its panel is a chunk of its own,
// fetched the first time the page is in translation mode.
import { map, type MapStore, patch, watch } from '../../app/store';
import { t } from '../../i18n';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import { notify } from '../../ui';
import type { Data } from '../data';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { TranslateCalls } from './messages';
import type { TranslateRequest, TranslateSlice } from './state';

export type { Translation } from './messages';
export type { TranslateSlice };

export interface Translate {
  readonly $: MapStore<TranslateSlice>;
  translate(req: TranslateRequest): void;
  /** The panel in place of `slot` once the mode is translation; returns the `g` shortcut's action. */
  mount(slot: ChildNode): () => void;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function createTranslate(port: Port<TranslateCalls, object>, d: { settings: Settings; session: Session; data: Data }): Translate {
  const $ = map<TranslateSlice>({ translation: null });
  watch(d.session.$, ['lastModel', 'model'], () => void ($.get().translation && patch($, { translation: null })));
  const api: Translate = {
    $,
    translate(req) {
      if (!d.session.$.get().model || d.settings.$.get().mode !== 'seq2seq') return;
      const id = ($.get().translation?.id ?? 0) + 1;
      // sampling: a new seed each time (another draw), kept with the result (the CLI's --seed gives it again)
      const seed = req.temperature > 0 ? Math.floor(Math.random() * 2 ** 31) : 0;
      patch($, { translation: { id, source: req.source, beam: req.beam, temperature: req.temperature, seed, busy: true, result: null, note: null } });
      const options = req.temperature > 0 ? { temperature: req.temperature, seed } : { beam: req.beam };
      port.call('translate', { source: new TextEncoder().encode(req.source).buffer as ArrayBuffer, options }).then((result) => {
        const tr = $.get().translation;
        if (tr && tr.id === id) patch($, { translation: { ...tr, busy: false, result, note: null } });
      }, (e: Coded) => {
        const tr = $.get().translation;
        if (tr && tr.id === id) patch($, { translation: { ...tr, busy: false, note: { core: capitalise(e.message), from: e } } });
      });
    },
    mount(slot) {
      let translateNow: () => void = () => undefined;
      let loading: Promise<void> | null = null;
      const load = () => {
        loading ??= import('./panel').then(({ TranslatePanel }) => {
          const panel = new TranslatePanel({ translate: $, session: d.session.$, settings: d.settings.$, data: d.data.$ }, { onTranslate: (r) => api.translate(r) });
          slot.replaceWith(panel.el);
          translateNow = () => panel.translateNow();
        }).catch((e: unknown) => {
          loading = null;   // tried again at the next switch
          notify(t().page.translationViewsFailed(e instanceof Error ? e.message : String(e)), 'error');
        });
      };
      watch(d.settings.$, ['mode'], ({ mode }) => void (mode === 'seq2seq' && load()));
      return () => translateNow();
    },
  };
  return api;
}
