// tokens — the run's vocabulary made visible (docs/tokenizer.md, "The Tokens view"): a text as
// token chips with their ids, tokens per byte, the merges in the order they were learned (stepped
// through: the text re-cut after each), a word split as the tokenizer splits it; and the
// vocabulary itself, learned from the text in the worker (a progress bar, Cancel) or loaded from a
// tokenizer.json / GPT-2's files. The settings' tokenizer choice (bytes or BPE) is the run's.
import { map, type MapStore, patch, watch } from '../../app/store';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import type { Runtime } from '../runtime';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { TokensCalls, TokensEvents } from './messages';
import { TokensPanel } from './panel';
import { mergesFrom, MERGES_PAGE, type TokensSlice } from './state';
import { clampStep } from './derive';

export type { TokensSlice };

/** A few lines to cut into tokens before the person types their own. */
export const SAMPLE_TEXT = 'First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n';

export interface Tokens {
  readonly $: MapStore<TokensSlice>;
  /** Learns a vocabulary of `vocab` tokens from the text now (what Start does for a BPE run). */
  train(vocab: number): Promise<void>;
  cancel(): void;
  /** A tokenizer file, or GPT-2's vocab.json and merges.txt: the next run's vocabulary (the settings take its size). */
  load(files: File[]): Promise<void>;
  show(text: string): void;
  step(merges: number): void;
  split(word: string): void;
  mount(slot: HTMLElement): void;
}

interface Deps { runtime: Runtime; session: Session; settings: Settings }

export function createTokens(port: Port<TokensCalls, TokensEvents>, deps: Deps): Tokens {
  const $ = map<TokensSlice>({
    tokenizer: null, tokensProgress: null, tokensText: SAMPLE_TEXT, tokensChips: null, tokensStep: -1, tokensMerges: [],
    tokensWord: 'wherefore', tokensWordChips: null, tokensError: null,
  });
  // a Cancel reaches the worker's learning through a shared flag (a cross-origin-isolated page)
  const flag = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated ? new SharedArrayBuffer(4) : null;
  const bytes = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;
  const failed = (e: Coded) => patch($, { tokensError: e, tokensProgress: null });

  const refresh = async () => {
    const s = $.get();
    if (!s.tokenizer) return patch($, { tokensChips: null, tokensWordChips: null, tokensMerges: [] });
    try {
      const step = s.tokensStep < 0 ? s.tokenizer.merges : clampStep(s.tokensStep, s.tokenizer.merges);
      const [chips, word, merges] = await Promise.all([
        port.call('tokensShow', { text: bytes(s.tokensText), merges: s.tokenizer.steppable ? step : -1 }),
        port.call('tokensShow', { text: bytes(s.tokensWord), merges: -1 }),
        port.call('tokensMerges', { from: mergesFrom(step), count: MERGES_PAGE })]);
      patch($, { tokensChips: chips, tokensWordChips: word, tokensMerges: merges });
    } catch (e) {
      failed(e as Coded);
    }
  };
  port.on('tokenizer', ({ info: tokenizer }) => {
    patch($, { tokenizer, tokensStep: tokenizer ? tokenizer.merges : -1, tokensError: null, tokensProgress: null });
    void refresh();
  });
  port.on('tokensProgress', (p) => patch($, { tokensProgress: p }));
  watch(deps.runtime.$, ['ready'], ({ ready }) => {
    if (ready) port.call('tokensSetup', { flag }).catch(() => undefined);
  });
  // a model created (or refused: a vocabulary the text cannot fill, Cancel) ends the learning shown
  watch(deps.session.$, ['creating'], ({ creating }) => void (!creating && patch($, { tokensProgress: null })));

  const api: Tokens = {
    $,
    async train(vocab) {
      patch($, { tokensError: null, tokensProgress: { phase: 'counting', done: 0, total: 1 } });
      try {
        await port.call('tokensTrain', { vocab });
        patch($, { tokensProgress: null });
      } catch (e) {
        failed(e as Coded);
      }
    },
    cancel: () => void (flag && Atomics.store(new Int32Array(flag), 0, 1)),
    async load(files) {
      patch($, { tokensError: null });
      try {
        const info = await port.call('tokensLoad', { files: await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() }))) });
        // the next run reads through it: the settings take its size (a live model keeps its own)
        const form = deps.settings.$.get().settings;
        if (form && !deps.session.$.get().model) deps.settings.setForm({ ...form, tokenizer: 'bpe', vocab_size: info.vocab });
      } catch (e) {
        failed(e as Coded);   // the current tokenizer (and model) stay as they were
      }
    },
    show: (tokensText) => void (patch($, { tokensText }), refresh()),
    step: (tokensStep) => void (patch($, { tokensStep }), refresh()),
    split: (tokensWord) => void (patch($, { tokensWord }), refresh()),
    mount(slot) {
      const panel = new TokensPanel($, deps.session.$, deps.settings.$, {
        onTrain: (v) => void api.train(v), onCancel: () => api.cancel(), onLoad: (f) => void api.load(f), onText: (t) => api.show(t),
        onStep: (s) => api.step(s), onWord: (w) => api.split(w), canCancel: flag !== null,
      });
      slot.append(panel.el);
    },
  };
  return api;
}
