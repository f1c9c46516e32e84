// Issue 16, part 1: the learn-by-hand mode. It loads on demand, shows the walkthrough's numbers
// (read from the DOM and compared with tests/ref/walkthrough.json, the file the Catch2 test reads),
// steps by keyboard, and an edited token or weight recomputes every box exactly as the module's
// learnTrace computes it (called here directly, in Node); switched to Chinese mid-visit, every box,
// the graph and the status are worded again, with no English left outside the core's names and
// math, and the docs come from the Chinese twins. Screenshots go to test-artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

// @ts-expect-error: a plain .mjs helper of the Node tests
import { loadModule } from '../wasm/helpers.mjs';
import { launch, seriousA11yViolations, untranslated, waitState } from './helpers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const artifacts = path.join(root, 'test-artifacts');
const hand = JSON.parse(fs.readFileSync(path.join(root, 'tests/ref/walkthrough.json'), 'utf8'));

let ctx: BrowserContext;
let close: () => Promise<void>;
let page: Page;
let M: any;
const scripts: string[] = [];

/** The values of the box named `name`, as the page holds them (data-v: every digit of the float). */
async function box(name: string): Promise<{ shape: string; values: number[] }> {
  return page.evaluate((n) => {
    const el = [...document.querySelectorAll<HTMLElement>('.walk-box')].find((b) => b.dataset.name === n);
    if (!el) throw new Error(`no box named ${n}`);
    return {
      shape: el.querySelector('.walk-shape')!.textContent!,
      values: [...el.querySelectorAll<HTMLElement>('td')].map((td) => Number(td.dataset.v)),
    };
  }, name);
}

function near(actual: number, expected: number, margin: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(margin);
}

/** Every box of the page equals the module's trace (the page may run another build: 1e-6 relative). */
async function expectPageShows(trace: any): Promise<void> {
  const shown = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.walk-box')].map((b) => ({
    name: b.dataset.name!, values: [...b.querySelectorAll<HTMLElement>('td')].map((td) => Number(td.dataset.v)),
  })));
  expect(shown.map((b) => b.name)).toEqual(trace.entries.map((e: any) => e.name));
  shown.forEach((b, i) => {
    const want = [...trace.entries[i].values] as number[];
    expect(b.values.length, b.name).toBe(want.length);
    b.values.forEach((v, k) => {
      if (!Number.isFinite(want[k])) expect(v, `${b.name}[${k}]`).toBe(want[k]);
      else expect(Math.abs(v - want[k]), `${b.name}[${k}]`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want[k])));
    });
  });
}

async function current(): Promise<string> {
  return page.evaluate(() => document.querySelector<HTMLElement>('.walk-box.current')?.dataset.name ?? '');
}

async function waitStatus(re: RegExp): Promise<void> {
  await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('.walk-status')?.textContent ?? ''), re.source);
}

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  M = await loadModule('simd');
  ({ ctx, close } = await launch());
  page = await ctx.newPage();
  page.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(r.url()); });
});
afterAll(async () => {
  await close?.();
});

describe('learn by hand', () => {
  it('loads its code only when opened, from the keyboard', async () => {
    await page.goto(inject('baseURL'));
    await waitState(page, (s) => !!s.ready);
    const before = scripts.length;
    expect(await page.locator('.walk').count()).toBe(0);
    await page.focus('#walk-open');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.walk-box[data-name="X"]');
    const loaded = scripts.slice(before).filter((u) => /learn-panel/.test(u));
    expect(loaded.length, `scripts loaded on opening: ${scripts.slice(before).join(', ')}`).toBe(1);
    expect(scripts.slice(0, before).some((u) => /learn-panel/.test(u))).toBe(false);
  });

  it("shows the walkthrough's hand-computed numbers", async () => {
    expect((await box('x')).values).toEqual(hand.x);
    expect((await box('y')).values).toEqual(hand.y);
    const X = await box('X');
    expect(X.shape).toBe('(1, 3, 2)');
    hand.X.flat().forEach((v: number, i: number) => near(X.values[i], v, hand.X_margin, `X[${i}]`));
    const ln = hand.layernorm_row0;
    near((await box('ln_1.mean')).values[0], ln.mean, ln.stat_margin, 'mean of X0');
    near((await box('ln_1.var')).values[0], ln.var, ln.stat_margin, 'variance of X0');
    near((await box('ln_1.rstd')).values[0], ln.rstd, ln.stat_margin, 'rstd of X0');
    const lnOut = (await box('ln_1.out')).values;
    near(lnOut[0], ln.out[0], ln.out_margin, 'LN(X0)[0]');
    near(lnOut[1], ln.out[1], ln.out_margin, 'LN(X0)[1]');
    const att = (await box('att')).values;
    expect([att[0], att[1]]).toEqual(hand.attention.P0);
    near(att[3], hand.attention.P1[0], hand.attention.P_margin, 'P10');
    near(att[4], hand.attention.P1[1], hand.attention.P_margin, 'P11');
    const Y = (await box('Y')).values;
    near(Y[2], hand.attention.Y1[0], hand.attention.Y_margin, 'Y1[0]');
    near(Y[3], hand.attention.Y1[1], hand.attention.Y_margin, 'Y1[1]');
    const masked = await page.locator('.walk-box[data-name="scores + mask"] td').nth(1).textContent();
    expect(masked).toBe('−∞');
    const logits = (await box('logits')).values;
    hand.cross_entropy.logits.forEach((v: number, i: number) => near(logits[i], v, hand.cross_entropy.logits_margin, `logits[0,${i}]`));
    near((await box('losses')).values[0], hand.cross_entropy.loss, hand.cross_entropy.loss_margin, 'loss of row 0');
    await expectPageShows(M.learnTrace('walkthrough'));
    await page.locator('.walk-box[data-name="att"]').scrollIntoViewIfNeeded();
    await page.locator('#learn').screenshot({ path: path.join(artifacts, 'learn-1-walkthrough.png') });
  });

  it('steps forward and back by keyboard, highlighting the box and its node in the graph', async () => {
    await page.focus('#walk-next');
    expect(await current()).toBe('tokens');
    await page.keyboard.press('Enter');
    expect(await current()).toBe('x');
    await page.keyboard.press('ArrowRight');
    expect(await current()).toBe('y');
    await page.keyboard.press('ArrowLeft');
    expect(await current()).toBe('x');
    await page.click('.walk-phases button[data-phase="backward"]');
    expect(await current()).toBe('d(loss)');
    expect(await page.getAttribute('.walk-graph button.current', 'data-node')).toBe('loss');
    expect(await page.getAttribute('.walk-graph button.current', 'data-phase')).toBe('backward');
    await page.click('.walk-graph button[data-node="attention"]');
    expect(await page.evaluate(() => document.querySelector<HTMLElement>('.walk-box.current')?.dataset.node)).toBe('attention');
    expect(await page.textContent('.walk-counter')).toMatch(/^\d+ \/ \d+: d\(Y\)$/);
    // the docs link opens its section in the box
    await page.click('.walk-box.current .walk-fn');
    // the docs link opens its section in the box: Markdown rendered, its math set by KaTeX
    await page.waitForSelector('.walk-box.current .walk-doc:not([hidden]) .doc-section');
    expect(await page.textContent('.walk-box.current .walk-doc .doc-section h3')).toMatch(/^C\.3 The backward algorithm/);
    expect(await page.locator('.walk-box.current .walk-doc .doc-section .katex').count()).toBeGreaterThan(0);
    expect(await page.locator('.walk-box.current .walk-doc .doc-section .katex-error').count()).toBe(0);
    await page.click('.walk-phases button[data-phase="update"]');
    expect(await current()).toBe('grad norm');
    await page.locator('.walk-box.current').screenshot({ path: path.join(artifacts, 'learn-2-update-box.png') });
  });

  it('recomputes every box through the core when a token is edited, and only what comes after it', async () => {
    const beforeX = (await box('X')).values;
    const beforeLogits = (await box('logits')).values;
    await page.fill('#walk-token-1', '0');
    await page.press('#walk-token-1', 'Tab');
    await waitStatus(/Recomputed by the core with tokens \[2, 0, 3, 0\]/);
    expect(await current()).toBe('grad norm');                 // the current box stays
    await expectPageShows(M.learnTrace('walkthrough', { tokens: [2, 0, 3, 0], weights: [] }));
    const X = (await box('X')).values;
    expect(X.slice(0, 2)).toEqual(beforeX.slice(0, 2));        // position 0 is upstream of token 1
    near(X[2], 0, 1e-7, 'X1[0] = W_te[0][0] + W_pe[1][0]');
    const logits = (await box('logits')).values;
    expect(logits.slice(0, 4)).toEqual(beforeLogits.slice(0, 4));   // the causal mask: row 0 cannot see position 1
    expect(logits.slice(4)).not.toEqual(beforeLogits.slice(4));
    await page.locator('.walk-box[data-name="logits"]').scrollIntoViewIfNeeded();
    await page.locator('#learn').screenshot({ path: path.join(artifacts, 'learn-3-token-edited.png') });
  });

  it('refuses a token outside the vocabulary with the core message and keeps the numbers', async () => {
    const before = (await box('logits')).values;
    await page.fill('#walk-token-2', '9');
    await page.press('#walk-token-2', 'Tab');
    await waitStatus(/token 9 is outside the vocabulary \[0, 4\)/);
    expect((await box('logits')).values).toEqual(before);
    expect(await page.inputValue('#walk-token-2')).toBe('3');
  });

  it('recomputes after a weight edit, which starts from a click on the number', async () => {
    await page.click('.walk-box[data-name="wpe"] td[data-i="0"]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('walk-weight-value');
    expect(await page.inputValue('#walk-weight-param')).toBe('wpe');
    await page.fill('#walk-weight-value', '0.6');
    await page.keyboard.press('Enter');
    await waitStatus(/wpe\[0\] = 0\.6/);
    await expectPageShows(M.learnTrace('walkthrough', { tokens: [2, 0, 3, 0], weights: [{ param: 'wpe', index: 0, value: 0.6 }] }));
    near((await box('X')).values[0], 0.6, 1e-6, 'X0[0]');
    await page.click('#walk-reset');
    await waitStatus(/The model’s own numbers/);
    await expectPageShows(M.learnTrace('walkthrough'));
  });

  it('switches to the two-head model with V = 8', async () => {
    await page.selectOption('#walk-model', 'two-heads');
    await page.waitForFunction(() => document.querySelector('.walk-box[data-name="att"] .walk-shape')?.textContent === '(1, 2, 3, 3)');
    expect((await box('logits')).shape).toBe('(1, 3, 8)');
    await expectPageShows(M.learnTrace('two-heads'));
    await page.locator('.walk-box[data-name="att"]').scrollIntoViewIfNeeded();
    await page.locator('#learn').screenshot({ path: path.join(artifacts, 'learn-4-two-heads.png') });
  });

  it('has no serious or critical accessibility violations (axe-core)', async () => {
    expect(await seriousA11yViolations(page, '#learn')).toEqual([]);
  });
});

describe('learn by hand in Chinese (issue 16: switched in the middle of a visit)', () => {
  it('words the boxes, the graph, the controls and the status again, with no English left', async () => {
    await page.selectOption('#walk-model', 'walkthrough');
    await page.waitForFunction(() => document.querySelector('.walk-box[data-name="att"] .walk-shape')?.textContent === '(1, 1, 3, 3)');
    await page.click('.walk-box[data-name="att"] header');   // the attention softmax, in the middle of the step
    expect(await current()).toBe('att');
    expect(await page.textContent('.walk-box[data-name="mask"] .walk-eq')).toBe('M_ij = 0 (j ≤ i), −∞ (j > i) (causal)');
    await page.selectOption('#language', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await page.waitForFunction(() => document.querySelector('.walk-box[data-name="att"] .walk-phase')?.textContent === '前向');
    expect(await current()).toBe('att');                         // the current box stays
    expect(await page.textContent('.walk-phases button[data-phase="backward"]')).toBe('反向');
    expect(await page.textContent('.walk-graph button[data-node="attention"]')).toBe('分数 · 掩码 · softmax · P·V');
    expect(await page.textContent('#walk-next')).toBe('下一步 ▶');
    expect(await page.textContent('.walk-status')).toBe('模型自己的数字。');
    expect(await page.textContent('.walk-box[data-name="mask"] .walk-eq')).toBe('M_ij = 0 (j ≤ i), −∞ (j > i)（因果掩码）');
    expect(await page.textContent('.walk-box[data-name="d(X)"] .walk-eq')).toBe('∂L/∂(X)，运行 nn::add_positional 的反向时已累加完整');
    expect(await page.getAttribute('#walk-token-0', 'aria-label')).toBe('第 0 个 token（输入）');
    expect(await untranslated(page, '#walk')).toEqual([]);
    // the docs: the link and the section shown in the box are the Chinese twin's
    expect(await page.getAttribute('.walk-box[data-name="att"] .walk-fn', 'href')).toBe('docs/walkthrough.zh-CN.md#4-单头注意力');
    await page.click('.walk-box[data-name="att"] .walk-fn');
    await page.waitForSelector('.walk-box[data-name="att"] .walk-doc:not([hidden]) .doc-section');
    expect(await page.textContent('.walk-box[data-name="att"] .walk-doc .doc-section h2')).toMatch(/^4\) 单头注意力/);
    expect(await page.locator('.walk-box[data-name="att"] .walk-doc .doc-section .katex').count()).toBeGreaterThan(0);
    expect(await page.locator('.walk-box[data-name="att"] .walk-doc .doc-section .katex-error').count()).toBe(0);
    await page.locator('.walk-box[data-name="att"]').scrollIntoViewIfNeeded();
    await page.locator('#learn').screenshot({ path: path.join(artifacts, 'learn-zh-CN.png') });
    await page.click('.walk-box[data-name="att"] .walk-fn');   // closed again
  });

  it('says in Chinese why an edit is refused, and what was recomputed', async () => {
    await page.fill('#walk-token-2', '9');
    await page.press('#walk-token-2', 'Tab');
    await waitStatus(/^未修改：/);
    expect(await page.inputValue('#walk-token-2')).toBe('3');
    await page.fill('#walk-token-2', '');
    await page.press('#walk-token-2', 'Tab');
    await waitStatus(/^未修改：第 2 个 token 必须是 0 到 3 之间的整数$/);
    await page.click('.walk-box[data-name="wpe"] td[data-i="1"]');
    await page.fill('#walk-weight-value', '0.25');
    await page.keyboard.press('Enter');
    await waitStatus(/^核心已按 token 序列 \[2, 1, 3, 0\]，wpe\[1\] = 0\.25 重新计算。$/);
    expect(await untranslated(page, '#walk')).toEqual([]);
  });

  it('words it all in English again when switched back', async () => {
    await page.selectOption('#language', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await waitStatus(/^Recomputed by the core with tokens \[2, 1, 3, 0\], wpe\[1\] = 0\.25\.$/);
    expect(await page.textContent('.walk-phases button[data-phase="backward"]')).toBe('Backward');
    expect(await page.textContent('.walk-box[data-name="att"] .walk-phase')).toBe('forward');
    expect(await page.getAttribute('.walk-box[data-name="att"] .walk-fn', 'href')).toBe('docs/walkthrough.md#4-attention-with-one-head');
    await page.click('#walk-reset');
    await waitStatus(/The model’s own numbers/);
  });
});

