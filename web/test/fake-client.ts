// fake-client.ts — a stand-in for the worker client in the controller's unit tests: it records
// what the controller sends and lets a test emit the messages the real worker would.
import type { ClientLike } from '../src/app/controller';
import type { FromWorker, ToWorker } from '../src/protocol';

export class FakeClient implements ClientLike {
  sent: ToWorker[] = [];
  private listeners: ((m: FromWorker) => void)[] = [];
  send(msg: ToWorker): void {
    this.sent.push(msg);
  }
  on(type: FromWorker['type'], fn: (m: never) => void): () => void {
    const l = (m: FromWorker) => {
      if (m.type === type) (fn as (m: FromWorker) => void)(m);
    };
    this.listeners.push(l);
    return () => undefined;
  }
  onAny(fn: (m: FromWorker) => void): () => void {
    this.listeners.unshift(fn);
    return () => undefined;
  }
  emit(m: FromWorker): void {
    for (const l of this.listeners) l(m);
  }
}
