#!/usr/bin/env bash
# The native Catch2 suite on the lent GPU machine's CPU (16 cores, AVX-512: kernels a 2-core AVX2
# host never runs), every tag but [slow] in its own process, 12 at a time, with the thread-count
# tests comparing every count up to 16 (TINYGPT_TEST_THREADS). Pack it beside the test binary:
#   mkdir -p .devcpu && cp build/native/tests/tinygpt_tests bench/device/suite-run.sh .devcpu/
# then on the device: `bash .devcpu/suite-run.sh 2>&1 | tee $OUT/suite.log` (carry .devcpu). A tag
# that fails leaves its failures in $OUT/fail-TAG.txt.
cd "$(dirname "$0")"
# the binary reads tests/ref and data/ by this checkout's absolute path (TINYGPT_REF_DIR, TINYGPT_DATA_DIR)
mkdir -p /work && [ -e /work/main ] || ln -s "$(cd .. && pwd)" /work/main
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
grep -o -m1 avx512f /proc/cpuinfo
./tinygpt_tests --list-tags | grep -o '\[[a-z0-9]*\]' | grep -v '\[slow\]' > tags.txt
run() {
  local s=$(date +%s) out rc
  out=$(TINYGPT_TEST_THREADS=16 timeout 150 ./tinygpt_tests "$1" 2>&1)
  rc=$?
  echo "$1 rc=$rc $(($(date +%s) - s))s $(echo "$out" | tail -2 | tr '\n' ' ')"
  if [ $rc -ne 0 ]; then echo "$out" | grep -B2 -A12 FAILED | head -60 > "${OUT:-.}/fail-${1//[\[\]]/}.txt"; fi
  true
}
export -f run
xargs -P 12 -I{} bash -c 'run "$@"' _ {} < tags.txt
