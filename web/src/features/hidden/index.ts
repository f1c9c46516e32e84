// hidden — the hidden-state view of a recurrent model (rnn, gru, lstm): what its units do on a
// text, and which of them follow a pattern. The numbers are the core's (hidden.h): the worker asks
// the module, the page draws (docs/rnn.md, "What a cell remembers").
import { map, type MapStore, patch, watch } from '../../app/store';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import type { Runtime } from '../runtime';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { HiddenCalls } from './messages';
import { HiddenPanel } from './panel';
import type { HiddenSlice, UnitChoice } from './state';

export type { HiddenSlice, UnitChoice };

export interface Hidden {
  readonly $: MapStore<HiddenSlice>;
  trace(text: string): Promise<void>;
  /** The units that follow a pattern on the text (traced first when it is not the traced one). */
  search(pattern: string, text: string): Promise<void>;
  choose(choice: UnitChoice): void;
  mount(slot: HTMLElement): void;
}

const K = 8;  // units listed by a search

export function createHidden(port: Port<HiddenCalls, object>, deps: { runtime: Runtime; settings: Settings; session: Session }): Hidden {
  const $ = map<HiddenSlice>({
    hiddenPatterns: [], hiddenTrace: null, hiddenTraceStep: 0, hiddenTraceText: '', hiddenUnit: { layer: 0, unit: 0, what: 'h' },
    hiddenPattern: 'quote', hiddenMatches: null, hiddenBusy: false, hiddenError: null,
  });
  watch(deps.runtime.$, ['ready'], ({ ready }) => {
    if (ready) port.call('hiddenPatterns', {}).then((hiddenPatterns) => patch($, { hiddenPatterns }), () => undefined);
  });
  // another model: its trace is gone
  watch(deps.session.$, ['lastModel'], () => patch($, { hiddenTrace: null, hiddenMatches: null, hiddenError: null }));
  const failed = (e: Coded) => patch($, { hiddenBusy: false, hiddenError: e });
  const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;

  const api: Hidden = {
    $,
    async trace(text) {
      if (!text || !deps.session.$.get().model) return;
      patch($, { hiddenBusy: true, hiddenError: null });
      try {
        const r = await port.call('hiddenTrace', { text: bytes(text) });
        patch($, { hiddenTrace: r.trace, hiddenTraceStep: r.step, hiddenTraceText: text, hiddenBusy: false });
      } catch (e) {
        failed(e as Coded);
      }
    },
    async search(pattern, text) {
      if (!text || !deps.session.$.get().model) return;
      if (text !== $.get().hiddenTraceText) await api.trace(text);
      patch($, { hiddenBusy: true, hiddenError: null, hiddenPattern: pattern });
      try {
        const hiddenMatches = await port.call('hiddenSearch', { text: bytes(text), pattern, k: K });
        patch($, { hiddenMatches, hiddenBusy: false });
        if (hiddenMatches.length) api.choose({ layer: hiddenMatches[0].layer, unit: hiddenMatches[0].unit, what: hiddenMatches[0].state });
      } catch (e) {
        failed(e as Coded);
      }
    },
    choose: (hiddenUnit) => patch($, { hiddenUnit }),
    mount(slot) {
      const panel = new HiddenPanel($, deps.settings.$, deps.session.$, {
        onTrace: (text) => void api.trace(text), onSearch: (p, text) => void api.search(p, text), onUnit: (c) => api.choose(c),
      });
      slot.append(panel.el);
    },
  };
  return api;
}
