// state.ts (runtime) — what the page keeps of the module and of its talk with the worker.
import type { Coded } from '../../lib/coded';
import type { Ready, ThreadSetting } from './messages';

export interface RuntimeSlice {
  ready: Ready | null;
  loadFailed: string | null;
  threadSetting: ThreadSetting;           // 'auto' (the core's thread tuner) or a fixed count
  threadsNow: number;                     // kernel threads of the latest slice
  threadsReason: Coded | null;            // the tuner's last decision (null when the count is fixed)
  counts: Record<string, number>;         // events from the worker, by type
  errors: string[];                       // failures the worker reported: "call: message"
}
