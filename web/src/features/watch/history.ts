// history.ts (watch) — the run's history of snapshots as the page keeps it (the core computes
// every number: wasm watchHistory, core/include/tinygpt/watch.h). Append-only like the loss
// history: the worker sends the snapshots the page has not seen, `watchRev` in the store announces
// growth, and an event with `reset` (a new model, a checkpoint, a new text, a rollback) replaces it.
import type { ModelKind } from '../../lib/model-kind';
import type { Baselines, WatchMsg } from './messages';

export interface Snapshot {
  step: number;
  attention: Uint8Array;     // (A) quantised: q = round(255 sqrt(p)); gpt: (L, NH, T(T+1)/2) packed causal rows
  embedding: Float32Array;   // (N, 2)
  probeLoss: Float32Array;   // (T) nats; NaN at t = 0
  positionLoss: Float32Array; // (P) nats
}

export class Snapshots {
  enabled = false;
  kind: ModelKind = 'gpt';
  L = 0; NH = 0; T = 0; N = 0; P = 0; A = 0;
  Le = 0; S = 0;                   // seq2seq: encoder layers, the probe's source length
  probe = new Uint8Array(0);       // gpt: the probe text (T); seq2seq: the probe's target (T - 1)
  probeSource = new Uint8Array(0); // seq2seq: the probe's source (S)
  /** Nearest bytes in the full embedding space (cosine) at the weights of `step`: index (N, k) into `bytes`. */
  neighbours: WatchMsg['neighbours'] = { k: 0, step: 0, index: new Int32Array(0), similarity: new Float32Array(0) };
  bytes = new Uint8Array(0);       // (N) byte values on the embedding map
  // a BPE language model's history is in tokens: the probe's and the map's, by their text (empty for bytes)
  probeLabels: string[] = [];      // (T)
  mapLabels: string[] = [];        // (N)
  mapTokens = new Int32Array(0);   // (N) their ids
  baselines: Baselines | null = null;
  sizeBytes = 0;
  readonly snapshots: Snapshot[] = [];

  /** A message from the worker: replaces (reset) or extends this history; returns the history to keep. */
  static apply(prev: Snapshots | null, m: WatchMsg): Snapshots {
    const h = m.reset || !prev ? new Snapshots() : prev;
    if (m.reset || !prev) {
      Object.assign(h, { enabled: m.enabled, kind: m.kind, L: m.L, NH: m.NH, T: m.T, N: m.N, P: m.P, A: m.attentionBytes, probe: m.probe, bytes: m.bytes, Le: m.Le, S: m.S, probeSource: m.probeSource,
        probeLabels: m.probeLabels ?? [], mapLabels: m.mapLabels ?? [], mapTokens: m.mapTokens ?? new Int32Array(0) });
    }
    h.neighbours = m.neighbours;
    h.baselines = m.baselines;
    h.sizeBytes = m.sizeBytes;
    for (let k = 0; k < m.steps.length; k++) {
      h.snapshots.push({
        step: m.steps[k],
        attention: m.attention.subarray(k * h.A, (k + 1) * h.A),
        embedding: m.embedding.subarray(k * h.N * 2, (k + 1) * h.N * 2),
        probeLoss: m.probeLoss.subarray(k * h.T, (k + 1) * h.T),
        positionLoss: m.positionLoss.subarray(k * h.P, (k + 1) * h.P),
      });
    }
    return h;
  }

  /** Offset of the cross-attention map (T, S) of decoder layer l, head hd in a snapshot (seq2seq: stored first). */
  crossOffset(l: number, hd: number): number {
    return (l * this.NH + hd) * this.T * this.S;
  }

  /** The k nearest bytes (indices into `bytes`) of byte n in the full embedding space, with their cosines. */
  nearest(n: number, k: number): { index: number; cosine: number }[] {
    const nb = this.neighbours;
    const out = [];
    for (let r = 0; r < Math.min(k, nb.k) && n >= 0 && n < this.N; r++) out.push({ index: nb.index[n * nb.k + r], cosine: nb.similarity[n * nb.k + r] });
    return out;
  }

  /**
   * Where each row of a cross-attention map looks most (seq2seq): for rows q < T, the source
   * position with the largest stored weight (ties: the first); heads averaged when hd is 'all'.
   */
  crossPeaks(snap: Snapshot, l: number, hd: number | 'all'): number[] {
    const heads = hd === 'all' ? [...Array(this.NH).keys()] : [hd];
    const peaks: number[] = [];
    for (let q = 0; q < this.T; q++) {
      let best = 0, bestW = -1;
      for (let k = 0; k < this.S; k++) {
        let w = 0;
        for (const x of heads) w += (snap.attention[this.crossOffset(l, x) + q * this.S + k] / 255) ** 2;   // dequantised
        if (w > bestW) [best, bestW] = [k, w];
      }
      peaks.push(best);
    }
    return peaks;
  }

  /** Offset of the map of layer l, head hd in a snapshot's attention (gpt). */
  mapOffset(l: number, hd: number): number {
    return (l * this.NH + hd) * ((this.T * (this.T + 1)) / 2);
  }
}
