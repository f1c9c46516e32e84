// Child process for threads.test.mjs: loads the Node pthreads build, trains the same model
// with 1 and 2 threads, prints the results as JSON and exits (the pthread workers would
// otherwise keep the process alive).
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '../..');
const modulePath = path.join(root, 'build/wasm-node/tinygpt-threads-node.cjs');
const corpus = new Uint8Array(fs.readFileSync(path.join(root, 'data/tinyshakespeare.txt')));
const CONFIG = { n_layer: 2, n_head: 4, n_embd: 64, block_size: 32, batch_size: 6, max_iters: 50, warmup_iters: 5, seed: 3, eval_interval: 0 };

(async () => {
  const M = await require(modulePath)({ wasmBinary: fs.readFileSync(modulePath.replace(/\.cjs$/, '.wasm')) });
  const losses = (threads) => {
    M.setThreads(threads);
    const s = new M.Session(CONFIG);
    s.setCorpus(corpus);
    const l = Array.from(s.advance(8, 0).losses);
    s.delete();
    return l;
  };
  const one = losses(1);
  const two = losses(2);
  process.stdout.write(JSON.stringify({ backend: M.backend(), maxThreads: M.maxThreads(), one, two }) + '\n');
  process.exit(0);
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
