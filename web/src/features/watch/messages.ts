// messages.ts — watch it learn: the run's history of snapshots (the core's watch.h), the
// step-through generation tree.
import type { Baselines, EmbeddingNeighbours, GenerationNode, WatchHistory } from '../../../../wasm/tinygpt';

/** Entropy baselines of the training data (watch.h): nats per byte and bits. */
export type { Baselines };

/**
 * The run's history (wasm watchHistory: its layout, probe, baselines and the snapshots after a
 * step), sent whole (`reset`) or the snapshots the page has not seen, with every mapped byte's
 * nearest bytes (cosine, full embedding space) at the weights of `neighbours.step`.
 */
export interface WatchMsg extends Omit<WatchHistory, 'budgetBytes'> {
  reset: boolean;
  neighbours: EmbeddingNeighbours;
}

/** A node of the step-through generation tree (wasm GenerationTree.node). */
export type TreeNode = GenerationNode;

export interface Tree {
  id: number;
  step: number;             // the model step the tree was grown at
  prompt: Uint8Array;
  nodes: TreeNode[];
  selected: number;         // the node just grown (0 after treeStart)
  positionsComputed: number;  // positions the model computed: how much the KV caches saved
}

export interface WatchCalls {
  /** Step-through generation: a new branch tree from a prompt (transferred), top-k candidates per node. */
  treeStart(msg: { id: number; prompt: ArrayBuffer; topK: number }): Tree;
  /** Grows node `node` of tree `id` by `token` (the existing child when there is one). */
  treeExtend(msg: { id: number; node: number; token: number }): Tree;
}

export interface WatchEvents {
  watch: WatchMsg;
}
