// Corpora read a window at a time in the WebAssembly module (wasm/data.cpp): a sparse file of 6 GiB,
// far larger than the module's heap (and than wasm32's 4 GiB), trains through a reader; a reader
// gives the same losses as the bytes in memory; llm.c shards written by the native CLI train in
// the module exactly as their text does; a reader that fails pauses the run with the reason.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, before } from 'node:test';

import { loadModule, root, runCli, shakespeare, tmpPath } from './helpers.mjs';

const TINY = { n_layer: 1, n_head: 2, n_embd: 32, block_size: 32, batch_size: 8, max_iters: 40, warmup_iters: 2, eval_interval: 0, seed: 3 };

/** A reader over an open file descriptor, counting what it reads. */
function fileReader(file, name = path.basename(file)) {
  const fd = fs.openSync(file, 'r');
  const reader = {
    name, size: fs.fstatSync(fd).size, bytesRead: 0,
    read(at, n, into) {
      try {
        let done = 0;
        while (done < n) {
          const got = fs.readSync(fd, into, done, n - done, at + done);
          if (got === 0) return { code: 'corpus.file_changed', message: 'it ended early' };
          done += got;
        }
        reader.bytesRead += n;
        return null;
      } catch (e) {
        return { code: e.code === 'ENOENT' ? 'corpus.file_gone' : 'corpus.file_unreadable', message: String(e.message) };
      }
    },
    close() { fs.closeSync(fd); },
  };
  return reader;
}

describe('corpora read a window at a time (tinygpt-simd)', () => {
  let M;
  before(async () => { M = await loadModule('simd'); });

  it('trains from a 6 GiB file through a reader, the heap never holding it', () => {
    // a sparse file: Shakespeare at its start, at 3 GiB and at its end, zeros (holes) between
    const file = tmpPath('big.txt');
    const size = 6 * 2 ** 30;
    const fd = fs.openSync(file, 'w');
    for (const at of [0, 3 * 2 ** 30, size - shakespeare.length]) fs.writeSync(fd, shakespeare, 0, shakespeare.length, at);
    fs.closeSync(fd);
    try {
      const reader = fileReader(file);
      const before = M.memoryBytes();
      const c = M.corpusFromReader(reader);
      assert.equal(c.size(), size);
      assert.match(c.fingerprint(), /^[0-9a-f]{16}$/);
      // the fingerprint read its sample (64 blocks of 64 KiB), nothing more
      assert.equal(reader.bytesRead, 64 * 65536);
      const s = new M.Session(TINY);
      s.useCorpus(c);
      assert.equal(s.corpusSize(), size);
      reader.bytesRead = 0;
      const slice = s.advance(10, 0);
      assert.equal(slice.losses.length, 10);
      assert.ok(slice.losses.every(Number.isFinite));
      // B windows of T + 1 bytes per step
      assert.equal(reader.bytesRead, 10 * TINY.batch_size * (TINY.block_size + 1));
      assert.ok(M.memoryBytes() - before < 64 * 2 ** 20, `the heap grew by ${M.memoryBytes() - before} bytes`);
      s.delete();
      c.delete();
      reader.close();
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('a reader gives the losses of the same bytes in memory, bit for bit', () => {
    const file = path.join(root, 'data/tinyshakespeare.txt');
    const reader = fileReader(file);
    const c = M.corpusFromReader(reader);
    const a = new M.Session(TINY), b = new M.Session(TINY);
    a.setCorpus(shakespeare);
    b.useCorpus(c);
    assert.deepEqual(Array.from(b.advance(20, 0).losses), Array.from(a.advance(20, 0).losses));
    assert.equal(b.evaluate(), a.evaluate());
    a.delete(); b.delete(); c.delete(); reader.close();
  });

  it('trains on llm.c shards written by the native CLI exactly as on their text', () => {
    const dir = path.dirname(tmpPath('x'));
    runCli(['data', 'pack', path.join(root, 'data/tinyshakespeare.txt'), '--out', dir, '--name', 'shake', '--shard_tokens', '400000']);
    const names = fs.readdirSync(dir).filter((n) => n.endsWith('.bin')).sort();
    assert.deepEqual(names, ['shake_train_000000.bin', 'shake_train_000001.bin', 'shake_train_000002.bin', 'shake_val_000000.bin']);
    const readers = names.map((n) => fileReader(path.join(dir, n), n));
    const c = M.corpusFromShards(readers);
    assert.equal(c.size(), shakespeare.length);
    assert.deepEqual(c.shards().map((s) => [s.name, s.split, s.version]),
      names.map((n) => [n, n.includes('_val_') ? 'val' : 'train', 1]));
    const a = new M.Session(TINY), b = new M.Session(TINY);
    a.setCorpus(shakespeare);
    b.useCorpus(c);
    assert.deepEqual(Array.from(b.advance(15, 0).losses), Array.from(a.advance(15, 0).losses));
    assert.equal(b.evaluate(), a.evaluate());
    a.delete(); b.delete(); c.delete();
    readers.forEach((r) => r.close());
    // a bad shard: refused with what is wrong, the module usable afterwards
    const bad = path.join(dir, 'shake_train_000001.bin');
    const bytes = fs.readFileSync(bad);
    bytes.writeInt32LE(7, 4);  // version 7
    fs.writeFileSync(bad, bytes);
    const again = names.map((n) => fileReader(path.join(dir, n), n));
    assert.throws(() => M.corpusFromShards(again), (e) => e.code === 'shard.bad_version' && /version 7/.test(e.message));
    again.forEach((r) => r.close());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a reader that fails pauses the run with the reason and keeps its steps', () => {
    const file = tmpPath('t.txt');
    fs.writeFileSync(file, shakespeare);
    const reader = fileReader(file);
    const c = M.corpusFromReader(reader);
    const s = new M.Session(TINY);
    s.useCorpus(c);
    assert.equal(s.advance(3, 0).losses.length, 3);
    const read = reader.read;
    reader.read = () => ({ code: 'corpus.file_changed', message: 'NotReadableError' });
    const slice = s.advance(5, 0);
    assert.equal(slice.losses.length, 0);
    assert.equal(slice.paused.code, 'corpus.file_changed');
    assert.equal(s.step(), 3);
    reader.read = read;  // the file is back: training goes on
    assert.equal(s.advance(2, 0).losses.length, 2);
    assert.equal(s.step(), 5);
    s.delete(); c.delete(); reader.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
