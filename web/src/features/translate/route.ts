// route.ts (translate) — where a translation runs while the model trains on WebGPU, chosen by measurement.
//
// Two routes give the same decoding (the core keeps the rules either way; the GPU's logits agree
// with the CPU's to rounding):
//   - 'gpu':  the GPU's decoder. Greedy runs in one submission; sampling and the beam cost a
//             submission and a readback per token (all rows at once on the KV cache; a beam wider
//             than the plan's rows, one submission per live row).
//   - 'host': the GPU's weights come back to the wasm Session (only when the GPU has stepped
//             since they last came back), which translates on the CPU.
// For the s2s presets on an H100 the host was 2–10× faster for sampling and the beam
// (docs/webgpu.md §8); a large model on a slow CPU can turn that around. So each route is timed
// where it runs, per decoding mode, in ms per row-token (the cost grows with the beam and the
// output), and the bringing back separately (it is paid once per change of the weights). The
// first translation of a mode runs on the GPU, the next on the host; after that the cheaper
// estimate wins, and every EXPLORE_EVERY-th translation of a mode takes the other route so
// that a stale estimate (a first, cold run; the machine's load) is measured again.

export type Mode = 'greedy' | 'sampled' | 'beam';
export type Route = 'gpu' | 'host';

const EXPLORE_EVERY = 16;
const KEEP = 0.5;   // weight of the previous estimate when a route is measured again

/** What a translation costs: rows decoded in parallel (the beam) × the tokens expected (source + end). */
export const units = (rows: number, sourceBytes: number): number => Math.max(1, rows) * (sourceBytes + 1);

export class TranslateRouter {
  private readonly perUnit: Record<Route, Map<Mode, number>> = { gpu: new Map(), host: new Map() };
  private syncMs: number | null = null;   // bringing the weights back, the last time it was needed
  private readonly count = new Map<Mode, number>();

  /** The route for a translation of `mode` costing `n` units; hostCurrent: the host holds the GPU's weights.
   *  why: 'measure' while a route is measured (first or again), 'faster' the cheaper estimate. */
  choose(mode: Mode, n: number, hostCurrent: boolean): { route: Route; why: 'measure' | 'faster' } {
    const k = (this.count.get(mode) ?? 0) + 1;
    this.count.set(mode, k);
    const gpu = this.perUnit.gpu.get(mode), host = this.perUnit.host.get(mode);
    if (gpu === undefined) return { route: 'gpu', why: 'measure' };
    if (host === undefined) return { route: 'host', why: 'measure' };
    const best: Route = this.estimate('host', mode, n, hostCurrent)! < gpu * n ? 'host' : 'gpu';
    if (k % EXPLORE_EVERY === 0) return { route: best === 'gpu' ? 'host' : 'gpu', why: 'measure' };
    return { route: best, why: 'faster' };
  }

  /** The expected ms of a route (null before it was measured); the host's includes the weights' return when due. */
  estimate(route: Route, mode: Mode, n: number, hostCurrent: boolean): number | null {
    const per = this.perUnit[route].get(mode);
    if (per === undefined) return null;
    return per * n + (route === 'host' && !hostCurrent ? this.syncMs ?? 0 : 0);
  }

  /** A translation took `ms` on `route` (the host's without the weights' return). */
  record(route: Route, mode: Mode, ms: number, n: number): void {
    const m = this.perUnit[route], was = m.get(mode), now = ms / Math.max(1, n);
    m.set(mode, was === undefined ? now : KEEP * was + (1 - KEEP) * now);
  }

  /** Bringing the GPU's weights back took `ms`. */
  recordSync(ms: number): void {
    this.syncMs = this.syncMs === null ? ms : KEEP * this.syncMs + (1 - KEEP) * ms;
  }
}
