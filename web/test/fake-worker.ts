// fake-worker.ts — a stand-in for the training worker in the page's unit tests: it records the
// calls the features make and lets a test answer them and push the events the real worker would
// (the same wire: lib/wire.ts), so the page's features run in Node over it.
import { Bridge, type WorkerLike } from '../src/app/bridge';
import { Storage } from '../src/app/storage';
import type { Coded } from '../src/lib/coded';
import type { CallWire } from '../src/lib/wire';
import { createPage, type Page } from '../src/page';
import type { Calls, Events } from '../src/protocol';

type Auto = { [K in keyof Calls]?: (msg: Parameters<Calls[K]>[0]) => unknown };

export class FakeWorker implements WorkerLike {
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  readonly calls: CallWire[] = [];
  private answered = new Set<number>();

  /** `auto`: calls answered at once by these (the rest wait for reply() or fail()). */
  constructor(private readonly auto: Auto = {}) {}

  postMessage(m: CallWire): void {
    this.calls.push(m);
    const f = this.auto[m.type as keyof Calls] as ((msg: unknown) => unknown) | undefined;
    if (f) this.answer(m, { ok: true, value: f(m.msg) });
  }

  /** The calls of one type, in order. */
  of<K extends keyof Calls>(type: K): Parameters<Calls[K]>[0][] {
    return this.calls.filter((c) => c.type === type).map((c) => c.msg as Parameters<Calls[K]>[0]);
  }

  private answer(call: CallWire, r: { ok: true; value: unknown } | { ok: false; error: Coded }): void {
    this.answered.add(call.id);
    queueMicrotask(() => this.onmessage?.({ data: { kind: 'reply', id: call.id, ...r } } as MessageEvent));
  }

  private pending(type: string): CallWire {
    const c = this.calls.find((x) => x.type === type && !this.answered.has(x.id));
    if (!c) throw new Error(`no unanswered '${type}' call`);
    return c;
  }

  /** Answers the oldest unanswered call of this type. */
  reply<K extends keyof Calls>(type: K, value: ReturnType<Calls[K]>): void {
    this.answer(this.pending(type), { ok: true, value });
  }

  fail(type: keyof Calls, error: Coded): void {
    this.answer(this.pending(type), { ok: false, error });
  }

  emit<K extends keyof Events>(type: K, msg: Events[K]): void {
    this.onmessage?.({ data: { kind: 'event', type, msg } } as MessageEvent);
  }

  /** Work a call started failed later (a training slice after 'start'). */
  failLater(during: keyof Calls, error: Coded): void {
    this.onmessage?.({ data: { kind: 'failure', during, error } } as MessageEvent);
  }
}

/** The page's features over a fake worker (no panels: Node has no DOM). */
export function fakePage(auto: Auto = {}): { page: Page; worker: FakeWorker } {
  const worker = new FakeWorker(auto);
  const page = createPage(new Bridge<Calls, Events>(worker), new Storage(), { keepHistory: true });
  return { page, worker };
}

/** Lets the replies (microtasks) and what they set off run. */
export const settle = () => new Promise((r) => setTimeout(r, 0));
