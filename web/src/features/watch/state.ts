// state.ts (watch) — the run's history of snapshots, the step-through tree, the runs compared.
import type { RunCurves } from '../runs';
import type { Snapshots } from './history';
import type { Tree } from './messages';

export interface WatchSlice {
  watch: Snapshots | null;                // the run's history of snapshots; `watchRev` announces growth
  watchRev: number;
  tree: Tree | null;                      // step-through generation
  treeSelected: number;
  treeNote: string;                       // worded when set (the views show it as it is)
  compare: Record<string, RunCurves>;     // stored runs' curves loaded for "compare runs", by run id
  compareNote: string;
}
