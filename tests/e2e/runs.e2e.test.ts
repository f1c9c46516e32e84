// Issue 11, items 1-3: runs kept safely across tabs and reloads. Each test reproduces the
// problem it fixes: two tabs training their own texts (item 1), a stale resume offer (item 2).
// A reload mid-training (item 3) loses nothing now: reliability.e2e.test.ts (issue 27, item 4).
import fs from 'node:fs';

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { dropFile, launch, lorem, openPage, pause, startTiny, state, waitState } from './helpers';

let ctx: BrowserContext;
let close: () => Promise<void>;
const base = () => inject('baseURL');

beforeAll(async () => {
  ({ ctx, close } = await launch());
});
afterAll(async () => {
  await close?.();
});

const runNames = (page: Page) => page.locator('#runs-list .run .run-name').allTextContents();

describe('runs, not a slot', () => {
  it('item 1: two tabs train their own texts; each run stays resumable, and the other tab sees it as busy', async () => {
    const a = await ctx.newPage();
    const b = await ctx.newPage();
    await openPage(a, base());
    await openPage(b, base());
    await startTiny(a, 'alpha.txt', lorem('Alpha'));
    await startTiny(b, 'beta.txt', lorem('Beta'));
    await pause(a);
    await pause(b);
    // both saved (pause saves), neither deleted the other's text
    await waitState(a, (s) => s.lastSave && s.lastSave.step === s.step);
    await waitState(b, (s) => s.lastSave && s.lastSave.step === s.step);
    await a.waitForFunction(() => document.querySelectorAll('#runs-list .run').length === 2);
    // in tab A, B's run is busy (B owns it) and can't be resumed or deleted; A's own is "this tab"
    const busy = a.locator('#runs-list .run[data-busy=true]');
    await busy.waitFor();
    expect(await busy.locator('.run-name').textContent()).toContain('beta.txt');
    expect(await busy.locator('[data-action=resume]').isDisabled()).toBe(true);
    expect(await busy.locator('[data-action=delete]').isDisabled()).toBe(true);
    expect(await a.locator('#runs-list .run[data-current=true] .run-name').textContent()).toContain('alpha.txt');
    const stepB = await state(b, (s) => s.step);
    // closing B lets go of its run: a new tab resumes it exactly, on its own text
    await b.close();
    const c = await ctx.newPage();
    await openPage(c, base());
    await c.waitForFunction(() => document.querySelectorAll('#runs-list .run').length === 2);
    const names = (await runNames(c)).join(' | ');
    expect(names).toContain('alpha.txt');
    expect(names).toContain('beta.txt');
    const rowB = c.locator('#runs-list .run', { hasText: 'beta.txt' });
    await rowB.locator('[data-action=resume]:not([disabled])').waitFor();
    await rowB.locator('[data-action=resume]').click();
    await waitState(c, (s, n) => s.step === n && !!s.model, stepB);
    expect(await c.textContent('#corpus-name')).toBe('beta.txt');
    // and A's run is still there, busy in tab A
    expect(await c.locator('#runs-list .run[data-busy=true] .run-name').textContent()).toContain('alpha.txt');
    await a.close();
    await c.close();
  });

  it('item 2: the resume offer goes away once a new run starts, and replacing a live model asks', async () => {
    const p = await ctx.newPage();
    await openPage(p, base());
    await p.waitForSelector('#resume-banner:not([hidden])');          // the runs of the test above
    const saved = await state(p, (s) => s.runs.length);
    await startTiny(p, 'gamma.txt', lorem('Gamma'));
    expect(await p.isHidden('#resume-banner')).toBe(true);             // no stale offer while a new run trains
    await pause(p);
    await waitState(p, (s) => s.lastSave && s.lastSave.step === s.step);
    expect(await state(p, (s) => s.runs.length)).toBe(saved + 1);      // the old runs stay, the new one is added
    const step = await state(p, (s) => s.step);
    // Resume of another run asks first; saying no keeps the live model
    const other = p.locator('#runs-list .run', { hasText: 'alpha.txt' });
    let asked = '';
    p.once('dialog', (d) => { asked = d.message(); void d.dismiss(); });
    await other.locator('[data-action=resume]').click();
    await p.waitForTimeout(300);
    expect(asked).toMatch(/Replace the current model/);
    expect(await state(p, (s) => s.step)).toBe(step);
    expect(await p.textContent('#corpus-name')).toBe('gamma.txt');
    // yes: it is replaced, and the replaced run is still listed
    p.once('dialog', (d) => void d.accept());
    await other.locator('[data-action=resume]').click();
    await p.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'alpha.txt');
    expect((await runNames(p)).some((n) => n.includes('gamma.txt'))).toBe(true);
    // a checkpoint dropped over the live model asks too (Your runs' Download gives one)
    const gamma = p.locator('#runs-list .run', { hasText: 'gamma.txt' });
    const [download] = await Promise.all([p.waitForEvent('download'), gamma.locator('[data-action=download]').click()]);
    const ckpt = new Uint8Array(fs.readFileSync((await download.path())!));
    const live = await state(p, (s) => s.step);
    asked = '';
    p.once('dialog', (d) => { asked = d.message(); void d.dismiss(); });
    await dropFile(p, download.suggestedFilename(), ckpt, 'application/octet-stream');
    await expect.poll(() => asked).toMatch(/Replace the current model/);
    expect(await state(p, (s) => s.step)).toBe(live);
    expect(await p.textContent('#corpus-name')).toBe('alpha.txt');
    await p.close();
  });

  it('item 11: a failed resume says why in the Keep panel, and nothing changes', async () => {
    const p = await ctx.newPage();
    await openPage(p, base());
    await p.waitForFunction(() => document.querySelectorAll('#runs-list .run').length >= 3);
    // the texts are gone from this browser's storage (cleared by hand)
    await p.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((res, rej) => {
        const r = indexedDB.open('tinygpt');
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      await new Promise((res) => {
        const tx = db.transaction('corpora', 'readwrite');
        tx.objectStore('corpora').clear();
        tx.oncomplete = res;
      });
      db.close();
    });
    await p.locator('#runs-list .run', { hasText: 'beta.txt' }).locator('[data-action=resume]').click();
    await p.waitForFunction(() => /Could not resume/.test(document.querySelector('#autosave-status')?.textContent ?? ''));
    expect(await p.textContent('#autosave-status')).toContain('(beta.txt) is no longer stored in this browser');
    expect(await state(p, (s) => s.model)).toBeNull();
    await p.close();
  });
});
