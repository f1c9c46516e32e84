// estimate — the pre-flight: before Start, what this device measured for the chosen settings on
// the chosen text (tokens/s, the time of the configured steps, memory), and the loss of simple
// models of the text for scale; while training, the core's own numbers next to it.
import { map, type MapStore } from '../../app/store';
import type { Port } from '../../lib/wire';
import type { Data } from '../data';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { Train } from '../train';
import type { Webgpu } from '../webgpu';
import type { EstimateCalls } from './messages';
import { EstimateBox } from './panel';
import { type EstimateSlice, EstimateRunner } from './runner';

export { MEASURE_MS, estimateKey, runMemoryBytes, type EstimateState } from './runner';
export type { EstimateSlice };

export interface Estimate {
  readonly $: MapStore<EstimateSlice>;
  /** The box, above the Train panel's progress bar. */
  mount(before: Element): void;
}

export function createEstimate(port: Port<EstimateCalls, object>, d: { settings: Settings; data: Data; session: Session; train: Train; webgpu: Webgpu }): Estimate {
  const $ = map<EstimateSlice>({ estimate: null });
  const state = () => ({ ...d.settings.$.get(), ...d.data.$.get(), ...d.session.$.get() });
  new EstimateRunner($, port, state, { settings: d.settings.$, data: d.data.$, session: d.session.$ });
  return {
    $,
    mount(before) {
      before.before(new EstimateBox({ estimate: $, session: d.session.$, data: d.data.$, settings: d.settings.$, train: d.train.$, webgpu: d.webgpu.$ }).el);
    },
  };
}
