// The WebGPU backend in the browser: headless Chromium on its SwiftShader adapter
// (--enable-unsafe-webgpu --use-webgpu-adapter=swiftshader) trains, inspects and generates with
// the same executor the Node tests drive through Dawn, against the wasm build in the same page; and
// trains and translates with the encoder-decoder (seq2seq).
// A small server hands out the repository's files (TypeScript compiled on the fly) on localhost,
// a secure origin as WebGPU requires.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { chromium } from 'playwright-core';
import ts from 'typescript';

import { chromiumPath } from '../../scripts/chromium.mjs';
import { root } from './helpers.mjs';

const PAGE = /* html */ `<!doctype html><meta charset="utf-8"><title>tinygpt WebGPU</title>
<script type="module">
import createTinyGPT from '/build/wasm-dist/tinygpt-simd.js';
import { WebGpuSession } from '/web/src/features/webgpu/session.ts';
const TINY = { n_layer: 2, n_head: 2, n_embd: 32, block_size: 16, batch_size: 2, max_iters: 40, warmup_iters: 3,
  learning_rate: 3e-3, seed: 7, eval_iters: 2, eval_interval: 0 };
try {
  const M = await createTinyGPT();
  const corpus = new Uint8Array(await (await fetch('/data/tinyshakespeare.txt')).arrayBuffer());
  const cpu = new M.Session(TINY);
  cpu.setCorpus(corpus);
  const want = [...cpu.advance(5, 0).losses];
  const host = new M.Session(TINY);
  host.setCorpus(corpus);
  const g = await WebGpuSession.create(M, host);
  const steps = await g.steps(5);
  M.gpuRecordSteps(host, steps.losses, steps.gradNorms);
  const got = [...steps.losses];
  const prompt = new TextEncoder().encode('ROMEO:');
  const genCpu = cpu.generate(prompt, 24, { temperature: 1, seed: 3 });
  const genGpu = await g.generate(prompt, 24, { temperature: 1, seed: 3 });
  const insCpu = cpu.inspect(prompt), insGpu = await g.inspect(prompt);
  let attention = 0;
  insCpu.attention.forEach((a, i) => { attention = Math.max(attention, Math.abs(a - insGpu.attention[i])); });
  // the encoder-decoder: 3 steps and a greedy translation against the wasm build's
  const S2S = { model: 'seq2seq', n_enc_layer: 1, n_dec_layer: 1, n_head: 2, n_embd: 16, d_ff: 32, block_size: 9,
    batch_size: 4, max_iters: 40, warmup_iters: 3, learning_rate: 1e-2, seed: 5, eval_iters: 2, eval_interval: 0 };
  const pairs = M.builtinTask('reverse', 1);
  const s2sCpu = new M.Session(S2S);
  s2sCpu.setCorpus(pairs);
  const s2sWant = [...s2sCpu.advance(3, 0).losses];
  const s2sHost = new M.Session(S2S);
  s2sHost.setCorpus(pairs);
  const gs = await WebGpuSession.create(M, s2sHost);
  const s2sSteps = await gs.steps(3);
  M.gpuRecordSteps(s2sHost, s2sSteps.losses, s2sSteps.gradNorms);
  const source = new TextEncoder().encode('abcde');
  const trGpu = await gs.translate(source), trCpu = s2sCpu.translate(source, {});
  window.result = { adapter: g.adapterName, want, got, bytesCpu: [...genCpu.bytes], bytesGpu: [...genGpu.bytes], attention,
    s2sWant, s2sGot: [...s2sSteps.losses], tokensCpu: [...trCpu.tokens], tokensGpu: [...trGpu.tokens] };
} catch (e) {
  window.result = { error: String(e && e.stack || e) };
}
</script>`;

const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.txt': 'text/plain' };

function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) return res.writeHead(403).end();
    if (!path.extname(file) && fs.existsSync(`${file}.ts`)) file += '.ts'; // extensionless imports
    if (!fs.existsSync(file)) return res.writeHead(404).end();
    if (file.endsWith('.ts')) {
      const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(outputText);
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let server, ctx, userDataDir;
before(async () => {
  server = await serve();
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-webgpu-'));
  ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'],
  });
});

after(async () => {
  await ctx?.close();
  server?.close();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
});

it('trains, inspects and generates in Chromium on SwiftShader like the wasm build (the GPT; the translator trains and translates)', { timeout: 600_000 }, async (t) => {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.result, null, { timeout: 570_000 });
  const r = await page.evaluate(() => window.result);
  assert.ok(!r.error, r.error);
  t.diagnostic(`adapter in Chromium: ${r.adapter}`);
  r.got.forEach((l, i) => assert.ok(Math.abs(l - r.want[i]) / r.want[i] < 1e-4, `step ${i}: GPU ${l}, wasm ${r.want[i]}`));
  assert.deepEqual(r.bytesGpu, r.bytesCpu);
  assert.ok(r.attention < 1e-4, `attention differs by ${r.attention}`);
  r.s2sGot.forEach((l, i) => assert.ok(Math.abs(l - r.s2sWant[i]) / r.s2sWant[i] < 1e-4, `seq2seq step ${i}: GPU ${l}, wasm ${r.s2sWant[i]}`));
  assert.deepEqual(r.tokensGpu, r.tokensCpu, 'seq2seq greedy translation');
});
