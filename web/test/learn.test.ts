// The learn-by-hand mode's pure helpers: how a number is shown, how a docs/ section is cut out
// of its page, and that a trace's tensors are transferred from the worker, not copied.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { transferables } from '../src/protocol';
import { formatValue, markdownSection } from '../src/ui/learn-format';

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
    const trace = { model: { name: 'walkthrough' as const, V: 4, C: 2, NH: 1, T: 3, tokens: new Int32Array(4), params: [] }, loss: 1, gradNorm: 1, entries: [entry(a), entry(b)] };
    expect(transferables({ type: 'walkTrace', id: 1, trace, error: null })).toEqual([a.buffer, b.buffer]);
    expect(transferables({ type: 'walkTrace', id: 2, trace: null, error: 'no' })).toEqual([]);
  });
});
