#!/usr/bin/env bash
# Runs on the lent GPU machine's CPU (idle, 16 cores), from the folder bench/device/cpu-pack.sh made:
# seq2seq_bench of a base commit and of this one (1 and 2 threads, AVX-512 and AVX2 kernels, in
# alternating rounds), then the native tokenizer_bench. bench/device/cpu-record.mjs turns its log
# into a bench/results file.
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200
for r in 1 2 3; do
  for b in seq2seq_bench_base seq2seq_bench; do
    for be in avx512 avx2; do
      echo "== round $r $b $be"; ./$b --steps 60 --backend $be --json
    done
  done
done
echo "== tokenizer_bench"; ./tokenizer_bench text.txt 1024,4096 gpt2 5
