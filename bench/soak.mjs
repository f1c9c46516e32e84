// npm run bench:soak — a long visit to the page: config S trained for BENCH_SOAK_MINUTES (30) in
// headless Chromium with the run's history on (its default), a sample and an inspection every
// minute, autosaves as usual. Every minute it prints and records what the tab holds:
//   - the page's JS heap and the training worker's (CDP Runtime.getHeapUsage, each after a garbage
//     collection, HeapProfiler.collectGarbage, so that what is printed is what is kept, not what
//     waits to be collected),
//   - wasm memory (the module's heap, as the worker reports it: the page's memoryBytes),
//   - IndexedDB's size (navigator.storage.estimate().usageDetails.indexedDB) and the checkpoint bytes
//     the runs hold,
//   - the longest task of the page's main thread in that minute (PerformanceObserver 'longtask':
//     every task over 50 ms), how many exceeded 200 ms, and what ran in the frames over 200 ms
//     (long-animation-frame: scripts and rendering).
// Goals (issue 27): each memory figure grows at most 5% from minute 5 to the end (along the
// least-squares line through the minutes; the first and last readings are printed too), and no task
// of the page takes over 200 ms. BENCH_SOAK_HEAP=1 also takes a heap snapshot of the page at minute 5 and at
// the end and prints (and records) what grew between them, by constructor: where a growing heap's
// bytes are (a shortened soak, BENCH_SOAK_MINUTES=8, is enough to see it). Writes bench/results/soak-<date>.json (bench/results.mjs). Needs `npm run build`.
import os from 'node:os';

import { openBenchPage } from './page-harness.mjs';
import { benchResults } from './results.mjs';

const record = benchResults('soak');
const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const settle = Math.min(5, minutes - 1);   // growth is measured from this minute on
const { base, ctx, page, dbg, waitFor, close } = await openBenchPage('tinygpt-soak-');
// Every error the page reports (an uncaught exception of the page, or one a worker passed up to it)
// and every console error of the page and its workers is printed and recorded with its minute: a
// soak with any error fails (the page should have said it in words instead).
const errors = [];
let minuteNow = 0;
page.on('pageerror', (e) => {
  console.error(`page error (minute ${minuteNow}):`, e.message, e.stack ? `\n${e.stack}` : '');
  errors.push({ minute: minuteNow, kind: 'pageerror', message: String(e.message), stack: e.stack ?? null });
});
page.on('console', (m) => {
  // errors, and Emscripten's word that a thread of the pool died ('worker sent an error!', a warning)
  if (m.type() !== 'error' && !(m.type() === 'warning' && /error/i.test(m.text()))) return;
  const where = m.worker() ? `worker ${m.worker().url().split('/').pop()}` : 'page';
  console.error(`console error (minute ${minuteNow}, ${where}):`, m.text());
  errors.push({ minute: minuteNow, kind: 'console', where, message: m.text() });
});

// long tasks of the main thread, gathered in the page from the start
// and, for those over 200 ms, what ran in them (long animation frames: the scripts, their functions
// and sources, the time spent rendering) so that a slow task can be traced to its code
await page.addInitScript(() => {
  const w = window;
  w.__longTasks = [];
  w.__slowFrames = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration <= 200) continue;
      w.__slowFrames.push({ ms: Math.round(e.duration), renderMs: e.renderStart ? Math.round(e.startTime + e.duration - e.renderStart) : 0,
        scripts: e.scripts.map((x) => `${x.invoker} ${x.sourceFunctionName || '?'} ${x.sourceURL.split('/').pop()}:${x.sourceCharPosition} ${Math.round(x.duration)} ms`) });
    }
  }).observe({ type: 'long-animation-frame', buffered: true });
});
await page.goto(base);
await waitFor((d) => !!d.ready, 60_000);
const ready = await dbg((d) => d.ready);
await page.click('#btn-shakespeare');
await waitFor((d) => d.corpus?.ref?.name === 'tinyshakespeare.txt', 60_000);
await page.click('[data-preset=S]');
await page.evaluate(() => void (document.querySelector('#settings-more').open = true));
await page.fill('#knob-max_iters', '1000000');   // the run must outlast the soak
await page.fill('#sample-length', '200');
await page.waitForFunction(() => !document.querySelector('#btn-start')?.disabled);
await page.click('#btn-start');
await waitFor((d) => d.running && d.step > 0, 120_000);

const cdp = await ctx.newCDPSession(page);
await cdp.send('HeapProfiler.enable');
// The training worker's heap: a CDP session of its own, spoken to through the page's session
// (Target.sendMessageToTarget: playwright's sessions do not take a session id). Its garbage is
// collected before each reading too.
const targets = (await cdp.send('Target.getTargets')).targetInfos;
const trainer = targets.find((t) => t.type === 'worker' && t.title === 'tinygpt-trainer');
const inWorker = await (async () => {
  if (!trainer) return null;
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: trainer.targetId, flatten: false });
  let id = 0;
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    pending.get(m.id)?.(m.result ?? null);
    pending.delete(m.id);
  });
  return (method, params = {}) => new Promise((resolve) => {
    const mid = ++id;
    pending.set(mid, resolve);
    void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: mid, method, params }) });
    setTimeout(() => pending.has(mid) && (pending.delete(mid), resolve(null)), 30_000);
  });
})();
async function workerHeap() {
  if (!inWorker) return null;
  await inWorker('HeapProfiler.collectGarbage');
  return (await inWorker('Runtime.getHeapUsage'))?.usedSize ?? null;
}

// What the soak does each minute goes through the DevTools protocol itself: an expression
// evaluated in the page, a click as mouse events. Playwright's own helpers run code of theirs in
// the page's heap (its injected script: selectors, actionability checks, the serializer of
// results, an undo step per fill), which V8 compiled and kept over the run: in
// soak-2026-11-26T135412Z.json, 22 kB of the machine code kept after minute 5 was Playwright's.
const inPage = async (fn, arg) => {
  const r = await cdp.send('Runtime.evaluate', {
    expression: `(${fn.toString()})(window.__tinygpt.get(), ${JSON.stringify(arg ?? null)})`, returnByValue: true, awaitPromise: true,
  });
  if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result.value;
};
const until = async (pred, timeoutMs) => {
  // the first look a moment after the click that started it: the page may not have taken it yet
  for (const t0 = Date.now(); await new Promise((r) => setTimeout(r, 250)), !(await inPage(pred));)
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${pred}`);
};
async function nodeOf(selector) {
  const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  if (!nodeId) throw new Error(`no ${selector} in the page`);
  await cdp.send('DOM.scrollIntoViewIfNeeded', { nodeId });
  return nodeId;
}
async function scrollTo(selector) {
  await nodeOf(selector);
  await cdp.send('DOM.disable');
}
async function clickOn(selector) {
  const { model } = await cdp.send('DOM.getBoxModel', { nodeId: await nodeOf(selector) });
  const q = model.border;   // the corners: x1 y1 ... x4 y4
  const x = (q[0] + q[4]) / 2, y = (q[1] + q[5]) / 2;
  for (const type of ['mousePressed', 'mouseReleased'])
    await cdp.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
  await cdp.send('DOM.disable');
}

async function sampleAndInspect() {
  // a sample of 200 bytes (the length is set once, before the soak), streamed; then the attention
  // maps of a corpus slice
  const before = await inPage((d) => ({ sample: d.sample?.id ?? null, inspectId: d.inspectId }));
  await clickOn('#btn-generate');
  await until(() => document.querySelector('#sample-output')?.getAttribute('data-done') === 'true' && !document.querySelector('#btn-generate').disabled, 120_000);
  await scrollTo('#inspect');
  await clickOn('#btn-inspect');
  await until((d) => !!d.inspection && !d.inspectInFlight, 120_000);
  await scrollTo('#train');
  // each minute's sample and inspection are new ones (a click that missed would leave the last)
  const after = await inPage((d) => ({ sample: d.sample?.id ?? null, inspectId: d.inspectId }));
  if (after.sample === before.sample || after.inspectId === before.inspectId) throw new Error(`the minute's sample or inspection did not happen: ${JSON.stringify(after)}`);
}

// the page's heap by constructor (node type and name: count and self size), from a heap snapshot
async function heapByConstructor() {
  const chunks = [];
  const onChunk = (e) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  const snap = JSON.parse(chunks.join(''));
  const f = snap.snapshot.meta.node_fields, types = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize, n] = [f.indexOf('type'), f.indexOf('name'), f.indexOf('self_size'), f.length];
  const by = new Map();
  for (let i = 0; i < snap.nodes.length; i += n) {
    const key = `${types[snap.nodes[i + iType]]} ${String(snap.strings[snap.nodes[i + iName]]).slice(0, 60)}`;
    const e = by.get(key) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += snap.nodes[i + iSize];
    by.set(key, e);
  }
  by.machineCode = machineCodeOwners(snap);
  return by;
}

// Each piece of machine code (an InstructionStream) in a snapshot, by node id: its size and the
// function it was compiled for, "name script" (InstructionStream <- Code <- SharedFunctionInfo
// <- Script). What appears between two snapshots says which functions V8 compiled again.
function machineCodeOwners(snap) {
  const { node_fields: nf, edge_fields: ef, node_types: nt, edge_types: et } = snap.snapshot.meta;
  const N = nf.length, E = ef.length, nodes = snap.nodes, edges = snap.edges, str = snap.strings;
  const [iType, iName, iId, iSize, iEdges] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((x) => nf.indexOf(x));
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((x) => ef.indexOf(x));
  const count = nodes.length / N, name = (i) => String(str[nodes[i * N + iName]]);
  // the retainers of each node, through property, internal and weak edges: [from, edge name or "weak"]
  const retainers = new Map();
  for (let i = 0, e = 0; i < count; i++) {
    for (let k = 0; k < nodes[i * N + iEdges]; k++, e += E) {
      const t = et[0][edges[e + eType]];
      if (t !== 'internal' && t !== 'property' && t !== 'weak') continue;
      const to = edges[e + eTo] / N;
      if (!retainers.has(to)) retainers.set(to, []);
      retainers.get(to).push([i, t === 'weak' ? 'weak' : String(str[edges[e + eName]])]);
    }
  }
  const via = (i, edge) => (retainers.get(i) ?? []).find(([, en]) => en === edge)?.[0];
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * N + iEdges] * E;
  const out = (i, edge) => {   // the node that i's edge of this name leads to
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E)
      if (String(str[edges[e + eName]]) === edge) return edges[e + eTo] / N;
    return undefined;
  };
  // where a function (a closure's) begins: line:column in its script, for minified names
  const at = new Map(), lf = snap.snapshot.meta.location_fields ?? [], loc = snap.locations ?? [];
  for (let k = 0; k + lf.length <= loc.length; k += lf.length)
    at.set(loc[k + lf.indexOf('object_index')] / N, `${loc[k + lf.indexOf('line')] + 1}:${loc[k + lf.indexOf('column')] + 1}`);
  const owners = new Map();
  for (let i = 0; i < count; i++) {
    if (nt[0][nodes[i * N + iType]] !== 'code' || name(i) !== 'system / InstructionStream') continue;
    const code = via(i, 'instruction_stream');
    // bytecode's and baseline code's function holds it; optimized code is held by a closure
    const holder = code === undefined ? undefined : (retainers.get(code) ?? []).find(([, en]) => en === 'code')?.[0];
    const sfi = code === undefined ? undefined : via(code, 'trusted_function_data') ?? (holder === undefined ? undefined : out(holder, 'shared'));
    const infos = sfi === undefined ? undefined : via(sfi, 'weak');   // the script's list of its functions
    const script = infos === undefined ? undefined : via(infos, 'infos');
    const fn = sfi === undefined ? '(no function)' : name(sfi).replace(/^system \/ SharedFunctionInfo( \/ )?/, '') || '(anonymous)';
    const closure = code === undefined ? undefined : (retainers.get(code) ?? []).find(([r, en]) => en === 'code' && at.has(r))?.[0];
    const where = (script === undefined ? '' : name(script).replace(/^system \/ Script \/ /, '').split('/').pop()) +
      (closure === undefined ? '' : `:${at.get(closure)}`);
    owners.set(nodes[i * N + iId], { bytes: nodes[i * N + iSize], owner: `${fn} ${where}`.trim() });
  }
  return owners;
}

// the machine code in b and not in a, by the function it belongs to (top 10 by bytes)
function newMachineCode(a, b) {
  const by = new Map();
  for (const [id, c] of b.machineCode) {
    if (a.machineCode.has(id)) continue;
    const e = by.get(c.owner) ?? { owner: c.owner, count: 0, bytes: 0 };
    e.count++;
    e.bytes += c.bytes;
    by.set(c.owner, e);
  }
  const gone = [...a.machineCode.keys()].filter((id) => !b.machineCode.has(id)).length;
  return { gone, fresh: [...by.values()].sort((x, y) => y.bytes - x.bytes).slice(0, 10) };
}
// The snapshot's bytes split into V8's compiled code (node type "code": machine code, bytecode and
// their tables, which grow as more functions are optimized) and everything else (the page's
// objects, the DOM, Blink's), external array buffer data left out (not in the heap's used size).
function heapKinds(by) {
  const kinds = { code: 0, rest: 0 };
  for (const [key, e] of by) {
    if (key.startsWith('native system / JSArrayBufferData')) continue;
    kinds[key.startsWith('code ') ? 'code' : 'rest'] += e.bytes;
  }
  return kinds;
}
let kindsGrew = null, codeGrew = null;
function heapGrowth(a, b) {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].map((k) => ({ what: k, count: (b.get(k)?.count ?? 0) - (a.get(k)?.count ?? 0), bytes: (b.get(k)?.bytes ?? 0) - (a.get(k)?.bytes ?? 0) }))
    .sort((x, y) => y.bytes - x.bytes).slice(0, 15);
}
const heapSnapshots = !!process.env.BENCH_SOAK_HEAP;
let heapAtSettle = null, heapGrew = null;

async function measure(minute) {
  await cdp.send('HeapProfiler.collectGarbage');
  const pageHeap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  const { tasks, slowFrames } = await inPage(() => {
    const w = window;
    const t = { tasks: w.__longTasks, slowFrames: w.__slowFrames };
    w.__longTasks = [];
    w.__slowFrames = [];
    return t;
  });
  const storage = await inPage(async () => {
    const e = await navigator.storage.estimate();
    return { indexedDB: e.usageDetails?.indexedDB ?? null, usage: e.usage ?? null };
  });
  const runs = await inPage((d) => d.runs.map((r) => r.bytes));
  const s = await inPage((d) => ({ step: d.step, memoryBytes: d.memoryBytes, running: d.running, tokensPerSec: d.tokensPerSec, threads: d.threadsNow }));
  return {
    minute, step: s.step, running: s.running, tokensPerSec: s.tokensPerSec, threads: s.threads,
    pageHeap, workerHeap: await workerHeap(), wasmMemory: s.memoryBytes, indexedDB: storage.indexedDB, storageUsage: storage.usage,
    runsBytes: runs.reduce((a, b) => a + b, 0), longestTaskMs: tasks.length ? Math.max(...tasks) : 0, tasksOver200ms: tasks.filter((d) => d > 200).length,
    longTasks: tasks.length, slowFrames: slowFrames.slice(0, 5),
  };
}

const MiB = (n) => (n === null || n === undefined ? '   -  ' : (n / 2 ** 20).toFixed(1).padStart(6));
console.log(`bench:soak — ${minutes} min of config S in the page (${ready.variant}), history on, a sample and an inspection every minute; ` +
  `${os.cpus()[0].model}, load average ${os.loadavg()[0].toFixed(2)}`);
console.log(' min    step  page heap  worker heap  wasm mem  IndexedDB  runs  longest task  >200 ms');
const rows = [await measure(0)];
const t0 = Date.now();
const print = (r) => console.log(`${String(r.minute).padStart(4)} ${String(r.step).padStart(7)}   ${MiB(r.pageHeap)} MiB  ${MiB(r.workerHeap)} MiB  ${MiB(r.wasmMemory)} MiB  ${MiB(r.indexedDB)} MiB ${MiB(r.runsBytes)}  ${r.longestTaskMs.toFixed(0).padStart(6)} ms  ${String(r.tasksOver200ms).padStart(6)}`);
print(rows[0]);
for (let m = 1; m <= minutes; m++) {
  minuteNow = m;
  await sampleAndInspect();
  const wait = t0 + m * 60_000 - Date.now();
  if (wait > 0) await page.waitForTimeout(wait);
  const r = await measure(m);
  rows.push(r);
  if (heapSnapshots && m === settle) heapAtSettle = await heapByConstructor();
  if (heapSnapshots && m === minutes && heapAtSettle) {
    const atEnd = await heapByConstructor();
    heapGrew = heapGrowth(heapAtSettle, atEnd);
    const k0 = heapKinds(heapAtSettle), k1 = heapKinds(atEnd);
    kindsGrew = { codeBytes: k1.code - k0.code, restBytes: k1.rest - k0.rest, restAtSettle: k0.rest, codeAtSettle: k0.code };
    console.log(`  the page's heap snapshot from minute ${settle} to ${minutes}: V8's compiled code ${(kindsGrew.codeBytes / 1024).toFixed(1)} kB ` +
      `(${(k0.code / 1024).toFixed(0)} -> ${(k1.code / 1024).toFixed(0)} kB), everything else ${(kindsGrew.restBytes / 1024).toFixed(1)} kB ` +
      `(${(k0.rest / 1024).toFixed(0)} -> ${(k1.rest / 1024).toFixed(0)} kB, ${(100 * kindsGrew.restBytes / k0.rest).toFixed(1)}%)`);
    console.log(`  the page's heap, what grew from minute ${settle} to ${minutes} (by constructor):`);
    for (const g of heapGrew) console.log(`    ${(g.bytes / 1024).toFixed(1).padStart(8)} kB ${String(g.count).padStart(7)} x  ${g.what}`);
    codeGrew = newMachineCode(heapAtSettle, atEnd);
    console.log(`  machine code compiled after minute ${settle} and kept (${codeGrew.gone} pieces of minute ${settle} gone), by function:`);
    for (const g of codeGrew.fresh) console.log(`    ${(g.bytes / 1024).toFixed(1).padStart(8)} kB ${String(g.count).padStart(7)} x  ${g.owner}`);
  }
  print(r);
  for (const f of r.slowFrames) console.log(`       a frame of ${f.ms} ms (rendering ${f.renderMs} ms): ${f.scripts.join('; ') || 'no script'}`);
}

const growth = (key) => {
  const from = rows[settle][key], to = rows[rows.length - 1][key];
  return from ? (to - from) / from : null;
};
// The same growth read from the least-squares line through every minute from `settle` on: one
// reading after a forced GC still moves by about ±1.5% from minute to minute (what is in flight at
// that moment: a sample streaming, messages, code being compiled or flushed), so two single readings
// can make a flat curve look like growth, or hide it. The goal is judged on the line; both are printed.
const fitted = (key) => {
  const pts = rows.slice(settle).filter((r) => r[key] != null);
  if (pts.length < 3) return null;
  const n = pts.length, mx = pts.reduce((a, r) => a + r.minute, 0) / n, my = pts.reduce((a, r) => a + r[key], 0) / n;
  let sxy = 0, sxx = 0;
  for (const r of pts) sxy += (r.minute - mx) * (r[key] - my), sxx += (r.minute - mx) ** 2;
  const slope = sxy / sxx, at = (m) => my + slope * (m - mx);
  const from = at(rows[settle].minute), to = at(rows[rows.length - 1].minute);
  const spread = Math.sqrt(pts.reduce((a, r) => a + (r[key] - at(r.minute)) ** 2, 0) / (n - 2));
  return from ? { growth: (to - from) / from, from, to, residualSd: spread / my } : null;
};
const keys = ['pageHeap', 'workerHeap', 'wasmMemory', 'indexedDB'];
const growths = Object.fromEntries(keys.map((k) => [k, growth(k)]));
const fits = Object.fromEntries(keys.map((k) => [k, fitted(k)]));
const longest = Math.max(...rows.map((r) => r.longestTaskMs));
const over = rows.reduce((a, r) => a + r.tasksOver200ms, 0);
// memory: the page's and the worker's heaps and wasm memory. IndexedDB holds the run's saved data,
// which grows by design: its history of snapshots until the 4 MiB budget (then halved, and filling
// again: watch.cpp History::add) and its train losses (4 bytes a step); printed, not a memory goal.
const memory = ['pageHeap', 'workerHeap', 'wasmMemory'];
const flat = memory.every((k) => (fits[k]?.growth ?? growths[k] ?? 0) <= 0.05);
const pct = (x) => (x == null ? '-' : `${(100 * x).toFixed(2)}%`);
console.log(`growth from minute ${settle} to ${minutes}, first and last readings: ` + keys.map((k) => `${k} ${pct(growths[k])}`).join(', '));
console.log(`  along the least-squares line through minutes ${settle}-${minutes}: ` +
  keys.map((k) => `${k} ${pct(fits[k]?.growth)} (readings off the line by ${pct(fits[k]?.residualSd)} rms)`).join(', '));
console.log(`  goal memory flat after minute ${settle} (<= 5% growth of ${memory.join(', ')} along the line): ${flat ? 'met' : 'NOT met'}`);
console.log(`  goal no task over 200 ms: longest ${longest.toFixed(0)} ms, ${over} over 200 ms: ${over === 0 ? 'met' : 'NOT met'}`);
console.log(`  no error: ${errors.length === 0 ? 'met' : `NOT met (${errors.length})`}`);
await dbg((d) => d.running) && (await page.click('#btn-start'));
record.set('soak', {
  minutes, config: 'S', variant: ready.variant, history: true, sampleEveryMinute: 200, inspectEveryMinute: true,
  rows, growthFromMinute: settle, growth: growths, growthFitted: fits, heapGrowth: heapGrew, heapKindsGrowth: kindsGrew, machineCodeGrowth: codeGrew, longestTaskMs: longest, tasksOver200ms: over, errors, goals: { flat, responsive: over === 0, noErrors: errors.length === 0 },
});
record.write();
await close();
process.exit(errors.length ? 1 : 0);
