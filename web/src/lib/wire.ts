// wire.ts — how the page and the training worker talk (app/bridge.ts is the page's end,
// worker/registry.ts the worker's). Two kinds of traffic:
//   calls   page → worker, each answered by one reply (a value, or the error it threw, coded);
//   events  worker → page, pushed: training progress, streamed sample chunks, autosaves, ...;
//           and failures of work a call started that surface later (a training slice).
// Each feature declares its own (features/<name>/messages.ts): an interface of calls, one method
// per message type (`generate(msg): void`), and one of events (`sampleChunk: SampleChunk`).
// web/src/protocol.ts joins them for the two ends. Buffers in a message are transferred
// (lib/transfer.ts), never copied.
import type { Coded } from './coded';

export interface CallWire { kind: 'call'; id: number; type: string; msg: unknown }
export type ReplyWire =
  | { kind: 'reply'; id: number; ok: true; value: unknown }
  | { kind: 'reply'; id: number; ok: false; error: Coded };
export interface EventWire { kind: 'event'; type: string; msg: unknown }
/** Work a call started failed later, outside any reply (a training slice after 'start'). */
export interface FailureWire { kind: 'failure'; during: string; error: Coded }
export type FromWorkerWire = ReplyWire | EventWire | FailureWire;

/** A calls interface's message type for call K (its one parameter). */
export type CallArg<F> = F extends (msg: infer A) => unknown ? A : never;
/** A calls interface's answer for call K. */
export type CallResult<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/**
 * What a feature may do with the worker: its own calls and events. The page's bridge is a Port
 * of every feature's (protocol.ts); a feature is given it typed as its own.
 */
export interface Port<C, E> {
  /** A call answered by the worker: resolves with its reply, rejects with its coded error. */
  call<K extends keyof C & string>(type: K, msg: CallArg<C[K]>): Promise<CallResult<C[K]>>;
  /** A call whose reply nobody waits for: a failure is reported as the page's error notice. */
  send<K extends keyof C & string>(type: K, msg: CallArg<C[K]>): void;
  /** Every event of this type from now on; returns the unsubscribe. */
  on<K extends keyof E & string>(type: K, fn: (msg: E[K]) => void): () => void;
  /** Failures of work that call `during` started, surfacing later (a training slice after 'start'). */
  onFailure(during: keyof C & string, fn: (error: Coded) => void): () => void;
}

/** Guards the worker against anything that is not a call. */
export function isCall(x: unknown): x is CallWire {
  const c = x as Partial<CallWire> | null;
  return typeof c === 'object' && c !== null && c.kind === 'call' && typeof c.id === 'number' && typeof c.type === 'string';
}
