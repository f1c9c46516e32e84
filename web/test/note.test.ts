// Notes (ui/note.ts): the store keeps a message to word, not words, so a note
// reads in the language of the moment it is shown; a message of the core without a wording keeps
// its English between the page's words. Also the keep panel's "n s ago" in both languages.
import { afterAll, describe, expect, it } from 'vitest';

import { ago } from '../src/features/runs/panel';
import { setLocale } from '../src/i18n';
import { type Note, noteText } from '../src/ui/note';

describe('a note in the store', () => {
  afterAll(async () => {
    await setLocale('en');
  });

  it('is worded when shown: in English, then in Chinese after a switch', async () => {
    await setLocale('en');
    const saved: Note = (m) => m.runs.saved('1,200', ago(4_000), '1.5 MiB');
    const core: Note = { before: (m) => m.runs.couldNotResume, core: 'checkpoint is truncated', from: {}, after: (m) => m.runs.unchanged };
    expect(noteText(null)).toBe('');
    expect(noteText(saved)).toBe('Saved in this browser at step 1,200, 4 s ago (1.5 MiB).');
    expect(noteText(core)).toBe('Could not resume the saved run: checkpoint is truncated. The current model is unchanged.');
    await setLocale('zh-CN');
    expect(noteText(saved)).toBe('已保存在这个浏览器里：第 1,200 步，4 秒前（1.5 MiB）。');
    // the core's English stays as it wrote it (no code: nothing to word it by), framed in Chinese
    expect(noteText(core)).toBe('无法继续已保存的运行：checkpoint is truncated。当前模型没有变化。');
  });

  it('says how long ago in seconds, minutes or hours', async () => {
    await setLocale('en');
    expect([ago(59_400), ago(61_000), ago(2 * 3600_000 + 5)]).toEqual(['59 s', '1 min', '2 h']);
    await setLocale('zh-CN');
    expect([ago(59_400), ago(61_000), ago(2 * 3600_000 + 5)]).toEqual(['59 秒', '1 分钟', '2 小时']);
  });
});
