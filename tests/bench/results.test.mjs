// bench/results.mjs: the file every benchmark leaves (bench/results/<name>-<date>.json) holds the
// machine, the load average at the start and the end, the command line, the commit and the
// figures; every bench script writes one; bench/results/ is not ignored by git.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { benchResults, crossCore, describeCrossCore, invocation, machine, root } from '../../bench/results.mjs';

describe('a benchmark results file', () => {
  it('records the machine, the load, the command, the commit and the figures', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-bench-results-'));
    const env = { TINYGPT_BENCH_RESULTS_DIR: dir, BENCH_STEPS: '7', npm_lifecycle_event: 'bench:cpu', npm_lifecycle_script: 'node bench/cpu_vs_pytorch.mjs' };
    const r = benchResults('unit-check', { argv: [process.execPath, path.join(root, 'bench/cpu_vs_pytorch.mjs'), '--threads', '1,2'], env });
    r.figures.training = [{ config: 'S', threads: 1, tokS: 123.5 }];
    const file = r.write();
    assert.match(path.basename(file), /^unit-check-\d{4}-\d\d-\d\dT\d{6}Z\.json$/);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(data.name, 'unit-check');
    assert.ok(!Number.isNaN(Date.parse(data.date)));
    assert.equal(data.command, 'node bench/cpu_vs_pytorch.mjs --threads 1,2');
    assert.deepEqual(data.npm, { script: 'bench:cpu', runs: 'node bench/cpu_vs_pytorch.mjs' });
    assert.deepEqual(data.env, { BENCH_STEPS: '7' });
    assert.equal(data.git.commit, execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim());
    assert.equal(typeof data.git.dirty, 'boolean');
    const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
    assert.equal(data.machine.cpu, /^model name\s*:\s*(.*)$/m.exec(cpuinfo)[1].trim());
    assert.equal(data.machine.cores, os.cpus().length);
    for (const when of ['start', 'end']) {
      assert.equal(data.machine.loadAverage[when].length, 3);
      for (const x of data.machine.loadAverage[when]) assert.ok(x >= 0);
    }
    assert.deepEqual(data.figures, { training: [{ config: 'S', threads: 1, tokS: 123.5 }] });
    fs.rmSync(dir, { recursive: true });
  });

  it('records how far apart two cores are, at the start and the end, where kernels_bench is built', (t) => {
    const c = crossCore();
    if (os.cpus().length < 2 || !fs.existsSync(path.join(root, 'build/native/kernels_bench'))) {
      assert.equal(c, null);
      return;
    }
    // a message there and back takes more than a few ns and less than a tenth of a second; both
    // reads of 1 MiB move data
    assert.ok(c.roundTripNs > 5 && c.roundTripNs < 1e8, JSON.stringify(c));
    assert.ok(c.otherGBs > 0 && c.ownGBs > 0, JSON.stringify(c));
    assert.equal(typeof c.pinned, 'boolean');
    assert.match(describeCrossCore(c), /^cross-core: round trip \d+ ns, the other core's data at \d+\.\d\dx/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-bench-results-'));
    const r = benchResults('unit-check', { argv: [process.execPath, 'bench/pool.mjs'], env: { TINYGPT_BENCH_RESULTS_DIR: dir } });
    assert.ok(r.crossCore.roundTripNs > 5);
    const data = JSON.parse(fs.readFileSync(r.write(), 'utf8'));
    for (const when of ['start', 'end']) assert.deepEqual(Object.keys(data.machine.crossCore[when]).sort(), ['otherGBs', 'ownGBs', 'pinned', 'roundTripNs']);
    fs.rmSync(dir, { recursive: true });
    t.diagnostic(describeCrossCore(c));
  });

  it('quotes arguments that a shell would split', () => {
    assert.equal(invocation([process.execPath, 'bench/page.mjs', 'a b', "it's"], {}).command, `node bench/page.mjs 'a b' 'it'\\''s'`);
    assert.ok(machine().cores >= 1);
  });
});

describe('the benchmarks', () => {
  it('each write a results file through bench/results.mjs', () => {
    const helpers = new Set(['results.mjs', 'measure.mjs', 'page-harness.mjs', 'torch-env.mjs']);  // shared code, not benchmarks
    const benches = fs.readdirSync(path.join(root, 'bench')).filter((f) => f.endsWith('.mjs') && !helpers.has(f));
    assert.ok(benches.length >= 7, benches.join(' '));
    for (const f of benches) {
      const src = fs.readFileSync(path.join(root, 'bench', f), 'utf8');
      assert.match(src, /benchResults\('[a-z0-9-]+'\)/, `${f} makes no results file`);
      assert.match(src, /\.write\(\);/, `${f} never writes its results file`);
    }
  });

  it('leave their files where git sees them', () => {
    const r = spawnSync('git', ['check-ignore', '-q', 'bench/results/cpu-2026-01-01T000000Z.json'], { cwd: root });
    assert.equal(r.status, 1, 'bench/results/ is git-ignored');
  });
});
