// The core's and the worker's coded messages (core error.h, lib/coded.ts): every code the
// core can emit (its messageCodes(), the codes in its sources) and every worker code has a wording
// in both catalogues; the wordings read their args; the Chinese keeps args apart as data and
// brings no English of its own; a real wasm error and problem carry code and args.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { loadCatalogue, locale } from '../src/i18n';
import { en } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { coreParts, coreText, isWorded } from '../src/i18n/core-messages';
import { TERMS } from '../src/i18n/terms';
import { WORKER_MESSAGE_CODES, codedError, codedOf } from '../src/lib/coded';
import { loadScalar, root } from './wasm';

/** The list in core/src/messages.cpp (the core's one list of codes). */
function listedCodes(): string[] {
  const src = fs.readFileSync(path.join(root, 'core/src/messages.cpp'), 'utf8');
  const body = src.slice(src.indexOf('codes = {'), src.indexOf('};', src.indexOf('codes = {')));
  return [...body.replace(/\/\/.*$/gm, '').matchAll(/"([a-z0-9_.-]+)"/g)].map((m) => m[1]);
}

/** Codes the core's sources (and its wasm bindings) put on messages: coded("x", ...) / "x" ? ... and the sniffer's "sniff." + kind. */
function codesInSources(): string[] {
  const dir = path.join(root, 'core/src');
  const out = new Set<string>();
  const files = fs.readdirSync(dir).filter((n) => n.endsWith('.cpp') && n !== 'messages.cpp').map((n) => path.join(dir, n));
  const wasm = fs.readdirSync(path.join(root, 'wasm')).filter((n) => n.endsWith('.cpp') || n.endsWith('.h')).map((n) => path.join(root, 'wasm', n));
  for (const file of [...files, ...wasm]) {
    const f = path.basename(file);
    const src = fs.readFileSync(file, 'utf8');
    for (const m of src.matchAll(/coded\(\s*"([a-z0-9_.-]+)"/g)) out.add(m[1]);
    for (const m of src.matchAll(/\?\s*"((?:config|data|corpus|pairs)\.[a-z0-9_]+)"\s*:\s*"([a-z0-9_.]+)"/g)) out.add(m[1]).add(m[2]);
    for (const m of src.matchAll(/(?:error_code|r\.code) = "([a-z0-9_.]*[a-z0-9_])"/g)) out.add(m[1]);
    if (f === 'sniff.cpp') for (const m of src.matchAll(/case FileKind::\w+: return "(\w+)"/g)) out.add(`sniff.${m[1]}`);
  }
  return [...out].sort();
}

const CATALOGUES = { en, 'zh-CN': zhCN };
const table = (l: 'en' | 'zh-CN') => CATALOGUES[l].errors.core as Record<string, unknown>;

beforeAll(() => loadCatalogue('zh-CN'));  // t() words in Chinese once locale is zh-CN
afterEach(() => locale.set('en'));

describe('the coded messages', () => {
  it('are listed in core/src/messages.cpp wherever the core codes one', () => {
    const listed = new Set(listedCodes());
    expect(listed.size).toBeGreaterThan(50);
    const sources = codesInSources();
    expect(sources.length).toBeGreaterThan(40);
    // the binary kind has three variants instead (sniff.binary_nul, ...)
    expect(sources.filter((c) => !listed.has(c) && c !== 'sniff.binary')).toEqual([]);
  });

  it('have a wording in both catalogues for every code the core and the worker can emit, and no other', async () => {
    const M = await loadScalar();
    const fromCore = M.messageCodes();
    expect([...fromCore].sort()).toEqual([...listedCodes()].sort());  // the wasm build is this source's
    const all = [...fromCore, ...WORKER_MESSAGE_CODES].sort();
    for (const l of ['en', 'zh-CN'] as const) expect(Object.keys(table(l)).sort(), l).toEqual(all);
  });

  it('word the same message in each language from its args; the English page keeps the core sentence', () => {
    const problem = { field: 'n_embd', message: 'n_embd 100 is not divisible by n_head 3 (each head gets n_embd / n_head channels)',
      code: 'config.heads_divide', args: { n_embd: '100', n_head: '3' } };
    expect(coreText(problem.message, problem)).toBe(problem.message);
    expect(CATALOGUES.en.errors.core['config.heads_divide']({ n_embd: '100', n_head: '3' })).toBe(problem.message);
    locale.set('zh-CN');
    expect(coreText(problem.message, problem)).toBe('嵌入维度 100 不能被注意力头数 3 整除（每个头分到“嵌入维度 ÷ 头数”个通道）');
    // an uncoded or unknown code stays the core's English
    expect(coreText('something new', {})).toBe('something new');
    expect(coreText('something new', { code: 'no.such_code' })).toBe('something new');
    expect(isWorded({ code: 'no.such_code' })).toBe(false);
    expect(isWorded({ code: 'toString' })).toBe(false);  // not a wording inherited from Object
  });

  it('keep args apart as data (shown translate="no"), numbers still compared as numbers', () => {
    locale.set('zh-CN');
    const parts = coreParts({ code: 'sniff.binary_nul', args: { name: 'notes.bin', count: '1' } })!;
    expect(parts.filter((p) => p.arg).map((p) => p.text)).toEqual(['notes.bin', '1']);
    expect(parts.map((p) => p.text).join('')).toBe('“notes.bin”看起来是二进制文件，不是文本（有 1 个零字节）。' +
      '模型读取的是字节，所以仍然可以从中学习，但样本和预览大多会显示为十六进制。');
    // an empty name reads "this file"; a plural follows the number
    locale.set('en');
    expect(coreParts({ code: 'sniff.binary_nul', args: { name: '', count: '2' } })!.map((p) => p.text).join(''))
      .toMatch(/^This file looks like a binary file, not text \(2 NUL bytes\)/);
    expect(coreParts({ code: 'sniff.binary_nul', args: { name: 'a', count: '1' } })!.map((p) => p.text).join(''))
      .toContain('(1 NUL byte)');
  });

  it('bring no English of their own into Chinese, whatever the args', () => {
    const allowed = new Set(TERMS);
    // every arg a wording reads (a missing one would read as ''), with values like the core's
    const names = ['field', 'value', 'range', 'name', 'step', 'loss', 'norm', 'near', 'choices', 'n_embd', 'n_head', 'min_lr',
      'learning_rate', 'warmup_iters', 'max_iters', 'need_mib', 'limit_mib', 'bytes', 'needed', 'pairs', 'lines', 'blank',
      'empty_side', 'empty_side_lines', 'too_long', 'too_long_lines', 'source_limit', 'target_limit', 'extra_columns',
      'extra_column_lines', 'invalid', 'encoding', 'high_bytes', 'count', 'percent', 'extra', 'version', 'supported', 'problem',
      'limit', 'rollbacks', 'lr_scale', 'model', 'run_loss', 'link_loss', 'compared', 'expected', 'compared_steps',
      'max_difference', 'variant', 'kind'];
    const sample: Record<string, string> = Object.fromEntries(names.map((n, i) => [n, String(i + 2)]));
    Object.assign(sample, { field: 'n_embd', name: 'a.txt', loss: 'nan', encoding: 'utf-16le', problem: 'n_layer must be in [1, 96] (got 0)' });
    const stray: string[] = [];
    locale.set('zh-CN');
    for (const code of Object.keys(table('zh-CN'))) {
      const withVariant = { ...sample, link_variant: 'wasm-simd', variant: 'wasm-scalar', no_tab: '2', no_tab_lines: '1, 4' };
      // and every wording reads only args it is given: no "undefined" in the English either
      for (const args of [sample, withVariant]) expect(coreParts({ code, args })!.map((p) => p.text).join(''), code).not.toMatch(/undefined/);
      for (const args of [sample, withVariant]) {
        for (const p of coreParts({ code, args }) ?? []) {
          if (p.arg) continue;
          for (const word of p.text.match(/[A-Za-z][A-Za-z0-9+]*/g) ?? []) if (word.length > 1 && !allowed.has(word)) stray.push(`${code}: ${word}`);
        }
      }
    }
    expect([...new Set(stray)]).toEqual([]);
  });

  it('reach the page from the wasm module: an Error, a config problem, a sniff and a pairs report carry code and args', async () => {
    const M = await loadScalar();
    let thrown: unknown;
    try {
      M.parseShareLink('https://example.org/#a=1');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(codedOf(thrown)).toEqual({ code: 'share.not_a_link', args: {} });

    const check = M.checkConfig({ n_layer: 2, n_head: 3, n_embd: 64 });
    expect(check.problems).toEqual([expect.objectContaining({ field: 'n_embd', code: 'config.heads_divide', args: { n_embd: '64', n_head: '3' } })]);
    const memory = M.checkConfig({ n_layer: 8, n_embd: 1024, n_head: 8, block_size: 1024, batch_size: 64, memory_limit_mb: 64 });
    expect(memory.problems[0]).toMatchObject({ field: 'batch_size', code: 'config.memory', args: { limit_mib: '64' } });
    const range = M.checkConfig({ n_layer: 0 });
    expect(range.problems[0]).toMatchObject({ code: 'config.range', args: { field: 'n_layer', value: '0', range: '[1, 96]' } });

    const sniffed = M.sniff(new Uint8Array([104, 105, 0, 0]), 4, 'x.bin');
    expect(sniffed).toMatchObject({ code: 'sniff.binary_nul', args: { name: 'x.bin', count: '2' } });

    const tsv = new TextEncoder().encode('a\tb\nno tab here\n\nc\td\n');
    const report = M.pairsReport(tsv, 16);
    expect(report.report.code).toBe('pairs.report');
    expect(coreText(report.report.message, report.report)).toBe(report.report.message);
    // the catalogue's English rebuilds the core's summary from the args
    expect(CATALOGUES.en.errors.core['pairs.report'](report.report.args as Record<string, string>)).toBe(report.report.message);
    locale.set('zh-CN');
    expect(coreText(report.report.message, report.report))
      .toBe('从 4 行中读出 2 个句对；跳过：1 行没有制表符（第 2 行），1 个空行');
  });

  it('the worker codes its own errors the same way', () => {
    const e = codedError('worker.tree_stale', 'the model has trained since this tree was grown (step 4): begin again', { step: 4 });
    expect(e.message).toMatch(/step 4/);
    expect(codedOf(e)).toEqual({ code: 'worker.tree_stale', args: { step: 4 } });
    expect(codedOf(new Error('plain'))).toEqual({});
    locale.set('zh-CN');
    expect(coreText(e.message, codedOf(e))).toBe('生成树长出之后模型又训练过了（第 4 步）：请重新开始');
  });
});
