// Installable (issue 16): the page links a web app manifest that Chromium itself parses without
// errors, whose icons are present at their declared sizes and load as images, and which, with the
// service worker, makes the page installable (Chromium's own installability check, over CDP).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { launch, openPage } from './helpers';

let close: () => Promise<void>;
let page: Page;

beforeAll(async () => {
  const l = await launch();
  close = l.close;
  page = await l.ctx.newPage();
  await openPage(page, inject('baseURL'));
});
afterAll(async () => {
  await close?.();
});

describe('the installable app', () => {
  it('the page links its manifest, and Chromium parses it without errors or warnings', async () => {
    const href = await page.getAttribute('link[rel=manifest]', 'href');
    expect(href).toBe('./manifest.webmanifest');
    expect(await page.getAttribute('meta[name=theme-color]', 'content')).toBe('#3a6fd8');
    const cdp = await page.context().newCDPSession(page);
    const m = await cdp.send('Page.getAppManifest');
    expect(m.url).toBe(new URL('manifest.webmanifest', inject('baseURL')).href);
    expect(m.errors).toEqual([]);
    expect(m.data).toBeTruthy();
    const parsed = JSON.parse(m.data!);
    expect(parsed.short_name).toBe('tinygpt');
    expect(parsed.display).toBe('standalone');
    expect(new URL(parsed.start_url, m.url).href).toBe(inject('baseURL'));
  });

  it('every icon it lists is served and loads as an image of its declared size; 192 and 512 pixels are there', async () => {
    const icons = await page.evaluate(async () => {
      const url = new URL((document.querySelector('link[rel=manifest]') as HTMLLinkElement).href);
      const manifest = await (await fetch(url)).json();
      return Promise.all(manifest.icons.map(async (icon: { src: string; sizes: string; type: string; purpose: string }) => {
        const src = new URL(icon.src, url).href;
        const response = await fetch(src);
        const img = new Image();
        img.src = src;
        await img.decode();
        return { ...icon, status: response.status, contentType: response.headers.get('content-type'), width: img.naturalWidth, height: img.naturalHeight };
      }));
    });
    for (const icon of icons) {
      expect(icon.status, icon.src).toBe(200);
      expect(icon.contentType, icon.src).toContain(icon.type);
      if (icon.sizes !== 'any') expect(`${icon.width}x${icon.height}`, icon.src).toBe(icon.sizes);
    }
    const png = icons.filter((i) => i.type === 'image/png');
    expect(png.map((i) => `${i.sizes} ${i.purpose}`)).toEqual(expect.arrayContaining(['192x192 any', '512x512 any', '512x512 maskable']));
  });

  it('with the service worker in control, Chromium finds nothing that stops an install', async () => {
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
    const cdp = await page.context().newCDPSession(page);
    const r = await cdp.send('Page.getInstallabilityErrors');
    expect(r.installabilityErrors).toEqual([]);
  });
});
