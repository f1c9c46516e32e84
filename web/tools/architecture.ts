// architecture.ts — the house rules of web/src, checked (web/test/architecture.test.ts runs it in
// `npm test`; docs/architecture.md draws them). A short script over the TypeScript compiler's own
// parser rather than dependency-cruiser: the rules are a dozen lines, the paths are all relative
// (no aliases to resolve), and the same parse gives the function lengths and the module-level
// state the rules also cover.
//
// Layers, lowest first: lib (pure helpers) · i18n (the catalogues) · ui (shared DOM pieces) ·
// app (the page's plumbing: bridge, stores, storage) and worker (the worker's: registry, module
// loading) · features/<name> · the roots (main.ts, page.ts, protocol.ts, worker.ts, sw.ts).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Import { from: string; to: string; typeOnly: boolean; dynamic: boolean }
export interface Report {
  files: string[];
  imports: Import[];
  violations: string[];
  cycles: string[][];
  longest: { file: string; name: string; lines: number }[];   // functions, longest first
  state: string[];                                             // module-level mutable state
}

const MAX_FUNCTION_LINES = 80;

/** Module-level mutable state the rules allow, and why. */
export const ALLOWED_STATE: Record<string, string> = {
  'i18n/index.ts': "the page's language and its catalogues are one per document: every feature words text through t()",
  'features/webgpu/executor.ts': 'compiled pipelines cached per GPUDevice, held weakly: they go with the device and hold nothing of a run',
};

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []);
}

/** A module's layer: 'lib', 'ui', 'feature:<name>', 'root', ... */
function layer(rel: string): string {
  const [top, sub] = rel.split('/');
  if (top === 'features') return `feature:${sub}`;
  return rel.includes('/') ? top : 'root';
}

function resolve(fromRel: string, spec: string, files: Set<string>): string | null {
  if (!spec.startsWith('.')) return null;   // a package
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), spec));
  for (const c of [base, `${base}.ts`, `${base}/index.ts`]) if (files.has(c)) return c;
  return base.startsWith('..') ? null : base;   // outside web/src (wasm/tinygpt.d.ts) or a CSS file
}

function importsOf(sf: ts.SourceFile, rel: string, files: Set<string>): Import[] {
  const out: Import[] = [];
  const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
    const to = resolve(rel, spec, files);
    if (to && !to.endsWith('.css')) out.push({ from: rel, to, typeOnly, dynamic });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(n.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      add(n.moduleSpecifier.text, n.isTypeOnly, false);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      add(n.arguments[0].text, false, true);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Why an import breaks the rules ('' if it doesn't). */
function rule(i: Import): string {
  const a = layer(i.from), b = layer(i.to);
  const [, fa] = a.split(':'), [, fb] = b.split(':');
  const file = i.to.split('/').at(-1)!;
  const below: Record<string, string[]> = {
    lib: ['lib', 'i18n'],                 // lib words its numbers and bytes through the catalogue
    i18n: ['i18n', 'lib'],
    ui: ['ui', 'i18n', 'lib'],
    app: ['app', 'i18n', 'lib'],
    worker: ['worker', 'lib'],
  };
  if (below[a] && !below[a].includes(b)) return `${a}/ may not import ${b.startsWith('feature') ? 'features/' : `${b}/`}`;
  if (a !== 'ui' && b === 'ui' && i.to !== 'ui/index.ts') return 'ui/ is imported through ui/index.ts only (the rest is its own business)';
  if (b.startsWith('feature:') && a !== b && !['index.ts', 'worker.ts', 'messages.ts'].includes(file)) {
    return `a feature is imported through its index.ts, worker.ts or messages.ts only, not ${i.to}`;
  }
  if (a.startsWith('feature:') && i.from.endsWith('/worker.ts') && (b === 'ui' || b === 'app' || (b.startsWith('feature:') && file === 'index.ts'))) {
    return "a feature's worker side may not import the page's (ui/, app/, a feature's index.ts)";
  }
  if (fa && fb && fa !== fb && b.startsWith('feature:') && file === 'worker.ts' && !i.from.endsWith('/worker.ts')) {
    return "only a feature's worker side imports another's worker.ts";
  }
  return '';
}

/** Cycles among the modules (runtime imports and type-only ones alike), each as a path. */
function cycles(imports: Import[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const i of imports) graph.set(i.from, [...(graph.get(i.from) ?? []), i.to]);
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 'open') found.push([...stack.slice(stack.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return found;
}

function functionsOf(sf: ts.SourceFile, rel: string): Report['longest'] {
  const out: Report['longest'] = [];
  const line = (p: number) => sf.getLineAndCharacterOfPosition(p).line;
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const owner = (x: ts.Node) => (ts.isClassLike(x) && x.name ? x.name.getText(sf) : '');
      const name = ts.isConstructorDeclaration(n) ? `${owner(n.parent)} constructor`
        : (n as ts.FunctionLikeDeclaration).name?.getText(sf) ?? (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent) ? n.parent.name.getText(sf)
          : `(anonymous, line ${line(n.getStart(sf)) + 1})`);
      out.push({ file: rel, name, lines: line(n.getEnd()) - line(n.getStart(sf)) + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Module-level `let`/`var`, and module-level Maps, Sets and nanostores created at import. */
function stateOf(sf: ts.SourceFile, rel: string): string[] {
  const out: string[] = [];
  for (const s of sf.statements) {
    if (!ts.isVariableStatement(s)) continue;
    const list = s.declarationList;
    for (const d of list.declarations) {
      const name = d.name.getText(sf);
      if (!(list.flags & ts.NodeFlags.Const)) out.push(`${rel}: ${list.flags & ts.NodeFlags.Let ? 'let' : 'var'} ${name}`);
      const init = d.initializer?.getText(sf) ?? '';
      if (/^new (Map|Set|WeakMap|WeakSet)\b/.test(init) || /^(atom|map)\(/.test(init)) out.push(`${rel}: ${name} = ${init.slice(0, 40)}`);
    }
  }
  return out;
}

export function checkArchitecture(srcDir: string): Report {
  const abs = walk(srcDir);
  const rels = abs.map((f) => path.relative(srcDir, f).split(path.sep).join('/'));
  const set = new Set(rels);
  const imports: Import[] = [];
  const longest: Report['longest'] = [];
  const state: string[] = [];
  abs.forEach((f, k) => {
    const sf = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.ES2022, true);
    imports.push(...importsOf(sf, rels[k], set));
    longest.push(...functionsOf(sf, rels[k]));
    state.push(...stateOf(sf, rels[k]).filter((x) => !ALLOWED_STATE[x.split(':')[0]]));
  });
  longest.sort((a, b) => b.lines - a.lines);
  const violations = imports.map((i) => ({ i, why: rule(i) })).filter((x) => x.why).map(({ i, why }) => `${i.from} → ${i.to}: ${why}`);
  for (const f of longest.filter((x) => x.lines > MAX_FUNCTION_LINES)) violations.push(`${f.file}: ${f.name} is ${f.lines} lines (at most ${MAX_FUNCTION_LINES})`);
  for (const s of state) violations.push(`module-level mutable state: ${s}`);
  // the worker's bundle carries no page code: nothing of ui/ or app/ reachable from worker.ts
  const graph = new Map<string, string[]>();
  for (const i of imports) if (!i.typeOnly) graph.set(i.from, [...(graph.get(i.from) ?? []), i.to]);
  const seen = new Set<string>(['worker.ts']);
  for (const todo = ['worker.ts']; todo.length;) for (const m of graph.get(todo.pop()!) ?? []) if (!seen.has(m)) { seen.add(m); todo.push(m); }
  for (const m of seen) if (m.startsWith('ui/') || m.startsWith('app/')) violations.push(`the worker's bundle reaches page code: ${m}`);
  return { files: rels, imports, violations, cycles: cycles(imports), longest, state };
}

/**
 * Functions of the C++ files in `dir` longer than `max` lines: a brace block opened after a
 * parameter list (`...) {`, `...) const {`, a lambda's, an EMSCRIPTEN_BINDINGS block's) that is
 * not an if / for / while / switch / catch.
 */
export function longCppFunctions(dir: string, max = MAX_FUNCTION_LINES): { file: string; line: number; lines: number; head: string }[] {
  const out: { file: string; line: number; lines: number; head: string }[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => /\.(cpp|h)$/.test(n))) {
    const lines = fs.readFileSync(path.join(dir, name), 'utf8').split('\n');
    const open: { line: number; fn: boolean }[] = [];
    let prev = '';
    lines.forEach((l, k) => {
      const code = l.replace(/\/\/.*$/, '').replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/'(?:[^'\\]|\\.)*'/g, "''");
      let before = '';
      for (const ch of code) {
        if (ch === '{') {
          const head = (before.trim() || prev).trim();
          const fn = /\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(mutable\s*)?(->\s*[\w:<>, ]+)?$/.test(head)
            && !/(^|[\s}])(if|for|while|switch|catch)\s*\(/.test(head);
          open.push({ line: k, fn });
        } else if (ch === '}') {
          const b = open.pop();
          if (b?.fn && k - b.line + 1 > max) out.push({ file: name, line: b.line + 1, lines: k - b.line + 1, head: lines[b.line].trim() });
        }
        before += ch;
        if (ch === ';' || ch === '{' || ch === '}') before = '';
      }
      if (code.trim()) prev = code;
    });
  }
  return out;
}
