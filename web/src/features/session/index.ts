// session — the live model in the worker: created from the settings, replaced by a checkpoint
// (features/runs), dropped by Reset. Other features follow its store: a new model (`lastModel`)
// or none (`model` null) resets what they showed of the previous one.
import { map, type MapStore, patch } from '../../app/store';
import { t } from '../../i18n';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import { coreInline, h, notify } from '../../ui';
import type { FullConfig, History, Mode, ModelInfo, ModelKind, ModelSummary, SessionCalls, SessionConfig, SessionEvents } from './messages';
import { isBusy, type Loading, type ModelState, type SessionSlice } from './state';

export { describeModel, type ModelShape } from './describe';
export { isBusy };
export type { FullConfig, History, Loading, Mode, ModelInfo, ModelKind, ModelState, ModelSummary, SessionConfig, SessionSlice };

export interface Session {
  readonly $: MapStore<SessionSlice>;
  /** A new model from `config` on the worker's data; null (and a notice) if the core refused it. */
  create(config: SessionConfig, history: boolean): Promise<ModelSummary | null>;
  /** Drops the model (its run is saved first: beforeReplace). */
  reset(): Promise<void>;
  /** A checkpoint or model file is on its way in (null: it arrived, or was refused). */
  setLoading(loading: Loading | null): void;
  /** A field of the live model's run changed (eval_interval, eval_iters: features/train sent it). */
  setRunField(name: keyof FullConfig, value: number): void;
  /** `fn` runs before the live model goes (reset, a checkpoint loaded over it): runs saves it. */
  beforeReplace(fn: () => void): void;
  /** Calls the beforeReplace functions (a feature about to replace the model). */
  replacing(): void;
}

export function createSession(port: Port<SessionCalls, SessionEvents>): Session {
  const $ = map<SessionSlice>({ model: null, lastModel: null, creating: false, loading: null });
  const before: (() => void)[] = [];
  port.on('model', (m) => {
    const s = $.get();
    const elapsedMs = m.reason === 'create' ? 0 : s.loading?.elapsedMs ?? 0;
    patch($, { model: { config: m.config, parameters: m.parameters, tokensPerByte: m.tokensPerByte }, lastModel: { info: m, elapsedMs }, creating: false, loading: null });
  });
  return {
    $,
    async create(config, history) {
      if (isBusy($.get())) return null;
      patch($, { creating: true });
      try {
        return await port.call('create', { config, history });
      } catch (e) {
        patch($, { creating: false });
        notify(() => h('span', {}, t().run.createFailed, coreInline((e as Coded).message, e as object)), 'error');
        return null;
      }
    },
    async reset() {
      for (const fn of before) fn();
      await port.call('reset', {});
      patch($, { model: null, creating: false });
    },
    setLoading: (loading) => patch($, { loading }),
    setRunField(name, value) {
      const m = $.get().model;
      if (m) patch($, { model: { ...m, config: { ...m.config, [name]: value } } });
    },
    beforeReplace: (fn) => void before.push(fn),
    replacing: () => before.forEach((fn) => fn()),
  };
}
