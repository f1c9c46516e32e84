// Helpers for the e2e files that open their own browser (runs, inputs, layout): each takes
// the page it acts on. app.e2e.test.ts keeps its own (one page, steps in order).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { type BrowserContext, type Page, chromium } from 'playwright-core';

import { chromiumPath } from '../../scripts/chromium.mjs';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/** A fresh persistent profile (IndexedDB, service worker, Web Locks shared by its pages); `args`: more switches. */
export async function launch(options: { viewport?: { width: number; height: number }; args?: string[]; locale?: string } = {}): Promise<{ ctx: BrowserContext; close: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tinygpt-e2e-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: chromiumPath(), headless: true, args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    acceptDownloads: true, viewport: options.viewport ?? { width: 1280, height: 900 }, locale: options.locale ?? 'en-US',
  });
  return { ctx, close: async () => { await ctx.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

/** The page store's state (web/src/app/state.ts), or a part of it: fn runs in the page. */
export function state<T>(page: Page, fn: (s: any) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.__tinygpt.get())`) as Promise<T>;
}

export async function waitState(page: Page, pred: (s: any, arg: any) => boolean, arg: unknown = null, timeout = 30_000): Promise<void> {
  await page.waitForFunction(`(${pred.toString()})(window.__tinygpt.get(), ${JSON.stringify(arg)})`, null, { timeout, polling: 50 });
}

export async function dropFile(page: Page, name: string, bytes: Uint8Array, type = 'text/plain'): Promise<void> {
  await page.evaluate(({ name, b64, type }) => {
    const bin = atob(b64);
    const arr = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([arr], name, { type }));
    for (const t of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name, b64: Buffer.from(bytes).toString('base64'), type });
}

export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await waitState(page, (s) => !!s.ready);
}

/** Types into a knob of the settings form, opening the disclosure they are behind (#settings-more) first. */
export async function fillKnob(page: Page, name: string, value: string): Promise<void> {
  await page.evaluate(() => {
    const more = document.querySelector<HTMLDetailsElement>('#settings-more');
    if (more && !more.open) more.open = true;
  });
  await page.fill(`#knob-${name}`, value);
}

/** Chooses a text, the tiny preset with a long schedule, and presses Start. */
export async function startTiny(page: Page, name: string, text: string, steps = 100_000): Promise<void> {
  await dropFile(page, name, new TextEncoder().encode(text));
  await page.waitForFunction((n) => document.querySelector('#corpus-name')?.textContent === n, name);
  await page.click('[data-preset=tiny]');
  await fillKnob(page, 'max_iters', String(steps));
  await page.waitForFunction(() => !(document.querySelector('#btn-start') as HTMLButtonElement).disabled);
  await page.click('#btn-start');
  await waitState(page, (s) => s.running && s.step > 0);
}

export async function pause(page: Page): Promise<void> {
  if (await state(page, (s) => s.running)) await page.click('#btn-start');
  await waitState(page, (s) => !s.running);
}

export const lorem = (word: string) => `${word} was here, and ${word} will be back tomorrow.\n`.repeat(60);

/**
 * English left in a Chinese page: every text node and labelling attribute (title, aria-label,
 * placeholder, alt, aria-description) of `root` (default: the whole document, hidden parts too),
 * outside data (elements marked translate="no", and code/kbd/pre/samp/script/style), with a
 * Latin-script word of two letters or more that is not one of the terms Chinese keeps
 * (web/src/i18n/terms.ts) or a snake_case identifier. Returns "where: text" lines; [] when all is Chinese.
 */
export async function untranslated(page: Page, root = 'html'): Promise<string[]> {
  const { TERMS } = await import('../../web/src/i18n/terms');
  return page.evaluate(({ root, terms }) => {
    const allowed = new Set(terms);
    const skip = 'script, style, noscript, code, kbd, pre, samp, [translate="no"], svg';   // noscript: never shown when the page runs
    const out: string[] = [];
    // snake_case names (n_embd, max_iters) are identifiers of the schema and the core: code, not prose
    const bad = (text: string) => (text.match(/[A-Za-z][A-Za-z0-9_+]*/g) ?? []).some((w) => w.length > 1 && !w.includes('_') && !allowed.has(w));
    const where = (el: Element) => {
      const id = el.closest('[id]');
      return `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : ''} in #${id?.id ?? '?'}`;
    };
    const top = document.querySelector(root);
    if (!top) return [`no element ${root}`];
    const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let n: Node | null = walker.currentNode; n; n = walker.nextNode()) {
      if (n.nodeType === Node.ELEMENT_NODE) {
        const el = n as Element;
        if (el.closest(skip)) continue;
        for (const attr of ['title', 'aria-label', 'placeholder', 'alt', 'aria-description']) {
          const v = el.getAttribute(attr);
          if (v && bad(v)) out.push(`${where(el)} [${attr}]: ${v.slice(0, 120)}`);
        }
        if (el instanceof HTMLInputElement && (el.type === 'button' || el.type === 'submit') && bad(el.value)) out.push(`${where(el)} [value]: ${el.value}`);
      } else {
        const parent = n.parentElement;
        if (!parent || parent.closest(skip)) continue;
        const text = n.textContent ?? '';
        if (bad(text)) out.push(`${where(parent)}: ${text.trim().slice(0, 120)}`);
      }
    }
    return out;
  }, { root, terms: [...TERMS] });
}

/** axe-core's serious and critical accessibility violations in `root` (default: the whole page), one line each; [] when none. */
export async function seriousA11yViolations(page: Page, root: string | null = null): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  return page.evaluate(async (sel) => {
    const r = await (window as any).axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ['violations'] });
    return r.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes.slice(0, 4).map((n: any) => `${n.target.join(' ')} [${n.any[0]?.message ?? ''}]`).join('; ')}`);
  }, root);
}
