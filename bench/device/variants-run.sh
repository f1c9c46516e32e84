#!/usr/bin/env bash
# Runs on the lent GPU machine's CPU, from a folder of seq2seq_bench builds named seq2seq_bench_NAME
# (the same source built with different -D settings of core/src/gemm.cpp, e.g.
# -DTINYGPT_GEMM_ROWS_OUTER=1): each in turn, round after round, so that all see the same load.
#   bash DIR/variants-run.sh [ROUNDS [THREADS [BACKEND]]]      (3, "1", avx512)
# bench/device/threads-record.mjs turns its log into a bench/results file.
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|L2 cache|L3 cache" | cut -c1-200
rounds=${1:-3} threads=${2:-1} backend=${3:-avx512}
for r in $(seq "$rounds"); do
  for t in $threads; do
    for exe in seq2seq_bench_*; do
      echo "== seq2seq ${exe#seq2seq_bench_} $backend $t"; ./$exe --steps 40 --threads $t --backend $backend --json
    done
  done
done
