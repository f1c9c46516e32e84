#!/usr/bin/env bash
# Packs the thread-scaling run for the lent GPU machine's idle 16-core CPU (the device tool carries
# one ignored folder beside the working tree):
#   bench/device/threads-pack.sh [DIR [BASE_BUILD]]     (DIR: default .devcpu)
# DIR gets this build's tinygpt_tests, seq2seq_bench and train_bench, and threads-run.sh; with
# BASE_BUILD (another build's build/native folder), its seq2seq_bench and train_bench as *_base,
# for an A/B. On the device: `bash DIR/threads-run.sh 2>&1 | tee $OUT/threads.log`; here:
# `node bench/device/threads-record.mjs LOG`.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:-.devcpu} BASE=${2:-}
for f in build/native/tests/tinygpt_tests build/native/seq2seq_bench build/native/train_bench \
         ${BASE:+$BASE/seq2seq_bench $BASE/train_bench}; do
  [ -x "$f" ] || { echo "threads-pack: missing $f (cmake --build <build> --target tinygpt_tests seq2seq_bench train_bench)" >&2; exit 1; }
done
rm -rf "$DIR" && mkdir -p "$DIR"
cp build/native/tests/tinygpt_tests build/native/seq2seq_bench build/native/train_bench bench/device/threads-run.sh "$DIR/"
if [ -n "$BASE" ]; then
  cp "$BASE/seq2seq_bench" "$DIR/seq2seq_bench_base"
  cp "$BASE/train_bench" "$DIR/train_bench_base"
fi
echo "packed $(du -sh "$DIR" | cut -f1) in $DIR"
