// The house rules of web/src (web/tools/architecture.ts; docs/architecture.md draws them): who may
// import whom, no cycles, short functions, no module-level state outside the worker's one state
// object (and two exceptions, each with its reason), and the worker's size. Also the C++ side of
// the boundary (wasm/): no function over 80 lines. The report is printed: the closing note quotes it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { ALLOWED_STATE, checkArchitecture, longCppFunctions } from '../tools/architecture';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(web, 'src');

describe('the architecture of the page', () => {
  const r = checkArchitecture(src);

  it('keeps the import rules: layers, public entries of features and ui, a worker free of page code', () => {
    const features = new Set(r.files.filter((f) => f.startsWith('features/')).map((f) => f.split('/')[1]));
    console.log(`architecture: ${r.files.length} modules, ${r.imports.length} imports (${r.imports.filter((i) => i.typeOnly).length} type-only, ` +
      `${r.imports.filter((i) => i.dynamic).length} dynamic), ${features.size} features; violations: ${r.violations.length}; cycles: ${r.cycles.length}; ` +
      `longest function: ${r.longest[0].file} ${r.longest[0].name} (${r.longest[0].lines} lines)`);
    expect(r.violations).toEqual([]);
    expect(r.cycles).toEqual([]);
  });

  it('finds a broken rule (the checker can fail)', () => {
    const dir = fs.mkdtempSync(path.join(web, 'test', '.arch-'));
    try {
      const put = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), text);
      };
      put('ui/index.ts', "export { h } from './dom';\n");
      put('ui/dom.ts', 'export const h = 1;\n');
      put('app/store.ts', "import { h } from '../ui';\nexport const x = h;\n");
      put('features/a/index.ts', "import { y } from '../b/panel';\nimport { b } from '../b';\nimport { h } from '../../ui/dom';\nexport const a = () => y + h + b;\n");
      put('features/b/index.ts', "import { a } from '../a';\nexport const b = a;\n");
      put('features/b/panel.ts', 'export const y = 2;\nlet count = 0;\nexport const bump = () => count++;\n');
      put('features/b/worker.ts', "import { b } from '.';\nexport const w = b;\n");
      put('worker.ts', "import { w } from './features/b/worker';\nexport { w };\n");
      const bad = checkArchitecture(dir);
      const text = bad.violations.join('\n');
      expect(text).toMatch(/app\/store\.ts → ui\/index\.ts: app\/ may not import ui\//);
      expect(text).toMatch(/features\/a\/index\.ts → features\/b\/panel\.ts: a feature is imported through its index\.ts/);
      expect(text).toMatch(/features\/a\/index\.ts → ui\/dom\.ts: ui\/ is imported through ui\/index\.ts only/);
      expect(text).toMatch(/features\/b\/worker\.ts → features\/b\/index\.ts: a feature's worker side may not import the page's/);
      expect(text).toMatch(/module-level mutable state: features\/b\/panel\.ts: let count/);
      expect(text).toMatch(/the worker's bundle reaches page code: ui\/dom\.ts/);
      expect(bad.cycles.map((c) => c.join(' → '))).toContain('features/a/index.ts → features/b/index.ts → features/a/index.ts');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has no function over 80 lines, and no module-level state but the two allowed', () => {
    expect(r.longest.filter((f) => f.lines > 80)).toEqual([]);
    expect(r.state).toEqual([]);
    for (const file of Object.keys(ALLOWED_STATE)) expect(r.files, file).toContain(file);
  });

  it('keeps the worker a registry: at most 150 lines', () => {
    const lines = fs.readFileSync(path.join(src, 'worker.ts'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(150);
  });

  it('keeps every function of the wasm binding (wasm/*.cpp) at most 80 lines', () => {
    const wasm = path.resolve(web, '../wasm');
    const long = longCppFunctions(wasm);
    // the detector finds a long one when there is one
    const dir = fs.mkdtempSync(path.join(web, 'test', '.cpp-'));
    try {
      fs.writeFileSync(path.join(dir, 'x.cpp'), `int f(int a) {\n${'  a++;\n'.repeat(85)}  if (a) {\n    return a;\n  }\n  return 0;\n}\nint g() { return 1; }\n`);
      expect(longCppFunctions(dir).map((f) => [f.line, f.lines])).toEqual([[1, 91]]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(long).toEqual([]);
  });
});
