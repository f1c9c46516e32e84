// features/runtime/worker.ts watchPoolThreads: a thread of the pool that dies (its uncaught error
// passed up to the training worker) is taken in hand: the error goes no further, the run drops to
// one thread with the tuner off, and the page hears it once, in words; other errors pass.
import { describe, expect, it } from 'vitest';

import { watchPoolThreads } from '../src/features/runtime/worker';

// what the worker's global scope gives the handler: an ErrorEvent-like object
class FakeError {
  defaultPrevented = false;
  constructor(readonly message: string, readonly filename: string, readonly error: unknown = null, readonly lineno = 1) {}
  preventDefault(): void { this.defaultPrevented = true; }
}

function setUp(variant: 'threads' | 'simd' = 'threads') {
  let listener: ((e: ErrorEvent) => void) | null = null;
  const calls: string[] = [];
  const events: [string, object][] = [];
  const state = {
    variant, threadSetting: 'auto' as 'auto' | number, threadCap: 2, threadsSent: 'x',
    M: { setThreads: (n: number) => calls.push(`setThreads ${n}`) },
    session: { tuneThreads: (n: number) => calls.push(`tuneThreads ${n}`) },
  };
  const ctx = { state, emit: (type: string, msg: object) => events.push([type, msg]) };
  const scope = { crossOriginIsolated: true, navigator: {}, addEventListener: (_: 'error', fn: (e: ErrorEvent) => void) => void (listener = fn) };
  watchPoolThreads(ctx as never, scope);
  const fire = (e: FakeError) => (listener!(e as unknown as ErrorEvent), e);
  return { state, calls, events, fire };
}

describe('a thread of the pool that dies (runtime/worker.ts watchPoolThreads)', () => {
  it('stops the error, goes on with one thread and says so once', () => {
    const { state, calls, events, fire } = setUp();
    const first = fire(new FakeError('Uncaught RuntimeError: memory access out of bounds', 'http://x/wasm/tinygpt-threads.worker.js'));
    expect(first.defaultPrevented).toBe(true);
    expect(state.threadSetting).toBe(1);
    expect(calls).toEqual(['setThreads 1', 'tuneThreads 0']);
    expect(events).toEqual([['threadDied', { message: 'RuntimeError: memory access out of bounds' }]]);
    // Emscripten's rethrow of the pthread's ErrorEvent: stopped too, not said twice
    const inner = new (globalThis.ErrorEvent ?? FakeError)('error', { message: 'memory access out of bounds' } as never);
    const second = fire(new FakeError('Uncaught [object ErrorEvent]', 'http://x/wasm/tinygpt-threads.js', globalThis.ErrorEvent ? inner : null));
    expect(second.defaultPrevented).toBe(!!globalThis.ErrorEvent);
    expect(events).toHaveLength(1);
  });

  it('leaves other errors alone, and every error of a build without threads', () => {
    const other = setUp();
    const e = other.fire(new FakeError('Uncaught TypeError: x is undefined', 'http://x/assets/worker.js?worker_file'));
    expect(e.defaultPrevented).toBe(false);
    expect(other.events).toEqual([]);
    const simd = setUp('simd');
    expect(simd.fire(new FakeError('Uncaught RuntimeError: unreachable', 'http://x/wasm/tinygpt-threads.worker.js')).defaultPrevented).toBe(false);
    expect(simd.calls).toEqual([]);
  });
});
