// The encoder-decoder through the WebAssembly module: training on a built-in task, translation,
// attention maps, checkpoints shared with the native CLI, bad pairs files; and the CLI's translate
// in a pipe.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';

import { cliPath, loadModule, readCheckpoint, relErr, runCli, tmpPath } from './helpers.mjs';

const enc = new TextEncoder();
const dec = new TextDecoder();

let M;
before(async () => { M = await loadModule('simd'); });

// preset s2s-tiny on the reverse task (strings of up to 8 letters: block_size 9 fits them)
const tiny = () => ({ ...M.presets().find((p) => p.name === 's2s-tiny').config, block_size: 9, eval_interval: 0, warmup_iters: 2 });

describe('seq2seq in the module', () => {
  it('lists the built-in tasks and makes their pairs', () => {
    assert.deepEqual(M.builtinTasks().map((t) => t.name), ['zh-en', 'reverse', 'numbers', 'dates']);
    const tsv = dec.decode(M.builtinTask('zh-en', 1));
    assert.ok(tsv.includes('我 爱 吃 火锅\tI like to eat hot pot\n'), 'the seed sentence is in the zh-en task');
    assert.equal(tsv.split('\n').filter(Boolean).length, 3000);
    assert.deepEqual(M.builtinTask('reverse', 1), M.builtinTask('reverse', 1));
    assert.throws(() => M.builtinTask('klingon', 1), /no built-in task named 'klingon'/);
  });

  it('follows the native core for 20 steps on the same task within 1e-4 relative', (t) => {
    const config = { ...tiny(), max_iters: 20 };
    const out = tmpPath('s2s20.ckpt');
    runCli(['train', ...Object.entries(config).map(([k, v]) => `--${k}=${v}`), '--task', 'reverse', '--threads', '1', '--out', out]);
    const native = readCheckpoint(new Uint8Array(fs.readFileSync(out)));
    assert.equal(native.fields.model, 'seq2seq');
    const s = new M.Session(config);
    s.setCorpus(M.builtinTask('reverse', 1));
    const { losses } = s.advance(20, 0);
    let worst = 0;
    for (let i = 0; i < 20; i++) worst = Math.max(worst, relErr(losses[i], native.trainLosses[i]));
    t.diagnostic(`seq2seq wasm vs native: max relative loss difference over 20 steps ${worst.toExponential(2)}`);
    assert.ok(worst < 1e-4, `worst ${worst}`);
    // the native checkpoint continues in the module
    const u = new M.Session({});
    u.setCorpus(M.builtinTask('reverse', 1));
    u.load(new Uint8Array(fs.readFileSync(out)));
    assert.equal(u.kind(), 'seq2seq');
    assert.equal(u.step(), 20);
    assert.ok(u.corpusMatchesCheckpoint());
    s.delete();
    u.delete();
  });

  it('learns to reverse strings, translates, and shows where each output byte looked', () => {
    const s = new M.Session({ ...tiny(), max_iters: 1500, eval_interval: 1500, eval_iters: 4 });
    s.setCorpus(M.builtinTask('reverse', 1));
    assert.match(s.dataReport(), /3000 pairs/);
    let r;
    do r = s.advance(500, 0); while (!r.finished);
    const last = r.evals[r.evals.length - 1];
    assert.equal(last.step, 1500);
    const h = s.history();
    assert.ok(h.valExactMatch[h.valExactMatch.length - 1] > 0.9, `exact match ${h.valExactMatch[h.valExactMatch.length - 1]}`);
    // the slice's evaluation carries the same metrics as the history (the page charts them live)
    assert.equal(last.exactMatch, h.valExactMatch[h.valExactMatch.length - 1]);
    assert.equal(last.cer, h.valCer[h.valCer.length - 1]);
    assert.ok(last.cer >= 0 && last.cer < 0.1, `CER ${last.cer}`);
    const out = s.translate(enc.encode('stressed'), {});
    assert.equal(dec.decode(out.text), 'desserts');
    assert.ok(out.finished);
    assert.equal(out.probs.length, 9);  // 8 bytes and EOS
    const beam = s.translate(enc.encode('stressed'), { beam: 3 });
    assert.equal(dec.decode(beam.text), 'desserts');
    // cross-attention: target rows over source columns, rows sum to 1; the decoder's is causal
    const m = s.inspectTranslation(enc.encode('abc'), enc.encode('cba'));
    assert.deepEqual([m.S, m.T, m.Le, m.Ld, m.NH], [3, 4, 1, 1, 2]);
    assert.equal(m.cross.length, 1 * 2 * 4 * 3);
    for (let row = 0; row < 2 * 4; row++) {
      const sum = m.cross.subarray(row * 3, row * 3 + 3).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5);
    }
    for (let h = 0; h < 2; h++)
      for (let i = 0; i < 4; i++)
        for (let j = i + 1; j < 4; j++) assert.equal(m.decSelf[(h * 4 + i) * 4 + j], 0);
    // a trained model does not read the source uniformly (1/3 each)
    assert.ok(Math.max(...m.cross) > 0.5, `largest cross-attention weight ${Math.max(...m.cross)}`);
    assert.equal(m.probs.length, 4 * 259);
    s.delete();
  });

  it('reads a pairs file without a model as a session would (pairsReport)', () => {
    const tsv = enc.encode('abc\tcba\nno tab\nxy\tyx\r\nthis source is too long\tx\n');
    const r = M.pairsReport(tsv, 9);
    assert.equal(r.pairs, 2);
    assert.equal(r.trainPairs + r.valPairs, 2);
    assert.equal(r.valPairs, 1);
    assert.deepEqual([r.longestSource, r.longestTarget], [3, 3]);
    assert.match(r.report.message, /2 pairs from 4 lines; skipped: 1 without a tab \(line 2\), 1 longer than the model's 9-byte source/);
    const s = new M.Session(tiny());
    s.setCorpus(tsv);
    assert.equal(s.dataReport(), r.report.message);   // the same words as the session's
    s.delete();
    assert.throws(() => M.pairsReport(enc.encode('one\ntwo\n'), 9), /no usable source<TAB>target pair: .*2 without a tab \(lines 1, 2\)/);
    assert.throws(() => M.pairsReport(enc.encode('abc\tcba\n'), 1), /at least 2/);
  });

  it('refuses a pairs file without a usable pair, saying which lines and why', () => {
    const s = new M.Session(tiny());
    assert.throws(() => s.setCorpus(enc.encode('no tab on this line\nnor here\n')), /2 without a tab \(lines 1, 2\)/);
    assert.throws(() => s.setCorpus(enc.encode('\tempty source\n')), /1 with an empty source or target \(line 1\)/);
    assert.throws(() => s.setCorpus(enc.encode('this source is far too long for nine\tx\n')), /longer than the model's 9-byte source \/ 8-byte target limit/);
    s.setCorpus(enc.encode('abc\tcba\nno tab\nxy\tyx\n'));
    assert.match(s.dataReport(), /line 2/);
    assert.throws(() => s.inspect(enc.encode('abc')), /not a language model|seq2seq/);
    s.delete();
  });
});

describe('tinygpt translate', () => {
  it('prints exactly one line per input line, in a pipe', () => {
    const out = tmpPath('s2s-pipe.ckpt');
    runCli(['train', ...Object.entries({ ...tiny(), max_iters: 5 }).map(([k, v]) => `--${k}=${v}`), '--task', 'reverse', '--out', out]);
    const r = spawnSync(cliPath, ['translate', '--ckpt', out], { input: 'abc\n\nhello\r\nxyz', encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.split('\n').length, 5);  // 4 lines, each ended by a newline
    assert.equal(r.stdout.split('\n')[1], '');     // the empty input line stays empty
    const g = spawnSync(cliPath, ['sample', '--ckpt', out], { encoding: 'utf8' });
    assert.match(g.stderr, /seq2seq translation model: use 'tinygpt translate/);
  });
});
