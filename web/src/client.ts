// client.ts — the page's end of the worker protocol: typed send() and per-type listeners.
import { type FromWorker, type FromWorkerType, type MessageOf, type ToWorker, post } from './protocol';

type Listener<T extends FromWorkerType> = (msg: MessageOf<FromWorker, T>) => void;

export class WorkerClient {
  private worker: Worker;
  private listeners = new Map<FromWorkerType, Set<(msg: FromWorker) => void>>();
  private any = new Set<(msg: FromWorker) => void>();

  constructor() {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'tinygpt-trainer' });
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => {
      const msg = e.data;
      this.listeners.get(msg.type)?.forEach((fn) => fn(msg));
      this.any.forEach((fn) => fn(msg));
    };
    this.worker.onerror = (e) => {
      const msg: FromWorker = { type: 'error', message: `the training worker failed: ${e.message || 'unknown error'}`, recoverable: false, during: 'init' };
      this.listeners.get('error')?.forEach((fn) => fn(msg));
    };
  }

  send(msg: ToWorker): void {
    post(this.worker, msg);
  }

  on<T extends FromWorkerType>(type: T, fn: Listener<T>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn as (msg: FromWorker) => void);
    return () => set!.delete(fn as (msg: FromWorker) => void);
  }

  onAny(fn: (msg: FromWorker) => void): () => void {
    this.any.add(fn);
    return () => this.any.delete(fn);
  }

  /** The next message of a type that satisfies `pred`. */
  next<T extends FromWorkerType>(type: T, pred: (m: MessageOf<FromWorker, T>) => boolean = () => true): Promise<MessageOf<FromWorker, T>> {
    return new Promise((resolve) => {
      const off = this.on(type, (m) => {
        if (!pred(m)) return;
        off();
        resolve(m);
      });
    });
  }
}
