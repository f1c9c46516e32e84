// heatmap.ts — drawing an attention matrix (query rows x key columns) on a canvas, and the
// character labels beside it. The matrix is written once as a rows x cols image and scaled up
// without smoothing, so each weight is one crisp square whatever its size. In a causal map the
// cells above the diagonal (future bytes, masked) are drawn neutral.

/** Viridis, sampled at 9 stops and interpolated into a 256-entry table. */
const STOPS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];
const LUT = (() => {
  const lut = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const x = (i / 255) * (STOPS.length - 1);
    const j = Math.min(STOPS.length - 2, Math.floor(x));
    const f = x - j;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = STOPS[j][c] * (1 - f) + STOPS[j + 1][c] * f;
  }
  return lut;
})();

/** Colour of a weight in [0, 1]; a square-root scale makes small weights visible. */
export function weightColor(w: number): [number, number, number] {
  const i = Math.max(0, Math.min(255, Math.round(Math.sqrt(Math.max(0, w)) * 255)));
  return [LUT[i * 3], LUT[i * 3 + 1], LUT[i * 3 + 2]];
}

export function colorCss(w: number): string {
  const [r, g, b] = weightColor(w);
  return `rgb(${r} ${g} ${b})`;
}

/**
 * Draws att[offset + q*T + k] for q, k < T into `canvas`, `size` CSS pixels square.
 * `masked` is the colour of the upper triangle.
 */
export function drawAttention(canvas: HTMLCanvasElement, att: Float32Array, offset: number, T: number, size: number, masked: [number, number, number]): void {
  drawMatrix(canvas, att, offset, T, T, size / T, masked);
}

/**
 * Draws a rows x cols matrix att[offset + r*cols + c] into `canvas`, `cell` CSS pixels per
 * weight. With `masked`, cells right of the diagonal (c > r: the future of a causal map) are
 * drawn in that colour; without, every cell is a weight (cross-attention, the encoder's).
 */
export function drawMatrix(canvas: HTMLCanvasElement, att: Float32Array, offset: number, rows: number, cols: number, cell: number,
  masked: [number, number, number] | null): void {
  paintCells(canvas, rows, cols, cell * cols, cell * rows, (q, k) => (masked && k > q ? masked : weightColor(att[offset + q * cols + k])));
}

/**
 * Paints a rows x cols grid, cell (q, k) in colorAt(q, k), into `canvas` shown `width` x `height`
 * CSS pixels: one pixel per cell, scaled up without smoothing (sharp cells at any devicePixelRatio).
 */
function paintCells(canvas: HTMLCanvasElement, rows: number, cols: number, width: number, height: number,
  colorAt: (q: number, k: number) => readonly [number, number, number]): void {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  const img = new ImageData(cols, rows);
  const d = img.data;
  for (let q = 0; q < rows; q++) {
    for (let k = 0; k < cols; k++) {
      const p = (q * cols + k) * 4;
      const [r, g, b] = colorAt(q, k);
      d[p] = r;
      d[p + 1] = g;
      d[p + 2] = b;
      d[p + 3] = 255;
    }
  }
  const small = document.createElement('canvas');
  small.width = cols;
  small.height = rows;
  small.getContext('2d')!.putImageData(img, 0, 0);
  const ctx = canvas.getContext('2d')!;
  ctx.imageSmoothingEnabled = false;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(small, 0, 0, canvas.width, canvas.height);
}

/** Outlines query row q (and cell k) on an overlay canvas of the same size. */
export function drawHighlight(overlay: HTMLCanvasElement, T: number, size: number, q: number | null, k: number | null, color: string): void {
  drawMatrixHighlight(overlay, T, T, size / T, q, k, color, true);
}

/** Outlines row q (up to the diagonal if `causal`) and cell k of a rows x cols map drawn `cell` CSS pixels per weight. */
export function drawMatrixHighlight(overlay: HTMLCanvasElement, rows: number, cols: number, cell: number, q: number | null, k: number | null,
  color: string, causal = false): void {
  const dpr = window.devicePixelRatio || 1;
  const width = cell * cols;
  const height = cell * rows;
  overlay.style.width = `${width}px`;
  overlay.style.height = `${height}px`;
  if (overlay.width !== Math.round(width * dpr) || overlay.height !== Math.round(height * dpr)) {
    overlay.width = Math.round(width * dpr);
    overlay.height = Math.round(height * dpr);
  }
  const ctx = overlay.getContext('2d')!;
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  if (q === null) return;
  const c = overlay.width / cols;
  ctx.lineWidth = Math.max(1, dpr * 1.5);
  ctx.strokeStyle = color;
  ctx.strokeRect(0.5, q * c + 0.5, (causal ? Math.min(cols, q + 1) * c : overlay.width) - 1, c - 1);
  if (k !== null) {
    ctx.lineWidth = Math.max(1.5, dpr * 2);
    ctx.strokeStyle = '#ffffff';
    ctx.strokeRect(k * c + 1, q * c + 1, c - 2, c - 2);
  }
}

/**
 * The labels beside a map: one span per row (or column, `horizontal`) of `cell` pixels, every
 * k-th labelled when the cells are too small to hold them all; a column shows the glyph only.
 */
export function drawTicks(el: HTMLElement, labels: string[], cell: number, horizontal: boolean, title: (i: number) => string): void {
  while (el.firstChild) el.firstChild.remove();
  const every = Math.max(1, Math.ceil(9 / cell));
  el.style.setProperty('--cell', `${cell}px`);
  el.style.fontSize = `${Math.max(7, Math.min(12, cell - 1))}px`;
  for (let t = 0; t < labels.length; t++) {
    const text = t % every === 0 ? labels[t] : '';
    const span = document.createElement('span');
    span.title = title(t);
    span.dataset.t = String(t);
    span.textContent = horizontal ? text.split(' ')[0] : text;
    el.append(span);
  }
}

/** Colour of a stored attention byte q = round(255 sqrt(p)) (watch.h): q is the scale's index. */
export function quantisedColor(q: number): [number, number, number] {
  return [LUT[q * 3], LUT[q * 3 + 1], LUT[q * 3 + 2]];
}

/**
 * Draws a causal map stored packed (row t holds keys 0..t: att[offset + t(t+1)/2 + k]) as one
 * byte per weight, into `canvas`, `size` CSS pixels square.
 */
export function drawPackedAttention(canvas: HTMLCanvasElement, att: Uint8Array, offset: number, T: number, size: number, masked: [number, number, number]): void {
  paintCells(canvas, T, T, size, size, (q, k) => (k <= q ? quantisedColor(att[offset + (q * (q + 1)) / 2 + k]) : masked));
}

/**
 * Arrow keys move the highlighted cell (query row q, key column k) of an attention map; Escape
 * leaves it. Returns the new cell, 'leave' for Escape, or null for a key the map does not use.
 * causal: a row q only has the columns 0..q.
 */
export function moveCell(key: string, q: number, k: number, rows: number, cols: number, causal: boolean): [number, number] | 'leave' | null {
  if (key === 'ArrowUp') q--;
  else if (key === 'ArrowDown') q++;
  else if (key === 'ArrowLeft') k--;
  else if (key === 'ArrowRight') k++;
  else if (key === 'Escape') return 'leave';
  else return null;
  q = Math.max(0, Math.min(rows - 1, q));
  k = Math.max(0, Math.min(causal ? q : cols - 1, k));
  return [q, k];
}
