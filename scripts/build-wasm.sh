#!/usr/bin/env bash
# Builds the WebAssembly variants into build/wasm-dist/ (tinygpt-<variant>.{js,wasm}).
#   scripts/build-wasm.sh [simd] [scalar] [threads] [threads-node] [tests]   (default: simd scalar)
# "threads-node" is the threaded build for Node (tests, benchmarks): build/wasm-node/.
# "tests" builds the Catch2 suite and kernels_bench for Node (build/wasm-tests/).
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emscripten runs its JS optimizer under the system Node and needs this to find acorn.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
variants=("$@")
[ ${#variants[@]} -eq 0 ] && variants=(simd scalar)
out="$PWD/build/wasm-dist"
mkdir -p "$out"
for v in "${variants[@]}"; do
  case "$v" in
    simd)    flags=(-DTINYGPT_WASM_SIMD=ON  -DTINYGPT_WASM_THREADS=OFF -DTINYGPT_BUILD_TESTS=OFF) ;;
    scalar)  flags=(-DTINYGPT_WASM_SIMD=OFF -DTINYGPT_WASM_THREADS=OFF -DTINYGPT_BUILD_TESTS=OFF) ;;
    threads) flags=(-DTINYGPT_WASM_SIMD=ON  -DTINYGPT_WASM_THREADS=ON  -DTINYGPT_BUILD_TESTS=OFF) ;;
    threads-node) flags=(-DTINYGPT_WASM_SIMD=ON -DTINYGPT_WASM_THREADS=ON -DTINYGPT_WASM_NODE=ON -DTINYGPT_BUILD_TESTS=OFF) ;;
    tests)   flags=(-DTINYGPT_WASM_SIMD=ON  -DTINYGPT_WASM_THREADS=OFF -DTINYGPT_BUILD_TESTS=ON) ;;
    *) echo "unknown variant '$v' (simd, scalar, threads, threads-node, tests)" >&2; exit 2 ;;
  esac
  dir="build/wasm-$v"
  dest="$out"
  if [ "$v" = threads-node ]; then
    # its own folder with a CommonJS package.json: the project's says "type": "module"
    dest="$PWD/build/wasm-node"
    mkdir -p "$dest"
    echo '{ "type": "commonjs" }' > "$dest/package.json"
  fi
  emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTINYGPT_BUILD_CLI=OFF -DTINYGPT_WASM_OUT="$dest" "${flags[@]}" > "$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
  if [ "$v" = tests ]; then
    cmake --build "$dir" -j2 --target tinygpt_tests kernels_bench
  else
    cmake --build "$dir" -j2 --target tinygpt_wasm
  fi
done
ls -l "$out"
