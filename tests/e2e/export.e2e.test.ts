// Issue 24 in the page: a model trained in the tab leaves as ONNX, a Hugging Face GPT-2 folder
// (zipped) and GGUF from "Download as…", and comes back. In order: a tiny model in the GPT-2 layout
// (tie_weights 1) trained on tiny Shakespeare; its ONNX download run in onnxruntime-node (the
// graph's inputs and outputs); the check in ONNX Runtime (onnxruntime-web in the page) continuing a
// prompt as tinygpt does; the Hugging Face zip unpacked and its files dropped back on the page: a new
// run of the same shape at step 0 whose greedy continuation is the exported model's; a GGUF file
// dropped: said to be an export format, the model kept; a model with a head of its own: the
// Hugging Face folder refused with the words that say so (English and Chinese); a BPE model: checked
// in ONNX Runtime in its tokens, its folder dropped back a BPE run continuing the prompt as before.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { unzipSync } from 'fflate';
import * as ort from 'onnxruntime-node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { fillKnob, launch, openPage, state, waitState } from './helpers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = path.join(root, 'test-artifacts');
const STEPS = 120;

let page: Page;
let close: () => Promise<void>;
const pageErrors: string[] = [];

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const l = await launch({ viewport: { width: 1280, height: 1000 } });
  close = l.close;
  page = await l.ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  await openPage(page, inject('baseURL'));
});
afterAll(async () => {
  await close?.();
});

/** Several files dropped at once, as a folder's are. */
async function dropFiles(files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const arr = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
      dt.items.add(new File([arr], f.name));
    }
    for (const t of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') })));
}

/** One of "Download as…": the file the browser was given. */
async function download(choice: string): Promise<{ name: string; bytes: Uint8Array }> {
  await page.evaluate(() => ((document.querySelector('#export-menu') as HTMLDetailsElement).open = true));
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`#btn-export-${choice}`)]);
  const bytes = new Uint8Array(fs.readFileSync((await d.path())!));
  fs.writeFileSync(path.join(artifacts, `export-${d.suggestedFilename()}`), bytes);
  return { name: d.suggestedFilename(), bytes };
}

async function greedy(prompt: string): Promise<string> {
  await page.fill('#export-prompt', prompt);
  await page.click('#btn-export-check');
  // the last check's result goes at once; this one's comes with the prompt it continued
  await page.waitForFunction((p) => document.querySelector('#export-core')?.textContent?.startsWith(p) &&
    !!document.querySelector('#export-verdict'), prompt, { timeout: 120_000 });
  return (await page.textContent('#export-core'))!;
}

describe('export from the page and back', () => {
  it('trains a tiny model in the GPT-2 layout', async () => {
    await page.click('#btn-shakespeare');
    await page.waitForFunction(() => !!document.querySelector('#corpus-name')?.textContent);
    await page.click('[data-preset=tiny]');
    await fillKnob(page, 'tie_weights', '1');
    await fillKnob(page, 'max_iters', String(STEPS));
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s, n) => s.step >= n && !s.running, STEPS, 120_000);
    expect(await state(page, (s) => s.model.config.tie_weights)).toBe(1);
  });

  it('downloads ONNX that onnxruntime-node loads with the Hugging Face GPT-2 inputs and outputs', async () => {
    const { name, bytes } = await download('onnx');
    expect(name).toBe(`tinygpt-step${STEPS}.onnx`);
    const s = await ort.InferenceSession.create(bytes);
    expect(s.inputNames.slice(0, 3)).toEqual(['input_ids', 'attention_mask', 'position_ids']);
    expect(s.outputNames).toContain('present.1.value');
  });

  it('checks the model in ONNX Runtime: the same continuation beside tinygpt\'s', async () => {
    await greedy('ROMEO:');
    expect(await page.getAttribute('#export-verdict', 'data-same')).toBe('true');
    expect((await page.textContent('#export-onnx'))!.length).toBeGreaterThan('ROMEO:'.length);
    expect(await page.textContent('#export-core')).toMatch(/^ROMEO:/);
    await page.locator('#export').screenshot({ path: path.join(artifacts, 'export-check.png') });
  });

  it('downloads a zipped Hugging Face folder, and its files dropped back start a new run of the same model', async () => {
    const before = await greedy('First Citizen:');
    const { name, bytes } = await download('hf');
    expect(name).toBe(`tinygpt-step${STEPS}-hf.zip`);
    const files = unzipSync(bytes);
    const folder = name.replace(/\.zip$/, '');
    expect(Object.keys(files).sort()).toEqual(['config.json', 'generation_config.json', 'model.safetensors', 'onnx/model.onnx',
      'tokenizer.json', 'tokenizer_config.json'].map((f) => `${folder}/${f}`));
    expect(JSON.parse(new TextDecoder().decode(files[`${folder}/config.json`])).model_type).toBe('gpt2');
    await dropFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => ({ name: f, bytes: files[`${folder}/${f}`] })));
    await waitState(page, (s) => s.step === 0 && s.model?.config.tie_weights === 1, null, 30_000);
    expect(await greedy('First Citizen:')).toBe(before);   // the weights came back as they left
    expect(pageErrors).toEqual([]);
  });

  it('says a dropped GGUF file is an export format, and keeps the model', async () => {
    const { bytes } = await download('gguf-f16');
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('GGUF');
    const params = await state(page, (s) => s.model.parameters);
    await dropFiles([{ name: 'model.gguf', bytes }]);
    await page.waitForFunction(() => /model\.gguf is a GGUF file, a format tinygpt exports for llama\.cpp/.test(document.body.textContent ?? ''));
    expect(await state(page, (s) => s.model.parameters)).toBe(params);
  });

  it('refuses the Hugging Face folder of a model with a head of its own, saying to export ONNX', async () => {
    await page.click('#btn-reset');
    await page.click('[data-preset=tiny]');
    await fillKnob(page, 'tie_weights', '0');
    await fillKnob(page, 'max_iters', '5');
    await fillKnob(page, 'warmup_iters', '1');
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s) => s.step >= 5 && !s.running, null, 60_000);
    await page.evaluate(() => ((document.querySelector('#export-menu') as HTMLDetailsElement).open = true));
    await page.click('#btn-export-hf');
    await page.waitForFunction(() => /export it as ONNX, or train with the GPT-2 layout/.test(document.body.textContent ?? ''));
  });

  it('exports a BPE model: the check in ONNX Runtime in its tokens, and its folder dropped back brings its tokenizer', async () => {
    await page.click('#btn-reset');
    await page.click('[data-preset=tiny]');
    await page.click('#tokenizer-bpe');
    await waitState(page, (s) => s.settings?.tokenizer === 'bpe');
    await fillKnob(page, 'vocab_size', '320');
    await fillKnob(page, 'tie_weights', '1');
    await fillKnob(page, 'max_iters', '60');
    await fillKnob(page, 'warmup_iters', '2');
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s) => s.step >= 60 && !s.running, null, 300_000);   // the vocabulary is learned first
    expect(await state(page, (s) => [s.model.config.tokenizer, s.model.config.vocab_size])).toEqual(['bpe', 320]);
    const before = await greedy('ROMEO:');
    expect(await page.getAttribute('#export-verdict', 'data-same')).toBe('true');
    const { name, bytes } = await download('hf');
    const files = unzipSync(bytes);
    const folder = name.replace(/\.zip$/, '');
    const tokenizer = JSON.parse(new TextDecoder().decode(files[`${folder}/tokenizer.json`]));
    expect(tokenizer.model.merges.length).toBe(320 - 256);
    expect(JSON.parse(new TextDecoder().decode(files[`${folder}/config.json`])).vocab_size).toBe(320);
    await dropFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => ({ name: f, bytes: files[`${folder}/${f}`] })));
    await waitState(page, (s) => s.step === 0 && s.model?.config.tokenizer === 'bpe' && s.model?.config.vocab_size === 320, null, 30_000);
    expect(await greedy('ROMEO:')).toBe(before);   // the same weights, read and written by the same tokenizer
    expect(pageErrors).toEqual([]);
  }, 420_000);
});
