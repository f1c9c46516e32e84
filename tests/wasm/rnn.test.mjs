// The recurrent models through the WebAssembly module: an LSTM follows the native core step for
// step, learns, generates, keeps its carried state in checkpoints; the hidden-state view's numbers;
// the LSTM translator learns to reverse strings. The kernels themselves (SIMD128 against the scalar
// twins, finite differences, PyTorch parity) run in the Catch2 suite under Node (test_rnn*.cpp).
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';

import { loadModule, maxAbsDiff, readCheckpoint, relErr, runCli, shakespeare, tmpPath, variantsBuilt } from './helpers.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();
const corpus = shakespeare.subarray(0, 200_000);

let M;
before(async () => { M = await loadModule('simd'); });

const preset = (name, extra = {}) => ({ ...M.presets().find((p) => p.name === name).config, ...extra });

describe('recurrent language models in the module', () => {
  for (const kind of ['rnn', 'gru', 'lstm']) {
    it(`${kind}: follows the native core for 20 steps within 1e-4 relative`, (t) => {
      const config = preset(`${kind}-tiny`, { max_iters: 20, warmup_iters: 2, eval_interval: 0 });
      const data = tmpPath(`${kind}.txt`);
      fs.writeFileSync(data, corpus);
      const out = tmpPath(`${kind}20.ckpt`);
      runCli(['train', ...Object.entries(config).map(([k, v]) => `--${k}=${v}`), '--data', data, '--threads', '1', '--out', out]);
      const native = readCheckpoint(new Uint8Array(fs.readFileSync(out)));
      assert.equal(native.fields.model, kind);
      const s = new M.Session(config);
      s.setCorpus(corpus);
      const { losses } = s.advance(20, 0);
      let worst = 0;
      for (let i = 0; i < 20; i++) worst = Math.max(worst, relErr(losses[i], native.trainLosses[i]));
      t.diagnostic(`${kind} wasm vs native: max relative loss difference over 20 steps ${worst.toExponential(2)}`);
      assert.ok(worst < 1e-4, `worst ${worst}`);
      s.delete();
    });
  }

  it('an LSTM learns, generates from its hidden state, and a stateful run keeps its state in the checkpoint', () => {
    const s = new M.Session(preset('lstm-tiny', { max_iters: 300, eval_interval: 150, eval_iters: 4, stateful: 1 }));
    s.setCorpus(corpus);
    let r;
    do r = s.advance(150 - s.step(), 0); while (s.step() < 150);
    const val = r.evals.at(-1).loss;
    assert.ok(val < 3.0, `validation loss ${val} after 150 steps (ln 256 = 5.55)`);
    const g = s.generate(enc.encode('ROMEO:'), 60, { temperature: 0 });
    assert.equal(g.bytes.length, 60);
    assert.ok(g.probs.every((p) => p > 0 && p <= 1));
    const ckpt = s.save();
    const sections = Object.keys(readCheckpoint(ckpt).sections);
    assert.ok(sections.includes('rnn_state'), `a stateful run's checkpoint carries rnn_state (${sections.join(', ')})`);
    const u = new M.Session({});
    u.setCorpus(corpus);
    u.load(ckpt);
    assert.equal(u.kind(), 'lstm');
    const a = s.advance(3, 0).losses, b = u.advance(3, 0).losses;
    assert.deepEqual(Array.from(b), Array.from(a), 'the loaded run continues bit for bit');
    s.delete();
    u.delete();
  });

  it('traces a text: every unit, the cell states and the gates, and a unit search', () => {
    const s = new M.Session(preset('lstm-tiny', { max_iters: 100, eval_interval: 0 }));
    s.setCorpus(corpus);
    s.advance(100, 0);
    const text = enc.encode('First Citizen:\nBefore we proceed any further, hear me speak.\n');
    const tr = M.hiddenTrace(s, text);
    assert.deepEqual([tr.kind, tr.T, tr.L, tr.H, tr.G], ['lstm', text.length, 1, 128, 4]);
    assert.equal(tr.h.length, tr.L * tr.T * tr.H);
    assert.equal(tr.c.length, tr.h.length);
    assert.equal(tr.gates.length, tr.L * tr.T * 4 * tr.H);
    assert.ok(tr.h.every((x) => x > -1 && x < 1), 'h = o tanh(c) is in (-1, 1)');
    const sig = M.hiddenSignal('line_position', text);
    assert.deepEqual(Array.from(sig.subarray(0, 3)), [0, 1, 2]);
    const top = M.hiddenSearch(s, text, 'space', 4);
    assert.equal(top.length, 4);
    assert.ok(Math.abs(top[0].correlation) >= Math.abs(top[3].correlation));
    assert.ok(Math.abs(top[0].correlation) > 0.5, `after 100 steps some unit tracks spaces (r = ${top[0].correlation})`);
    assert.throws(() => M.hiddenSearch(s, text, 'commas', 4), /unknown pattern 'commas'/);
    s.delete();
    // a Transformer has no hidden state to show
    const g = new M.Session(preset('tiny'));
    g.setCorpus(corpus);
    assert.throws(() => M.hiddenTrace(g, text), /this run's model is gpt, not rnn, gru or lstm/);
    g.delete();
  });

  it('the SIMD128 and scalar builds trace the same hidden states within 1e-5', async () => {
    if (!variantsBuilt().includes('scalar')) return;
    const scalar = await loadModule('scalar');
    const config = preset('gru-tiny');
    const text = enc.encode('To be, or not to be, that is the question.\n');
    const a = new M.Session(config), b = new scalar.Session(config);
    const x = M.hiddenTrace(a, text).h, y = scalar.hiddenTrace(b, text).h;
    const worst = maxAbsDiff(x, y);
    assert.ok(worst < 1e-5, `max |simd - scalar| ${worst}`);
    a.delete();
    b.delete();
  });
});

describe('the LSTM translator in the module', () => {
  it('learns to reverse strings to at least 95% exact match, and shows its alignment', () => {
    const s = new M.Session(preset('s2s-lstm', { block_size: 9, max_iters: 600, warmup_iters: 50, eval_interval: 600, eval_iters: 4 }));
    s.setCorpus(M.builtinTask('reverse', 1));
    let r;
    do r = s.advance(500, 0); while (!r.finished);
    const exact = r.evals.at(-1).exactMatch;
    assert.ok(exact >= 0.95, `held-out exact match ${exact}`);
    assert.equal(dec.decode(s.translate(enc.encode('stone'), undefined).text), 'enots');
    assert.equal(dec.decode(s.translate(enc.encode('abcdef'), { beam: 2 }).text), 'fedcba');
    const a = s.inspectTranslation(enc.encode('stone'), enc.encode('enots'));
    assert.deepEqual([a.Le, a.Ld, a.NH, a.encSelf.length, a.decSelf.length], [0, 1, 1, 0, 0]);
    // the alignment is the anti-diagonal: output byte i reads source byte S - 1 - i
    const S = a.S, T = a.T;
    let onDiagonal = 0;
    for (let i = 0; i < S; i++) {
      const row = a.cross.subarray(i * S, (i + 1) * S);
      if (row.indexOf(Math.max(...row)) === S - 1 - i) onDiagonal++;
    }
    assert.ok(onDiagonal >= S - 1, `${onDiagonal} of ${S} rows peak on the anti-diagonal (T ${T})`);
    s.delete();
  });
});
