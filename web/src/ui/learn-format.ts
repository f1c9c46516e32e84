// learn-format.ts — the learn-by-hand mode's pure helpers (no DOM), unit-tested in web/test/learn.test.ts.

/** A float for a cell: short, but -Infinity and tiny values stay readable. */
export function formatValue(v: number): string {
  if (v === -Infinity) return '−∞';
  if (v === Infinity) return '∞';
  if (Number.isNaN(v)) return 'NaN';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(2).replace('-', '−');
  return v.toFixed(4).replace(/\.?0+$/, '').replace('-', '−');
}

/** The text of a markdown section: from the heading whose GitHub anchor is `anchor` to the next heading as high. */
export function markdownSection(md: string, anchor: string): string | null {
  const slug = (s: string) => s.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
  const lines = md.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && slug(l.replace(/^#+ /, '')) === anchor);
  if (start < 0) return null;
  const level = /^#+/.exec(lines[start])![0].length;
  let end = start + 1;
  while (end < lines.length && !(new RegExp(`^#{1,${level}} `).test(lines[end]))) end++;
  return lines.slice(start, end).join('\n').trim();
}
