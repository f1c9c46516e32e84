// The "watch it learn" API of the WebAssembly module (issue 15; core/include/tinygpt/watch.h):
// entropy baselines, the run's history of snapshots (kept in checkpoints), the branch tree of
// step-through generation. Run: node --test tests/wasm/   (after scripts/build-wasm.sh simd)
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';

import { loadModule, shakespeare, variantsBuilt } from './helpers.mjs';

const enc = new TextEncoder();
const TINY = { n_layer: 2, n_head: 2, n_embd: 32, block_size: 16, batch_size: 4, max_iters: 20, warmup_iters: 2, eval_interval: 5, eval_iters: 2, seed: 3 };

const variant = variantsBuilt()[0];
assert.ok(variant, 'no wasm variant built (scripts/build-wasm.sh simd)');

describe(`watch API (tinygpt-${variant})`, () => {
  let M;
  before(async () => { M = await loadModule(variant); });

  it('gives the entropy baselines of a hand-made text: "abab..." has bigram entropy 0 and unigram ln 2', () => {
    const s = new M.Session({ ...TINY, block_size: 8 });
    try {
      s.setCorpus(enc.encode('ab'.repeat(400)));
      const b = M.watchBaselines(s);
      assert.ok(Math.abs(b.unigram - Math.LN2) < 1e-9, `unigram ${b.unigram}`);
      assert.ok(Math.abs(b.bigram) < 1e-9, `bigram ${b.bigram}`);
      assert.ok(Math.abs(b.uniform - Math.LN2) < 1e-9);
      assert.ok(Math.abs(b.unigramBits - 1) < 1e-9);
      assert.equal(b.distinct, 2);
      assert.equal(b.tokens, 720);  // the training split: 90% of 800 bytes
    } finally { s.delete(); }
  });

  it('records a snapshot at every evaluation, keeps it in the checkpoint, and sends only the new ones after a step', () => {
    const s = new M.Session(TINY);
    try {
      s.setCorpus(shakespeare.subarray(0, 20000));
      M.watchStartHistory(s, null, null);
      let h = M.watchHistory(s, -1);
      assert.equal(h.enabled, true);
      assert.equal(h.kind, 'gpt');
      assert.equal(h.T, 16);  // min(64, block_size)
      assert.equal(h.probe.length, 16);
      assert.equal(h.attentionBytes, 2 * 2 * (16 * 17) / 2);
      assert.equal(h.total, 0);
      const r = s.advance(20, 0);
      assert.deepEqual(r.evals.map((e) => e.step), [0, 5, 10, 15, 20]);
      for (const e of r.evals) assert.ok(e.snapshotMs > 0 && e.snapshotMs <= e.ms);
      h = M.watchHistory(s, -1);
      assert.deepEqual([...h.steps], [0, 5, 10, 15, 20]);
      assert.equal(h.attention.length, 5 * h.attentionBytes);
      assert.equal(h.embedding.length, 5 * h.N * 2);
      assert.equal(h.probeLoss.length, 5 * h.T);
      assert.equal(h.positionLoss.length, 5 * h.P);
      assert.ok(Number.isNaN(h.probeLoss[0]), 'no loss for the first probe byte');
      // an untrained model is close to uniform over 256 bytes: every loss near ln 256
      for (let t = 1; t < h.T; t++) assert.ok(Math.abs(h.probeLoss[t] - Math.log(256)) < 0.3, `probe loss ${h.probeLoss[t]}`);
      // each packed causal row of a dequantised map sums to about 1 (quantisation error only)
      const row3 = [0, 1, 2, 3].map((k) => (h.attention[6 + k] / 255) ** 2);
      assert.ok(Math.abs(row3.reduce((a, b) => a + b) - 1) < 0.05, `row sums to ${row3}`);
      const later = M.watchHistory(s, 10);
      assert.deepEqual([...later.steps], [15, 20]);
      assert.equal(later.total, 5);
      assert.deepEqual([...later.probeLoss], [...h.probeLoss.subarray(3 * h.T)]);

      const ckpt = s.save();
      assert.equal(M.describeCheckpoint(ckpt).historySnapshots, 5);
      const s2 = new M.Session({});
      try {
        s2.load(ckpt);
        const h2 = M.watchHistory(s2, -1);
        assert.deepEqual([...h2.steps], [...h.steps]);
        assert.deepEqual([...h2.attention], [...h.attention]);
        assert.deepEqual([...h2.embedding], [...h.embedding]);
        assert.deepEqual([...h2.probe], [...h.probe]);
      } finally { s2.delete(); }
      // neighbours in the full embedding space: k per mapped byte, never itself, cosines descending
      const nb = M.watchNeighbours(s, 4);
      assert.equal(nb.k, 4);
      assert.equal(nb.step, 20);
      assert.equal(nb.index.length, h.N * 4);
      for (let i = 0; i < h.N; i++) {
        for (let r = 0; r < 4; r++) {
          assert.notEqual(nb.index[i * 4 + r], i);
          assert.ok(nb.index[i * 4 + r] >= 0 && nb.index[i * 4 + r] < h.N);
          if (r) assert.ok(nb.similarity[i * 4 + r] <= nb.similarity[i * 4 + r - 1]);
        }
      }
      assert.throws(() => M.watchNeighbours(s, -1), /k must be 0 to 256/);
      M.watchStopHistory(s);
      assert.equal(M.watchHistory(s, -1).enabled, false);
      assert.equal(M.describeCheckpoint(s.save()).historySnapshots, 0);
    } finally { s.delete(); }
  });

  it('refuses a history without a corpus with the core\'s message, and the session stays usable', () => {
    const s = new M.Session(TINY);
    try {
      assert.throws(() => M.watchStartHistory(s, null, null), /corpus|text|data/i);
      s.setCorpus(shakespeare.subarray(0, 20000));
      M.watchStartHistory(s, enc.encode('To be, or not'), null);
      assert.equal(new TextDecoder().decode(M.watchHistory(s, -1).probe), 'To be, or not');
    } finally { s.delete(); }
  });

  it('grows a branch tree: top-k at each node, children reused, the text of a path, stale after training', () => {
    const s = new M.Session({ ...TINY, max_iters: 40 });
    try {
      s.setCorpus(shakespeare.subarray(0, 20000));
      s.advance(10, 0);
      const t = M.growGenerationTree(s, enc.encode('Th'), 4);
      try {
        const root = t.node(0);
        assert.equal(root.parent, -1);
        assert.equal(root.topTokens.length, 4);
        for (let i = 1; i < 4; i++) assert.ok(root.topProbs[i - 1] >= root.topProbs[i]);
        const a = t.extend(0, root.topTokens[0]);
        const b = t.extend(0, root.topTokens[1]);   // a second branch at the root
        assert.notEqual(a, b);
        assert.equal(t.extend(0, root.topTokens[0]), a, 'an existing child is reused');
        const a2 = t.extend(a, t.node(a).topTokens[0]);
        assert.deepEqual([...t.node(0).children], [a, b]);
        assert.equal(t.node(a2).parent, a);
        assert.ok(Math.abs(t.node(a).prob - root.topProbs[0]) < 1e-6);
        assert.deepEqual([...t.text(a2)], [...enc.encode('Th'), root.topTokens[0], t.node(a).topTokens[0]]);
        assert.equal(t.size(), 4);
        // the prompt (2) + one position per grown node: the caches saved re-reading the prefix
        assert.ok(t.positionsComputed() <= 2 + 3 + 2, `positions ${t.positionsComputed()}`);
        assert.throws(() => t.extend(0, 256), /token|byte|range/i);
        assert.throws(() => t.node(99), /node/i);
        s.advance(1, 0);
        assert.equal(t.current(), false);
        assert.throws(() => t.extend(a2, 65), /trained since/);
      } finally { t.delete(); }
    } finally { s.delete(); }
  });
});
