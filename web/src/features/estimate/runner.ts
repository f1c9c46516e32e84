// runner.ts (estimate) — the pre-flight: once a text and settings the core accepts are chosen (and
// no model exists yet), the worker times a few real steps of that config on this device (the
// core's tinygpt::preflight, about a second) and the store keeps the result in `estimate`.
import { type MapStore, patch, watch } from '../../app/store';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import type { DataSlice } from '../data';
import type { SessionSlice } from '../session';
import { type FullConfig, type SettingsSlice, settingsOk } from '../settings';
import type { EstimateCalls, PreflightResult } from './messages';

/** How long the worker measures (the first step comes on top: it allocates). */
export const MEASURE_MS = 1000;
/** The form must be still this long before a measurement starts (typing a number is several changes). */
const SETTLE_MS = 400;

export interface EstimateState {
  key: string;                      // the settings and the text it measured (estimateKey)
  id: number;
  measuring: boolean;
  result: PreflightResult | null;
  error: Coded | null;              // why there is no result (the worker's or the core's words)
  config: FullConfig;
  corpusSize: number;
}

export interface EstimateSlice { estimate: EstimateState | null }

type S = SettingsSlice & DataSlice & SessionSlice;

/** What a measurement depends on: the settings and the text. */
export function estimateKey(s: Pick<S, 'settings' | 'corpus'>): string {
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

  constructor(private readonly $: MapStore<EstimateSlice>, private readonly port: Port<EstimateCalls, object>, private readonly state: () => S,
    sources: { settings: MapStore<SettingsSlice>; data: MapStore<DataSlice>; session: MapStore<SessionSlice> }) {
    const consider = () => this.consider(this.state());
    watch(sources.settings, ['settings', 'verdict', 'validateId', 'textSize'], consider);
    watch(sources.data, ['corpus'], consider);
    watch(sources.session, ['model', 'creating'], consider);
  }

  private consider(s: S): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (s.model || s.creating || !settingsOk(s)) return;   // a model's own numbers come from its run
    const key = estimateKey(s);
    if (!key || this.$.get().estimate?.key === key) return;
    this.timer = setTimeout(() => void this.measure(), SETTLE_MS);
  }

  private async measure(): Promise<void> {
    const s = this.state();
    const key = estimateKey(s);
    if (s.model || !settingsOk(s) || !key || this.$.get().estimate?.key === key) return;
    const id = this.nextId++;
    patch(this.$, { estimate: { key, id, measuring: true, result: null, error: null, config: s.settings!, corpusSize: s.corpus!.stats.size } });
    const m = await this.port.call('measure', { config: s.settings!, budgetMs: MEASURE_MS });
    const e = this.$.get().estimate;
    if (e && e.id === id) patch(this.$, { estimate: { ...e, measuring: false, result: m.result, error: m.error } });
  }
}
