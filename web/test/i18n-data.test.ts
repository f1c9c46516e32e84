// The data, settings and train panels' words follow the language (helper "i18n-data"): what the
// train feature's derive.ts, the settings' schema.ts and the share feature's replay.ts word is
// worded when called, in the current language, and the data in it (file names, fingerprints)
// appear verbatim so the panels can mark them translate="no".
import { afterEach, describe, expect, it } from 'vitest';

import { describeModel } from '../src/features/session';
import { checkCorpusLength, parseSettings } from '../src/features/settings/schema';
import { corpusNote, needText } from '../src/features/share';
import { startBlockedReason, startLabel, statusLine } from '../src/features/train';
import { loadCatalogue, locale } from '../src/i18n';
import { en } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import type { FieldSpec, FullConfig, ShareLink } from '../../wasm/tinygpt';
import { fakePage } from './fake-worker';

const initialState = () => fakePage().page.state.get();

afterEach(() => locale.set('en'));

async function chinese(): Promise<void> {
  await loadCatalogue('zh-CN');
  locale.set('zh-CN');
}

describe('derive.ts words in the current language', () => {
  it('the start label, the blocked reason and the status line', async () => {
    const s = initialState();
    expect([startLabel(s), startBlockedReason(s), statusLine(s)]).toEqual(['Start', 'The model code is still loading', 'Loading the model code…']);
    await chinese();
    expect([startLabel(s), startBlockedReason(s), statusLine(s)]).toEqual(['开始', '模型代码仍在加载', '正在加载模型代码…']);
    expect(startLabel({ ...s, running: true })).toBe('暂停');
  });

  it('a model in a few words', async () => {
    const gpt = { model: 'gpt', n_layer: 2, n_head: 4, n_embd: 64, block_size: 32 } as const;
    expect(describeModel(gpt)).toBe('2 layers × 4 heads, width 64, context 32');
    await chinese();
    expect(describeModel(gpt)).toBe('2 层 × 4 个头，宽度 64，上下文长度 32');
    expect(describeModel({})).toBe('一个模型');
  });
});

describe('settings.ts words in the current language', () => {
  const knobs = [{ name: 'n_layer', label: 'Layers (core)', help: 'h', type: 'integer', group: 'model', kinds: ['gpt'], range: '[1, 96]' }] as unknown as FieldSpec[];
  const base = { n_layer: 2 } as unknown as FullConfig;

  it('a field that is not a number, by the catalogue\'s label', async () => {
    expect(parseSettings(knobs, base, { n_layer: '' }).errors).toEqual({ n_layer: 'Layers is empty' });
    await chinese();
    expect(parseSettings(knobs, base, { n_layer: 'x' }).errors).toEqual({ n_layer: '层数必须是数字' });
    expect(checkCorpusLength({ block_size: 64 }, 10)).toBe('语料只有 10 字节，少于上下文长度 + 1 = 65：请使用更长的文本或更短的上下文');
  });
});

describe('replay.ts: which text a link needs, as data worded at render time', () => {
  const link = (corpus: Partial<ShareLink['corpus']>) => ({ corpus: { builtin: '', fingerprint: '', size: 0, name: '', ...corpus } }) as ShareLink;
  const have = { ref: { name: 'mine.txt', builtin: false }, stats: { size: 5, fingerprint: 'ffff' } } as never;

  it('is null for the link\'s own text, else the need, worded with its data verbatim', () => {
    const l = link({ name: 'poem.txt', size: 1234, fingerprint: 'abcd' });
    expect(corpusNote(l, { ref: { name: 'poem.txt', builtin: false }, stats: { size: 1234, fingerprint: 'abcd' } } as never)).toBeNull();
    const other = corpusNote(l, have)!;
    expect(other.kind).toBe('other');
    for (const m of [en, zhCN]) {
      const { text, data } = needText(other, m);
      for (const d of data) expect(text).toContain(d);
    }
    expect(needText(other, en).text).toBe('poem.txt (1234 bytes, fingerprint abcd); mine.txt is 5 bytes with fingerprint ffff');
    expect(needText(corpusNote(link({ builtin: 'tinyshakespeare.txt' }), null)!, zhCN).text).toBe('内置文本 tinyshakespeare.txt');
    expect(needText(corpusNote(link({ size: 10 }), null)!, en).text).toMatch(/^the same file \(/);
  });
});
