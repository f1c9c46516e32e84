// The catalogues (web/src/i18n): TypeScript already checks that zh-CN has the type of en; this
// checks what types can't: the same keys at run time, nothing empty, every message callable with
// made-up parameters, no English left in a Chinese message (Latin words only from TERMS), and
// that the language is picked from the remembered choice and navigator.languages.
import { describe, expect, it } from 'vitest';

import { type Locale, type Messages, pickLocale } from '../src/i18n';
import { en as english } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { TERMS } from '../src/i18n/terms';

const CATALOGUES: Record<Locale, Messages> = { en: english, 'zh-CN': zhCN };

type Tree = { [k: string]: Tree | string | ((...a: never[]) => string) };

/** Every message as [path, text]: functions called with made-up parameters of each type. */
function flatten(tree: Tree, prefix = ''): [string, string, number][] {
  const out: [string, string, number][] = [];
  for (const [k, v] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.push([path, v, -1]);
    else if (typeof v === 'function') out.push([path, callWithSamples(v as (...a: unknown[]) => string), v.length]);
    else out.push(...flatten(v, path));
  }
  return out;
}

/** Tries the parameter kinds messages take (numbers, strings, flags) until the call gives a string. */
function callWithSamples(fn: (...a: unknown[]) => string): string {
  const tries: unknown[][] = [
    Array(fn.length).fill(3), Array(fn.length).fill('x'), Array(fn.length).fill(true), Array(fn.length).fill(null),
  ];
  for (const args of tries) {
    try {
      const s = fn(...args);
      if (typeof s === 'string') return s;
    } catch { /* another kind */ }
  }
  throw new Error(`message ${fn.toString().slice(0, 60)} gives no string for sample parameters`);
}

const en = flatten(CATALOGUES.en as unknown as Tree);
const zh = flatten(CATALOGUES['zh-CN'] as unknown as Tree);

describe('the message catalogues', () => {
  it('have the same keys, and the same number of parameters for each message', () => {
    expect(zh.map(([p, , n]) => `${p}/${n}`)).toEqual(en.map(([p, , n]) => `${p}/${n}`));
    expect(en.length).toBeGreaterThan(40);
  });

  it('have no empty message', () => {
    for (const [path, text] of [...en, ...zh]) expect(text.trim(), path).not.toBe('');
  });

  it('leave no English in the Chinese messages (Latin-script words only from TERMS)', () => {
    const allowed = new Set(TERMS);
    const stray: string[] = [];
    for (const [path, text] of zh) {
      for (const word of text.match(/[A-Za-z][A-Za-z0-9_+]*/g) ?? []) {
        // snake_case names (n_embd) are the schema's identifiers: code, not prose
        if (word.length > 1 && !word.includes('_') && !allowed.has(word) && word !== 'x') stray.push(`${path}: ${word}`);
      }
    }
    expect(stray).toEqual([]);
  });

  it('write Chinese in the Chinese catalogue', () => {
    const han = /[\u4e00-\u9fff]/;
    const latinOnly = zh.filter(([, text]) => /[A-Za-z]{3,}/.test(text) && !han.test(text)).map(([p]) => p);
    // a message may be a bare term (a unit, "auto"), never a sentence without a Chinese character
    expect(latinOnly.filter((p) => !zh.find(([q]) => q === p)![1].trim().match(/^[\w+.()%-]+$/))).toEqual([]);
  });
});

describe('pickLocale', () => {
  it('keeps a remembered choice, else follows the browser, else English', () => {
    expect(pickLocale('zh-CN', ['en-US'])).toBe('zh-CN');
    expect(pickLocale('en', ['zh-CN'])).toBe('en');
    expect(pickLocale(null, ['zh-TW', 'en'])).toBe('zh-CN');
    expect(pickLocale(null, ['fr-FR', 'zh'])).toBe('zh-CN');
    expect(pickLocale(null, ['fr-FR', 'en-GB', 'zh'])).toBe('en');
    expect(pickLocale('de', ['de-DE'])).toBe('en');
  });
});

describe('index.html', () => {
  it('names only messages that exist (data-i18n, data-i18n-attr)', async () => {
    const fs = await import('node:fs');
    const html = fs.readFileSync(new URL('../index.html', import.meta.url), 'utf8');
    const { messageAt } = await import('../src/i18n');
    const paths = [...html.matchAll(/data-i18n="([^"]+)"/g)].map((m) => m[1]);
    for (const m of html.matchAll(/data-i18n-attr="([^"]+)"/g)) paths.push(...m[1].split(';').map((p) => p.split(':')[1]));
    expect(paths.length).toBeGreaterThan(10);
    for (const p of paths) for (const loc of ['en', 'zh-CN'] as const) expect(() => messageAt(p)(CATALOGUES[loc]), p).not.toThrow();
  });
});
