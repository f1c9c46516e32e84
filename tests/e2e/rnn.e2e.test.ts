// Issue 25 in the page: the recurrent models next to the Transformers. One session in order: the
// architecture choice (LSTM: its presets and knobs); an LSTM trained on tiny Shakespeare (the loss
// falls below the unigram baseline), sampled; the hidden-state view (a trace of every unit, the
// LSTM's gates, a unit search that finds a unit following the spaces); a Transformer of the same
// size trained on the same text and schedule, compared with the LSTM on one chart in bits per
// byte; the LSTM translator trained on the reverse task to at least 95% exact match, its alignment
// the anti-diagonal; the view worded in Chinese. Screenshots go to test-artifacts/ (docs/rnn.md).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { fillKnob, launch, openPage, state, untranslated, waitState } from './helpers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = path.join(root, 'test-artifacts');
const STEPS = 300, EVERY = 100;

let page: Page;
let close: () => Promise<void>;
const consoleErrors: string[] = [];

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const l = await launch({ viewport: { width: 1280, height: 1000 } });
  close = l.close;
  page = await l.ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  await openPage(page, inject('baseURL'));
});
afterAll(async () => {
  await close?.();
});

async function shot(selector: string, name: string): Promise<void> {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.locator(selector).screenshot({ path: path.join(artifacts, `rnn-${name}.png`) });
}

/** A preset trained to the end of a short schedule on the current data. */
async function train(preset: string, steps: number, every: number, timeout: number): Promise<void> {
  await page.click(`[data-preset="${preset}"]`);
  await fillKnob(page, 'max_iters', String(steps));
  await fillKnob(page, 'eval_interval', String(every));
  await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
  await page.click('#btn-start');
  await waitState(page, (s, n) => s.step >= n && !s.running, steps, timeout);
}

describe('recurrent models in the page', () => {
  it('offers the LSTM, GRU and RNN next to the Transformer, with their presets and knobs', async () => {
    expect(await state(page, (s) => s.mode)).toBe('gpt');
    const kinds = await page.$$eval('#architecture label:not([hidden]) input', (i) => i.map((x) => (x as HTMLInputElement).value));
    expect(kinds).toEqual(['gpt', 'lstm', 'gru', 'rnn']);
    expect(await page.isChecked('#arch-gpt')).toBe(true);
    await page.click('#arch-lstm');
    await waitState(page, (s) => s.formSettings?.model === 'lstm');
    const presets = await page.$$eval('#settings button.preset', (b) => b.map((x) => (x as HTMLElement).dataset.preset));
    expect(presets).toEqual(['lstm-tiny', 'lstm-S']);
    expect(await page.getAttribute('#settings', 'data-preset')).toBe('lstm-S');   // S's size: its LSTM
    for (const knob of ['n_layer', 'n_embd', 'n_hidden', 'stateful']) expect(await page.locator(`#knob-${knob}`).count(), knob).toBe(1);
    expect(await page.locator('#knob-n_head').count()).toBe(0);
    expect(await page.textContent('#settings .explain')).toMatch(/LSTM/);
  });

  it('trains an LSTM on tiny Shakespeare below the unigram baseline, and samples from it', async () => {
    await page.click('#btn-shakespeare');
    await page.waitForFunction(() => !!document.querySelector('#corpus-name')?.textContent);
    await train('lstm-tiny', STEPS, EVERY, 600 * STEPS);
    const r = await state(page, (s) => ({ val: s.history.valLosses, kind: s.model.config.model, unigram: s.watch?.baselines?.unigram }));
    expect(r.kind).toBe('lstm');
    expect(r.val.length).toBe(STEPS / EVERY + 1);
    expect(r.val[r.val.length - 1]).toBeLessThan(r.unigram);   // it uses context: below ~3.3 nats
    await waitState(page, (s) => s.runs.some((r: any) => r.current));
    expect(await state(page, (s) => s.runs.find((r: any) => r.current).model)).toMatch(/LSTM: 1 layer × 128 units/);
    await page.fill('#prompt', 'ROMEO:');
    await page.fill('#sample-length', '120');
    await page.click('#btn-generate');
    await waitState(page, (s) => s.sample && !s.sample.generating && s.sample.chunks.length > 0);
    const n = await state(page, (s) => s.sample.chunks.reduce((a: number, c: any) => a + c.bytes.length, 0));
    expect(n).toBe(120);
    // a recurrent model has no attention: the time-lapse says so
    await page.locator('#watch').scrollIntoViewIfNeeded();
    await page.waitForSelector('#tl-no-attention');
    await shot('#sample', '1-sample');
  }, 60_000 + 600 * STEPS);

  it('traces the text through every unit, shows the LSTM\'s gates, and finds the units that follow a pattern', async () => {
    await page.locator('#hidden').scrollIntoViewIfNeeded();
    expect(await page.isVisible('#hidden')).toBe(true);
    await page.click('#hidden-trace');
    await waitState(page, (s) => !!s.hiddenTrace && !s.hiddenBusy);
    const tr = await state(page, (s) => ({ T: s.hiddenTrace.T, L: s.hiddenTrace.L, H: s.hiddenTrace.H, G: s.hiddenTrace.G, text: s.hiddenTraceText }));
    expect([tr.L, tr.H, tr.G]).toEqual([1, 128, 4]);
    expect(tr.T).toBe(new TextEncoder().encode(tr.text).length);
    expect(await page.locator('#hidden-view .hb').count()).toBe(tr.T);
    expect(await page.$$eval('#hidden-gates .gate-row', (r) => r.map((x) => (x as HTMLElement).dataset.gate))).toEqual(['i', 'f', 'g', 'o']);
    // a gate is a probability: every cell's value in [0, 1]
    await page.selectOption('#hidden-what', 'f');
    await page.waitForFunction(() => document.querySelector('#hidden-view')?.getAttribute('data-unit') === '0:0:f');
    const f = await page.$$eval('#hidden-view .hb', (s) => s.map((x) => Number((x as HTMLElement).dataset.v)));
    expect(f.every((v) => v >= 0 && v <= 1)).toBe(true);
    // the search: the units whose activation follows the spaces best, and the text coloured by the first
    await page.selectOption('#hidden-pattern', 'space');
    await page.click('#hidden-search');
    await waitState(page, (s) => s.hiddenMatches && s.hiddenMatches.length === 8 && !s.hiddenBusy);
    const best = await state(page, (s) => s.hiddenMatches[0]);
    expect(Math.abs(best.correlation)).toBeGreaterThan(0.5);
    expect(await page.locator('#hidden-matches li').count()).toBe(8);
    await page.waitForFunction((u) => document.querySelector('#hidden-view')?.getAttribute('data-unit') === u, `${best.layer}:${best.unit}:${best.state}`);
    await shot('#hidden', '2-hidden');
  });

  it('compares the LSTM with a Transformer of the same size on the same text and schedule, in bits per byte', async () => {
    const lstmRun = await state(page, (s) => s.runId);
    await waitState(page, (s) => s.lastSave && s.lastSave.step === s.step);
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
    await page.click('#arch-gpt');
    await waitState(page, (s) => s.formSettings?.model === 'gpt');
    await train('tiny', STEPS, EVERY, 600 * STEPS);
    await waitState(page, (s) => s.lastSave && s.lastSave.step === s.step && s.runs.length >= 2);
    expect(await page.isVisible('#hidden')).toBe(false);   // a Transformer has no hidden-state view
    await page.locator('#watch').scrollIntoViewIfNeeded();
    await page.check(`#cmp-${lstmRun}`);
    await waitState(page, (s, id) => !!s.compare[id], lstmRun);
    await page.waitForFunction(() => document.querySelector('#cmp-chart')!.getAttribute('data-series') === '2');
    const legend = (await page.locator('#cmp-chart .u-legend').textContent())!;
    expect(legend).toContain('LSTM 1L × 128');
    expect(legend).toContain('this run (2L × 64');
    // the chart is in bits per byte: the stored curves are the runs' nats / ln 2
    const lstm = await state(page, (s) => Array.from(s.compare[s.runs.find((r: any) => !r.current).id].valLosses as number[]));
    expect(lstm[lstm.length - 1] / Math.LN2).toBeLessThan(5);
    await shot('#view-compare', '3-compare');
  }, 60_000 + 600 * STEPS);

  it('trains the LSTM translator on the reverse task to at least 95% exact match; its alignment is the anti-diagonal', async () => {
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
    await page.click('#mode-seq2seq');
    await waitState(page, (s) => s.mode === 'seq2seq');
    await page.click('#arch-lstm_seq2seq');
    await waitState(page, (s) => s.formSettings?.model === 'lstm_seq2seq');
    await page.click('[data-task=reverse]');
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'reverse');
    await page.click('[data-preset=s2s-lstm]');
    await fillKnob(page, 'block_size', '9');
    await train('s2s-lstm', 600, 300, 600_000);
    const exact = await state(page, (s) => s.history.valExactMatch);
    expect(exact[exact.length - 1]).toBeGreaterThanOrEqual(0.95);
    await page.locator('#translate').scrollIntoViewIfNeeded();
    await page.fill('#translate-source', 'stone');
    await page.click('#btn-translate');
    await page.waitForFunction(() => (document.querySelector('#translate-output')?.textContent ?? '').includes('enots'));
    // the alignment: one map (cross-attention), each output byte reading the source backwards
    await page.selectOption('#align-source', 'custom');
    await page.fill('#align-custom-source', 'stone');
    await page.fill('#align-custom-target', 'enots');
    await page.click('#btn-align');
    await waitState(page, (s) => !!s.alignment && s.alignment.S === 5);
    const a = await state(page, (s) => ({ S: s.alignment.S, T: s.alignment.T, cross: Array.from(s.alignment.cross as Float32Array), enc: s.alignment.encSelf.length }));
    expect(a.enc).toBe(0);
    let diagonal = 0;
    for (let i = 0; i < a.S; i++) {
      const row = a.cross.slice(i * a.S, (i + 1) * a.S);
      if (row.indexOf(Math.max(...row)) === a.S - 1 - i) diagonal++;
    }
    expect(diagonal).toBeGreaterThanOrEqual(a.S - 1);
    expect(await page.$$eval('#align-map option:not([disabled])', (o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual(['cross']);
    await shot('#alignment', '4-alignment');
  }, 700_000);

  it('words the hidden-state view in Chinese', async () => {
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
    await page.click('#mode-gpt');
    await waitState(page, (s) => s.mode === 'gpt');
    await page.click('#arch-lstm');
    await page.selectOption('#language', 'zh-CN');
    try {
      await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
      expect(await page.textContent('#hidden-title')).toContain('单元记住了什么');
      expect(await page.textContent('label[for="arch-lstm"] .mode-blurb')).toBe('带门控的记忆，逐字节读取');
      expect(await untranslated(page, '#hidden')).toEqual([]);
      expect(await untranslated(page, '#architecture')).toEqual([]);
    } finally {
      await page.selectOption('#language', 'en');
    }
    expect(consoleErrors).toEqual([]);
  });
});
