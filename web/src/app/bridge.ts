// bridge.ts — the page's end of the worker (lib/wire.ts): calls answered by promises, events by
// listeners. A few lines of our own rather than Comlink (squoosh's WorkerBridge): the worker
// pushes streams (progress after every training slice, sample chunks, autosaves) that Comlink
// would carry as proxied callbacks, one round trip each; its thrown errors reach the page as
// {name, message, stack} only, dropping the `code` and `args` the page words them by; and its
// transfer lists are written per call, where ours come from walking the message (lib/transfer.ts).
import { asCoded, type Coded } from '../lib/coded';
import { transferables } from '../lib/transfer';
import type { CallArg, CallResult, FromWorkerWire, Port } from '../lib/wire';

/** What the bridge needs of a Worker (a fake in the unit tests). */
export interface WorkerLike {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent) => void) | null;
  onerror?: ((e: ErrorEvent) => void) | null;
}

/** A failed call (`type` is the call's), or the worker itself failing ('init'). */
export type FailureListener = (type: string, error: Coded) => void;

/** An Error carrying a coded reply's code and args (as the worker's was): coreNode words it. */
export class CallError extends Error {
  readonly code?: string;
  readonly args?: Record<string, string | number>;
  constructor(readonly type: string, e: Coded) {
    super(e.message);
    this.code = e.code;
    this.args = e.args;
  }
}

export class Bridge<C, E> implements Port<C, E> {
  private nextId = 1;
  private pending = new Map<number, { type: string; resolve: (v: unknown) => void; reject: (e: CallError) => void }>();
  private listeners = new Map<string, Set<(msg: unknown) => void>>();
  private failureListeners = new Map<string, Set<(e: Coded) => void>>();
  private anyEvent = new Set<(type: string, msg: unknown) => void>();
  private rejected = new Set<FailureListener>();
  private unhandled = new Set<FailureListener>();

  constructor(private readonly worker: WorkerLike) {
    worker.onmessage = (e: MessageEvent<FromWorkerWire>) => this.receive(e.data);
    worker.onerror = (e) => {
      // handled here (the page says it in words): not also an uncaught error of the page
      e.preventDefault?.();
      const error = { message: `the training worker failed: ${e.message || 'unknown error'}` };
      for (const fn of [...this.rejected, ...this.unhandled]) fn('init', error);
    };
  }

  call<K extends keyof C & string>(type: K, msg: CallArg<C[K]>): Promise<CallResult<C[K]>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { type, resolve: resolve as (v: unknown) => void, reject });
      const wire = { kind: 'call', id, type, msg };
      this.worker.postMessage(wire, transferables(msg));
    });
  }

  send<K extends keyof C & string>(type: K, msg: CallArg<C[K]>): void {
    this.call(type, msg).catch((e: unknown) => {
      for (const fn of this.unhandled) fn(type, asCoded(e));
    });
  }

  on<K extends keyof E & string>(type: K, fn: (msg: E[K]) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn as (msg: unknown) => void);
    return () => set!.delete(fn as (msg: unknown) => void);
  }

  onFailure(during: keyof C & string, fn: (error: Coded) => void): () => void {
    let set = this.failureListeners.get(during);
    if (!set) this.failureListeners.set(during, (set = new Set()));
    set.add(fn);
    return () => set!.delete(fn);
  }

  /** The next event of a type that satisfies `pred`. */
  next<K extends keyof E & string>(type: K, pred: (m: E[K]) => boolean = () => true): Promise<E[K]> {
    return new Promise((resolve) => {
      const off = this.on(type, (m) => {
        if (!pred(m)) return;
        off();
        resolve(m);
      });
    });
  }

  /** Every event (the page counts them: tests wait for the nth 'evalResult'). */
  onAnyEvent(fn: (type: string, msg: unknown) => void): () => void {
    this.anyEvent.add(fn);
    return () => this.anyEvent.delete(fn);
  }

  /** Every failed call, and the worker failing (the page keeps a list: tests check it is empty). */
  onRejected(fn: FailureListener): () => void {
    this.rejected.add(fn);
    return () => this.rejected.delete(fn);
  }

  /** Failed calls nobody waited for (send), and the worker failing: the page says so. */
  onUnhandled(fn: FailureListener): () => void {
    this.unhandled.add(fn);
    return () => this.unhandled.delete(fn);
  }

  private receive(m: FromWorkerWire): void {
    if (m.kind === 'reply') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else {
        for (const fn of this.rejected) fn(p.type, m.error);
        p.reject(new CallError(p.type, m.error));
      }
      return;
    }
    if (m.kind === 'failure') {
      for (const fn of this.rejected) fn(m.during, m.error);
      this.failureListeners.get(m.during)?.forEach((fn) => fn(m.error));
      return;
    }
    for (const fn of this.anyEvent) fn(m.type, m.msg);
    this.listeners.get(m.type)?.forEach((fn) => fn(m.msg));
  }
}
