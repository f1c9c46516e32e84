// registry.ts — the worker's side of the wire (lib/wire.ts): features register handlers keyed by
// message type, and hooks on the session's life; the worker's state is one object that every
// handler receives (`ctx.state`), each feature owning the fields it declares.
//
// A handler's return value (or what its promise resolves to) is the call's reply; what it throws
// is the reply's error, coded ({ message, code, args }: lib/coded.ts). Hooks let a feature react
// to another's news without importing it: the session feature fires `modelGone` before a model is
// dropped and `modelReady` / `modelShown` after one is created or loaded, training fires `slice`
// after every slice of the run loop, the data feature `corpusSet`, WebGPU `gpuLost`.
import type { Slice } from '../../../wasm/tinygpt';
import { asCoded } from '../lib/coded';
import { transferables } from '../lib/transfer';
import type { CallArg, CallResult, CallWire } from '../lib/wire';

/** What happened to the session, for the features that keep something of it. */
export interface Hooks<S> {
  /** The module is loaded (init): `backend` is what the page asked of WebGPU. */
  moduleReady(ctx: Ctx<S>, init: { backend?: 'webgpu' | 'wasm'; backendForced?: boolean }): void | Promise<void>;
  /** The model is about to be dropped or replaced: let go of what belongs to it. */
  modelGone(ctx: Ctx<S>): void;
  /** The model was dropped and none replaces it (reset). */
  modelDropped(ctx: Ctx<S>): void;
  /** A model was created or loaded and is the session's now (before the page hears of it). */
  modelReady(ctx: Ctx<S>): void | Promise<void>;
  /** The page has been told of the model ('model' event): send what goes with it. */
  modelShown(ctx: Ctx<S>): void;
  /** The worker's data changed; `live`: the session took it too. */
  corpusSet(ctx: Ctx<S>, live: boolean): void;
  /** A slice of the run loop was reported (on the CPU or the GPU). */
  slice(ctx: Ctx<S>, slice: Slice): void;
  /** The run's history took a snapshot after an evaluation on the GPU (on the CPU: part of a slice). */
  snapshotTaken(ctx: Ctx<S>): void;
  /** WebGPU gave up on the model (`why`); `rewound`: the session went back to an earlier good state. */
  gpuLost(ctx: Ctx<S>, rewound: boolean, why: { message: string; kind: string }): void;
}

/** Work the loop does between messages: of the tasks that want to run, the first by priority runs one piece. */
export interface LoopTask<S> {
  name: string;
  priority: number;         // lower first: a generation (0) goes before training (1)
  wants(ctx: Ctx<S>): boolean;
  run(ctx: Ctx<S>): void | Promise<void>;
}

/** What every handler gets: the one state object and the worker's services. */
export interface Ctx<S> {
  readonly state: S;
  /** Sends an event to the page (its buffers transferred). */
  emit(type: string, msg: object): void;
  /** Work a call started failed later (a training slice after 'start'): the page hears it as `during`'s failure. */
  fail(during: string, e: unknown): void;
  /** Calls every feature's hook of that name, in registration order. */
  fire<K extends keyof Hooks<S>>(hook: K, ...args: Parameters<Hooks<S>[K]> extends [unknown, ...infer R] ? R : never): Promise<void>;
  /** Starts the loop if it is not running (a task now wants to run). */
  wake(): void;
  /** True when a task listed before `name` wants to run (training yields to a generation). */
  othersWaiting(name: string): boolean;
}

export type Handlers<C, S> = { [K in keyof C]: (msg: CallArg<C[K]>, ctx: Ctx<S>) => CallResult<C[K]> | Promise<CallResult<C[K]>> };

/** A feature's worker side. S: the state it reads (its own fields and those of features it uses). */
export interface WorkerFeature<S> {
  name: string;
  /** Its fields of the worker's state object, as they start. */
  initial?: () => Partial<S>;
  handlers?: Partial<Handlers<Record<string, (msg: never) => unknown>, S>>;
  hooks?: Partial<Hooks<S>>;
  tasks?: LoopTask<S>[];
}

/** One feature's handlers, typed by its calls interface. */
export function handlers<C, S>(h: Handlers<C, S>): Partial<Handlers<Record<string, (msg: never) => unknown>, S>> {
  return h as unknown as Partial<Handlers<Record<string, (msg: never) => unknown>, S>>;
}

export interface Endpoint {
  postMessage(message: unknown, transfer: Transferable[]): void;
}

/** The worker: the registered features over one state object, answering calls from `port`. */
export class Registry<S> implements Ctx<S> {
  private readonly byType = new Map<string, (msg: never, ctx: Ctx<S>) => unknown>();
  private readonly features: WorkerFeature<S>[] = [];
  private readonly tasks: LoopTask<S>[] = [];
  private looping = false;
  private readonly channel = new MessageChannel();
  private readonly wakers: (() => void)[] = [];

  constructor(readonly state: S, private readonly port: Endpoint) {
    this.channel.port1.onmessage = () => this.wakers.shift()?.();
  }

  /** Adds a feature: its fields of the state object (its `initial`), handlers, hooks and tasks. */
  register<T extends object>(feature: WorkerFeature<T>): Registry<S & T> {
    const f = feature as unknown as WorkerFeature<S>;
    Object.assign(this.state as object, feature.initial?.());
    for (const [type, h] of Object.entries(f.handlers ?? {})) {
      if (this.byType.has(type)) throw new Error(`two handlers for '${type}'`);
      this.byType.set(type, h as (msg: never, ctx: Ctx<S>) => unknown);
    }
    this.features.push(f);
    this.tasks.push(...(f.tasks ?? []));
    this.tasks.sort((a, b) => a.priority - b.priority);
    return this as unknown as Registry<S & T>;
  }

  emit(type: string, msg: object): void {
    this.port.postMessage({ kind: 'event', type, msg }, transferables(msg));
  }

  fail(during: string, e: unknown): void {
    this.port.postMessage({ kind: 'failure', during, error: asCoded(e) }, []);
  }

  async fire<K extends keyof Hooks<S>>(hook: K, ...args: unknown[]): Promise<void> {
    for (const f of this.features) {
      const h = f.hooks?.[hook] as ((ctx: Ctx<S>, ...a: unknown[]) => void | Promise<void>) | undefined;
      if (h) await h(this, ...args);
    }
  }

  /** Answers a call: the handler's value, or the error it threw (coded). */
  async handle(call: CallWire): Promise<void> {
    try {
      const h = this.byType.get(call.type);
      if (!h) throw new Error(`no handler for '${call.type}'`);
      const value = await h(call.msg as never, this);
      this.port.postMessage({ kind: 'reply', id: call.id, ok: true, value }, transferables(value));
    } catch (e) {
      this.port.postMessage({ kind: 'reply', id: call.id, ok: false, error: asCoded(e) }, []);
    }
  }

  wake(): void {
    if (this.looping) return;
    this.looping = true;
    void this.loop();
  }

  othersWaiting(name: string): boolean {
    for (const t of this.tasks) {
      if (t.name === name) return false;
      if (t.wants(this)) return true;
    }
    return false;
  }

  // Runs the tasks' pieces one at a time, yielding to the worker's event loop after each so that
  // pause, generate, inspect, save... are handled between them (through a MessageChannel, which
  // background tabs don't throttle the way they throttle timers).
  private async loop(): Promise<void> {
    try {
      for (;;) {
        const task = this.tasks.find((t) => t.wants(this));
        if (!task) return;
        await task.run(this);
        await new Promise<void>((resolve) => {
          this.wakers.push(resolve);
          this.channel.port2.postMessage(0);
        });
      }
    } finally {
      this.looping = false;
    }
  }
}
