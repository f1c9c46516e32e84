#!/usr/bin/env bash
# One reader's fuzzer (tests/fuzz/fuzz_readers.cpp) for a while, from its seeds in
# tests/fuzz/corpus/<reader>/, with AddressSanitizer and UBSan. New inputs it finds go to
# build/fuzz/<reader>/ (thrown away: the seeds in git are what is kept; copy one there when it
# reaches code the seeds do not), a crash to build/fuzz/<reader>-crash-*, and the run fails.
#   tests/fuzz/run.sh READER [SECONDS]     (default 20; after tests/sanitize.sh)
# CTest runs it for every reader (fuzz_<reader>), and npm run bench:fuzz records the executions.
set -euo pipefail
cd "$(dirname "$0")/../.."
reader=${1:?usage: tests/fuzz/run.sh READER [SECONDS]}
seconds=${2:-20}
bin=build/sanitize/tests/fuzz/fuzz_readers
seeds=tests/fuzz/corpus/$reader
[ -x "$bin" ] || { echo "tests/fuzz/run.sh: $bin is not built: run tests/sanitize.sh first" >&2; exit 1; }
[ -d "$seeds" ] || { echo "tests/fuzz/run.sh: no seeds for '$reader' in $seeds" >&2; exit 1; }
work=build/fuzz/$reader
rm -rf "$work"
mkdir -p "$work"
# -timeout: an input that takes this long is a hang, reported as a failure
TINYGPT_FUZZ_READER=$reader ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "$bin" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 -artifact_prefix="build/fuzz/$reader-" \
  "$work" "$seeds"
