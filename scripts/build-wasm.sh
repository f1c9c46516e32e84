#!/usr/bin/env bash
# Builds WebAssembly variants. The variants are the configure presets of CMakePresets.json that
# inherit "wasm" (the one list of builds): each says its CMake options, its target, its output
# files and whether the page loads it ("vendor": {"tinygpt": {...}}).
#   scripts/build-wasm.sh simd scalar threads threads-node tests   the named variants
#   scripts/build-wasm.sh page                                      every variant the page loads
#   scripts/build-wasm.sh --list                                    the variants, one per line
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emscripten runs its JS optimizer under the system Node and needs this to find acorn.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
variants() { node scripts/wasm-variants.mjs "$@"; }
if [ "${1:-}" = --list ]; then variants names; exit 0; fi
wanted=()
for v in "${@:-page}"; do
  if [ "$v" = page ]; then wanted+=($(variants page)); else wanted+=("$v"); fi
done
for v in "${wanted[@]}"; do
  target=$(variants target "$v") || { echo "unknown variant '$v' (variants: $(variants names | tr '\n' ' '))" >&2; exit 2; }
  dir="build/wasm-$v"
  mkdir -p build
  if [ "$v" = threads-node ]; then
    # its own folder with a CommonJS package.json: the project's says "type": "module"
    mkdir -p build/wasm-node && echo '{ "type": "commonjs" }' > build/wasm-node/package.json
  fi
  emcmake cmake --preset "$v" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j2 --target $target
done
ls -l build/wasm-dist
