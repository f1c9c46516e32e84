/// <reference lib="webworker" />
// worker.ts — the one long-lived worker that owns the wasm module and the live model: a registry
// of the features' handlers (features/<name>/worker.ts) over one state object. The module is
// loaded by the runtime feature's 'init' (worker/module.ts). What each feature keeps is declared
// next to its handlers (its `initial`), and the registry keeps them in one object.
import { isCall } from './lib/wire';
import { Registry } from './worker/registry';
import { initialCore } from './worker/state';
import { dataWorker } from './features/data/worker';
import { estimateWorker } from './features/estimate/worker';
import { exportWorker } from './features/export/worker';
import { hiddenWorker } from './features/hidden/worker';
import { inspectWorker } from './features/inspect/worker';
import { learnWorker } from './features/learn/worker';
import { runsWorker } from './features/runs/worker';
import { runtimeWorker } from './features/runtime/worker';
import { sampleWorker } from './features/sample/worker';
import { sessionWorker } from './features/session/worker';
import { settingsWorker } from './features/settings/worker';
import { shareWorker } from './features/share/worker';
import { tokensWorker } from './features/tokens/worker';
import { trainWorker } from './features/train/worker';
import { translateWorker } from './features/translate/worker';
import { watchWorker } from './features/watch/worker';
import { webgpuWorker } from './features/webgpu/worker';

declare const self: DedicatedWorkerGlobalScope;

// The worker's one state object: the module and the live model (worker/state.ts), and each
// feature's fields (its `initial`) added as it registers. Hooks run in this order: the runtime's
// threads and WebGPU's attach before the model is described.
const worker = new Registry(initialCore(), self)
  .register(runtimeWorker(self))
  .register(webgpuWorker())
  .register(dataWorker())
  .register(tokensWorker())
  .register(sessionWorker())
  .register(settingsWorker())
  .register(estimateWorker())
  .register(trainWorker())
  .register(sampleWorker())
  .register(inspectWorker())
  .register(translateWorker())
  .register(runsWorker())
  .register(exportWorker())
  .register(shareWorker())
  .register(watchWorker())
  .register(hiddenWorker())
  .register(learnWorker());

/** Test hook (the e2e test of the fallback): the GPU device is lost as if the driver had reset. */
(self as unknown as { __tinygptTest: object }).__tinygptTest = { loseGpuDevice: () => worker.state.webgpu?.lose() };

self.onmessage = (e: MessageEvent) => {
  if (isCall(e.data)) void worker.handle(e.data);
};
