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

describe('tinygpt train --share and --from-link (docs/runs_you_can_trust.md)', () => {
  const text = 'A shared run is the same run, bit for bit.\n'.repeat(80);

  it('a run shared by the CLI replays in the CLI to the same first 50 losses, with another thread count', () => {
    const dir = fs.mkdtempSync('/tmp/tinygpt-share-');
    fs.writeFileSync(`${dir}/notes.txt`, text);
    const out = runCli(['train', ...TINY, '--data', `${dir}/notes.txt`, '--max_iters', '60', '--share', 'https://example.org/tinygpt/']);
    const url = /^share: (\S+)$/m.exec(out)[1];
    assert.match(url, /^https:\/\/example\.org\/tinygpt\/#tinygpt=1&model=gpt&/);
    assert.match(url, new RegExp(`&corpus=fnv:[0-9a-f]{16}:${text.length}&name=notes\\.txt&losses=`));
    const replay = runCli(['train', '--from-link', url, '--data', `${dir}/notes.txt`, '--threads', '2']);
    assert.match(replay, /^replay: the shared run's settings and text; its first 50 losses are checked \(made on native-\w+, this is native-\w+\)$/m);
    assert.match(replay, /^replay: matches the shared run at step 50: the first 50 losses are identical, bit for bit$/m);
    // the final validation loss is the shared run's too
    assert.equal(/final val loss (\S+)/.exec(replay)[1], /final val loss (\S+)/.exec(out)[1]);
  });

  it('a run on the built-in text names it; the replay needs no file', () => {
    const out = runCli(['train', ...TINY, '--max_iters', '55', '--eval_interval', '0', '--share', 'x']);
    const url = /^share: (\S+)$/m.exec(out)[1];
    assert.match(url, /&corpus=builtin:tinyshakespeare\.txt&losses=/);
    assert.match(runCli(['train', '--from-link', url, '--threads', '1']), /^replay: matches the shared run at step 50/m);
  });

  it('refuses what would make it another run, and a link that is not one, saying why', () => {
    const dir = fs.mkdtempSync('/tmp/tinygpt-share-');
    fs.writeFileSync(`${dir}/notes.txt`, text);
    fs.writeFileSync(`${dir}/shorter.txt`, text.slice(1));
    fs.writeFileSync(`${dir}/other.txt`, text.replace('bit for bit', 'bit by bit!'));   // the same size
    const url = /^share: (\S+)$/m.exec(runCli(['train', ...TINY, '--data', `${dir}/notes.txt`, '--max_iters', '5', '--eval_interval', '0', '--share', 'x']))[1];
    let r = cli(['train', '--from-link', url]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`the shared run trained on notes\\.txt \\(${text.length} bytes, fingerprint [0-9a-f]{16}\\): give it with --data FILE`));
    r = cli(['train', '--from-link', url, '--data', `${dir}/shorter.txt`]);
    assert.match(r.stderr, new RegExp(`this text is ${text.length - 1} bytes; the shared run trained on notes\\.txt of ${text.length} bytes`));
    r = cli(['train', '--from-link', url, '--data', `${dir}/other.txt`]);
    assert.match(r.stderr, /this text has the same size as notes\.txt but other bytes \(fingerprint [0-9a-f]{16}, the link says [0-9a-f]{16}\)/);
    r = cli(['train', '--from-link', url, '--data', `${dir}/notes.txt`, '--learning_rate', '0.01']);
    assert.match(r.stderr, /--learning_rate: a run from a link keeps the link's settings/);
    r = cli(['train', '--from-link', url, '--preset', 'tiny', '--data', `${dir}/notes.txt`]);
    assert.match(r.stderr, /--from-link sets up the run itself: it does not mix with --preset/);
    r = cli(['train', '--from-link', 'https://example.org/#n_layer=2', '--data', `${dir}/notes.txt`]);
    assert.match(r.stderr, /this is not a tinygpt run link/);
    r = cli(['train', '--from-link', url.replace('n_layer=2', 'n_layer=0'), '--data', `${dir}/notes.txt`]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /n_layer/);
  });
});
