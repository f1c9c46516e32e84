// Child process of bench/pool.mjs: loads the Node pthreads build (build/wasm-node), trains config
// S with each thread count in turn, `rounds` times (A/B in one run: the load of the moment weighs
// on every count alike), and prints one JSON line. Each measurement: a fresh Session, 3 warm-up
// steps, then `steps` timed steps twice: with the pool's counters off (the clean figure) and on
// (where the threads spend the step, and each kernel's wall time). CPU time is the process's (all threads).
//   node bench/pool-child.cjs STEPS ROUNDS THREADS...   (exits itself: the pthread workers would
//   keep Node alive; TINYGPT_POOL_MODULE=path/to/tinygpt-threads-node.cjs loads another build)
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const modulePath = process.env.TINYGPT_POOL_MODULE || path.join(root, 'build/wasm-node/tinygpt-threads-node.cjs');
const corpus = new Uint8Array(fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt')));
const S = { n_layer: 4, n_head: 4, n_embd: 128, block_size: 64, batch_size: 12, max_iters: 1000, warmup_iters: 10, eval_interval: 0 };
const [steps, rounds, ...counts] = process.argv.slice(2).map(Number);

function measure(M, threads) {
  M.setThreads(threads);
  const s = new M.Session(S);
  s.setCorpus(corpus);
  s.advance(3, 0);
  const timed = (profile) => {
    M.setPoolProfiling(profile);
    const kernelTimes = !!M.setKernelProfiling;  // an older build may lack it
    if (kernelTimes) {
      M.setKernelProfiling(profile);
      M.kernelTimings();  // resets them
    }
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = s.advance(steps, 0);
    const wallMs = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const stats = profile ? M.poolStats() : null;
    const kernels = profile && kernelTimes ? M.kernelTimings() : [];
    M.setPoolProfiling(false);
    if (kernelTimes) M.setKernelProfiling(false);
    return { trainMs: r.trainMs, wallMs, cpuMs: (c.user + c.system) / 1000, stats, kernels };
  };
  const plain = timed(false);
  const profiled = timed(true);
  s.delete();
  return { threads, steps, plain, profiled };
}

(async () => {
  const M = await require(modulePath)({ wasmBinary: fs.readFileSync(modulePath.replace(/\.cjs$/, '.wasm')) });
  const runs = [];
  for (let r = 0; r < rounds; r++) for (const t of counts) runs.push({ round: r, ...measure(M, t) });
  process.stdout.write(JSON.stringify({ backend: M.backend(), maxThreads: M.maxThreads(), runs }) + '\n');
  process.exit(0);
})().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + '\n');
  process.exit(1);
});
