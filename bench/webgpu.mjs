// npm run bench:webgpu — the WebGPU training step in Node (Dawn) on whatever adapter it finds:
// per-kernel GFLOP/s, dispatches, buffer traffic and bytes read back per step, training tokens/s
// for the CLI bench's configs (tiny, S, M) and generation bytes/s; the seq2seq presets' dispatches
// per step (and with --cpu their training speed against the wasm build).
//
// On SwiftShader (no GPU: about 0.1 GFLOP/s) S and M would take minutes a step, so they get
// their counts only and the timings run on tiny; --time S,M forces them.
//   node bench/webgpu.mjs [--config tiny|S|M|all] [--steps N] [--time tiny,S,M] [--cpu] [--fuse on|off|both]
//     [--gen-bytes N] (bytes generated for the timing: 1,000 on a real GPU)
// --cpu also times the wasm simd build (one thread) on the timed configs, in the same process: the
// ratio GPU / CPU on that machine. On the lent GPU machine: scripts/device-pack.sh, then DIR/run.sh.
// Without a Vulkan driver setting it runs itself again on Chromium's SwiftShader.
// Writes bench/results/webgpu-<date>.json (bench/results.mjs).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
if (!process.env.TINYGPT_BENCH_CHILD) {
  const { vulkanEnv } = await import('../tests/webgpu/env.mjs');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(root, 'tests/webgpu/ts-register.mjs')).href,
    fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env: { ...vulkanEnv(), TINYGPT_BENCH_CHILD: '1' } });
  process.exit(r.status ?? 1);
}

const { benchResults } = await import('./results.mjs');
const results = benchResults('webgpu');
const { WebGpuSession } = await import('../web/src/features/webgpu/session.ts');
const { opFlops } = await import('../web/src/features/webgpu/kernels.ts');
const { loadWasm, nodeAdapter, shakespeare, trainSteps } = await import('../tests/webgpu/helpers.mjs');

const CONFIGS = {
  tiny: { n_layer: 2, n_head: 2, n_embd: 64, block_size: 32, batch_size: 8 },
  S: { n_layer: 4, n_head: 4, n_embd: 128, block_size: 64, batch_size: 12 },
  M: { n_layer: 6, n_head: 6, n_embd: 384, block_size: 256, batch_size: 4 },
};

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const configs = arg('config', 'all') === 'all' ? Object.keys(CONFIGS) : arg('config').split(',');
const steps = Number(arg('steps', '5'));
const withCpu = process.argv.includes('--cpu');
// --fuse on|off|both: the GPT plan with block_forward and decode_layer (on), with a dispatch per GEMM
// and five per decoded block (off), or each in turn (both, the default); then, on a real GPU, what
// the session's own choice is (WebGpuSession.create: docs/webgpu.md, "Fused or wide")
const fuseArg = arg('fuse', 'both');
const fuses = fuseArg === 'both' ? [true, false] : [fuseArg !== 'off'];

const M = await loadWasm('simd');
const adapter = await nodeAdapter();
const info = adapter.info;
const adapterName = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
const software = /swiftshader|llvmpipe|lavapipe/i.test(adapterName);
const timed = (arg('time') ?? (software ? 'tiny' : configs.join(','))).split(',');
const timestamps = adapter.features.has('timestamp-query');
const device = await adapter.requestDevice({
  requiredFeatures: timestamps ? ['timestamp-query'] : [],
  requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize },
});
console.log(`WebGPU bench on ${adapterName}${software ? ' (software: timings on tiny only)' : ''}`);
results.set('adapter', { name: adapterName, software, timestamps });
results.set('options', { configs, steps, timed, cpu: withCpu, fuse: fuseArg });
const figures = results.set('configs', {});

const mb = (b) => (b / 2 ** 20).toFixed(1);
for (const name of configs) for (const fuse of fuses) {
  const c = CONFIGS[name];
  const session = new M.Session({ ...c, max_iters: 1000, warmup_iters: 10 });
  session.setCorpus(shakespeare);
  const g = await WebGpuSession.create(M, session, { device, fuse: { forward: fuse, decode: fuse } });
  const key = fuse ? name : `${name} wide`;
  const plan = g.plan;
  const tokens = c.batch_size * c.block_size;
  const train = plan.programs.train;
  const traffic = train.reduce((s, op) => s + op.args.reduce((t, r) => t + (r ? r[2] * 4 : 0), 0), 0);
  const flops = train.reduce((s, op) => s + opFlops(op.kernel, op.dims, { HS: plan.headSize }), 0);
  const gpuBytes = plan.buffers.reduce((s, b) => s + b.elements * 4, 0);
  const perByte = g.executor.dispatchCount('sample') + g.executor.dispatchCount('decode');
  if (!fuse && figures[name]?.dispatchesPerStep === train.length && figures[name]?.dispatchesPerByte === perByte) {
    console.log(`\n${key}: the same plan as fused (too wide for block_forward and decode_layer)`);
    g.destroy();
    session.delete();
    continue;
  }
  console.log(`\n${key}${fuse ? ' (fused)' : ' (a dispatch per GEMM, five per block decoding)'}: ${c.n_layer} layers, ${c.n_head} heads, width ${c.n_embd}, context ${c.block_size}, batch ${c.batch_size}; ` +
    `${plan.numParams} parameters, ${mb(gpuBytes)} MiB of GPU buffers`);
  console.log(`  per training step: ${train.length} dispatches in 1 command buffer, ${(flops / 1e9).toFixed(3)} GFLOP in GEMMs and attention, ` +
    `${mb(traffic)} MiB of bound regions (an upper bound on buffer traffic before caches), ` +
    `${tokens * 8 + 12} bytes uploaded (tokens, targets, lr and bias corrections), 8 bytes read back (loss, gradient norm) + 16 per call`);
  const fig = figures[key] = { ...c, fused: fuse, parameters: plan.numParams, gpuBytes, dispatchesPerStep: train.length, gflopPerStep: flops / 1e9,
    boundBytesPerStep: traffic, dispatchesPerByte: perByte };
  console.log(`  per generated byte: ${perByte} dispatches; ${plan.sampleRecordWords * 4} bytes read back (in chunks of up to ${plan.maxChunk} bytes, one readback each)`);
  if (timed.includes(name)) {
    // k steps computed on the GPU, recorded in the host as they come back
    const train = (k) => trainSteps(M, session, g, k);
    await train(1); // warm-up: first use of every pipeline
    const t0 = performance.now();
    const r = await train(steps);
    const ms = performance.now() - t0;
    console.log(`  training: ${steps} steps in ${(ms / 1000).toFixed(2)} s: ${Math.round((steps * tokens) / (ms / 1000))} tokens/s ` +
      `(${(flops * steps / (ms / 1000) / 1e9).toFixed(2)} GFLOP/s overall; last loss ${r.losses[r.losses.length - 1].toFixed(4)})`);
    Object.assign(fig, { steps, trainSeconds: ms / 1000, tokS: (steps * tokens) / (ms / 1000), gflops: flops * steps / (ms / 1000) / 1e9,
      lastLoss: r.losses[r.losses.length - 1] });
    const n = Number(arg('gen-bytes', software ? Math.min(2 * c.block_size + 16, 200) : 1000));
    await g.generate(new TextEncoder().encode('\n'), 8, { seed: 1 });  // warm-up: the decode pipelines' first use
    const t1 = performance.now();
    await g.generate(new TextEncoder().encode('\n'), n, { seed: 1 });
    fig.generation = { bytes: n, bytesPerSecond: n / ((performance.now() - t1) / 1000) };
    console.log(`  generation: ${n} bytes in ${((performance.now() - t1) / 1000).toFixed(2)} s: ${Math.round(n / ((performance.now() - t1) / 1000))} bytes/s (default window)`);
    const other = figures[fuse ? `${name} wide` : name];
    if (other?.tokS) {
      const r = (a, b) => (a / b).toFixed(2);
      const [f, w] = fuse ? [fig, other] : [other, fig];
      console.log(`  wide / fused on this GPU: ${r(w.tokS, f.tokS)}x training, ${r(w.generation.bytesPerSecond, f.generation.bytesPerSecond)}x generating`);
    }
    if (withCpu && !other?.cpu) {
      // the wasm simd build on this machine's CPU, one thread: same config, same corpus
      const cpu = new M.Session({ ...c, max_iters: 1000, warmup_iters: 10 });
      cpu.setCorpus(shakespeare);
      cpu.advance(1, 0);
      const k = Math.max(1, Math.min(steps, name === 'M' ? 2 : 5));
      const c0 = performance.now();
      cpu.advance(k, 0);
      const cms = performance.now() - c0;
      const c1 = performance.now();
      cpu.generate(new TextEncoder().encode('\n'), n, { seed: 1 });
      const gms = performance.now() - c1;
      fig.cpu = { variant: 'simd, 1 thread', steps: k, tokS: (k * tokens) / (cms / 1000), generationBytesPerSecond: n / (gms / 1000) };
      console.log(`  wasm simd (1 thread) on this CPU: ${Math.round(fig.cpu.tokS)} tokens/s training, ${Math.round(fig.cpu.generationBytesPerSecond)} bytes/s generating; ` +
        `GPU / CPU ${(fig.tokS / fig.cpu.tokS).toFixed(2)}x training, ${(fig.generation.bytesPerSecond / fig.cpu.generationBytesPerSecond).toFixed(2)}x generating`);
      cpu.delete();
    }
    const prof = await g.executor.profile('train', software ? 2 : 20);
    const byKernel = new Map();
    for (const p of prof) {
      const k = byKernel.get(p.kernel) ?? { ms: 0, flops: 0, n: 0 };
      k.ms += p.ms;
      k.n++;
      k.flops += p.gflops * p.ms * 1e6;
      byKernel.set(p.kernel, k);
    }
    fig.perKernel = Object.fromEntries([...byKernel].map(([k, v]) => [k, { ops: v.n, ms: v.ms, gflops: v.flops > 0 ? v.flops / (v.ms * 1e6) : null }]));
    console.log(`  per kernel (${timestamps ? 'GPU timestamps around each op, dispatched alone' : 'wall time of a submission per op'}):`);
    for (const [k, v] of [...byKernel].sort((a, b) => b[1].ms - a[1].ms))
      console.log(`    ${k.padEnd(26)} ${String(v.n).padStart(3)} ops ${v.ms.toFixed(2).padStart(9)} ms` +
        (v.flops > 0 ? `  ${(v.flops / (v.ms * 1e6)).toFixed(2).padStart(8)} GFLOP/s` : ''));
  }
  g.destroy();
  session.delete();
  if (fuse || fuses.length === 1 || software) continue;
  // the session's own choice on this GPU (its forwards timed), beside the two measured above
  const own = new M.Session({ ...c, max_iters: 1000, warmup_iters: 10 });
  own.setCorpus(shakespeare);
  const chosen = await WebGpuSession.create(M, own, { device });
  const f = chosen.fusion;
  fig.sessionChoice = f;
  console.log(`  the session's choice here: forward ${f.forward ? 'fused' : 'wide'}, decoding ${f.decode ? 'fused' : 'wide'} (${f.how}` +
    (f.forwardMs ? `: a batch's forward ${f.forwardMs.fused.toFixed(3)} ms fused, ${f.forwardMs.wide.toFixed(3)} ms wide)` : ')'));
  chosen.destroy();
  own.delete();
}
// The encoder-decoder (seq2seq) presets on the built-in reverse task: dispatches per training step,
// per evaluation batch and per translated token; with --cpu also their training speed on the GPU and
// on the wasm simd build (one thread) in this process (on a software adapter s2s-tiny only).
const s2s = results.set('seq2seq', {});
console.log('\nseq2seq (encoder-decoder) presets, reverse task:');
for (const preset of ['s2s-tiny', 's2s-small', 's2s-base']) {
  const c = { ...M.presets().find((p) => p.name === preset).config, max_iters: 1000, warmup_iters: 10, eval_interval: 0 };
  const session = new M.Session(c);
  session.setCorpus(M.builtinTask('reverse', 1));
  const g = await WebGpuSession.create(M, session, { device });
  const plan = g.plan;
  const fig = s2s[preset] = {
    n_enc_layer: c.n_enc_layer, n_dec_layer: c.n_dec_layer, n_embd: c.n_embd, d_ff: c.d_ff, block_size: c.block_size, batch_size: c.batch_size,
    srcLen: plan.srcLen, tgtLen: plan.tgtLen,
    parameters: plan.numParams, dispatchesPerStep: plan.programs.train.length, dispatchesPerEval: plan.programs.eval.length,
    dispatchesPerToken: plan.programs['translate.step'].length, dispatchesPerInspection: plan.programs['pair.inspect'].length,
    dispatchesPerBeamStep: plan.programs['translate.beam.step'].length, beamRows: plan.io['translate.beam.tokens'][2],
    dispatchesPerCachedToken: plan.programs['translate.beam.step'].length + plan.programs['translate.beam.pick'].length,
  };
  console.log(`  ${preset} (${c.n_enc_layer} + ${c.n_dec_layer} layers, width ${c.n_embd}, batch ${c.batch_size} pairs of ${plan.srcLen} + ${plan.tgtLen} tokens, block_size ${c.block_size}): ` +
    `${fig.dispatchesPerStep} dispatches per training step, ${fig.dispatchesPerEval} per evaluation batch, ` +
    `${fig.dispatchesPerToken} per translated token (+ ${plan.programs['translate.encode'].length} per source; ${fig.dispatchesPerCachedToken} on the KV cache), ${fig.dispatchesPerInspection} per pair inspected, ` +
    `${fig.dispatchesPerBeamStep} per step of a beam of up to ${fig.beamRows} (+ ${plan.programs['translate.beam.start'].length} per source)`);
  if (withCpu && (!software || preset === 's2s-tiny')) {
    const k = software ? 2 : steps;
    // the steps recorded in the host as they come back: the beam below syncs
    const train = (n) => trainSteps(M, session, g, n);
    await train(1); // pipelines warm
    const t0 = performance.now();
    await train(k);
    const gms = performance.now() - t0;
    const cpu = new M.Session(c);
    cpu.setCorpus(M.builtinTask('reverse', 1));
    cpu.advance(1, 0);
    const kc = Math.min(k, 40);
    const t1 = performance.now();
    cpu.advance(kc, 0);
    const cms = performance.now() - t1;
    fig.timing = { steps: k, gpuStepsPerSecond: k / (gms / 1000), cpuSteps: kc, cpuStepsPerSecond: kc / (cms / 1000), cpuVariant: 'simd, 1 thread' };
    console.log(`    ${k} steps: GPU ${fig.timing.gpuStepsPerSecond.toFixed(2)} steps/s, wasm simd (1 thread) ${fig.timing.cpuStepsPerSecond.toFixed(2)} steps/s ` +
      `(GPU / CPU ${(fig.timing.gpuStepsPerSecond / fig.timing.cpuStepsPerSecond).toFixed(2)}x)`);
    // a beam of 4 over a source of the task: the GPU decodes the hypotheses, the core searches; with
    // the KV cache (all rows one position further: one submission and a readback a step) and without
    // it (each live row's whole history again, one submission a row); against the wasm build's beam search
    const src = new TextEncoder().encode('abcdefg');
    // a translation with the KV cache on or off, timed after a warm-up run
    const timed = async (cached, translate) => {
      g.translateCache = cached;
      await translate(); // warm
      const t0 = performance.now();
      const out = await translate();
      return { out, ms: performance.now() - t0 };
    };
    const beam = () => g.beamTranslate(src, 4);
    const { ms: bmsFull, out: btFull } = await timed(false, beam);
    const { ms: bms, out: bt } = await timed(true, beam);
    // greedy (one submission either way): on the KV cache, and over the whole prefix each step
    const greedy = () => g.translate(src);
    const { ms: gmsFull, out: gtFull } = await timed(false, greedy);
    const { ms: gmsCached, out: gtCached } = await timed(true, greedy);
    fig.greedy = { tokens: gtCached.probs.length, gpuMs: gmsCached, gpuMsWithoutCache: gmsFull,
      sameOutput: String(gtCached.text) === String(gtFull.text) };
    console.log(`    greedy of "abcdefg": ${gtCached.probs.length} output tokens in ${gmsCached.toFixed(1)} ms on the GPU with the KV cache ` +
      `(${gmsFull.toFixed(1)} ms without: ${(gmsFull / gmsCached).toFixed(2)}x); the same output: ${fig.greedy.sameOutput}`);
    // what the host route would pay first: the GPU's state brought back into the page's session
    const y0 = performance.now();
    await g.sync();
    const syncMs = performance.now() - y0;
    cpu.load(session.save());
    const b1 = performance.now();
    const bc = cpu.translate(src, { beam: 4 });
    const bcms = performance.now() - b1;
    fig.beam4 = { tokens: bt.probs.length, gpuMs: bms, gpuMsWithoutCache: bmsFull, cpuMs: bcms, syncMs,
      sameOutput: String(bt.text) === String(bc.text) && String(btFull.text) === String(bc.text) };
    console.log(`    beam 4 of "abcdefg": ${bt.probs.length} output tokens in ${bms.toFixed(1)} ms on the GPU with the KV cache ` +
      `(${bmsFull.toFixed(1)} ms without: ${(bmsFull / bms).toFixed(2)}x), ${bcms.toFixed(1)} ms on the wasm build` +
      ` (${(bcms / bms).toFixed(2)}x); the same output: ${fig.beam4.sameOutput}; bringing the GPU's state back first: ${syncMs.toFixed(1)} ms`);
    // sampled at temperature 1 (seed 1): one row, the core draws; the same output for the same seed
    const so = { temperature: 1, seed: 1 };
    const s0 = performance.now();
    const st = await g.sampledTranslate(src, so);
    const sms = performance.now() - s0;
    const s1 = performance.now();
    const sc = cpu.translate(src, so);
    const scms = performance.now() - s1;
    fig.sampled = { tokens: st.probs.length, gpuMs: sms, cpuMs: scms, sameOutput: String(st.text) === String(sc.text) };
    console.log(`    sampled (temperature 1, seed 1) of "abcdefg": ${st.probs.length} output tokens in ${sms.toFixed(1)} ms on the GPU, ` +
      `${scms.toFixed(1)} ms on the wasm build; the same output: ${fig.sampled.sameOutput}`);
    cpu.delete();
    if (!software) {
      // where a step's GPU time goes, by kernel (each op dispatched alone, 20 times)
      const byKernel = new Map();
      for (const p of await g.executor.profile('train', 20)) byKernel.set(p.kernel, (byKernel.get(p.kernel) ?? 0) + p.ms);
      fig.perKernelMs = Object.fromEntries(byKernel);
      console.log('    per kernel, ms: ' + [...byKernel].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${ms.toFixed(3)}`).join(', '));
    }
  }
  g.destroy();
  session.delete();
}
results.write();
