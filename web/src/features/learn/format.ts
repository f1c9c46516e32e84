// format.ts (learn) — the learn-by-hand mode's pure helpers (no DOM), unit-tested in web/test/learn.test.ts.
import type { Messages } from '../../i18n';
import type { LearnTrace as WalkTrace } from './messages';

type WalkEntry = WalkTrace['entries'][number];
/** Words with identifiers in them: text, and identifiers (core function names) to show as code. */
export type Worded = (string | { code: string })[];

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
 * The sections of docs/ that the core's walk trace links to (core/src/learn.cpp: an entry's `doc`),
 * and the same sections in the Chinese twins, whose headings (so anchors) are Chinese.
 * web/test/learn.test.ts checks that every link of learn.cpp is here and that each pair is the same
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

// a message with one identifier in it (a core function) is called with this character in its
// place, and the identifier goes between the two halves as code
const SLOT = '\uE000';
export function withCode(msg: (code: string) => string, code: string): Worded {
  const [before, after = ''] = msg(SLOT).split(SLOT);
  return [before, { code }, after];
}

/**
 * A box's equation: the math (the core's, shown as code) and the words around it from the
 * catalogue. The core writes its equations for the CLI in English; where one holds words, the
 * box is known by its identifiers (name, phase, node, function) and its math is written here
 * without them. Any other equation is math only and shown as the core wrote it.
 */
export function equationOf(e: WalkEntry, trace: WalkTrace): { math: string | null; words: ((m: Messages) => Worded) | null } {
  const decay = (name: string) => trace.model.params.find((p) => p.name === name)?.decay;
  const math = (m: string, words: (m: Messages) => Worded) => ({ math: m, words });
  if (e.phase === 'data' && e.name === 'tokens') return { math: null, words: (m) => [m.learn.eq.corpus(e.shape[0] ?? 0)] };
  if (e.node === 'params' && decay(e.name) !== undefined) {
    return math(`${e.name} (${e.shape.join(', ')})`, (m) => [decay(e.name) ? m.learn.eq.decay : m.learn.eq.noDecay]);
  }
  if (e.phase === 'forward') {
    const part = ['Q', 'K', 'V'].indexOf(e.name);
    if (part >= 0) {
      const at = ['', 'C + ', '2C + '][part];
      return math(`${e.name}_h = qkv[…, ${at}h·HS : ${at}(h+1)·HS]`, (m) => [m.learn.eq.qkvThird(part)]);
    }
    if (e.name === 'mask') return math('M_ij = 0 (j ≤ i), −∞ (j > i)', (m) => [m.learn.eq.causal]);
    if (e.name === 'Y') return math('Y_h,i = Σ_j P_h,ij V_h,j', (m) => [m.learn.eq.headsSideBySide]);
    if (e.name === 'X + A') return math('X ← X + A', (m) => [m.learn.eq.residual]);
    if (e.name === 'X + MLP') return math('X ← X + MLP(LN₂(X))', (m) => [m.learn.eq.residual]);
  }
  if (e.phase === 'backward') {
    const of = /^d\((.*)\)$/.exec(e.name)?.[1];
    if (of === 'loss' && e.function === 'nn::Tensor::backward') return math('∂L/∂L = 1', (m) => [m.learn.eq.seed]);
    const forward = trace.entries.find((x) => x.phase === 'forward' && x.name === of);
    if (forward && e.function === 'nn::Tensor::backward') {
      return math(`∂L/∂(${of})`, (m) => withCode(m.learn.eq.completeWhen, forward.function));
    }
    if (of !== undefined && decay(of) !== undefined) return math(`∂L/∂${of}`, (m) => withCode(m.learn.eq.accumulatedBy, e.function));
  }
  if (e.phase === 'update') {
    if (e.name === 'grad norm') return math('‖g‖ = √(Σ g²), g ← g · min(1, c/‖g‖)', (m) => [m.learn.eq.gradNorm]);
    if (e.name === 'bias corrections') return math('[1 − β₁ᵗ, 1 − β₂ᵗ]', (m) => [m.learn.eq.atStepOne]);
    if (e.name.endsWith(' (new)') && decay(e.name.slice(0, -' (new)'.length)) === false) {
      return math('θ ← θ − α m̂ / (√v̂ + ε)', (m) => [m.learn.eq.noDecayUpdate]);
    }
  }
  return { math: e.equation, words: null };
}
