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
  const slug = headingAnchor;
  const lines = md.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && slug(l.replace(/^#+ /, '')) === anchor);
  if (start < 0) return null;
  const level = /^#+/.exec(lines[start])![0].length;
  let end = start + 1;
  while (end < lines.length && !(new RegExp(`^#{1,${level}} `).test(lines[end]))) end++;
  return lines.slice(start, end).join('\n').trim();
}

/** A heading's GitHub anchor: lower case, punctuation dropped, spaces to hyphens ("## 3) LayerNorm" → "3-layernorm"). */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
}

/**
 * The sections of docs/ that the core's walk trace links to (core/src/walk.cpp: an entry's `doc`),
 * and the same sections in the Chinese twins, whose headings (so anchors) are Chinese.
 * web/test/learn.test.ts checks that every link of walk.cpp is here and that each pair is the same
 * section of the twins (the same place in the list of headings).
 */
export const ZH_ANCHORS: Readonly<Record<string, string>> = {
  'walkthrough.md#1-the-training-pair': '1-训练样本对',
  'walkthrough.md#2-embeddings': '2-嵌入',
  'walkthrough.md#3-layernorm': '3-layernorm',
  'walkthrough.md#4-attention-with-one-head': '4-单头注意力',
  'walkthrough.md#5-residuals-and-the-mlp': '5-残差与-mlp',
  'walkthrough.md#6-lm-head-and-cross-entropy': '6-lm-head-与交叉熵',
  'walkthrough.md#7-one-training-step': '7-一步训练',
  'multihead_attention.md#1-from-one-head-to-nh-heads': '1-从一个头到-nh-个头',
  'autograd_and_memory_layout.md#c3-the-backward-algorithm': 'c3-反向传播算法',
};

/** The anchor of a walk entry's `doc` ("walkthrough.md#3-layernorm") in the page of that language. */
export function docAnchor(doc: string, lang: 'en' | 'zh-CN'): string {
  const anchor = doc.split('#')[1] ?? '';
  return lang === 'zh-CN' ? ZH_ANCHORS[doc] ?? anchor : anchor;
}
