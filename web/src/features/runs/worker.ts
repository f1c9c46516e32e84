// worker.ts (runs) — checkpoints: saved from the live model (on the GPU its state comes back
// first), loaded over it (a refused one leaves it as it was), read for their curves.
import { openDB } from 'idb';

import type { Session } from '../../../../wasm/tinygpt';
import { RUNS_DB, writeSave } from '../../lib/runs-db';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needModule, needSession } from '../../worker/state';
import { attachCorpus } from '../data/worker';
import { installModel, type SessionState } from '../session/worker';
import { betweenSteps, onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { RunsCalls } from './messages';

type S = SessionState & WebgpuState;

export function runsWorker(): WorkerFeature<S> {
  return {
    name: 'runs',
    handlers: handlers<RunsCalls, S>({
      async save(_msg, ctx) {
        const s = needSession(ctx.state);
        // on the GPU: its state comes back first (no step in flight: a good state too)
        const bytes = await onGpuOr(ctx, (b) => b.save(), () => s.save());
        return { step: s.step(), bytes };
      },
      async saveToDb(msg, ctx) {
        const s = needSession(ctx.state);
        const bytes = await onGpuOr(ctx, (b) => b.save(), () => s.save());
        const step = s.step();
        // the page opened and upgraded the database before it had a model to save: the same version here
        const db = await openDB(RUNS_DB.name, RUNS_DB.version);
        try {
          const record = await writeSave(db, { ...msg.run, step }, bytes.buffer as ArrayBuffer);
          return { step: record.step, bytes: record.checkpointBytes, savedAt: record.savedAt };
        } finally {
          db.close();
        }
      },
      async load(msg, ctx) {
        const st = ctx.state;
        const M = needModule(st);
        const bytes = new Uint8Array(msg.bytes);
        // Session.load leaves the session as it was on any error; without a session, a temporary
        // one (default config) is made and dropped again if the checkpoint is refused.
        const load = (): Session => {
          const fresh = !st.session;
          const s = st.session ?? new M.Session({});
          try {
            s.load(bytes);
          } catch (e) {
            if (fresh) s.delete();
            throw e;
          }
          return s;
        };
        // on the GPU: between steps, so that a refused checkpoint leaves the run as it was
        const s = await betweenSteps(ctx, load);
        // a checkpoint of the other model kind starts without data: the worker's goes with it when
        // it is of that kind, otherwise the page gives it (ModelInfo.hasCorpus)
        attachCorpus(st, s);
        const info = await installModel(ctx, s, msg.reason === 'resume' ? 'resume' : 'load', msg.name);
        if (!info) throw new Error('the model was replaced while the checkpoint was loading');
        return info;
      },
      async loadSafetensors(msg, ctx) {
        // a new session from the file (the core checks it); the current one stays until it succeeded
        const s = needModule(ctx.state).sessionFromSafetensors(new Uint8Array(msg.bytes));
        attachCorpus(ctx.state, s);
        const info = await installModel(ctx, s, 'load', msg.name);
        if (!info) throw new Error('the model was replaced while the file was loading');
        return info;
      },
      runCurves(msg, ctx) {
        // a stored run's curves: its checkpoint loaded into a session of its own, read and dropped
        const t = new (needModule(ctx.state).Session)({});
        try {
          t.load(new Uint8Array(msg.bytes));
          const h = t.history();
          return { config: t.config(), step: t.step(), train: h.train, valSteps: h.valSteps, valLosses: h.valLosses };
        } finally {
          t.delete();
        }
      },
    }),
  };
}
