// Issue 16, part 2: the page in Chinese. A browser whose language is zh-CN gets the Chinese page;
// at each step of a visit (the first screen, training, a sample, the attention maps, the help, a
// refused file, an impossible setting, learn by hand, watch it learn, the translator) no English
// reaches the DOM outside data (untranslated(): text nodes and labelling attributes, the terms
// Chinese keeps aside). The switcher changes the language live, and the choice is remembered.
// Screenshots go to test-artifacts/ (i18n-*.png).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { dropFile, launch, untranslated, waitState } from './helpers';

let ctx: BrowserContext;
let close: () => Promise<void>;
let page: Page;

async function expectAllChinese(what: string, root = 'html'): Promise<void> {
  const stray = await untranslated(page, root);
  expect(stray, `English in the zh-CN page (${what})`).toEqual([]);
}

describe('the page in Chinese (zh-CN browser)', () => {
  beforeAll(async () => {
    ({ ctx, close } = await launch({ locale: 'zh-CN' }));
    page = await ctx.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(inject('baseURL'));
    await waitState(page, (s) => !!s.ready);
  }, 120_000);

  afterAll(async () => {
    await close?.();
  });

  it('comes up in Chinese: <html lang>, title, every label of the first screen', async () => {
    expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
    expect(await page.title()).toMatch(/浏览器/);
    expect(await page.inputValue('#language')).toBe('zh-CN');
    await expectAllChinese('first screen');
    await page.screenshot({ path: 'test-artifacts/i18n-zh-first.png', fullPage: true });
  });

  it('trains, samples and inspects in Chinese', async () => {
    await page.click('#btn-shakespeare');
    await page.waitForFunction(() => !!document.querySelector('#corpus-name')?.textContent);
    await page.click('[data-preset=tiny]');
    await page.fill('#knob-max_iters', '40');
    await page.fill('#knob-eval_interval', '20');
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s) => s.step >= 40 && !s.running, null, 120_000);
    await page.click('#btn-generate');
    await waitState(page, (s) => !s.sample.generating && s.sample.chunks.length > 0, null, 60_000);
    await page.locator('#inspect').scrollIntoViewIfNeeded();
    await page.click('#btn-inspect');
    await waitState(page, (s) => !!s.inspection && !s.inspectInFlight, null, 60_000);
    await page.locator('#watch').scrollIntoViewIfNeeded();
    await page.waitForSelector('#watch[data-loaded=true]');
    await page.waitForTimeout(500);
    await expectAllChinese('after training, a sample, the attention maps and the views of learning');
    await page.screenshot({ path: 'test-artifacts/i18n-zh-trained.png', fullPage: true });
  });

  it('explains in Chinese: the help, an impossible setting, a refused file', async () => {
    await page.keyboard.press('?');
    await page.waitForSelector('#help[open]');
    await expectAllChinese('the help dialog', '#help');
    await page.keyboard.press('Escape');
    await page.click('#btn-reset');
    await waitState(page, (s) => !s.model);
    await page.fill('#knob-n_embd', '7');
    await page.waitForFunction(() => !!document.querySelector('#knob-n_embd-err')?.textContent);
    await expectAllChinese('an impossible setting', '#settings');
    await page.fill('#knob-n_embd', '64');
    await dropFile(page, 'noise.bin', new Uint8Array(4096).map((_, i) => (i * 7919) % 256), 'application/octet-stream');
    await page.waitForFunction(() => !!document.querySelector('#corpus-message')?.textContent);
    await expectAllChinese('a refused file');
  });

  it('learn by hand in Chinese', async () => {
    await page.locator('#learn').scrollIntoViewIfNeeded();
    await page.click('#walk-open');
    await page.waitForSelector('.walk-box');
    await page.click('#walk-next');
    await page.click('#walk-next');
    await expectAllChinese('learn by hand', '#learn');
    await page.locator('#learn').screenshot({ path: 'test-artifacts/i18n-zh-learn.png' });
  });

  it('the translator in Chinese', async () => {
    await page.click('#mode-seq2seq');
    await page.waitForSelector('#translate');
    await page.click('[data-task=reverse]');
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'reverse');
    await page.click('[data-preset=s2s-tiny]');
    await page.fill('#knob-block_size', '9');
    await page.fill('#knob-max_iters', '30');
    await page.fill('#knob-eval_interval', '15');
    await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
    await page.click('#btn-start');
    await waitState(page, (s) => s.step >= 30 && !s.running, null, 120_000);
    await page.fill('#translate-source', 'abc');
    await page.keyboard.press('Control+Enter');
    await waitState(page, (s) => !!s.translation?.result && !s.translation.busy, null, 30_000);
    await page.waitForTimeout(500);
    await expectAllChinese('the translator');
    await page.screenshot({ path: 'test-artifacts/i18n-zh-translation.png', fullPage: true });
  });

  it('switches to English live, remembers it, and back', async () => {
    await page.selectOption('#language', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    expect(await page.textContent('.tagline')).toMatch(/learns to write/);
    expect(await page.textContent('#btn-reset')).toMatch(/Reset/);
    await page.reload();
    await waitState(page, (s) => !!s.ready);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.inputValue('#language')).toBe('en');
    await page.selectOption('#language', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await expectAllChinese('switched back');
  });
});
