// messages.ts — watch it learn: the run's history of snapshots (the core's watch.h), the
// step-through generation tree.

/** Entropy baselines of the training data (watch.h), nats and bits per byte. */
export interface Baselines {
  unigram: number; bigram: number; uniform: number;
  unigramBits: number; bigramBits: number; uniformBits: number;
  distinct: number; tokens: number;
}

/** The run's history of snapshots (wasm watchHistory): the whole of it (`reset`) or the snapshots after the last event. */
export interface WatchMsg {
  reset: boolean;
  enabled: boolean;
  kind: 'gpt' | 'seq2seq';
  L: number; NH: number; T: number; N: number; P: number;
  Le: number; S: number;    // seq2seq: encoder layers, source length of the probe pair
  attentionBytes: number;   // A: per snapshot
  probe: Uint8Array;        // (T) gpt probe text; seq2seq: the probe's target (T - 1)
  probeSource: Uint8Array;  // (S) seq2seq: the probe's source
  /** Every mapped byte's nearest (cosine, full embedding space) at the weights of `step` (wasm watchNeighbours). */
  neighbours: { k: number; step: number; index: Int32Array; similarity: Float32Array };
  bytes: Uint8Array;        // (N) byte values on the embedding map
  baselines: Baselines;
  total: number;            // snapshots kept in the core (after this event)
  sizeBytes: number;
  steps: Float64Array;      // (K) these snapshots' steps
  attention: Uint8Array;    // (K, A) quantised: q = round(255 sqrt(p)), causal rows packed
  embedding: Float32Array;  // (K, N, 2)
  probeLoss: Float32Array;  // (K, T) nats; NaN at t = 0
  positionLoss: Float32Array; // (K, P) nats
}

/** A node of the step-through generation tree (wasm GenerationTree.node). */
export interface TreeNode {
  id: number;
  parent: number;
  token: number;            // the byte this node appends (-1: the prompt)
  prob: number;             // p(token | parent's text)
  depth: number;
  topTokens: Int32Array;    // (k) likeliest next bytes
  topProbs: Float32Array;   // (k)
  children: Int32Array;
}

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
