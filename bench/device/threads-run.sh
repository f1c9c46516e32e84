#!/usr/bin/env bash
# Runs on the lent GPU machine's CPU (idle, 16 cores), from the folder bench/device/threads-pack.sh
# made: the thread-count tests with every count up to 16 (TINYGPT_TEST_THREADS), then how the
# encoder-decoder (seq2seq_bench, 1 to 16 threads, and its kernel and pool profile) and the GPT
# (train_bench S and M) scale with threads. With a base build packed beside (*_base), an A/B:
# AVX-512 only, base and this build alternating, two rounds. bench/device/threads-record.mjs turns
# its log into a bench/results file.
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|L2 cache|L3 cache|Flags" | cut -c1-200
echo "== tests"
TINYGPT_TEST_THREADS=16 timeout 300 ./tinygpt_tests "[threads]" 2>&1 | tail -2
if [ -x ./seq2seq_bench_base ]; then
  builds="base this" rounds="1 2" backends="avx512" configs="S"
else
  builds="this" rounds="1" backends="avx512 avx2" configs="S M"
fi
exe() { [ "$2" = base ] && echo "./$1_base" || echo "./$1"; }
for r in $rounds; do
  for be in $backends; do
    for t in 1 2 4 8 16; do
      for b in $builds; do
        echo "== seq2seq $b $be $t"; $(exe seq2seq_bench $b) --steps 40 --threads $t --backend $be --json
      done
    done
  done
done
for t in 1 2 4; do
  for b in $builds; do
    echo "== profile $b avx512 $t"; $(exe seq2seq_bench $b) --profile --steps 40 --threads $t --backend avx512
    echo "== end profile"
  done
done
for r in $rounds; do
  for c in $configs; do
    for t in 1 2 4 8 16; do
      for b in $builds; do
        echo "== train $b $c $t"; $(exe train_bench $b) --config $c --threads $t --seconds 3 --json; echo
      done
    done
  done
done
