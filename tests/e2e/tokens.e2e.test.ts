// Issue 23 in the page: a BPE vocabulary of 1,024 learned from tiny Shakespeare in the worker
// (a progress bar), a model trained on its tokens (the chart in nats per token and in bits per
// byte), sampled token by token, the Tokens view (chips with their ids, tokens per byte, the merges
// in the order they were learned, stepped through, a word split); a damaged tokenizer.json
// dropped (a clear message, the current vocabulary and model kept); and the run reloaded and
// resumed from its checkpoint with its tokenizer (it samples through it again).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { fillKnob, launch, openPage, state, waitState } from './helpers';

const STEPS = 120, EVERY = 60;
const artifacts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts');

let page: Page;
let close: () => Promise<void>;
const pageErrors: string[] = [];

beforeAll(async () => {
  const l = await launch({ viewport: { width: 1280, height: 1000 } });
  close = l.close;
  page = await l.ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await openPage(page, inject('baseURL'));
});
afterAll(async () => {
  await close?.();
});

describe('a BPE vocabulary in the page', () => {
  it('learns a vocabulary of 1,024 from Shakespeare in the worker and trains a model on its tokens', async () => {
    await page.click('#btn-shakespeare');
    await page.waitForFunction(() => !!document.querySelector('#corpus-name')?.textContent);
    await page.click('[data-preset="tiny"]');
    await page.click('#tokenizer-bpe');
    await waitState(page, (s) => s.settings?.tokenizer === 'bpe' && s.settings?.vocab_size === 1024);
    await fillKnob(page, 'max_iters', String(STEPS));
    await fillKnob(page, 'eval_interval', String(EVERY));
    expect(await page.inputValue('#knob-vocab_size')).toBe('1024');
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    // the vocabulary is learned first (the progress bar shows it), then the model trains
    await waitState(page, (s, n) => s.step >= n && !s.running, STEPS, 300_000);
    const r = await state(page, (s) => ({ config: s.model.config, tpb: s.model.tokensPerByte, val: Array.from(s.history.valLosses) as number[] }));
    expect(r.config.tokenizer).toBe('bpe');
    expect(r.config.vocab_size).toBe(1024);
    expect(r.tpb).toBeGreaterThan(0.3);   // about 0.43 tokens per byte on Shakespeare's validation text
    expect(r.tpb).toBeLessThan(0.55);
    expect(r.val[0]).toBeGreaterThan(Math.log(1024) - 0.3);   // a blind guess over 1,024 tokens
    expect(r.val[r.val.length - 1]).toBeLessThan(r.val[0] - 1);
    // the chart in bits per byte: the unit choice says nats per token first
    expect(await page.textContent('#loss-unit option[value=nats]')).toBe('nats per token');
    await page.selectOption('#loss-unit', 'bits');
    await waitState(page, (s) => s.lossUnit === 'bits');
  }, 420_000);

  it('samples the model token by token', async () => {
    await page.fill('#prompt', 'ROMEO:');
    await page.fill('#sample-length', '40');
    await page.click('#btn-generate');
    await page.waitForFunction(() => document.querySelector('#sample-output')?.getAttribute('data-done') === 'true', null, { timeout: 60_000 });
    expect(await page.getAttribute('#sample-output', 'data-tokens')).toBe('40');
    expect(await page.locator('#sample-output .tok.bpe').count()).toBe(40);
    const text = await page.textContent('#sample-output');
    expect(text!.length).toBeGreaterThan(50);   // 40 tokens are more than 40 characters
  });

  it('shows the text as token chips, the merges in order with their counts, and how a word splits', async () => {
    await page.locator('#tokens').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => Number(document.querySelector('#tokens-chips')?.getAttribute('data-tokens')) > 0);
    expect(await page.textContent('#tokens-status')).toMatch(/BPE: 1,024 tokens \(the 256 bytes and 768 merges\), the model's own/);
    const chips = Number(await page.getAttribute('#tokens-chips', 'data-tokens'));
    const rate = Number(await page.getAttribute('#tokens-rate', 'data-value'));
    expect(rate).toBeGreaterThan(0.25);
    expect(rate).toBeLessThan(0.6);
    expect(await page.locator('#tokens-chips .chip.merged').count()).toBeGreaterThan(chips / 2);
    // the first merges of Shakespeare (core/src/tokenizer_train.cpp: " " + "t" first, as GPT-2's)
    await page.$eval('#tokens-step', (el) => {
      (el as HTMLInputElement).value = '0';
      el.dispatchEvent(new Event('input'));
    });
    await page.waitForFunction(() => document.querySelector('#tokens-step-note')?.getAttribute('data-value') === '0');
    await page.waitForFunction(() => !document.querySelector('#tokens-chips .chip.merged'));   // bytes alone
    const first = await page.locator('#tokens-merges li').first().locator('.chip-text').allTextContents();
    expect(first).toEqual(['␣', 't', '␣t']);   // a space shown as ␣
    expect(await page.locator('#tokens-merges li').first().textContent()).toMatch(/token 256, seen [\d,]+ times/);
    await page.click('#tokens-next');
    await page.waitForFunction(() => document.querySelector('#tokens-step-note')?.getAttribute('data-value') === '1');
    expect(await page.locator('#tokens-merges li.applied').count()).toBe(1);
    // a word split as the tokenizer splits it
    await page.fill('#tokens-word', ' wherefore');
    await page.waitForFunction(() => Number(document.querySelector('#tokens-word-chips')?.getAttribute('data-tokens')) > 0);
    const parts = await page.locator('#tokens-word-chips .chip-text').allTextContents();
    expect(parts.join('').replaceAll('␣', ' ')).toBe(' wherefore');
    expect(parts.length).toBeLessThan(10);
    fs.mkdirSync(artifacts, { recursive: true });
    await page.locator('#tokens').screenshot({ path: path.join(artifacts, 'tokens-view.png') });
  });

  it('refuses a damaged tokenizer.json with a clear message and keeps the vocabulary and the model', async () => {
    const before = await state(page, (s) => ({ step: s.step, fp: s.tokenizer?.fingerprint }));
    await page.setInputFiles('#tokens-file', { name: 'tokenizer.json', mimeType: 'application/json', buffer: Buffer.from('{"model": {"type": "BPE", "vocab": ') });
    await page.waitForSelector('#tokens-error:not([hidden])');
    expect(await page.textContent('#tokens-error')).toMatch(/tokenizer\.json is not a tokenizer file tinygpt can read/);
    const after = await state(page, (s) => ({ step: s.step, fp: s.tokenizer?.fingerprint, kind: s.model?.config.tokenizer }));
    expect(after).toEqual({ ...before, kind: 'bpe' });
  });

  it('reloads the page and resumes the run with its tokenizer', async () => {
    await waitState(page, (s) => s.runs.some((r: any) => r.current && r.step >= 120), null, 30_000);
    await page.reload();
    await page.waitForSelector('#resume-banner:not([hidden])', { timeout: 30_000 });
    await page.click('#btn-resume');
    await waitState(page, (s) => s.model?.config.tokenizer === 'bpe' && s.step === 120, null, 60_000);
    const tpb = await state(page, (s) => s.model.tokensPerByte);
    expect(tpb).toBeGreaterThan(0.3);
    await page.locator('#tokens').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => /the model's own/.test(document.querySelector('#tokens-status')?.textContent ?? ''));
    // it reads and writes text through its own tokenizer again: a sample of tokens after the prompt
    await page.fill('#prompt', 'JULIET:');
    await page.fill('#sample-length', '10');
    await page.click('#btn-generate');
    await page.waitForFunction(() => document.querySelector('#sample-output')?.getAttribute('data-tokens') === '10', null, { timeout: 60_000 });
    expect(await state(page, (s) => s.model.config.vocab_size)).toBe(1024);
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
