#!/usr/bin/env bash
# The sanitizer tree, build/sanitize: the core, the Catch2 suite and tests/fuzz's fuzz_readers,
# compiled by clang++ with AddressSanitizer and UBSan (-DTINYGPT_SANITIZE=ON, -O1) and libFuzzer's
# instrumentation (-DTINYGPT_FUZZ=ON). npm test runs it first (CTest: sanitizer_tree_builds), then
# the suite in it (catch2_suite_under_asan_and_ubsan) and each reader's fuzzer (fuzz_<reader>).
#   tests/sanitize.sh           configure (once) and build what changed
# Needs clang++ (clang-14) and libFuzzer (libclang-rt-14-dev): scripts/setup-debian.sh installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${TINYGPT_FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  for c in clang++-14 clang++; do
    if command -v "$c" > /dev/null 2>&1; then cxx=$(command -v "$c"); break; fi
  done
fi
if [ -z "$cxx" ]; then
  echo "tests/sanitize.sh: no clang++ (the fuzzers need clang's libFuzzer): sudo scripts/setup-debian.sh test" >&2
  exit 1
fi
dir=build/sanitize
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DTINYGPT_SANITIZE=ON -DTINYGPT_FUZZ=ON -DTINYGPT_BUILD_CLI=OFF \
    -DTINYGPT_JS_TESTS=OFF -DTINYGPT_SANITIZER_JOBS=OFF > "$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log" >&2; exit 1; }
fi
cmake --build "$dir" --target tinygpt_tests fuzz_readers -j "${TINYGPT_JOBS:-2}"
