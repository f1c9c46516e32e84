// The pthreads build (Node flavour, build/wasm-node): SIMD128 kernels split across worker
// threads must train to the same losses as one thread. Runs in a child process that exits
// when done (live pthread workers would keep a test process from ending).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { root } from './helpers.mjs';

const built = fs.existsSync(path.join(root, 'build/wasm-node/tinygpt-threads-node.cjs'));

describe('tinygpt-threads (Node worker_threads)', { skip: !built && 'threads-node build missing' }, () => {
  it('trains to the same losses with 1 and 2 threads', () => {
    const r = spawnSync('node', ['--no-experimental-fetch', path.join(root, 'tests/wasm/threads-child.cjs')],
      { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.equal(out.backend, 'simd128');
    assert.ok(out.maxThreads >= 2, `maxThreads ${out.maxThreads}`);
    assert.equal(out.one.length, 8);
    // the split keeps every sum in the same order: identical, not just close
    assert.deepEqual(out.two, out.one);
  });
});
