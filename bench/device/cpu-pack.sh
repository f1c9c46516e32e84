#!/usr/bin/env bash
# Packs the native CPU benchmarks for the lent GPU machine's idle CPU (the device tool carries one
# folder beside /work/main's working tree; docs/webgpu.md "On a real GPU" for the GPU's pack):
#   bench/device/cpu-pack.sh DIR BASE_SEQ2SEQ_BENCH
# DIR gets seq2seq_bench (this build), BASE_SEQ2SEQ_BENCH as seq2seq_bench_base (a base commit's
# build, e.g. from `git archive BASE | tar -x -C /tmp/base` + cmake --preset native), tokenizer_bench,
# an 8 MB test text with GPT-2's vocab.json and merges.txt (tests/ref/gpt2.mjs), and cpu-run.sh.
# On the device: `bash DIR/cpu-run.sh 2>&1 | tee $OUT/cpu.log`; here: `node bench/device/cpu-record.mjs LOG`.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=$1 BASE=$2
for f in build/native/seq2seq_bench build/native/tokenizer_bench "$BASE"; do
  [ -x "$f" ] || { echo "cpu-pack: missing $f (cmake --build build/native --target seq2seq_bench tokenizer_bench)" >&2; exit 1; }
done
rm -rf "$DIR" && mkdir -p "$DIR/gpt2"
cp build/native/seq2seq_bench build/native/tokenizer_bench bench/device/cpu-run.sh "$DIR/"
cp "$BASE" "$DIR/seq2seq_bench_base"
node --input-type=module -e "
import fs from 'node:fs';
import { vocabJson, mergesTxt, testText } from './tests/ref/gpt2.mjs';
fs.writeFileSync('$DIR/gpt2/vocab.json', vocabJson());
fs.writeFileSync('$DIR/gpt2/merges.txt', mergesTxt());
fs.writeFileSync('$DIR/text.txt', testText(8_000_000));"
echo "packed $(du -sh "$DIR" | cut -f1) in $DIR"
