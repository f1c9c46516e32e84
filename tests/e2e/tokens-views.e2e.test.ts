// The views that read a text position by position, on BPE models (issue 23): "watch it learn" keeps
// a GPT's history in tokens (the embedding map and its neighbours, what changed on the probe,
// each labelled by a token's text), and the hidden-state view traces an LSTM's units token by
// token (one cell per token, labelled by its text). In English, then the same views in Chinese.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { fillKnob, launch, openPage, state, waitState } from './helpers';

const STEPS = 60, EVERY = 20;

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

/** Shakespeare, a tiny preset of `arch`, BPE 512, trained STEPS steps with an evaluation every EVERY. */
async function trainBpe(arch: string, preset: string): Promise<void> {
  await page.click('#btn-shakespeare');
  await page.waitForFunction(() => !!document.querySelector('#corpus-name')?.textContent);
  await page.click(`#arch-${arch}`);
  await page.click(`[data-preset="${preset}"]`);
  await page.click('#tokenizer-bpe');
  await fillKnob(page, 'vocab_size', '512');
  await waitState(page, (s) => s.settings?.tokenizer === 'bpe' && s.settings?.vocab_size === 512);
  await fillKnob(page, 'max_iters', String(STEPS));
  await fillKnob(page, 'eval_interval', String(EVERY));
  await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
  await page.click('#btn-start');
  await waitState(page, (s, n) => s.step >= n && !s.running, STEPS, 400_000);
}

describe('the views of a BPE model', () => {
  it('keeps a GPT\'s history in tokens: the embedding map and what changed, labelled by each token\'s text', async () => {
    await trainBpe('gpt', 'tiny');
    await waitState(page, (s, n) => s.watch && s.watch.snapshots.length === n, STEPS / EVERY + 1, 60_000);
    const w = await state(page, (s) => ({ T: s.watch.T, N: s.watch.N, probe: s.watch.probeLabels, map: s.watch.mapLabels, tokens: [...s.watch.mapTokens] }));
    expect(w.probe.length).toBe(w.T);
    expect(w.map.length).toBe(w.N);
    expect(w.N).toBeGreaterThan(100);
    expect(w.tokens.some((id: number) => id >= 256)).toBe(true);   // merged tokens on the map
    // the embedding map: a token and its nearest tokens, by their text
    await page.locator('#watch').scrollIntoViewIfNeeded();
    await page.focus('#emb-map');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#emb-info')!.textContent!.includes('nearest in the embedding space'));
    expect(await page.textContent('#emb-info')).toMatch(/\(token \d+\): nearest in the embedding space/);
    const token = Number(await page.getAttribute('#emb-info', 'data-token'));
    expect(w.tokens).toContain(token);
    // what changed: one cell per probe token, with its text
    const cells = await page.$$eval('#wc-tokens .tok', (els) => els.map((e) => e.textContent));
    expect(cells).toEqual(w.probe);
    expect(await page.locator('#wc-tokens .tok[data-diff]').count()).toBe(w.T - 1);   // no loss for the first token
  }, 600_000);

  it('traces an LSTM token by token, one cell per token labelled by its text', async () => {
    // a new run: the live model's architecture is locked until it is reset
    await waitState(page, (s) => s.lastSave && s.lastSave.step === s.step, null, 60_000);
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
    await trainBpe('lstm', 'lstm-tiny');
    await page.locator('#hidden').scrollIntoViewIfNeeded();
    await page.fill('#hidden-text', 'ROMEO:\nBut, soft! what light through yonder window breaks?\n');
    await page.click('#hidden-trace');
    await waitState(page, (s) => !!s.hiddenTrace && !s.hiddenBusy, null, 60_000);
    const tr = await state(page, (s) => ({ T: s.hiddenTrace.T, labels: s.hiddenTrace.labels, ends: [...s.hiddenTrace.ends] }));
    expect(tr.T).toBeLessThan(59);            // fewer tokens than the text's 59 bytes
    expect(tr.ends[tr.T - 1]).toBe(59);
    expect(await page.locator('#hidden-view .hb').count()).toBe(tr.T);
    expect(await page.getAttribute('#hidden-view', 'data-cells')).toBe(String(tr.T));
    expect(await page.textContent('#hidden-status')).toMatch(new RegExp(`^Traced ${tr.T} tokens at step ${STEPS}: .* This model reads BPE tokens`));
    expect(await page.locator('#hidden-view br').count()).toBe(2);   // the two newlines end lines
    await page.selectOption('#hidden-pattern', 'space');
    await page.click('#hidden-search');
    await waitState(page, (s) => s.hiddenMatches && s.hiddenMatches.length === 8 && !s.hiddenBusy, null, 60_000);
    // in Chinese
    await page.selectOption('#language', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    expect(await page.textContent('#hidden-status')).toMatch(new RegExp(`^已在第 ${STEPS} 步追踪 ${tr.T} 个词元`));
    await page.selectOption('#language', 'en');
    expect(pageErrors).toEqual([]);
  }, 600_000);
});
