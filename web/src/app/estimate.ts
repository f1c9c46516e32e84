// estimate.ts — the pre-flight: once a text and settings the core accepts are chosen (and no model
// exists yet), the worker times a few real steps of that config on this device (the core's
// tinygpt::preflight, about a second) and the store keeps the result in `estimate`. Another
// writer of the store besides the controller: it owns `estimate` and nothing else.
import type { ClientLike } from './controller';
import { settingsOk } from './derive';
import { type PageStore, type RunState, patch, watch } from './state';
import type { FullConfig, PreflightResult } from '../protocol';

/** How long the worker measures (the first step comes on top: it allocates). */
export const MEASURE_MS = 1000;
/** The form must be still this long before a measurement starts (typing a number is several changes). */
const SETTLE_MS = 400;

export interface EstimateState {
  key: string;                      // the settings and the text it measured (estimateKey)
  id: number;
  measuring: boolean;
  result: PreflightResult | null;
  error: string;
  config: FullConfig;
  corpusSize: number;
}

/** What a measurement depends on: the settings and the text. */
export function estimateKey(s: Pick<RunState, 'settings' | 'corpus'>): string {
  return s.settings && s.corpus ? `${s.corpus.ref.id}|${JSON.stringify(s.settings)}` : '';
}

/** The memory of the run: the measurement counted the text it was given (at most 64 MiB of it). */
export function runMemoryBytes(e: Pick<EstimateState, 'result' | 'corpusSize'>): number {
  const r = e.result;
  return r ? r.memoryBytes + Math.max(0, e.corpusSize - r.entropy.bytes) : 0;
}

export class EstimateRunner {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private nextId = 1;

  constructor(private store: PageStore, private client: ClientLike) {
    client.on('measured', (m) => {
      const e = this.store.get().estimate;
      if (!e || e.id !== m.id) return;
      patch(this.store, { estimate: { ...e, measuring: false, result: m.result, error: m.error } });
    });
    watch(store, ['ready', 'corpus', 'settings', 'verdict', 'validateId', 'model', 'creating'], (s) => this.consider(s));
  }

  private consider(s: RunState): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (s.model || s.creating || !settingsOk(s)) return;   // a model's own numbers come from its run
    const key = estimateKey(s);
    if (!key || s.estimate?.key === key) return;
    this.timer = setTimeout(() => this.measure(), SETTLE_MS);
  }

  private measure(): void {
    const s = this.store.get();
    const key = estimateKey(s);
    if (s.model || !settingsOk(s) || !key || s.estimate?.key === key) return;
    const id = this.nextId++;
    patch(this.store, {
      estimate: { key, id, measuring: true, result: null, error: '', config: s.settings!, corpusSize: s.corpus!.stats.size },
    });
    this.client.send({ type: 'measure', id, config: s.settings!, budgetMs: MEASURE_MS });
  }
}
