// The installable app's generated files (web/tools/app-manifest.ts): the manifest has the fields
// an install needs, and every PNG icon is a valid PNG of its declared size whose pixels are the
// drawing (read back here with an independent decoder: chunk CRCs, IHDR, inflate, unfilter).
// The e2e test (tests/e2e/install.e2e.test.ts) loads the same files in Chromium.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

import { ICONS, MANIFEST_FILE, THEME_COLOR, appFiles, encodePng, rasterIcon, webManifest } from '../tools/app-manifest';

/** A PNG read back: its size and RGBA pixels (only what encodePng writes: 8-bit RGBA, filter 0). */
function decodePng(png: Buffer): { width: number; height: number; rgba: Uint8Array } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    expect(png.readUInt32BE(at + 8 + len), `CRC of ${type}`).toBe(zlib.crc32(png.subarray(at + 4, at + 8 + len)) >>> 0);
    chunks.push({ type, data });
    at += 12 + len;
  }
  expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
  const ihdr = chunks[0].data;
  const width = ihdr.readUInt32BE(0), height = ihdr.readUInt32BE(4);
  expect([...ihdr.subarray(8)]).toEqual([8, 6, 0, 0, 0]);
  const raw = zlib.inflateSync(chunks[1].data);
  expect(raw.length).toBe(height * (1 + width * 4));
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (1 + width * 4)]).toBe(0);
    rgba.set(raw.subarray(y * (1 + width * 4) + 1, (y + 1) * (1 + width * 4)), y * width * 4);
  }
  return { width, height, rgba };
}

const pixel = (img: { width: number; rgba: Uint8Array }, x: number, y: number) => [...img.rgba.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4)];
const files = appFiles();   // drawn once (about a second)
const BLUE = [0x3a, 0x6f, 0xd8, 255];
const WHITE = [255, 255, 255, 255];

describe('the web app manifest', () => {
  it('has what an install needs: names, start URL and scope, standalone display, colours, icons of 192 and 512 pixels', () => {
    const m = webManifest() as Record<string, any>;
    expect(m.name).toContain('tinygpt');
    expect(m.short_name).toBe('tinygpt');
    expect(m.short_name.length).toBeLessThanOrEqual(12);   // fits under a home-screen icon
    expect(m.start_url).toBe('./');
    expect(m.scope).toBe('./');
    expect(m.display).toBe('standalone');
    expect(m.theme_color).toBe(THEME_COLOR);
    expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/);
    const sizes = m.icons.filter((i: any) => i.type === 'image/png' && i.purpose === 'any').map((i: any) => i.sizes);
    expect(sizes).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(m.icons.some((i: any) => i.purpose === 'maskable')).toBe(true);
    // the file the build emits is this manifest, and every icon it lists is emitted with it
    expect(JSON.parse(String(files.get(MANIFEST_FILE)))).toEqual(m);
    for (const icon of m.icons) expect(files.has(icon.src), icon.src).toBe(true);
  });

  it('every PNG icon is a valid PNG of its declared size', () => {
    for (const icon of ICONS.filter((i) => i.type === 'image/png')) {
      const img = decodePng(files.get(icon.src) as Buffer);
      expect(`${img.width}x${img.height}`, icon.src).toBe(icon.sizes);
    }
    expect(String(files.get('icons/icon.svg'))).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 32 32">/);
  });

  it('the icon is the favicon drawn: a blue square with rounded corners and a white stroke; the maskable one fills its corners', () => {
    const any = decodePng(files.get('icons/icon-192.png') as Buffer);
    // 6 px per grid unit: the corner is outside the rounded square, (2, 16) in it, away from the curve
    expect(pixel(any, 0, 0)).toEqual([0, 0, 0, 0]);
    expect(pixel(any, 2 * 6, 16 * 6)).toEqual(BLUE);
    // on the curve: its vertex (13, 10), and the middle of the segment (18, 18)-(24, 8)
    expect(pixel(any, 13 * 6, 10 * 6)).toEqual(WHITE);
    expect(pixel(any, 21 * 6, 13 * 6)).toEqual(WHITE);
    // along row 5 the rounded corner begins at x = 7 - sqrt(7^2 - (7 - 5.5/6)^2) = 3.53 grid units (21.2 px):
    // transparent before, one partly covered (antialiased) pixel, opaque after
    const alphas = Array.from({ length: 40 }, (_, x) => pixel(any, x, 5)[3]);
    expect(alphas.slice(0, 20).every((a) => a === 0)).toBe(true);
    expect(alphas[21]).toBeGreaterThan(0);
    expect(alphas[21]).toBeLessThan(255);
    expect(alphas.slice(23).every((a) => a === 255)).toBe(true);
    const maskable = decodePng(files.get('icons/maskable-512.png') as Buffer);
    expect(pixel(maskable, 0, 0)).toEqual(BLUE);
    expect(pixel(maskable, 256, 26 * 16)).toEqual(BLUE);   // (16, 26): below the curve
    // the curve's vertex (13, 10) moves to 16 + 0.7 x (13 - 16), 16 + 0.7 x (10 - 16) = (13.9, 11.8): inside the safe zone
    expect(pixel(maskable, Math.round(13.9 * 16), Math.round(11.8 * 16))).toEqual(WHITE);
    expect(Math.hypot(13.9 - 16, 11.8 - 16)).toBeLessThan(0.4 * 32);
  });

  it('encodePng refuses pixels that are not width x height RGBA', () => {
    expect(() => encodePng(2, 2, new Uint8Array(15))).toThrow('15 bytes are not 2 x 2 RGBA pixels');
    expect(decodePng(encodePng(3, 1, rasterIcon(3).subarray(0, 12))).width).toBe(3);
  });
});
