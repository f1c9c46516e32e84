// The core's own English for the page (config.h's schema rows, presets(), builtin_tasks()) is kept
// in the catalogues by name so the page can word it in Chinese (i18n/en/settings.ts, en/data.ts).
// This checks, against the scalar wasm build, that every field, preset and task the core has is in
// both catalogues and that the English there is exactly the core's: a change in config.h (or a new
// preset or task) fails here until the catalogues follow.
import { describe, expect, it } from 'vitest';

import { en } from '../src/i18n/en';
import { zhCN } from '../src/i18n/zh-CN';
import { fieldText, presetText } from '../src/features/settings/schema';
import { loadScalar } from './wasm';

describe('the core\'s texts in the catalogues', () => {
  it('has every schema field, with the core\'s label and help in English and a Chinese wording', async () => {
    const schema = (await loadScalar()).configSchema();
    expect(schema.length).toBeGreaterThan(10);
    for (const f of schema) {
      expect(en.settings.fields[f.name], f.name).toEqual({ label: f.label, help: f.help });
      const zh = zhCN.settings.fields[f.name];
      expect(zh?.label, f.name).toMatch(/[\u4e00-\u9fff]/);
      expect(zh?.help, f.name).toMatch(/[\u4e00-\u9fff]/);
    }
    // and no entry for a field the core no longer has
    expect(Object.keys(en.settings.fields).sort()).toEqual(schema.map((f) => f.name).sort());
    expect(Object.keys(zhCN.settings.fields).sort()).toEqual(schema.map((f) => f.name).sort());
  });

  it('has every preset, with the core\'s label and blurb in English and a Chinese wording', async () => {
    const presets = (await loadScalar()).presets();
    expect(presets.length).toBeGreaterThan(3);
    for (const p of presets) {
      expect(en.settings.presets[p.name], p.name).toEqual({ label: p.label, blurb: p.blurb });
      expect(zhCN.settings.presets[p.name]?.blurb, p.name).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(Object.keys(en.settings.presets).sort()).toEqual(presets.map((p) => p.name).sort());
    expect(Object.keys(zhCN.settings.presets).sort()).toEqual(presets.map((p) => p.name).sort());
  });

  it('has every built-in task, with the core\'s description in English and a Chinese wording', async () => {
    const tasks = (await loadScalar()).builtinTasks();
    expect(tasks.map((t) => t.name)).toContain('zh-en');
    for (const t of tasks) {
      expect(en.data.tasks[t.name], t.name).toBe(t.description);
      expect(zhCN.data.tasks[t.name], t.name).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(Object.keys(en.data.tasks).sort()).toEqual(tasks.map((t) => t.name).sort());
    expect(Object.keys(zhCN.data.tasks).sort()).toEqual(tasks.map((t) => t.name).sort());
  });

  it('words a field and a preset from the catalogue, and falls back to the core\'s English for an unknown name', () => {
    const core = { name: 'n_embd', label: 'core label', help: 'core help' };
    expect(fieldText(core, zhCN)).toEqual({ label: '宽度', help: zhCN.settings.fields.n_embd.help, known: true });
    expect(fieldText(core, en).label).toBe('Width');
    expect(fieldText({ name: 'n_future', label: 'Future', help: 'a knob of a newer core' }, zhCN))
      .toEqual({ label: 'Future', help: 'a knob of a newer core', known: false });
    expect(presetText({ name: 'S', label: 'x', blurb: 'y' }, zhCN).label).toBe('小（S）');
    expect(presetText({ name: 'XL', label: 'huge', blurb: 'big' }, zhCN)).toEqual({ label: 'huge', blurb: 'big', known: false });
  });
});
