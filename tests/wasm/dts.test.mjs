// The module at run time against its declaration, wasm/tinygpt.d.ts: every object a call returns
// has every key its interface declares (optional `?` keys may be absent) and no other, walked
// recursively through nested objects and arrays of objects; every function and method the binding
// registers is declared, with the number of arguments it takes; and every declared one is called
// here at least once. Debian's Emscripten 3.1.6 cannot write the .d.ts itself (--emit-tsd), so the
// hand-written one is read with the TypeScript compiler's type checker (npm devDependency).
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it, before } from 'node:test';

import { loadModule, root, runCli, shakespeare, tmpPath, variantsBuilt } from './helpers.mjs';

const DTS = path.join(root, 'wasm/tinygpt.d.ts');
const enc = new TextEncoder();

let ts;
try {
  ts = createRequire(import.meta.url)('typescript');
} catch {
  throw new Error('tests/wasm/dts.test.mjs reads wasm/tinygpt.d.ts with the npm package typescript: run npm ci first');
}

// ---- the declaration, through the TypeScript checker ------------------------------------------

const program = ts.createProgram([DTS], { target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const source = program.getSourceFile(DTS);
{
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(problems, [], 'wasm/tinygpt.d.ts does not compile');
}
const declared = new Map();  // interface name -> its type
for (const st of source.statements) {
  if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) declared.set(st.name.text, checker.getTypeAtLocation(st.name));
}
const typeNamed = (name) => declared.get(name) ?? assert.fail(`wasm/tinygpt.d.ts declares no ${name}`);
const show = (type) => checker.typeToString(type);
const memberType = (owner, name) => {
  const sym = checker.getPropertyOfType(typeNamed(owner), name);
  return sym && checker.getTypeOfSymbol(sym);
};

const TYPED_ARRAYS = new Set(['Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'ArrayBuffer']);
const EMBIND_HANDLE = new Set(['constructor', 'isAliasOf', 'clone', 'delete', 'isDeleted', 'deleteLater']);
const F = ts.TypeFlags;

const isObjectType = (t) => (t.flags & (F.Object | F.Intersection)) !== 0;
const optional = (sym) => (sym.flags & ts.SymbolFlags.Optional) !== 0;
const isMethodOnly = (t) => {
  const props = checker.getPropertiesOfType(t);
  return props.length > 0 && props.every((p) => checker.getTypeOfSymbol(p).getCallSignatures().length > 0);
};
const describeValue = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : ArrayBuffer.isView(v) ? v.constructor.name
  : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`);

/** Every way `v` differs from `type`, as "path: what". */
function mismatches(v, type, where) {
  const errs = [];
  conform(v, type, where, errs);
  return errs;
}

function conform(v, type, where, errs) {
  const f = type.flags;
  if (f & (F.Any | F.Unknown)) return;
  if (type.isUnion()) return conformUnion(v, type, where, errs);
  if (f & F.Null) return void (v !== null && errs.push(`${where}: ${describeValue(v)}, declared null`));
  if (f & (F.Undefined | F.Void)) return void (v !== undefined && errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`));
  if (f & (F.StringLiteral | F.NumberLiteral)) return void (v !== type.value && errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`));
  if (f & F.BooleanLiteral) return void (v !== (type.intrinsicName === 'true') && errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`));
  for (const [flag, name] of [[F.String, 'string'], [F.Number, 'number'], [F.Boolean, 'boolean'], [F.BigInt, 'bigint']]) {
    if (f & flag) return void (typeof v !== name && errs.push(`${where}: ${describeValue(v)}, declared ${name}`));
  }
  if (f & F.Index) return conform(v, checker.getApparentType(type), where, errs);  // keyof X: its literal union
  if (!isObjectType(type)) return void errs.push(`${where}: the test cannot check the declared type ${show(type)}`);
  conformObject(v, type, where, errs);
}

function conformUnion(v, type, where, errs) {
  if (v === null || v === undefined) {
    const want = v === null ? F.Null : F.Undefined | F.Void;
    if (!type.types.some((t) => t.flags & want)) errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`);
    return;
  }
  let closest = null;
  for (const t of type.types.filter((t) => !(t.flags & (F.Null | F.Undefined | F.Void)))) {
    const e = mismatches(v, t, where);
    if (!e.length) return;
    if (!closest || e.length < closest.length) closest = e;
  }
  if (closest && isObjectType(type.types.find((t) => isObjectType(t)) ?? type) && typeof v === 'object') errs.push(...closest);
  else errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`);
}

function conformObject(v, type, where, errs) {
  const name = type.getSymbol()?.name;
  if (TYPED_ARRAYS.has(name)) {
    if (!(v instanceof globalThis[name])) errs.push(`${where}: ${describeValue(v)}, declared ${name}`);
    return;
  }
  if (checker.isArrayType(type)) {
    if (!Array.isArray(v)) return void errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`);
    const element = checker.getTypeArguments(type)[0];
    v.forEach((x, i) => conform(x, element, `${where}[${i}]`, errs));
    return;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || ArrayBuffer.isView(v)) {
    return void errs.push(`${where}: ${describeValue(v)}, declared ${show(type)}`);
  }
  const props = checker.getPropertiesOfType(type);
  const index = checker.getIndexInfosOfType(type).find((i) => i.keyType.flags & F.String);
  if (!props.length && index) {  // Record<string, T>
    for (const [k, x] of Object.entries(v)) conform(x, index.type, `${where}.${k}`, errs);
    return;
  }
  if (isMethodOnly(type)) return conformHandle(v, type, where, errs);
  const names = new Set(props.map((p) => p.name));
  for (const k of Object.keys(v)) if (!names.has(k)) errs.push(`${where}.${k}: key not declared in ${show(type)}`);
  for (const p of props) {
    if (!(p.name in v)) {
      if (!optional(p)) errs.push(`${where}.${p.name}: declared in ${show(type)}, missing`);
      continue;
    }
    conform(v[p.name], checker.getTypeOfSymbol(p), `${where}.${p.name}`, errs);
  }
}

// The declared parameter counts a signature accepts: [required, all].
function arity(type) {
  const counts = type.getCallSignatures().map((s) => {
    const all = s.getParameters().length;
    const required = s.getParameters().filter((p) => !p.valueDeclaration?.questionToken).length;
    return [required, all];
  });
  return [Math.min(...counts.map((c) => c[0])), Math.max(...counts.map((c) => c[1]))];
}

// The argument counts an Embind function or method accepts (one count, or its overloads').
function embindCounts(fn) {
  if (fn.overloadTable) return Object.keys(fn.overloadTable).filter((k) => /^\d+$/.test(k)).map(Number);
  return typeof fn.argCount === 'number' ? [fn.argCount] : null;
}

// Each declared call of a function or method takes exactly the argument counts the binding does.
function arityMismatch(fn, type, where) {
  const counts = embindCounts(fn);
  if (!counts) return null;
  const [lo, hi] = arity(type);
  const want = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  if (want.join() === [...counts].sort((a, b) => a - b).join()) return null;
  return `${where}: declared with ${lo === hi ? lo : `${lo} to ${hi}`} arguments, the binding takes ${counts.join(' or ')}`;
}

// An Embind object (Session, GenerationTree): the methods on its prototype are the declared ones.
function conformHandle(v, type, where, errs) {
  const proto = Object.getPrototypeOf(v);
  const props = checker.getPropertiesOfType(type);
  const names = new Set(props.map((p) => p.name));
  for (const k of Object.getOwnPropertyNames(proto)) {
    if (!EMBIND_HANDLE.has(k) && !names.has(k)) errs.push(`${where}.${k}(): method not declared in ${show(type)}`);
  }
  for (const p of props) {
    if (typeof v[p.name] !== 'function') { errs.push(`${where}.${p.name}(): declared in ${show(type)}, missing`); continue; }
    const bad = EMBIND_HANDLE.has(p.name) ? null : arityMismatch(v[p.name], checker.getTypeOfSymbol(p), `${where}.${p.name}()`);
    if (bad) errs.push(bad);
  }
}

// ---- calling the module -----------------------------------------------------------------------

const called = new Set();  // "Owner.member" of every call made and checked

/** target[name](...args), its result checked against what interface `owner` declares for `name`. */
function call(owner, target, name, ...args) {
  const type = memberType(owner, name);
  assert.ok(type, `${owner}.${name}: not declared in wasm/tinygpt.d.ts`);
  const result = target[name](...args);
  const returns = checker.getReturnTypeOfSignature(type.getCallSignatures()[0]);
  const errs = mismatches(result, returns, `${owner}.${name}()`);
  assert.deepEqual(errs, [], `${owner}.${name}() returned what wasm/tinygpt.d.ts does not declare:\n  ${errs.join('\n  ')}`);
  called.add(`${owner}.${name}`);
  return result;
}

// it() that remembers a failure: the last test only lists calls nobody made when the others passed
let earlierFailed = false;
function check(name, body) {
  it(name, () => {
    try {
      body();
    } catch (e) {
      earlierFailed = true;
      throw e;
    }
  });
}

const TINY = { n_layer: 1, n_head: 2, n_embd: 16, block_size: 16, batch_size: 2, max_iters: 60, warmup_iters: 2,
  eval_interval: 4, eval_iters: 1, seed: 5 };
const corpus = shakespeare.subarray(0, 20_000);

for (const variant of variantsBuilt()) {
  describe(`tinygpt-${variant} against wasm/tinygpt.d.ts`, () => {
    let M;
    const m = (name, ...args) => call('TinyGPTModule', M, name, ...args);
    const session = (s, name, ...args) => call('Session', s, name, ...args);
    before(async () => { M = await loadModule(variant); called.clear(); earlierFailed = false; });

    check('declares every function and class the binding registers, with the arguments it takes', () => {
      const sources = fs.readdirSync(path.join(root, 'wasm')).filter((n) => n.endsWith('.cpp'))
        .map((n) => fs.readFileSync(path.join(root, 'wasm', n), 'utf8')).join('\n');
      const functions = new Set([...sources.matchAll(/emscripten::function\("(\w+)"/g)].map((x) => x[1]));
      const classes = [...sources.matchAll(/class_<\w+>\s*(?:\w+)?\s*\(\s*"(\w+)"|SessionClass\s+\w+\("(\w+)"\)/g)].map((x) => x[1] ?? x[2]);
      assert.ok(functions.size > 40 && classes.includes('Session') && classes.includes('GenerationTree'), 'the binding\'s registrations were found');
      const errs = [];
      const module = typeNamed('TinyGPTModule');
      for (const name of functions) {
        const type = memberType('TinyGPTModule', name);
        if (!type) { errs.push(`${name}: registered by wasm/*.cpp, not declared in TinyGPTModule`); continue; }
        if (typeof M[name] !== 'function') { errs.push(`${name}: declared, not in the module`); continue; }
        const bad = arityMismatch(M[name], type, `TinyGPTModule.${name}()`);
        if (bad) errs.push(bad);
      }
      for (const c of classes) if (!declared.has(c)) errs.push(`class ${c}: registered by wasm/*.cpp, no interface ${c} in wasm/tinygpt.d.ts`);
      for (const p of checker.getPropertiesOfType(module)) {
        if (!functions.has(p.name) && !classes.includes(p.name)) errs.push(`TinyGPTModule.${p.name}: declared, not registered by wasm/*.cpp`);
        else if (typeof M[p.name] !== 'function') errs.push(`TinyGPTModule.${p.name}: declared, not in the module`);
      }
      assert.deepEqual(errs, [], `wasm/*.cpp and wasm/tinygpt.d.ts disagree:\n  ${errs.join('\n  ')}`);
    });

    check('returns module-level objects of the declared shapes', () => {
      m('backend'); m('memoryBytes'); m('maxThreads'); m('numThreads'); m('setThreads', 1); m('setPoolProfiling', true); m('poolStats'); m('setPoolProfiling', false); m('setKernelProfiling', true); m('setKernelProfiling', false); m('kernelTimings');
      assert.deepEqual(m('checkConfig', TINY).problems, []);
      assert.ok(m('checkConfig', { n_head: 3, width: 1 }).problems.length > 0, 'checkConfig: problems to check');
      assert.ok(m('checkConfig', { n_head: 3 }).problems[0].code, 'checkConfig: a coded problem');
      m('messageCodes'); m('configSchema'); m('presets'); m('buildVariant');
      assert.ok(m('builtinTasks').length > 0);
      const tsv = m('builtinTask', 'reverse', 1);
      assert.ok(m('pairsReport', tsv, 9).report.code, 'pairsReport: a coded report');
      m('sniff', corpus.subarray(0, 4096), corpus.length, 'corpus.txt');
      m('sniff', new Uint8Array([1, 0, 0, 2]), 4, 'x.bin');
      m('preflight', TINY, corpus, 30, null);
      m('textEntropy', corpus);
      m('learnTrace', 'walkthrough');
      m('learnTrace', 'two-heads', { tokens: [1, 2, 3, 4], weights: [{ param: 'wpe', index: 0, value: 0.5 }] });
    });

    check('returns corpora read through readers, of the declared shapes', () => {
      const reader = (name, bytes) => ({ name, size: bytes.length, read: (at, n, into) => { into.set(bytes.subarray(at, at + n)); return null; } });
      // an llm.c shard made here: 256 int32 (magic, version 1, count), then uint16 tokens
      const shard = (tokens) => {
        const b = new Uint8Array(1024 + 2 * tokens.length);
        const dv = new DataView(b.buffer);
        dv.setInt32(0, 20240520, true); dv.setInt32(4, 1, true); dv.setInt32(8, tokens.length, true);
        tokens.forEach((t, i) => dv.setUint16(1024 + 2 * i, t, true));
        return b;
      };
      const text = m('corpusFromReader', reader('corpus.txt', corpus));
      for (const name of ['size', 'trainSize', 'fingerprint', 'describe', 'shards']) call('Corpus', text, name);
      const toks = Array.from(corpus.subarray(0, 2000));
      const shards = m('corpusFromShards', [reader('c_train_000000.bin', shard(toks.slice(0, 1800))), reader('c_val_000000.bin', shard(toks.slice(1800)))]);
      assert.equal(call('Corpus', shards, 'shards').length, 2);
      const s = new M.Session(TINY);
      session(s, 'useCorpus', shards);
      m('preflightCorpus', TINY, text, 30, null);
      const slice = session(s, 'advance', 2, 0);
      assert.equal(slice.losses.length, 2);
      session(s, 'corpusMismatch');
      const u = new M.Session(TINY);
      u.load(s.save());
      u.useCorpus(text);
      assert.ok(session(u, 'corpusMismatch').code, 'corpusMismatch: what differs, coded');
      s.delete(); u.delete();
      call('Corpus', text, 'delete');
      shards.delete();
    });

    check('returns a gpt session\'s objects of the declared shapes: slices with rollbacks and a pause, the history, a tree', () => {
      const s = new M.Session(TINY);
      called.add('TinyGPTModule.Session');
      assert.deepEqual(mismatches(s, typeNamed('Session'), 'new Session()'), []);
      session(s, 'setCorpus', corpus); session(s, 'hasCorpus'); session(s, 'corpusSize'); session(s, 'corpusMatchesCheckpoint');
      session(s, 'stopAt'); session(s, 'setStopAt', 60); session(s, 'updateField', 'eval_iters', 1);
      m('watchStartHistory', s, null, null);
      const first = session(s, 'advance', 6, 0);
      assert.ok(first.evals.length > 0 && first.paused === null && first.threadsReason === null, 'a slice with evaluations, not paused, no tuner');
      session(s, 'tuneThreads', 2);
      session(s, 'injectNanGradient', 1);
      const rolled = session(s, 'advance', 3, 0);
      assert.ok(rolled.rollbacks.length > 0 && rolled.threadsReason !== null, 'a slice with a rollback and the tuner\'s word');
      session(s, 'evaluate');
      session(s, 'generate', enc.encode('ROMEO:'), 5, { temperature: 0.8, topK: 5 });
      session(s, 'beginGeneration', enc.encode('ROMEO:'), undefined);
      session(s, 'generateNext', 3);
      session(s, 'inspect', enc.encode('To be or not'));
      for (const name of ['config', 'step', 'learningRate', 'numParameters', 'history', 'kind', 'dataReport']) session(s, name);
      m('watchBaselines', s);
      m('watchRecordSnapshot', s);
      assert.ok(m('watchHistory', s, -1).steps.length > 0, 'watchHistory: snapshots to check');
      m('watchNeighbours', s, 3);
      const tree = m('growGenerationTree', s, enc.encode('the '), 3);
      const node = call('GenerationTree', tree, 'node', 0);
      const child = call('GenerationTree', tree, 'extend', 0, node.topTokens[0]);
      call('GenerationTree', tree, 'node', child);
      for (const name of ['size', 'positionsComputed', 'step', 'current']) call('GenerationTree', tree, name);
      call('GenerationTree', tree, 'text', child);
      call('GenerationTree', tree, 'delete');
      session(s, 'injectNanGradient', 10);
      const paused = session(s, 'advance', 10, 0);
      assert.ok(paused.paused !== null && paused.paused.code, 'a slice where the guard paused the run');
      const bytes = session(s, 'save');
      m('describeCheckpoint', bytes);
      session(s, 'load', bytes);
      m('watchStopHistory', s);
      session(s, 'delete');
    });

    check('returns share links, replays, model files and exports of the declared shapes', () => {
      const s = new M.Session(TINY);
      s.setCorpus(corpus);
      const { losses } = s.advance(4, 0);
      const link = { config: s.config(), variant: M.buildVariant(), corpus: { builtin: 'tinyshakespeare.txt', fingerprint: '', size: 0, name: '' }, losses };
      const parsed = m('parseShareLink', m('makeShareLink', link, 'https://example.org/#old'));
      m('checkReplay', parsed, losses, '');
      m('checkReplay', parsed, losses.map((x) => x + 1), 'wasm-other');
      assert.equal(m('checkTokenizer', parsed, ''), null, 'checkTokenizer: a byte run\'s link needs none');
      const ckpt = tmpPath('dts.ckpt');
      const model = tmpPath('dts.safetensors');
      fs.writeFileSync(ckpt, s.save());
      runCli(['export', '--ckpt', ckpt, '--out', model]);
      const bytes = new Uint8Array(fs.readFileSync(model));
      m('sessionFromSafetensors', bytes).delete();
      m('sessionFromSafetensors', bytes, { memory_limit_mb: 512 }).delete();
      m('exportModel', s, 'onnx', {});
      m('exportLogits', s, Int32Array.from([84, 111]));
      const translator = new M.Session({ ...M.presets().find((p) => p.name === 's2s-tiny').config, block_size: 9 });
      m('exportTranslationLogits', translator, Int32Array.from([97, 98]), Int32Array.from([256]));   // BOS is 256 for bytes
      translator.delete();
      const tied = new M.Session({ ...TINY, tie_weights: 1 });
      const folder = Object.fromEntries(m('exportModel', tied, 'hf', {}).map((f) => [f.path.split('/').pop(), f.bytes]));
      m('sessionFromSafetensors', m('modelFileFromFolder', folder)).delete();
      const gguf = m('exportModel', tied, 'gguf', { dtype: 'q8_0' })[0].bytes;
      m('exportFormatOf', gguf);
      m('refuseExportFormat', enc.encode('text'), 'a.txt');
      assert.throws(() => M.refuseExportFormat(gguf, 'm.gguf'), (e) => e.code === 'import.export_format');
      called.add('TinyGPTModule.refuseExportFormat');
      tied.delete();
      s.delete();
    });

    check('returns the WebGPU host\'s objects of the declared shapes', () => {
      const s = new M.Session(TINY);
      s.setCorpus(corpus);
      m('gpuPlan', s, true, true);
      m('gpuBatchLengths', s);
      const st = m('gpuExportState', s);
      m('gpuImportState', s, st.params, st.m, st.v, st.adamT, true);
      m('gpuNextBatches', s, 1);
      m('gpuStepScalars', s, 0, 0, 1);
      m('gpuValBatches', s);
      m('gpuRecordSteps', s, new Float32Array([5]), new Float32Array([1]));
      m('gpuRecordEval', s, new Float32Array(TINY.eval_iters).fill(5));
      m('gpuRollBack', s, 'a test');
      m('gpuReturnToGoodState', s, 'a test');
      m('gpuSampleOptions', s, {});
      m('gpuSampleDraws', 1, 0, 4);
      let plan = m('gpuRunPlan', s, 2);
      if (plan.evaluate) {
        m('gpuRunRecordEvaluation', s, new Float32Array(TINY.eval_iters).fill(5), 1);
        plan = m('gpuRunPlan', s, 2);
      }
      assert.ok(plan.steps >= 1, 'gpuRunPlan: steps to record');
      const slice = m('gpuRunRecord', s, new Float32Array([NaN]), new Float32Array([NaN]), 1);
      assert.ok(slice.rollbacks.length > 0, 'gpuRunRecord: a slice with a rollback');
      s.delete();
    });

    check('returns a translator\'s objects of the declared shapes', () => {
      const s = new M.Session({ ...M.presets().find((p) => p.name === 's2s-tiny').config, block_size: 9, max_iters: 10,
        warmup_iters: 2, eval_interval: 2, eval_iters: 1 });
      session(s, 'setCorpus', M.builtinTask('reverse', 1));
      m('watchStartHistory', s, null, null);
      session(s, 'advance', 3, 0);
      assert.ok(m('watchHistory', s, -1).probeSource.length > 0, 'a translator\'s history');
      m('watchNeighbours', s, 2);
      session(s, 'translate', enc.encode('abc'), { beam: 2 });
      session(s, 'translate', enc.encode('abc'), undefined);
      session(s, 'inspectTranslation', enc.encode('abc'), enc.encode('cba'));
      // the WebGPU host's translator halves (a source in, the GPU's picks out; a pair for pair.inspect)
      const start = m('gpuTranslateStart', s, enc.encode('abc'), 0);
      const picks = Int32Array.from({ length: start.steps }, (_, i) => [99, 98, 97][i] ?? 257);   // then EOS: 257 for bytes
      m('gpuTranslateFinish', s, picks, new Float32Array(start.steps).fill(0.5), start.maxLen);
      m('gpuTranslationPair', s, enc.encode('abc'), enc.encode('cba'));
      m('gpuBatchLengths', s);
      // beam search with logits from elsewhere (the GPU's): the search's own objects
      const beam = m('gpuBeamStart', s, enc.encode('abc'), 2, 0, 1);
      const b = (name, ...args) => call('GpuBeam', beam, name, ...args);
      b('source', 9);
      b('rows');
      const V = b('vocabSize');
      while (!b('done')) {
        b('histories', 9);
        b('advance', new Float32Array(2 * V));
      }
      b('result');
      b('delete');
      // sampled decoding the same way: one row, the core draws
      const sampled = m('gpuSampledStart', s, enc.encode('abc'), { temperature: 1, seed: 3 });
      const sr = (name, ...args) => call('GpuBeam', sampled, name, ...args);
      assert.equal(sr('rows'), 1);
      while (!sr('done')) {
        sr('histories', 9);
        sr('advance', new Float32Array(V));
      }
      sr('result');
      sr('delete');
      session(s, 'dataReport');
      const tree = m('growGenerationTree', s, enc.encode('abc'), 2);
      call('GenerationTree', tree, 'node', 0);
      tree.delete();
      s.delete();
    });

    check('returns a recurrent session\'s objects of the declared shapes: the hidden-state view, the history, a tree', () => {
      const s = new M.Session({ ...M.presets().find((p) => p.name === 'lstm-tiny').config, block_size: 8, max_iters: 10,
        warmup_iters: 2, eval_interval: 2, eval_iters: 1 });
      session(s, 'setCorpus', corpus);
      m('watchStartHistory', s, null, null);
      session(s, 'advance', 3, 0);
      assert.equal(m('watchHistory', s, -1).attentionBytes, 0, 'no attention in a recurrent model\'s history');
      m('watchNeighbours', s, 2);
      const text = enc.encode('He said "to be" or not\n');
      assert.equal(m('hiddenTrace', s, text).T, text.length);
      const patterns = m('hiddenPatterns');
      m('hiddenSignal', patterns[0].name, text);
      assert.ok(m('hiddenSearch', s, text, 'quote', 3).length === 3, 'hiddenSearch: three units');
      session(s, 'generate', enc.encode('ROMEO:'), 5, { temperature: 0.8 });
      session(s, 'inspect', enc.encode('To be'));
      m('exportModel', s, 'safetensors', {});
      m('exportModel', s, 'onnx', {});
      m('exportLogits', s, Int32Array.from([84, 111]));
      const tree = m('growGenerationTree', s, enc.encode('the '), 2);
      call('GenerationTree', tree, 'extend', 0, call('GenerationTree', tree, 'node', 0).topTokens[0]);
      tree.delete();
      s.delete();
    });

    check('returns a tokenizer\'s objects of the declared shapes', () => {
      const tk = (t, name, ...args) => call('Tokenizer', t, name, ...args);
      const bytes = new M.Tokenizer();
      called.add('TinyGPTModule.Tokenizer');
      assert.deepEqual(mismatches(bytes, typeNamed('Tokenizer'), 'new Tokenizer()'), []);
      let calls = 0;
      const t = m('trainTokenizer', corpus, 300, (p) => { calls++; return p.done >= 0; });
      assert.ok(calls > 0 && t.vocabSize() === 300, 'trainTokenizer: progress reported, 300 tokens');
      assert.equal(m('trainTokenizer', corpus, 300, () => false), null, 'trainTokenizer: stopped by its progress callback');
      const ids = tk(t, 'encode', enc.encode('To be, or not'));
      tk(t, 'decode', ids); tk(t, 'decode', [1, 2]);
      for (const name of ['vocabSize', 'idCount', 'merges', 'specials', 'trainingStats', 'toJson', 'serialize', 'fingerprint']) tk(t, name);
      tk(t, 'tokenText', ids[0]); tk(t, 'tokenBytes', ids[0]); tk(t, 'pieces', enc.encode("I'll go"));
      m('tokenizerFromJson', t.toJson()).delete();
      m('tokenizerFromBytes', t.serialize()).delete();
      const vocab = {};
      for (let b = 0; b < 256; b++) {
        const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
        vocab[String.fromCodePoint(printable ? b : 256 + Object.keys(vocab).filter((k) => k.codePointAt(0) >= 256).length)] = b;
      }
      m('tokenizerFromGpt2', JSON.stringify(vocab), '#version: 0.2\n').delete();
      const reader = { name: 'corpus.txt', size: corpus.length, read: (at, n, into) => { into.set(corpus.subarray(at, at + n)); return null; } };
      const text = m('corpusFromReader', reader);
      m('trainTokenizerOnCorpus', text, 280, null).delete();
      const tokens = m('tokenizeCorpus', text, t, (p) => p.done <= p.total);
      assert.ok(tokens.size() > 0 && tokens.size() < corpus.length, 'tokenizeCorpus: fewer tokens than bytes');
      tk(t, 'tokenTexts', ids);
      tk(t, 'prefix', 10).delete();
      // a BPE run: the session with its tokenizer (learned from the training split), in tokens
      const run = m('trainTokenizerForRun', text, 300, null);
      const s = new M.Session({ ...TINY, tokenizer: 'bpe', vocab_size: 300 });
      session(s, 'setTokenizer', run);
      s.useCorpus(text);
      session(s, 'tokensPerByte');
      session(s, 'tokenTexts', [256, 257]);
      session(s, 'tokenizer').delete();
      s.advance(2, 0);
      session(s, 'history');
      session(s, 'generate', enc.encode('ROMEO:'), 3, undefined);
      session(s, 'inspect', enc.encode('To be or not'));
      m('preflight', { ...TINY, tokenizer: 'bpe', vocab_size: 300 }, corpus, 20, run);
      const link = { config: s.config(), variant: M.buildVariant(), corpus: { builtin: 'tinyshakespeare.txt', fingerprint: '', size: 0, name: '' },
        losses: s.history().train, tokenizer: run.fingerprint(), tokensPerByte: s.tokensPerByte() };
      const parsed = m('parseShareLink', m('makeShareLink', link, 'https://example.org/'));
      assert.equal(parsed.tokenizer, run.fingerprint());
      assert.ok(m('checkTokenizer', parsed, '0000000000000001').code === 'share.other_tokenizer', 'checkTokenizer: another tokenizer');
      m('describeCheckpoint', s.save());
      const tree = m('growGenerationTree', s, enc.encode('the '), 3);
      call('GenerationTree', tree, 'node', 0);
      tree.delete();
      s.delete(); run.delete();
      tokens.delete(); text.delete(); t.delete(); tk(bytes, 'delete');
    });

    it('has called and checked every declared function and method', (t) => {
      if (earlierFailed) return t.skip('a test above failed before it made all its calls');
      const missing = [];
      for (const owner of ['TinyGPTModule', 'Session', 'GenerationTree', 'Tokenizer']) {
        for (const p of checker.getPropertiesOfType(typeNamed(owner))) if (!called.has(`${owner}.${p.name}`)) missing.push(`${owner}.${p.name}`);
      }
      assert.deepEqual(missing, [], `declared in wasm/tinygpt.d.ts, not exercised by tests/wasm/dts.test.mjs: ${missing.join(', ')}`);
    });
  });
}
