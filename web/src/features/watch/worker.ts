// worker.ts (watch) — the run's history (kept by the core, in checkpoints): the worker sends the
// page the snapshots it has not seen yet; and the step-through generation tree.
import type { GenerationTree } from '../../../../wasm/tinygpt';
import { codedError } from '../../lib/coded';
import { type Ctx, handlers, type WorkerFeature } from '../../worker/registry';
import { needModule, needSession } from '../../worker/state';
import type { SessionState } from '../session/worker';
import { onGpuOr, type WebgpuState } from '../webgpu/worker';
import type { Tree, TreeNode, WatchCalls, WatchMsg } from './messages';

const NEIGHBOURS = 5;          // nearest bytes listed for each byte of the embedding map

export interface WatchState extends SessionState, WebgpuState {
  watchSent: number;           // the step of the last snapshot sent
  watchTotal: number;          // snapshots the page holds
  tree: GenerationTree | null;
  treeId: number;
}

export const initialWatch = (): Pick<WatchState, 'watchSent' | 'watchTotal' | 'tree' | 'treeId'> => ({ watchSent: -1, watchTotal: 0, tree: null, treeId: 0 });

/** Starts the history of a session that has data and none yet (a new run, or a checkpoint without one). */
function ensureHistory(st: WatchState): void {
  const s = st.session;
  const M = needModule(st);
  if (!s || !st.keepHistory || !s.hasCorpus() || M.watchHistory(s, Number.MAX_VALUE).enabled) return;
  try {
    M.watchStartHistory(s, null, null);
  } catch {
    // a model whose maps are too large for the history's budget trains without one; the views say so
  }
}

/** Sends the snapshots the page has not seen (all of them when `reset`). */
function sendWatch(ctx: Ctx<WatchState>, reset: boolean): void {
  const st = ctx.state;
  const s = st.session;
  if (!s) return;
  const M = needModule(st);
  const h = M.watchHistory(s, reset ? -1 : st.watchSent);
  if (!reset && h.steps.length === 0) return;
  // past its budget the core drops every second snapshot: the page gets the whole history again
  if (!reset && h.total !== st.watchTotal + h.steps.length) return sendWatch(ctx, true);
  st.watchSent = h.steps.length ? h.steps[h.steps.length - 1] : -1;
  st.watchTotal = h.total;
  // the map's hover shows neighbours measured in the full embedding space (not on the 2-D map)
  const { budgetBytes: _budget, ...history } = h;
  ctx.emit('watch', { ...history, reset, neighbours: M.watchNeighbours(s, NEIGHBOURS) } satisfies WatchMsg);
}

function dropTree(st: WatchState): void {
  st.tree?.delete();
  st.tree = null;
}

function treeOf(st: WatchState, selected: number): Tree {
  const t = st.tree!;
  const nodes: TreeNode[] = [];
  for (let i = 0; i < t.size(); i++) nodes.push(t.node(i));
  return { id: st.treeId, step: t.step(), prompt: t.text(0), nodes, selected, positionsComputed: t.positionsComputed() };
}

/** A new history for a model or a text: started if needed, sent whole. */
function restart(ctx: Ctx<WatchState>): void {
  ensureHistory(ctx.state);
  sendWatch(ctx, true);
}

export function watchWorker(): WorkerFeature<WatchState> {
  return {
    name: 'watch',
    initial: initialWatch,
    handlers: handlers<WatchCalls, WatchState>({
      treeStart(msg, ctx) {
        const st = ctx.state;
        const s = needSession(st);
        const grow = (): Tree => {
          dropTree(st);
          st.tree = needModule(st).growGenerationTree(s, new Uint8Array(msg.prompt), msg.topK);
          st.treeId = msg.id;
          return treeOf(st, 0);
        };
        // on the GPU the host's weights are those of its last sync: bring the GPU's back first
        return onGpuOr(ctx, (b) => b.syncHost().then(grow), grow);
      },
      treeExtend(msg, ctx) {
        const st = ctx.state;
        const t = st.tree;
        if (!t || msg.id !== st.treeId) throw codedError('worker.tree_gone', 'that generation tree is gone: begin again');
        if (!t.current()) {
          throw codedError('worker.tree_stale', `the model has trained since this tree was grown (step ${t.step()}): begin again`, { step: t.step() });
        }
        return treeOf(st, t.extend(msg.node, msg.token));
      },
    }),
    hooks: {
      modelGone: (ctx) => dropTree(ctx.state),
      modelShown: restart,
      // a new text: new baselines (the core keeps the probe and the snapshots so far)
      corpusSet: (ctx, live) => void (live && restart(ctx)),
      slice(ctx, r) {
        if (r.rollbacks.length) sendWatch(ctx, true);   // the NaN guard dropped later snapshots
        else if (r.evals.length) sendWatch(ctx, false);
      },
      snapshotTaken: (ctx) => sendWatch(ctx, false),
      gpuLost: (ctx, rewound) => void (rewound && sendWatch(ctx, true)),   // snapshots after the good state went with it
    },
  };
}
