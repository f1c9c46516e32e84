// The WebAssembly module under Node: API behaviour, parity with the native core, checkpoints
// that cross between native and wasm, and errors that leave the module usable.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, before } from 'node:test';

import { loadModule, readCheckpoint, relErr, runCli, shakespeare, tmpPath, variantsBuilt } from './helpers.mjs';

const enc = new TextEncoder();

// A small model that trains in a second: used for native parity and checkpoints.
const SMALL = {
  n_layer: 2, n_head: 4, n_embd: 64, block_size: 32, batch_size: 4, max_iters: 30, warmup_iters: 5, learning_rate: 3e-3,
  min_lr: 3e-4, seed: 7, eval_interval: 0,
};
// the same config as CLI flags: one name per knob in both places
const SMALL_CLI = [...Object.entries(SMALL).map(([k, v]) => `--${k}=${v}`), '--threads', '1'];

// Native reference runs, made once: 30 steps straight, and a checkpoint at step 20.
let native;
before(() => {
  const straight = tmpPath('straight.ckpt');
  runCli(['train', ...SMALL_CLI, '--out', straight]);
  const at20 = tmpPath('at20.ckpt');
  runCli(['train', ...SMALL_CLI, '--until', '20', '--out', at20]);
  native = {
    straight: readCheckpoint(new Uint8Array(fs.readFileSync(straight))),
    at20Bytes: new Uint8Array(fs.readFileSync(at20)),
  };
});

const variants = variantsBuilt();
assert.ok(variants.includes('simd') && variants.includes('scalar'), `wasm variants missing (built: ${variants})`);

for (const variant of variants) {
  describe(`tinygpt-${variant}`, () => {
    let M;
    before(async () => { M = await loadModule(variant); });

    it('reports the SIMD backend it was compiled with', () => {
      assert.equal(M.backend(), variant === 'scalar' ? 'scalar' : 'simd128');
    });

    it('starts at a loss of about ln(256)', () => {
      const s = new M.Session({ eval_iters: 4 });  // config S
      s.setCorpus(shakespeare);
      assert.ok(Math.abs(s.evaluate() - Math.log(256)) < 0.1);
      s.delete();
    });

    it('follows the native core\'s losses for 20 steps within 1e-4 relative', (t) => {
      const s = new M.Session(SMALL);
      s.setCorpus(shakespeare);
      const { losses } = s.advance(20, 0);
      let worst = 0;
      for (let i = 0; i < 20; i++) {
        const e = relErr(losses[i], native.straight.trainLosses[i]);
        worst = Math.max(worst, e);
        assert.ok(e < 1e-4, `step ${i}: wasm ${losses[i]} native ${native.straight.trainLosses[i]} (rel ${e})`);
      }
      t.diagnostic(`parity ${variant} vs native: max relative loss difference over 20 steps ${worst.toExponential(2)}`);
      s.delete();
    });

    it('resumes a native checkpoint, and its own checkpoints resume bit for bit', () => {
      const s = new M.Session({});  // any config: load() replaces it
      s.setCorpus(shakespeare);
      s.load(native.at20Bytes);
      assert.equal(s.step(), 20);
      assert.deepEqual(s.config().n_layer, 2);
      assert.ok(s.corpusMatchesCheckpoint());
      // continue 5 steps in wasm: close to what native did in steps 21..25
      const first = s.advance(5, 0).losses;
      for (let i = 0; i < 5; i++) assert.ok(relErr(first[i], native.straight.trainLosses[20 + i]) < 1e-4);
      const at25 = s.save();
      const straight = s.advance(5, 0).losses;  // 26..30 without stopping
      // save/load inside wasm: identical losses
      const t = new M.Session({});
      t.setCorpus(shakespeare);
      t.load(at25);
      const resumed = t.advance(5, 0).losses;
      assert.deepEqual(Array.from(resumed), Array.from(straight));
      // and the wasm checkpoint goes back to the native CLI, which finishes the schedule
      const path25 = tmpPath('at25.ckpt');
      fs.writeFileSync(path25, at25);
      const out30 = tmpPath('at30.ckpt');
      runCli(['train', '--resume', path25, '--eval_interval', '0', '--threads', '1', '--out', out30]);
      const back = readCheckpoint(new Uint8Array(fs.readFileSync(out30)));
      assert.equal(back.step, 30);
      for (let i = 25; i < 30; i++) assert.ok(relErr(back.trainLosses[i], straight[i - 25]) < 1e-4);
      s.delete();
      t.delete();
    });

    it('throws Errors with clear messages and keeps working afterwards', () => {
      const bad = [
        [{ n_head: 3, n_embd: 128 }, /n_embd 128 is not divisible by n_head 3/],
        [{ n_layer: 0 }, /n_layer must be in \[1, 96\] \(got 0\)/],
        [{ block_size: -4 }, /block_size must be in \[1, 8192\]/],
        [{ n_layer: 'four' }, /n_layer must be a number/],
        [{ batch_size: 2.5 }, /batch_size must be a whole number/],
        [{ layers: 2 }, /unknown config field 'layers'/],
        [{ n_layer: 48, n_embd: 4096, n_head: 32, block_size: 4096, batch_size: 64 }, /more than the 2048 MiB allowed/],
      ];
      for (const [config, message] of bad) {
        assert.throws(() => new M.Session(config), (e) => e instanceof Error && message.test(e.message));
        const { problems } = M.checkConfig(config);
        assert.ok(problems.length >= 1 && message.test(problems[0].message), `${JSON.stringify(config)}: ${JSON.stringify(problems)}`);
      }
      assert.deepEqual(M.checkConfig({ n_head: 3, n_embd: 128 }).problems.map((p) => p.field), ['n_embd']);
      assert.deepEqual(M.checkConfig(SMALL).problems, []);

      const s = new M.Session(SMALL);
      assert.throws(() => s.advance(1, 0), /no corpus/);
      assert.throws(() => s.setCorpus(new Uint8Array(0)), /corpus is empty/);
      assert.throws(() => s.setCorpus(enc.encode('too short')), /fewer than context \+ 1 = 33/);
      assert.throws(() => s.setCorpus('not bytes'), /must be a Uint8Array/);
      s.setCorpus(shakespeare);
      const good = s.save();
      const corrupt = [
        [new Uint8Array([1, 2, 3]), /only 3 bytes/],
        [enc.encode('This is a text file, clearly not a checkpoint.'), /TGPTCKPT magic/],
        [good.slice(0, good.length - 10), /truncated/],
        [(() => { const b = good.slice(); b[1000] ^= 4; return b; })(), /checksum does not match/],
        [(() => { const b = good.slice(); b[8] = 9; return b; })(), /version 9 is not supported/],
      ];
      for (const [bytes, message] of corrupt) assert.throws(() => s.load(bytes), message);
      // still the same session, still training
      assert.equal(s.step(), 0);
      const r = s.advance(2, 0);
      assert.equal(r.step, 2);
      assert.ok(Number.isFinite(r.losses[1]));
      s.delete();
    });

    it('generates reproducibly for a seed, streamed or at once', () => {
      const s = new M.Session(SMALL);
      s.setCorpus(shakespeare);
      s.advance(10, 0);
      const prompt = enc.encode('ROMEO:');
      const opts = { temperature: 0.9, topK: 40, topP: 0.95, seed: 5 };
      const a = s.generate(prompt, 60, opts);
      const b = s.generate(prompt, 60, opts);
      const c = s.generate(prompt, 60, { ...opts, seed: 6 });
      assert.deepEqual(Array.from(a.bytes), Array.from(b.bytes));
      assert.notDeepEqual(Array.from(a.bytes), Array.from(c.bytes));
      assert.equal(a.topTokens.length, 300);
      assert.deepEqual(Array.from(a.tokens), Array.from(a.bytes));   // a byte model: a token is a byte
      assert.equal(a.ends[59], 60);
      for (let i = 0; i < 60; i++) assert.ok(a.probs[i] > 0 && a.probs[i] <= a.topProbs[5 * i] + 1e-7);
      s.beginGeneration(prompt, opts);
      const streamed = [...s.generateNext(25).bytes, ...s.generateNext(35).bytes];
      assert.deepEqual(streamed, Array.from(a.bytes));
      s.advance(1, 0);
      assert.throws(() => s.generateNext(1), /trained since beginGeneration/);
      s.delete();
    });

    it('returns causal attention rows that sum to 1, as copies', () => {
      const s = new M.Session(SMALL);
      s.setCorpus(shakespeare);
      s.advance(3, 0);
      const r = s.inspect(enc.encode('First Citizen: Before we proceed'));
      assert.equal(r.T, 32);
      assert.equal(r.attention.length, 2 * 4 * 32 * 32);
      assert.equal(r.attention.buffer.byteLength, r.attention.byteLength);  // its own buffer, not wasm memory
      for (let lh = 0; lh < 8; lh++) {
        for (let i = 0; i < 32; i++) {
          let sum = 0;
          for (let j = 0; j < 32; j++) {
            const p = r.attention[(lh * 32 + i) * 32 + j];
            if (j > i) assert.equal(p, 0);
            sum += p;
          }
          assert.ok(Math.abs(sum - 1) < 1e-5);
        }
      }
      const h = s.history();
      assert.equal(h.train.length, 3);
      s.delete();
    });

    it('stops growing its memory after the first step', () => {
      const s = new M.Session({ eval_iters: 2, eval_interval: 0 });  // config S
      s.setCorpus(shakespeare);
      s.evaluate();  // evaluation first, as the page and the CLI do: it must not undersize anything
      s.advance(1, 0);
      const after = M.memoryBytes();
      s.advance(5, 0);
      s.evaluate();
      s.inspect(new TextEncoder().encode('To be, or not to be'));
      s.advance(5, 0);
      assert.equal(M.memoryBytes(), after);
      s.delete();
    });

    if (variant === 'simd') {
      it('takes a 100 MB corpus', () => {
        const big = new Uint8Array(100 * 1024 * 1024);
        for (let i = 0; i < big.length; i += shakespeare.length) big.set(shakespeare.subarray(0, Math.min(shakespeare.length, big.length - i)), i);
        const s = new M.Session({ n_layer: 1, n_head: 2, n_embd: 32, block_size: 32, batch_size: 2, eval_interval: 0 });
        s.setCorpus(big);
        assert.equal(s.corpusSize(), big.length);
        assert.ok(Number.isFinite(s.advance(2, 0).losses[1]));
        assert.ok(M.memoryBytes() > 100 * 1024 * 1024);
        s.delete();
      });
    }
  });
}
