// The wire between the page and the worker (lib/wire.ts): buffers found by walking a message and
// transferred, not copied; calls answered by their handler's value or its coded error; events,
// later failures, and hooks in registration order. The page's bridge (app/bridge.ts) and the
// worker's registry (worker/registry.ts) talk over a real MessageChannel here.
import { MessageChannel } from 'node:worker_threads';

import { describe, expect, it } from 'vitest';

import { Bridge, CallError, type WorkerLike } from '../src/app/bridge';
import { codedError } from '../src/lib/coded';
import { transferables } from '../src/lib/transfer';
import { isCall } from '../src/lib/wire';
import { handlers, Registry } from '../src/worker/registry';

describe('transferables', () => {
  it('finds every buffer of a message at any depth, once each', () => {
    const buf = new ArrayBuffer(8);
    expect(transferables({ bytes: buf, name: 'x' })).toEqual([buf]);
    expect(transferables({ id: 1, text: null, corpusOffset: 5 })).toEqual([]);
    const chunk = { id: 1, bytes: new Uint8Array(2), probs: new Float32Array(2), topBytes: new Uint8Array(10), topProbs: new Float32Array(10), done: false };
    expect(transferables(chunk)).toHaveLength(4);
    // nested objects and arrays of objects (a model's history, a tree's nodes, a trace's entries)
    const nested = { info: { history: { train: new Float32Array(2), valSteps: new Float64Array(1) } }, nodes: [{ top: new Int32Array(3) }, { top: new Int32Array(3) }] };
    expect(transferables(nested)).toHaveLength(4);
    // two views of one buffer: listed once
    const shared = new ArrayBuffer(16);
    expect(transferables({ a: new Uint8Array(shared, 0, 4), b: new Float32Array(shared, 4, 1) })).toEqual([shared]);
    // a SharedArrayBuffer can't be transferred; class instances and primitives are not walked
    expect(transferables({ s: new Uint8Array(new SharedArrayBuffer(4)), d: new Date(), m: new Map([[1, new ArrayBuffer(1)]]), n: 3, t: 'x' })).toEqual([]);
  });

  it('stops at a depth a message never has (a cycle does not hang it)', () => {
    const a: Record<string, unknown> = { buf: new ArrayBuffer(1) };
    a.self = a;
    expect(transferables(a)).toHaveLength(1);
  });
});

interface TestCalls {
  echo(msg: { bytes: ArrayBuffer; name: string }): { name: string; size: number; back: Uint8Array };
  refuse(msg: { why: string }): void;
  later(msg: Record<string, never>): void;
  slow(msg: { n: number }): number;
}
interface TestEvents { tick: { n: number; data: Float32Array } }
interface TestState { ticks: number; order: string[] }

function pair() {
  const { port1, port2 } = new MessageChannel();
  const worker = port1 as unknown as WorkerLike & { close(): void };
  // node's MessagePort takes onmessage with a MessageEvent-like { data }
  const bridge = new Bridge<TestCalls, TestEvents>(worker);
  const state: TestState = { ticks: 0, order: [] };
  const registry = new Registry(state, port2 as unknown as { postMessage(m: unknown, t: Transferable[]): void });
  port2.on('message', (m: unknown) => void (isCall(m) && registry.handle(m)));
  registry.register({
    name: 'test',
    handlers: handlers<TestCalls, TestState>({
      echo: (msg) => ({ name: msg.name, size: msg.bytes.byteLength, back: new Uint8Array(msg.bytes).slice(0, 2) }),
      refuse: (msg) => { throw codedError('worker.no_model', msg.why, { step: 3 }); },
      later(_msg, ctx) {
        ctx.emit('tick', { n: ++ctx.state.ticks, data: new Float32Array([1, 2]) });
        ctx.fail('later', new Error('it broke afterwards'));
      },
      slow: async (msg) => { await new Promise((r) => setTimeout(r, 5)); return msg.n * 2; },
    }),
    hooks: { modelGone: (ctx) => void ctx.state.order.push('first') },
  });
  registry.register<TestState>({ name: 'second', hooks: { modelGone: (ctx) => void ctx.state.order.push('second') } });
  return { bridge, registry, state, close: () => { port1.close(); port2.close(); } };
}

describe('bridge and registry', () => {
  it('answers a call with its handler\'s value; the buffers travel transferred both ways', async () => {
    const { bridge, close } = pair();
    const bytes = new TextEncoder().encode('hello corpus');
    const reply = bridge.call('echo', { bytes: bytes.buffer, name: 'a.txt' });
    expect(bytes.buffer.byteLength).toBe(0);   // detached on this side: transferred, not copied
    const r = await reply;
    expect(r.name).toBe('a.txt');
    expect(r.size).toBe(12);
    expect(new TextDecoder().decode(r.back)).toBe('he');
    expect(await bridge.call('slow', { n: 21 })).toBe(42);
    close();
  });

  it('rejects with the handler\'s error, its code and args kept; every failure is reported', async () => {
    const { bridge, close } = pair();
    const seen: string[] = [];
    bridge.onRejected((type, e) => seen.push(`${type}: ${e.message} [${e.code}]`));
    const unhandled: string[] = [];
    bridge.onUnhandled((type, e) => unhandled.push(`${type}: ${e.message}`));
    const e = await bridge.call('refuse', { why: 'no model yet' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CallError);
    expect(e).toMatchObject({ message: 'no model yet', code: 'worker.no_model', args: { step: 3 }, type: 'refuse' });
    expect(unhandled).toEqual([]);   // someone waited for it
    bridge.send('refuse', { why: 'nobody waits' });
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual(['refuse: nobody waits']);
    expect(seen).toEqual(['refuse: no model yet [worker.no_model]', 'refuse: nobody waits [worker.no_model]']);
    close();
  });

  it('delivers events and later failures to their listeners, and counts every event', async () => {
    const { bridge, close } = pair();
    const ticks: number[] = [];
    const failures: string[] = [];
    const types: string[] = [];
    bridge.on('tick', (m) => ticks.push(m.n + m.data[1]));
    bridge.onFailure('later', (e) => failures.push(e.message));
    bridge.onAnyEvent((type) => types.push(type));
    const next = bridge.next('tick', (m) => m.n === 2);
    await bridge.call('later', {});
    await bridge.call('later', {});
    expect((await next).n).toBe(2);
    expect(ticks).toEqual([3, 4]);
    expect(failures).toEqual(['it broke afterwards', 'it broke afterwards']);
    expect(types).toEqual(['tick', 'tick']);
    close();
  });

  it('refuses an unknown call and a second handler for one type; runs hooks in registration order', async () => {
    const { bridge, registry, state, close } = pair();
    await expect(bridge.call('bogus' as never, {} as never)).rejects.toThrow("no handler for 'bogus'");
    expect(() => registry.register({ name: 'again', handlers: { echo: () => 0 } })).toThrow("two handlers for 'echo'");
    await registry.fire('modelGone');
    expect(state.order).toEqual(['first', 'second']);
    close();
  });

  it('runs the loop\'s tasks by priority, yielding between pieces', async () => {
    const { registry, close } = pair();
    const ran: string[] = [];
    let gen = 2;
    let train = 3;
    registry.register({ name: 'loop', tasks: [
      { name: 'train', priority: 1, wants: () => train > 0, run: () => void (train--, ran.push('train')) },
      { name: 'generate', priority: 0, wants: () => gen > 0, run: () => void (gen--, ran.push('generate')) },
    ] });
    expect(registry.othersWaiting('train')).toBe(true);   // a generation waits
    registry.wake();
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual(['generate', 'generate', 'train', 'train', 'train']);
    expect(registry.othersWaiting('train')).toBe(false);
    close();
  });

  it('recognises calls only', () => {
    expect(isCall({ kind: 'call', id: 1, type: 'pause', msg: {} })).toBe(true);
    expect(isCall({ kind: 'event', type: 'progress', msg: {} })).toBe(false);
    expect(isCall({ type: 'pause' })).toBe(false);
    expect(isCall('pause')).toBe(false);
    expect(isCall(null)).toBe(false);
  });
});
