// protocol.ts — every message between the page and the training worker, joined from the features'
// own (features/<name>/messages.ts; the wire itself: lib/wire.ts). The page's bridge is typed by
// these; each feature is handed it as a Port of its own calls and events.
import type { DataCalls } from './features/data/messages';
import type { EstimateCalls } from './features/estimate/messages';
import type { ExportCalls } from './features/export/messages';
import type { HiddenCalls } from './features/hidden/messages';
import type { InspectCalls } from './features/inspect/messages';
import type { LearnCalls } from './features/learn/messages';
import type { RunsCalls } from './features/runs/messages';
import type { RuntimeCalls, RuntimeEvents } from './features/runtime/messages';
import type { SampleCalls, SampleEvents } from './features/sample/messages';
import type { SessionCalls, SessionEvents } from './features/session/messages';
import type { SettingsCalls } from './features/settings/messages';
import type { ShareCalls, ShareEvents } from './features/share/messages';
import type { TokensCalls, TokensEvents } from './features/tokens/messages';
import type { TrainCalls, TrainEvents } from './features/train/messages';
import type { TranslateCalls } from './features/translate/messages';
import type { WatchCalls, WatchEvents } from './features/watch/messages';
import type { WebgpuEvents } from './features/webgpu/messages';

/** Page → worker: every call, by message type. */
export interface Calls extends RuntimeCalls, DataCalls, SettingsCalls, SessionCalls, EstimateCalls, TrainCalls, SampleCalls, InspectCalls,
  TranslateCalls, RunsCalls, ExportCalls, ShareCalls, WatchCalls, LearnCalls, HiddenCalls, TokensCalls {}

/** Worker → page: every event, by type. */
export interface Events extends RuntimeEvents, WebgpuEvents, SessionEvents, TrainEvents, SampleEvents, ShareEvents, WatchEvents, TokensEvents {}
