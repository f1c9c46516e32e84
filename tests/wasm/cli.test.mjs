// The CLI as a person uses it: the log, resuming and extending a run, files that are not what they
// seem. (Run with the other Node tests: node --test tests/wasm/.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';

import { cliPath, readCheckpoint, runCli, tmpPath } from './helpers.mjs';

const cli = (args) => spawnSync(cliPath, args, { encoding: 'utf8' });
const TINY = ['--preset', 'tiny', '--threads', '1'];

describe('tinygpt train', () => {
  it('prints a validation loss only on the lines of the steps where it was measured', () => {
    const out = runCli(['train', ...TINY, '--max_iters', '60', '--eval_interval', '25', '--log_interval', '10']);
    const lines = out.split('\n').filter((l) => /^step +\d+\//.test(l));
    const withVal = lines.filter((l) => l.includes('| val ')).map((l) => Number(/^step +(\d+)/.exec(l)[1]));
    assert.deepEqual(withVal, [0, 25, 50, 60]);   // step 0, every 25 steps, and the end of the schedule
    const steps = lines.map((l) => Number(/^step +(\d+)/.exec(l)[1]));
    assert.deepEqual(steps, [0, 10, 20, 25, 30, 40, 50, 60]);
  });

  it('--resume with --max_iters extends a finished schedule; without it, says how', () => {
    const a = tmpPath('a.ckpt');
    runCli(['train', ...TINY, '--max_iters', '40', '--eval_interval', '0', '--out', a]);
    const refused = cli(['train', '--resume', a, '--threads', '1']);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /past the end of its schedule \(40 steps\): give --max_iters N to extend the schedule, or --until STEP/);
    const b = tmpPath('b.ckpt');
    const out = runCli(['train', '--resume', a, '--max_iters', '80', '--threads', '1', '--out', b]);
    assert.match(out, /resumed .* at step 40 of 80/);
    const ck = readCheckpoint(new Uint8Array(fs.readFileSync(b)));
    assert.equal(ck.step, 80);
    assert.equal(ck.fields.max_iters, 80);
    assert.equal(ck.fields.schedule_from_step, 40);  // the cosine continues from where the old one was
    // --until past the end trains on at the final learning rate
    const c = tmpPath('c.ckpt');
    runCli(['train', '--resume', b, '--until', '90', '--threads', '1', '--out', c]);
    assert.equal(readCheckpoint(new Uint8Array(fs.readFileSync(c))).step, 90);
  });

  it('understands the files it is given, with the page\'s messages', () => {
    const dir = fs.mkdtempSync('/tmp/tinygpt-cli-');
    const ckpt = tmpPath('x.ckpt');
    runCli(['train', ...TINY, '--max_iters', '2', '--eval_interval', '0', '--out', ckpt]);
    let r = cli(['train', ...TINY, '--data', ckpt]);
    assert.match(r.stderr, /is a tinygpt checkpoint, not training data: continue it with --resume/);
    fs.writeFileSync(`${dir}/renamed.ckpt`, 'just some text, renamed\n'.repeat(20));
    r = cli(['train', ...TINY, '--data', `${dir}/renamed.ckpt`]);
    assert.match(r.stderr, /named like a checkpoint but is not one/);
    const latin1 = Buffer.from('Caf\xe9 cr\xe8me br\xfbl\xe9e, d\xe9j\xe0 vu. '.repeat(40), 'latin1');
    fs.writeFileSync(`${dir}/latin1.txt`, latin1);
    r = cli(['train', ...TINY, '--max_iters', '2', '--data', `${dir}/latin1.txt`]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /latin1\.txt is iso-8859-1 text: converted to UTF-8/);
    const binary = Buffer.alloc(4000);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256;
    fs.writeFileSync(`${dir}/blob.bin`, binary);
    r = cli(['train', ...TINY, '--max_iters', '2', '--data', `${dir}/blob.bin`]);
    assert.match(r.stderr, /looks like a binary file.*--encoding bytes trains on it as it is/);
    r = cli(['train', ...TINY, '--max_iters', '2', '--data', `${dir}/blob.bin`, '--encoding', 'bytes']);
    assert.equal(r.status, 0, r.stderr);
  });
});
