// learnTrace: the learn-by-hand trace through the wasm API, against the walkthrough's hand numbers
// (tests/ref/walkthrough.json, the same file the Catch2 and page tests read).
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh simd)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import { loadModule, root, variantsBuilt } from './helpers.mjs';

const hand = JSON.parse(fs.readFileSync(path.join(root, 'tests/ref/walkthrough.json'), 'utf8'));

function entry(trace, name) {
  const e = trace.entries.find((x) => x.name === name);
  assert.ok(e, `the trace has an entry named ${name}`);
  return e;
}

function near(actual, expected, margin, what) {
  assert.ok(Math.abs(actual - expected) <= margin, `${what}: ${actual} is not within ${margin} of ${expected}`);
}

for (const variant of variantsBuilt()) {
  describe(`learnTrace (${variant})`, () => {
    let M;
    before(async () => { M = await loadModule(variant); });

    it("shows the walkthrough's hand-computed numbers", () => {
      const tr = M.learnTrace('walkthrough');
      assert.deepEqual([...entry(tr, 'x').values], hand.x);
      assert.deepEqual([...entry(tr, 'y').values], hand.y);
      const X = entry(tr, 'X');
      assert.deepEqual(X.shape, [1, 3, 2]);
      hand.X.flat().forEach((v, i) => near(X.values[i], v, hand.X_margin, `X[${i}]`));
      const ln = hand.layernorm_row0;
      near(entry(tr, 'ln_1.mean').values[0], ln.mean, ln.stat_margin, 'mean');
      near(entry(tr, 'ln_1.var').values[0], ln.var, ln.stat_margin, 'variance');
      near(entry(tr, 'ln_1.out').values[0], ln.out[0], ln.out_margin, 'LN(X0)[0]');
      near(entry(tr, 'ln_1.out').values[1], ln.out[1], ln.out_margin, 'LN(X0)[1]');
      const att = entry(tr, 'att');
      assert.deepEqual(att.shape, [1, 1, 3, 3]);
      assert.equal(att.values[0], hand.attention.P0[0]);
      assert.equal(att.values[1], hand.attention.P0[1]);
      near(att.values[3], hand.attention.P1[0], hand.attention.P_margin, 'P10');
      near(att.values[4], hand.attention.P1[1], hand.attention.P_margin, 'P11');
      near(entry(tr, 'Y').values[2], hand.attention.Y1[0], hand.attention.Y_margin, 'Y1[0]');
      assert.equal(entry(tr, 'scores + mask').values[1], -Infinity);
      hand.cross_entropy.logits.forEach((v, i) =>
        near(entry(tr, 'logits').values[i], v, hand.cross_entropy.logits_margin, `logits[0, ${i}]`));
      near(entry(tr, 'losses').values[0], hand.cross_entropy.loss, hand.cross_entropy.loss_margin, 'row 0 loss');
      assert.equal(entry(tr, 'd(loss)').values[0], 1);
      assert.ok(tr.entries.findIndex((e) => e.phase === 'backward') > tr.entries.findIndex((e) => e.name === 'loss'));
      for (const e of tr.entries) {
        assert.equal(e.values.length, e.shape.reduce((a, b) => a * b, 1), `${e.name} has shape.numel() values`);
        assert.ok(e.equation && e.function && e.doc && e.node, `${e.name} is described`);
      }
    });

    it('recomputes everything downstream of an edited token, and nothing before it', () => {
      const a = M.learnTrace('walkthrough');
      const b = M.learnTrace('walkthrough', { tokens: [2, 0, 3, 0] });
      assert.deepEqual([...b.model.tokens], [2, 0, 3, 0]);
      for (const name of ['X', 'ln_1.out', 'Y', 'logits']) {
        const ea = entry(a, name).values, eb = entry(b, name).values;
        const row = ea.length / 3;
        assert.deepEqual([...eb.slice(0, row)], [...ea.slice(0, row)], `${name}: position 0 cannot see position 1`);
        assert.notDeepEqual([...eb.slice(row)], [...ea.slice(row)], `${name}: positions 1 and 2 change`);
      }
      assert.notEqual(a.loss, b.loss);
    });

    it('applies a weight edit, and the two-head model has two heads', () => {
      const b = M.learnTrace('walkthrough', { weights: [{ param: 'wpe', index: 0, value: 0.6 }] });
      near(entry(b, 'X').values[0], 0.6, 1e-6, 'X[0,0]');
      const two = M.learnTrace('two-heads');
      assert.equal(two.model.NH, 2);
      assert.deepEqual(entry(two, 'att').shape, [1, 2, 3, 3]);
      assert.deepEqual(entry(two, 'logits').shape, [1, 3, 8]);
    });

    it('refuses bad edits with the core message and stays usable', () => {
      assert.throws(() => M.learnTrace('walkthrough', { tokens: [2, 1, 9, 0] }), /token 9 is outside the vocabulary \[0, 4\)/);
      assert.throws(() => M.learnTrace('walkthrough', { tokens: [2, 1] }), /tokens must be an array of 4 numbers/);
      assert.throws(() => M.learnTrace('walkthrough', { weights: [{ param: 'wte', index: 99, value: 1 }] }), /outside wte \(4, 2\)/);
      assert.throws(() => M.learnTrace('big'), /"walkthrough" or "two-heads"/);
      near(M.learnTrace('walkthrough').loss, M.learnTrace('walkthrough').loss, 0, 'the same trace after errors');
    });
  });
}
