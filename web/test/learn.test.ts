// The learn-by-hand mode's pure helpers: how a number is shown, how a docs/ section is cut out
// of its page (in English and in the Chinese twin), how a box's equation is worded in both
// languages, and that a trace's tensors are transferred from the worker, not copied.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import type { Locale, Messages } from '../src/i18n';
import { en as english } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { TERMS } from '../src/i18n/terms';
import { docAnchor, equationOf, formatValue, headingAnchor, markdownSection, type Worded, ZH_ANCHORS } from '../src/features/learn/format';
import type { LearnTrace as WalkTrace } from '../src/features/learn/messages';
import { transferables } from '../src/lib/transfer';
import { loadScalar } from './wasm';

const CATALOGUES: Record<Locale, Messages> = { en: english, 'zh-CN': zhCN };
const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs');

describe('learn by hand', () => {
  it('shows numbers short, and -infinity and tiny values readably', () => {
    expect(formatValue(-Infinity)).toBe('−∞');
    expect(formatValue(0)).toBe('0');
    expect(formatValue(0.5)).toBe('0.5');
    expect(formatValue(-1.41421)).toBe('−1.4142');
    expect(formatValue(2)).toBe('2');
    expect(formatValue(1.5e-9)).toBe('1.50e−9');
    expect(formatValue(137.93428)).toBe('137.9343');
    expect(formatValue(NaN)).toBe('NaN');
  });

  it('cuts a section out of a docs page by its GitHub anchor, in English and in Chinese', () => {
    const en = fs.readFileSync(path.join(docs, 'walkthrough.md'), 'utf8');
    const ln = markdownSection(en, '3-layernorm')!;
    expect(ln.startsWith('## 3) LayerNorm')).toBe(true);
    expect(ln).toContain('0.2025');
    expect(ln).not.toContain('## 4)');
    const zh = fs.readFileSync(path.join(docs, 'walkthrough.zh-CN.md'), 'utf8');
    expect(markdownSection(zh, '4-单头注意力')!.startsWith('## 4) 单头注意力')).toBe(true);
    const autograd = fs.readFileSync(path.join(docs, 'autograd_and_memory_layout.md'), 'utf8');
    expect(markdownSection(autograd, 'c3-the-backward-algorithm')!.startsWith('### C.3 The backward algorithm')).toBe(true);
    expect(markdownSection(en, 'no-such-section')).toBeNull();
  });

  it("transfers a trace's tensors", () => {
    const a = new Float32Array([1, 2]), b = new Float32Array([3]);
    const entry = (values: Float32Array) => ({ name: 'x', phase: 'data' as const, node: 'data', shape: [values.length], values, equation: '', function: '', doc: '' });
    const tokens = new Int32Array(4);
    const trace = { model: { name: 'walkthrough' as const, V: 4, C: 2, NH: 1, T: 3, tokens, params: [] }, loss: 1, gradNorm: 1, entries: [entry(a), entry(b)] };
    expect(transferables({ trace, error: null })).toEqual([tokens.buffer, a.buffer, b.buffer]);
    expect(transferables({ trace: null, error: { message: 'no', code: 'learn.bad_token', args: {} } })).toEqual([]);
  });

  it('links every docs section of the walk to the same section of the Chinese twin', () => {
    // every `doc` the core's trace carries (core/src/learn.cpp) has its Chinese anchor
    const walk = fs.readFileSync(path.join(docs, '../core/src/learn.cpp'), 'utf8');
    const linked = [...new Set([...walk.matchAll(/"([a-z_]+\.md#[^"]+)"/g)].map((m) => m[1]))];
    expect(linked.length).toBeGreaterThanOrEqual(8);
    expect(linked.filter((d) => !(d in ZH_ANCHORS))).toEqual([]);
    const headings = (md: string) => md.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => headingAnchor(l.replace(/^#+ /, '')));
    for (const [doc, zhAnchor] of Object.entries(ZH_ANCHORS)) {
      const [page, anchor] = doc.split('#');
      const en = headings(fs.readFileSync(path.join(docs, page), 'utf8'));
      const zh = headings(fs.readFileSync(path.join(docs, page.replace('.md', '.zh-CN.md')), 'utf8'));
      expect(en.indexOf(anchor), doc).toBeGreaterThanOrEqual(0);
      expect(zh.indexOf(zhAnchor), `${doc} → ${zhAnchor}`).toBe(en.indexOf(anchor));   // the twins' headings are parallel
      expect(docAnchor(doc, 'zh-CN')).toBe(zhAnchor);
      expect(docAnchor(doc, 'en')).toBe(anchor);
    }
  });

  it("words every box's equation in both languages: the core's math, the words from the catalogue", async () => {
    const M = await loadScalar();
    const text = (w: Worded) => w.map((p) => (typeof p === 'string' ? p : p.code)).join('');
    const prose = (w: Worded) => w.filter((p): p is string => typeof p === 'string').join('');
    const allowed = new Set(TERMS);
    // an English word in running text: lower case, three letters or more, not part of a name (x_t, softmax_j, W_qkv, tanh()
    let names = new Set<string>();
    const englishWords = (s: string) => (s.match(/(?<![\w.[])[a-z]{3,}(?![\w([])/g) ?? []).filter((w) => !allowed.has(w) && !names.has(w));
    // the check finds the core's words (so a new worded equation cannot slip through)
    expect(englishWords('X ← X + A (residual)')).toEqual(['residual']);
    expect(englishWords('∂L/∂(X), complete when add_positional\'s backward runs')).toEqual(['complete', 'when', 'backward', 'runs']);
    for (const name of ['walkthrough', 'two-heads'] as const) {
      const trace = M.learnTrace(name) as WalkTrace;
      // the names of the weights and boxes are identifiers
      names = new Set([...trace.model.params, ...trace.entries].flatMap((x) => x.name.split(/[^a-z_]+/)));
      let worded = 0;
      for (const e of trace.entries) {
        const { math, words } = equationOf(e, trace);
        if (!words) {
          // shown as the core wrote it: it must be math only, with no English to translate
          expect(math, e.name).toBe(e.equation);
          expect(englishWords(e.equation), `${name} ${e.name}: ${e.equation}`).toEqual([]);
          continue;
        }
        worded++;
        expect(englishWords(math ?? ''), `${name} ${e.name}: ${math}`).toEqual([]);
        // the Chinese words: no Latin word outside TERMS (identifiers are code, kept apart)
        const zh = prose(words(CATALOGUES['zh-CN']));
        expect((zh.match(/[A-Za-z][A-Za-z0-9+]*/g) ?? []).filter((w) => w.length > 1 && !allowed.has(w)), `${e.name}: ${zh}`).toEqual([]);
        expect(zh, e.name).toMatch(/[\u4e00-\u9fff]/);
        const en = `${math ?? ''}${text(words(CATALOGUES.en))}`;
        // where the core's words are kept as they were, the English reads as the core wrote it
        if (['tokens', 'Y', 'X + A', 'X + MLP', 'd(loss)', 'bias corrections'].includes(e.name) || e.node === 'params') {
          expect(en, e.name).toBe(e.equation);
        }
      }
      // the data, the weights, q/k/v, the mask, the residuals, every gradient, the update's prose
      expect(worded, name).toBeGreaterThan(trace.entries.length / 3);
    }
    // a backward box names the core function whose backward completes it
    const trace = M.learnTrace('walkthrough') as WalkTrace;
    const dX = trace.entries.find((e) => e.name === 'd(X)')!;
    expect(text(equationOf(dX, trace).words!(CATALOGUES.en))).toBe(', complete when nn::add_positional’s backward runs');
    expect(equationOf(dX, trace).words!(CATALOGUES['zh-CN'])).toContainEqual({ code: 'nn::add_positional' });
  });
});
