// worker.ts (runs) — checkpoints: saved from the live model (on the GPU its state comes back
// first), loaded over it (a refused one leaves it as it was), read for their curves.
import { type IDBPDatabase, openDB } from 'idb';

import type { Session } from '../../../../wasm/tinygpt';
import { type KeeperReply, type KeeperSave, RUNS_DB, type SaveBase, saveErrorText, writeSave, writeSaveAtOnce } from '../../lib/runs-db';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { needModule, needSession } from '../../worker/state';
import { attachCorpus } from '../data/worker';
import { installModel, type SessionState } from '../session/worker';
import { betweenSteps, onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { RunsCalls } from './messages';

/** The keeper's end (features/runs/keeper.ts): the saves handed to it, waiting for its word. */
interface Keeper { port: MessagePort; seq: number; waiting: Map<number, (r: KeeperReply) => void> }

/**
 * The worker's own connection to the runs' database, opened once the page has opened (and
 * upgraded) it, and the keeper the page started, where there is one.
 */
export interface RunsState { runsDb: Promise<IDBPDatabase> | null; keeper: Keeper | null }

type S = SessionState & WebgpuState & RunsState;

/**
 * The connection, opened ahead: a save made when the page goes away has a few hundred ms before the
 * worker goes too, and opening the database the first time takes much of that. Another tab's
 * upgrade of the database closes it (idb's `blocking`); the next save opens it again.
 */
function runsDb(st: RunsState): Promise<IDBPDatabase> {
  if (!st.runsDb) {
    const opened: Promise<IDBPDatabase> = openDB(RUNS_DB.name, RUNS_DB.version, {
      blocking: () => void opened.then((db) => db.close()).finally(() => void (st.runsDb === opened && (st.runsDb = null))),
    });
    st.runsDb = opened;
    opened.catch(() => void (st.runsDb === opened && (st.runsDb = null)));
  }
  return st.runsDb;
}

/** A save handed to the keeper at once (one postMessage, its checkpoint transferred); resolves with its word. */
function handOver(k: Keeper, run: SaveBase, checkpoint: ArrayBuffer, announce: boolean): Promise<{ step: number; bytes: number; savedAt: number }> {
  const seq = ++k.seq;
  const reply = new Promise<KeeperReply>((resolve) => k.waiting.set(seq, resolve));
  k.port.postMessage({ seq, run, checkpoint, announce } satisfies KeeperSave, [checkpoint]);
  return reply.then((r) => {
    if (!r.ok) throw new Error(r.error);
    return { step: r.step, bytes: r.bytes, savedAt: r.savedAt };
  });
}

/** The keeper's end of a port: its replies resolve the saves handed to it. */
function keeperAt(port: MessagePort): Keeper {
  const k: Keeper = { port, seq: 0, waiting: new Map() };
  port.onmessage = (e: MessageEvent<KeeperReply>) => {
    k.waiting.get(e.data.seq)?.(e.data);
    k.waiting.delete(e.data.seq);
  };
  return k;
}

/**
 * A save written into IndexedDB from here, not by the page: the checkpoint now, to the keeper at
 * once (or written from here). The page only hears the step, the size and the time: a checkpoint of
 * many MB put into IndexedDB by the page would be cloned on its main thread (bench/soak.mjs found
 * tasks of 200-800 ms there). `hide`: the page goes away; written with every request issued in
 * this task when there is no keeper (lib/runs-db.ts writeSaveAtOnce), announced by the keeper.
 */
async function saveToDb(ctx: Ctx<S>, record: SaveBase, hide: boolean): Promise<{ step: number; bytes: number; savedAt: number }> {
  const s = needSession(ctx.state);
  const bytes = await onGpuOr(ctx, (b) => b.save(), () => s.save());
  const run = { ...record, step: s.step() };
  if (ctx.state.keeper) return handOver(ctx.state.keeper, run, bytes.buffer as ArrayBuffer, hide);
  try {
    // no keeper: the page going away gets every request issued in this task (it may be gone, and
    // this worker runs no later task then; mostly it lands); a periodic save reads the stored
    // record first (the name the person gave the run, a later save already there)
    const db = await runsDb(ctx.state);
    const saved = hide ? await writeSaveAtOnce(db, run, bytes.buffer as ArrayBuffer) : await writeSave(db, run, bytes.buffer as ArrayBuffer);
    return { step: saved.step, bytes: saved.checkpointBytes, savedAt: saved.savedAt };
  } catch (e) {
    throw new Error(saveErrorText(e));   // a full storage stays recognisable on the page (isQuotaError)
  }
}

export function runsWorker(): WorkerFeature<S> {
  return {
    name: 'runs',
    initial: () => ({ runsDb: null, keeper: null }),
    handlers: handlers<RunsCalls, S>({
      openRunsDb: async (_msg, ctx) => void (await runsDb(ctx.state)),
      useKeeper: (msg, ctx) => void (ctx.state.keeper = keeperAt(msg.port)),
      async save(_msg, ctx) {
        const s = needSession(ctx.state);
        // on the GPU: its state comes back first (no step in flight: a good state too)
        const bytes = await onGpuOr(ctx, (b) => b.save(), () => s.save());
        return { step: s.step(), bytes };
      },
      saveToDb: (msg, ctx) => saveToDb(ctx, msg.run, msg.hide),
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
          return { config: t.config(), step: t.step(), train: h.train, valSteps: h.valSteps, valLosses: h.valLosses, tokensPerByte: h.tokensPerByte };
        } finally {
          t.delete();
        }
      },
    }),
  };
}
