// app-manifest.ts — what makes the page installable as an app: the web app manifest and its icons,
// generated at build time (assets-plugin.ts serves and emits them; nothing binary lives in git).
//
// The icon is the page's favicon (index.html): a blue rounded square with a white loss-curve-like
// stroke, drawn on a 32 x 32 grid. rasterIcon() draws it at any size with 4 x 4 samples per pixel
// (coverage antialiasing); encodePng() writes RGBA PNGs with node:zlib (deflate and CRC-32), so the
// build needs no image library: an image package would only add a dependency for these ~40 lines.
import zlib from 'node:zlib';

export const THEME_COLOR = '#3a6fd8';        // --accent in styles.css, the favicon's square
export const BACKGROUND_COLOR = '#f6f7f9';   // --bg in styles.css: the splash screen while the page loads

// The favicon's drawing on its 32 x 32 grid.
const GRID = 32;
const CORNER = 7;                             // rx of the rounded square
const STROKE_HALF_WIDTH = 1.5;                // stroke-width 3
const CURVE: [number, number][] = [[8, 22], [13, 10], [18, 18], [24, 8]];
const BLUE = [0x3a, 0x6f, 0xd8];
const WHITE = [0xff, 0xff, 0xff];

/** The favicon as SVG text (the same drawing; browsers that take SVG icons use this one). */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${GRID} ${GRID}">` +
  `<rect width="${GRID}" height="${GRID}" rx="${CORNER}" fill="${THEME_COLOR}"/>` +
  `<path d="M${CURVE.map((p) => p.join(' ')).join(' L')}" stroke="white" stroke-width="${2 * STROKE_HALF_WIDTH}" fill="none" ` +
  'stroke-linecap="round" stroke-linejoin="round"/></svg>\n';

/** Distance from (x, y) to the segment a-b (round caps and joins come from the distance itself). */
function segmentDistance(x: number, y: number, a: [number, number], b: [number, number]): number {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const t = Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (a[0] + t * dx), y - (a[1] + t * dy));
}

/** Inside a square of side GRID with corners rounded by r (r = 0: the full square). */
function insideRoundedSquare(x: number, y: number, r: number): boolean {
  const cx = Math.min(Math.max(x, r), GRID - r), cy = Math.min(Math.max(y, r), GRID - r);
  return Math.hypot(x - cx, y - cy) <= r && x >= 0 && y >= 0 && x <= GRID && y <= GRID;
}

/**
 * The icon as RGBA pixels, (size, size, 4) row-major. `maskable`: the square fills the whole image
 * (the platform cuts its own shape) and the curve shrinks to 70 % around the centre, inside the
 * safe zone (the central circle of 80 % diameter).
 */
export function rasterIcon(size: number, maskable = false): Uint8Array {
  const SS = 4;                                  // samples per pixel along each axis
  const curveScale = maskable ? 0.7 : 1;
  const out = new Uint8Array(size * size * 4);   // (size, size, 4)
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, covered = 0;      // premultiplied sums over the samples
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const x = ((px + (sx + 0.5) / SS) * GRID) / size;
          const y = ((py + (sy + 0.5) / SS) * GRID) / size;
          if (!insideRoundedSquare(x, y, maskable ? 0 : CORNER)) continue;
          // the curve's grid point of this sample (the curve is scaled around the centre)
          const cx = GRID / 2 + (x - GRID / 2) / curveScale, cy = GRID / 2 + (y - GRID / 2) / curveScale;
          let d = Infinity;
          for (let i = 0; i + 1 < CURVE.length; i++) d = Math.min(d, segmentDistance(cx, cy, CURVE[i], CURVE[i + 1]));
          const c = d <= STROKE_HALF_WIDTH ? WHITE : BLUE;
          r += c[0]; g += c[1]; b += c[2]; covered++;
        }
      }
      const o = (py * size + px) * 4;
      if (covered) {
        out[o] = Math.round(r / covered);
        out[o + 1] = Math.round(g / covered);
        out[o + 2] = Math.round(b / covered);
        out[o + 3] = Math.round((255 * covered) / (SS * SS));
      }
    }
  }
  return out;
}

/** A PNG file of RGBA pixels (8 bits per channel, no interlace; every row with filter 0). */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== width * height * 4) throw new Error(`encodePng: ${rgba.length} bytes are not ${width} x ${height} RGBA pixels`);
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);   // over type and data
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);   // bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering, no interlace
  const raw = Buffer.alloc(height * (1 + width * 4));   // each row: its filter byte (0: none), then its pixels
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (1 + width * 4) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface ManifestIcon { src: string; sizes: string; type: string; purpose: 'any' | 'maskable' }

/** The icons the manifest lists (paths relative to it), with how to make each. */
export const ICONS: (ManifestIcon & { make: () => Buffer | string })[] = [
  { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any', make: () => encodePng(192, 192, rasterIcon(192)) },
  { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any', make: () => encodePng(512, 512, rasterIcon(512)) },
  { src: 'icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable', make: () => encodePng(512, 512, rasterIcon(512, true)) },
  { src: 'icons/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any', make: () => ICON_SVG },
];

export const MANIFEST_FILE = 'manifest.webmanifest';

/** The web app manifest (https://www.w3.org/TR/appmanifest/); relative URLs: the site works from any folder. */
export function webManifest(): Record<string, unknown> {
  return {
    name: 'tinygpt — train a GPT in your browser',
    short_name: 'tinygpt',
    description: 'Train a tiny byte-level GPT in your browser tab and look inside it. Works offline; nothing leaves your computer.',
    id: './',
    start_url: './',
    scope: './',
    display: 'standalone',
    background_color: BACKGROUND_COLOR,
    theme_color: THEME_COLOR,
    icons: ICONS.map(({ src, sizes, type, purpose }) => ({ src, sizes, type, purpose })),
  };
}

/** Every generated file of the installable app: URL path (relative to the site root) -> contents. */
export function appFiles(): Map<string, Buffer | string> {
  const files = new Map<string, Buffer | string>([[MANIFEST_FILE, `${JSON.stringify(webManifest(), null, 2)}\n`]]);
  for (const icon of ICONS) files.set(icon.src, icon.make());
  return files;
}

/** The head tags that point the browser at them (index.html gets them at build and in dev). */
export const HEAD_TAGS = [
  { tag: 'link', attrs: { rel: 'manifest', href: `./${MANIFEST_FILE}` } },
  { tag: 'link', attrs: { rel: 'apple-touch-icon', href: './icons/icon-192.png' } },
  { tag: 'meta', attrs: { name: 'theme-color', content: THEME_COLOR } },
];
