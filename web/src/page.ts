// page.ts — the page's features, made in the order they depend on each other, each given what it
// reads of the others (main.ts mounts their panels; the unit tests make them over a fake worker).
import type { Bridge } from './app/bridge';
import type { Storage } from './app/storage';
import { view } from './app/store';
import type { Calls, Events } from './protocol';
import { createData } from './features/data';
import { createEstimate } from './features/estimate';
import { createExport } from './features/export';
import { createHidden } from './features/hidden';
import { createInspect } from './features/inspect';
import { createLearn } from './features/learn';
import { createOffline } from './features/offline';
import { createRuns } from './features/runs';
import { createRuntime } from './features/runtime';
import { createSample } from './features/sample';
import { createSession } from './features/session';
import { createSettings } from './features/settings';
import { createShare } from './features/share';
import { createTokens } from './features/tokens';
import { createTrain } from './features/train';
import { createTranslate } from './features/translate';
import { createWatch } from './features/watch';
import { createWebgpu } from './features/webgpu';

export interface PageOptions {
  /** New runs keep a history of snapshots (?history=off turns it off: bench:page measures its cost). */
  keepHistory: boolean;
  /** The thread pool's counters on, in the train slice's `pool` (?poolstats=on: bench:page). */
  poolStats?: boolean;
}

export function createPage(bridge: Bridge<Calls, Events>, storage: Storage, options: PageOptions) {
  const webgpu = createWebgpu(bridge);
  const runtime = createRuntime(bridge);
  const session = createSession(bridge);
  const settings = createSettings(bridge, runtime, session);
  const data = createData(bridge, runtime, settings, session, storage);
  const train = createTrain(bridge, { runtime, settings, data, session, keepHistory: options.keepHistory, poolStats: options.poolStats });
  const estimate = createEstimate(bridge, { settings, data, session, train, webgpu });
  const sample = createSample(bridge, settings, session);
  const translate = createTranslate(bridge, { settings, session, data });
  const inspect = createInspect(bridge, { settings, data, session, train, sample, translate });
  const runs = createRuns(bridge, { runtime, settings, data, session, train, storage });
  const exporting = createExport(bridge, { session, data, runs });
  const share = createShare(bridge, { runtime, settings, data, session, train });
  const watch = createWatch(bridge, { session, settings, train, runs });
  const learn = createLearn(bridge, runtime);
  const hidden = createHidden(bridge, { runtime, settings, session });
  const tokens = createTokens(bridge, { runtime, session, settings });
  const offline = createOffline({ data, settings, session });
  /** Every feature's state as one object: what the end-to-end tests and the benchmark read (`__tinygpt.get()`). */
  const state = view(runtime.$, webgpu.$, session.$, settings.$, data.$, train.$, estimate.$, sample.$, translate.$, inspect.$, runs.$, exporting.$, share.$, watch.$, hidden.$, tokens.$);
  return { webgpu, runtime, session, settings, data, train, estimate, sample, translate, inspect, runs, export: exporting, share, watch, learn, hidden, tokens, offline, state };
}

export type Page = ReturnType<typeof createPage>;
