// Issue 11, items 5, 7, 8: every input understood. A file dropped while the module still loads
// is taken when it is ready (the .wasm response is held back here); Latin-1 / Windows-1252 text
// is read as text (never "binary": converted at once since issue 27, reliability.e2e.test.ts);
// a text renamed .ckpt gets the checkpoint loader's refusal.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { dropFile, launch, state, waitState } from './helpers';

let ctx: BrowserContext;
let close: () => Promise<void>;
let page: Page;
const enc = (s: string) => new TextEncoder().encode(s);
const errors = () => page.locator('.notice.error .text').allTextContents();

beforeAll(async () => {
  ({ ctx, close } = await launch());
  page = await ctx.newPage();
});
afterAll(async () => {
  await close?.();
});

describe('inputs', () => {
  it('item 5: a text dropped while the module is still loading is taken once it is ready', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await ctx.route('**/*.wasm', async (route) => {
      await held;                       // the module can't load until the file was dropped
      await route.continue();
    });
    await page.goto(inject('baseURL'));
    await page.waitForSelector('#data');
    expect(await state(page, (s) => s.ready)).toBeNull();
    await dropFile(page, 'early.txt', enc('Dropped before the model code was there.\n'.repeat(20)));
    await page.waitForFunction(() => /Waiting for the model code/.test(document.querySelector('#data .busy')?.textContent ?? ''));
    release();
    await waitState(page, (s) => !!s.ready);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'early.txt');
    expect(await errors()).toEqual([]);
    expect(await state(page, (s) => s.errors)).toEqual([]);
    await ctx.unroute('**/*.wasm');
  });

  it('item 7: a Latin-1 text is read as text: converted at once, and said so (issue 27: nothing held back)', async () => {
    // "Café crème brûlée, déjà vu." in Latin-1 (é E9, è E8, û FB, à E0), as an old Windows editor saves it
    const line = [...enc('Caf'), 0xe9, ...enc(' cr'), 0xe8, ...enc('me br'), 0xfb, ...enc('l'), 0xe9, ...enc('e, d'), 0xe9, ...enc('j'), 0xe0, ...enc(' vu.\n')];
    const bytes = Uint8Array.from({ length: line.length * 30 }, (_, i) => line[i % line.length]);
    await dropFile(page, 'menu.txt', bytes);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'menu.txt');
    const note = await page.textContent('#corpus-encoding');
    expect(note).toMatch(/Latin-1/);
    expect(note).not.toMatch(/binary/i);
    expect(await page.textContent('#corpus-preview')).toContain('Café crème brûlée, déjà vu.');
    expect(Number(await page.getAttribute('#corpus-bytes', 'data-value'))).toBe(bytes.length + 6 * 30);  // its 6 accented letters now take 2 bytes each
    // Windows-1252's curly quotes are text too
    await dropFile(page, 'quotes.txt', Uint8Array.from([0x93, ...enc('Hello,'), 0x94, ...enc(' she said.\n'), ...enc('More prose here.\n'.repeat(40))]));
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'quotes.txt');
    expect(await page.textContent('#corpus-encoding')).toMatch(/Windows-1252/);
    expect(await page.textContent('#corpus-preview')).toContain('\u201cHello,\u201d she said.');
    await dropFile(page, 'menu.txt', bytes);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'menu.txt');
  });

  it('item 8: a text file renamed .ckpt gets the checkpoint loader\'s refusal, not "Train anyway"', async () => {
    await dropFile(page, 'model.ckpt', enc('These are my notes, not a model.\n'.repeat(10)), 'application/octet-stream');
    await page.waitForFunction(() => /model\.ckpt/.test(document.querySelector('.notice.error')?.textContent ?? ''));
    const e = (await errors()).at(-1) ?? '';
    expect(e).toMatch(/Could not load model\.ckpt: .*is named like a checkpoint but is not one.*does not start with TGPTCKPT.*current model is unchanged/);
    expect(await page.locator('#btn-train-anyway').count()).toBe(0);
    expect(await page.textContent('#corpus-name')).toBe('menu.txt');
  });

  it('says what a UTF-16 file and a tab-separated pairs file are', async () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...Array.from('Hello, world.\n'.repeat(20)).flatMap((c) => [c.charCodeAt(0), 0])]);
    await dropFile(page, 'wide.txt', utf16);
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'wide.txt');
    expect(await page.textContent('#corpus-encoding')).toMatch(/UTF-16LE text, not UTF-8: it was converted to UTF-8/);
    expect(Number(await page.getAttribute('#corpus-bytes', 'data-value'))).toBe(14 * 20);
    // pairs in language-model mode: said so, and offered to the translator or taken as text
    await dropFile(page, 'pairs.tsv', enc('hello\tbonjour\ncat\tchat\nthank you\tmerci\n'.repeat(10)));
    await page.waitForSelector('#corpus-message:not([hidden])');
    expect(await page.textContent('#corpus-message')).toMatch(/tab-separated pairs/);
    expect(await page.locator('#btn-switch-translation').count()).toBe(1);
    await page.click('#btn-as-text');
    await page.waitForFunction(() => document.querySelector('#corpus-name')?.textContent === 'pairs.tsv');
  });
});
