// The page's GPU backend (web/src/features/webgpu/gpu-backend.ts) driven by the core's run loop
// (tinygpt::Run::plan / record / record_evaluation) against Session.advance on the wasm build:
// the same evaluations, stop and losses; a good state brought back every 100 steps; the NaN
// guard's rollback; and a lost device that leaves the host at its last good state, from which the
// CPU continues. Tiny shapes from a CPU checkpoint at step 97, so that step 100 (a good state) is
// a few SwiftShader steps away.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { GpuBackendError } from '../../web/src/features/webgpu/errors.ts';
import { GpuBackend } from '../../web/src/features/webgpu/gpu-backend.ts';
import { loadWasm, shakespeare, sharedDevice } from './helpers.mjs';

const RUN = { n_layer: 2, n_head: 2, n_embd: 32, block_size: 16, batch_size: 2, max_iters: 104, warmup_iters: 3,
  learning_rate: 3e-3, seed: 7, eval_iters: 2, eval_interval: 50 };

let M, device, at97;
const reference = { losses: [], evals: [] }; // Session.advance from step 97 to the stop
before(async () => {
  M = await loadWasm('simd');
  device = await sharedDevice();
  const cpu = session();
  cpu.advance(97, 0);
  at97 = cpu.save();
  for (;;) {
    const s = cpu.advance(1e9, 0);
    reference.losses.push(...s.losses);
    reference.evals.push(...s.evals.map((e) => [e.step, e.loss]));
    if (s.finished) break;
  }
  cpu.delete();
});

function session() {
  const s = new M.Session(RUN);
  s.setCorpus(shakespeare);
  return s;
}

function hostAt97() {
  const s = session();
  s.load(at97);
  return s;
}

// Segments until the run is finished (or `until` steps), recording what the page's worker forwards.
async function train(b, host, { until = Infinity, keepGoing = () => true } = {}) {
  const out = { losses: [], evals: [], slices: [], segments: [] };
  while (host.step() < until) {
    const r = await b.trainSegment({
      keepGoing,
      slice: (s) => { out.slices.push(s); out.losses.push(...s.losses); },
      evaluated: (e) => out.evals.push([e.step, e.loss]),
    });
    out.segments.push({ step: host.step(), inSync: b.g.hostInSync });
    assert.equal(r.paused, null);
    if (r.finished) break;
  }
  return out;
}

const relErr = (a, b) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);

describe('the core\'s run loop with its steps on the GPU', () => {
  it('evaluates, keeps good states and stops where Session.advance does, with its losses', async (t) => {
    const host = hostAt97();
    const b = await GpuBackend.create(M, host, device);
    const r = await train(b, host);
    assert.equal(host.step(), 104);
    // segments end at the run's events: the good state (and evaluation) at 100, the stop at 104
    assert.deepEqual(r.segments.map((s) => s.step), [100, 104, 104]);
    assert.equal(r.segments[0].inSync, true, 'the good state at step 100 was brought back from the GPU');
    assert.deepEqual(r.evals.map((e) => e[0]), reference.evals.map((e) => e[0]));
    assert.deepEqual(r.evals.map((e) => e[0]), [100, 104]);
    r.evals.forEach(([step, loss], i) => assert.ok(relErr(loss, reference.evals[i][1]) < 1e-4, `val loss at ${step}: GPU ${loss}, wasm ${reference.evals[i][1]}`));
    assert.equal(r.losses.length, 7);
    r.losses.forEach((l, i) => assert.ok(relErr(l, reference.losses[i]) < 1e-4, `step ${98 + i}: GPU ${l}, wasm ${reference.losses[i]}`));
    const last = r.slices.at(-1);
    assert.ok(last.finished && last.tokensPerSec > 0 && last.lr > 0, JSON.stringify({ ...last, losses: [...last.losses] }));
    assert.deepEqual([...host.history().valSteps].slice(-2), [100, 104]);
    t.diagnostic(`${r.slices.length} recorded submissions for 7 steps; ${(last.tokensPerSec).toFixed(0)} tokens/s on this adapter`);
    b.destroy();
    host.delete();
  });

  it('rolls a diverged step back to the good state the GPU brought back, at half the learning rate', async () => {
    const host = hostAt97();
    const b = await GpuBackend.create(M, host, device);
    await train(b, host, { until: 100 });
    assert.equal(host.step(), 100);
    const lr = host.learningRate();
    // poison the weights once the evaluation at 100 is done, before the next step is submitted
    let poisoned = false;
    const keepGoing = () => {
      if (!poisoned) b.g.executor.write('params', new Float32Array(b.g.plan.gpuParams).fill(Infinity));
      poisoned = true;
      return true;
    };
    const slices = [];
    const r = await b.trainSegment({ keepGoing, slice: (s) => slices.push(s), evaluated: () => undefined });
    assert.equal(r.paused, null);
    const rb = slices.at(-1).rollbacks;
    assert.equal(rb.length, 1);
    assert.deepEqual([rb[0].failedStep, rb[0].restoredStep, rb[0].lrScale], [100, 100, 0.5]);
    assert.match(rb[0].message, /training diverged at step 101: the (loss|gradient norm) is -?nan/);
    assert.equal(host.step(), 100);
    assert.equal(host.learningRate(), lr / 2);
    // the good state is on the GPU again: training goes on with finite losses
    const more = await train(b, host, { until: 102 });
    assert.ok(more.losses.length === 4 && more.losses.every(Number.isFinite), `${more.losses}`);
    b.destroy();
    host.delete();
  });

  it('a lost device leaves the host at its last good state, from which the CPU continues', async () => {
    // what the worker does when the device is lost (the device itself: training.test.mjs, and the
    // page's e2e test destroys it)
    const host = hostAt97();
    const b = await GpuBackend.create(M, host, device);
    const r = await train(b, host, { until: 102 });
    assert.ok(host.step() === 104 && !b.g.hostInSync);
    const lost = new GpuBackendError('device-lost', 'the GPU device was lost: destroyed');
    const { step, rewoundFrom } = b.abandon(lost);
    assert.deepEqual([step, rewoundFrom], [100, 104]);
    assert.equal(host.history().train.length, 100);
    // the CPU trains steps 101.. again: the steps the GPU had trained, to rounding
    const cpu = host.advance(4, 0);
    assert.deepEqual(cpu.evals.map((e) => e.step), [104]); // 100's was kept; the stop's was still to come
    cpu.losses.forEach((l, i) => assert.ok(relErr(l, r.losses[3 + i]) < 1e-4, `step ${101 + i}: wasm ${l}, GPU ${r.losses[3 + i]}`));
    // and the GPU is not used again
    await assert.rejects(b.trainSegment({ keepGoing: () => true, slice: () => undefined, evaluated: () => undefined }), (e) => e === lost);
    await assert.rejects(b.save(), (e) => e === lost);
    host.delete();
  });
});
