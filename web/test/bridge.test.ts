// The bridge's handling of the worker itself failing (an error event on the Worker): the page's
// listeners hear it in words, and the event is marked handled so that it is not also an uncaught
// error of the page (Chromium reports an unhandled worker error event on the page's console).
import { describe, expect, it, vi } from 'vitest';

import { Bridge, type WorkerLike } from '../src/app/bridge';

class StubWorker implements WorkerLike {
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(): void {}
}

describe('Bridge', () => {
  it('reports a failing worker to its listeners and marks the error event handled', () => {
    const w = new StubWorker();
    const bridge = new Bridge(w);
    const rejected = vi.fn(), unhandled = vi.fn();
    bridge.onRejected(rejected);
    bridge.onUnhandled(unhandled);
    const preventDefault = vi.fn();
    w.onerror!({ message: 'RuntimeError: unreachable', preventDefault } as unknown as ErrorEvent);
    expect(preventDefault).toHaveBeenCalledTimes(1);
    expect(rejected).toHaveBeenCalledWith('init', { message: 'the training worker failed: RuntimeError: unreachable' });
    expect(unhandled).toHaveBeenCalledWith('init', { message: 'the training worker failed: RuntimeError: unreachable' });
  });
});
