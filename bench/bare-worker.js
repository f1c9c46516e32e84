// bare-worker.js — bench/page.mjs's "bare worker" part: a module worker of the page's origin
// (served by the bench, never by the app) that loads one of the page's wasm builds and trains
// config S in plain Session.advance calls, with no app around it (no page script, no worker
// registry, no slices, no progress events): what the same build does in the same Chromium.
// ?variant=threads|simd&threads=N&steps=N; posts { msPerStep, threads, tokensPerStep, config } or { error }.
// &kernels=1: then `steps` more steps with the kernels' timers on (Session's setKernelProfiling), and
// their per-kernel wall ms a step in `kernels` ([{ name, calls, ms }], as bench/pool-child.cjs reads them in Node).
// The bench loads it afresh for every measurement, alternating builds and counts.
globalThis.importScripts ??= () => { throw new Error('importScripts is not available in a module worker'); };
const S = { n_layer: 4, n_head: 4, n_embd: 128, block_size: 64, batch_size: 12, max_iters: 100000, warmup_iters: 10, eval_interval: 0 };
const q = new URLSearchParams(location.search);
const variant = q.get('variant') ?? 'threads';
const threads = Number(q.get('threads') ?? 1), steps = Number(q.get('steps') ?? 10);
(async () => {
  try {
    const corpus = new Uint8Array(await (await fetch('/data/tinyshakespeare.txt')).arrayBuffer());
    const M = await (await import(`/wasm/tinygpt-${variant}.js`)).default();
    if (variant === 'threads') M.setThreads(threads);
    const s = new M.Session(S);
    s.setCorpus(corpus);
    s.advance(3, 0);   // warm-up
    const t0 = performance.now();
    s.advance(steps, 0);
    const msPerStep = (performance.now() - t0) / steps;
    let kernels;
    if (q.get('kernels') === '1') {
      M.setKernelProfiling(true);
      M.kernelTimings();  // resets them
      s.advance(steps, 0);
      kernels = M.kernelTimings().map((k) => ({ name: k.name, calls: k.calls / steps, ms: k.ms / steps }));
      M.setKernelProfiling(false);
    }
    postMessage({ msPerStep, threads: M.numThreads(), tokensPerStep: S.batch_size * S.block_size, config: S, kernels });
    s.delete();
  } catch (e) {
    postMessage({ error: String((e && e.stack) || e) });
  }
})();
