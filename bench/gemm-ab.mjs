// npm run bench:gemm:ab -- --base REV — this tree's GEMM (core/src/gemm.cpp) against the one at
// commit REV, in one process per backend, alternating call by call (bench/gemm_ab.cpp): natively
// with AVX2 (when the CPU has it) and in wasm with SIMD128 under Node. Both gemm.cpp files are
// compiled here with the same flags (those of the build's kernel copy) and their namespace renamed,
// against this tree's headers, and linked with this tree's core: only gemm.cpp differs. On a shared
// machine whose load moves by +-15% between processes (bench/seq2seq.mjs alternates processes),
// this sees changes of a few percent. Prints per shape GFLOP/s of each, the ratio this / base
// (median and best of the rounds) and whether both wrote the same bits.
//   node bench/gemm-ab.mjs --base REV [--rounds N] [--no-native] [--no-wasm]
// Needs build/native/libtinygpt_core.a (npm run build:native) and, for wasm,
// build/wasm-tests/libtinygpt_core.a (scripts/build-wasm.sh tests). Writes bench/results/gemm-ab-<date>.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { benchResults, machine, root } from './results.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const base = opt('--base', null);
if (!base) {
  console.error('usage: node bench/gemm-ab.mjs --base REV [--rounds N] [--no-native] [--no-wasm]');
  process.exit(2);
}
const rounds = Number(opt('--rounds', 15));
const baseCommit = execFileSync('git', ['rev-parse', '--short', `${base}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
const dir = path.join(root, 'build/gemm-ab');
fs.mkdirSync(dir, { recursive: true });
const baseSource = path.join(dir, 'gemm_base.cpp');
fs.writeFileSync(baseSource, execFileSync('git', ['show', `${baseCommit}:core/src/gemm.cpp`], { cwd: root }));

const includes = ['-I', path.join(root, 'core/src'), '-I', path.join(root, 'core/include')];
const common = ['-O3', '-DNDEBUG', '-fno-math-errno', '-ffp-contract=off', '-std=c++20', ...includes];
// [label, isa, compiler, flags (as CMakeLists.txt's kernel copy / the wasm build), core library, link flags, run]
const backends = [];
const simd = machine().simd;
if (!args.includes('--no-native') && simd.includes('avx2') && simd.includes('fma'))
  backends.push({ label: 'native', isa: 'avx2', cxx: 'c++', flags: [...common, '-fPIC', '-mavx2', '-mfma'],
    lib: 'build/native/libtinygpt_core.a', link: ['-lpthread'], exe: 'gemm_ab_avx2', run: (exe) => [exe, []] });
if (!args.includes('--no-wasm'))
  backends.push({ label: 'wasm (Node)', isa: 'simd128', cxx: 'em++', flags: [...common, '-fexceptions', '-msimd128'],
    lib: 'build/wasm-tests/libtinygpt_core.a', link: ['-sALLOW_MEMORY_GROWTH=1', '-sENVIRONMENT=node'],
    exe: 'gemm_ab_simd128.cjs', run: (exe) => ['node', ['--no-experimental-fetch', exe]] });

const record = benchResults('gemm-ab');
record.figures = { base: baseCommit, rounds, backends: [] };
// Debian's emscripten runs its JS optimizer under the system Node and needs this to find acorn.
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };
console.log(`bench:gemm:ab — core/src/gemm.cpp of this tree against ${baseCommit}, one thread, ${rounds} rounds`);
for (const b of backends) {
  const lib = path.join(root, b.lib);
  if (!fs.existsSync(lib)) {
    console.log(`  ${b.label}: skipped, ${b.lib} is not built`);
    continue;
  }
  const obj = (which, source) => {
    const out = path.join(dir, `gemm_${which}_${b.isa}.o`);
    execFileSync(b.cxx, [...b.flags, `-D${b.isa}=${b.isa}_${which}`, '-c', source, '-o', out], { env, stdio: 'inherit' });
    return out;
  };
  const objs = [obj('base', baseSource), obj('this', path.join(root, 'core/src/gemm.cpp'))];
  const exe = path.join(dir, b.exe);
  execFileSync(b.cxx, [...b.flags, `-DAB_ISA=${b.isa}`, path.join(root, 'bench/gemm_ab.cpp'), ...objs, lib, ...b.link, '-o', exe],
    { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const [cmd, pre] = b.run(exe);
  const result = JSON.parse(execFileSync(cmd, [...pre, '--rounds', String(rounds)], { encoding: 'utf8' }));
  console.log(`  ${b.label}, ${result.isa}:`);
  for (const s of result.shapes)
    console.log(`    ${s.shape.padEnd(34)} base ${s.base_gflops.toFixed(1).padStart(6)}  this ${s.gflops.toFixed(1).padStart(6)} GFLOP/s` +
      `  this/base ${s.ratio_median.toFixed(3)} (median) ${s.ratio_best.toFixed(3)} (best)${s.same_bits ? '' : '  BITS DIFFER'}`);
  const ratios = result.shapes.map((s) => s.ratio_median).sort((x, y) => x - y);
  console.log(`    median of the shapes' ratios: ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}`);
  record.figures.backends.push({ label: b.label, ...result });
}
record.write();
