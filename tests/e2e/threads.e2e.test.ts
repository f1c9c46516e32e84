// Issue 11 item 13 / issue 14: the threads build offers every core the browser reports, and by
// default leaves the count to the core's thread tuner (Run::tune_threads), which drops to fewer
// threads while another program holds a core. The picker fixes a count instead; the page
// remembers the choice across reloads.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { launch, lorem, openPage, pause, startTiny, state, waitState } from './helpers';

let ctx: BrowserContext;
let close: () => Promise<void>;
let page: Page;

beforeAll(async () => {
  ({ ctx, close } = await launch());
  page = await ctx.newPage();
});
afterAll(async () => {
  await close?.();
});

describe('threads', () => {
  it('offers auto and 1..cores, fixes a count when asked, and remembers the choice', async () => {
    await openPage(page, inject('baseURL'));
    await waitState(page, (s) => !!s.ready);
    const ready = await state(page, (s) => s.ready);
    expect(ready.variant).toBe('threads');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    expect(ready.maxThreads).toBe(Math.min(cores, 16));
    expect(await page.isVisible('#threads-picker')).toBe(cores > 1);
    if (cores < 2) return;                      // nothing to pick on a one-core machine
    const options = await page.locator('#threads-select option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(['auto', ...Array.from({ length: ready.maxThreads }, (_, i) => String(i + 1))]);
    expect(await page.inputValue('#threads-select')).toBe('auto');
    expect(await page.textContent('#runtime')).toContain('auto');

    // auto: the run reports the count the tuner runs with, between 1 and all cores
    await startTiny(page, 'threads.txt', lorem('auto'));
    await waitState(page, (s) => s.step >= 20 && s.threadsNow >= 1);
    const tuned = await state(page, (s) => s.threadsNow);
    expect(tuned).toBeGreaterThanOrEqual(1);
    expect(tuned).toBeLessThanOrEqual(ready.maxThreads);

    // a fixed count: the next slices run with exactly that many, the tuner is off
    await page.selectOption('#threads-select', '1');
    const from = await state(page, (s) => s.step);
    await waitState(page, (s, from) => s.step >= from + 10 && s.threadsNow === 1 && !s.threadsReason, from);
    expect(await page.getAttribute('#runtime', 'data-threads')).toBe('1');
    expect(await page.textContent('#runtime')).not.toContain('auto');
    await pause(page);
    expect(await page.evaluate(() => localStorage.getItem('tinygpt.threads'))).toBe('1');

    // remembered: a reload starts with the fixed count
    await page.reload();
    await waitState(page, (s) => !!s.ready);
    expect(await state(page, (s) => s.threadSetting)).toBe(1);
    expect(await page.inputValue('#threads-select')).toBe('1');
    expect(await state(page, (s) => s.ready.threads)).toBe(1);
    await page.selectOption('#threads-select', 'auto');
    expect(await page.evaluate(() => localStorage.getItem('tinygpt.threads'))).toBe('auto');
    expect(await state(page, (s) => s.errors)).toEqual([]);
  });
});
