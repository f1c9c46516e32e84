#!/usr/bin/env bash
# libFuzzer on the safetensors reader and the JSON parser, with AddressSanitizer and UBSan.
#   tests/fuzz/run.sh [SECONDS]     (default 60; needs clang++ and libclang-rt-14-dev)
# Not part of CTest (it runs for minutes); the Catch2 suite has a short fixed-seed fuzz run instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=build/fuzz
mkdir -p "$out/corpus"
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Icore/include -Icore/src core/src/*.cpp tests/fuzz/fuzz_safetensors.cpp -o "$out/fuzz_safetensors" -pthread
# seeds: small valid files (the reference's examples and a file with metadata and two dtypes)
python3 - "$out/corpus" <<'PY'
import struct, sys
def put(name, header, data=b""):
    h = header.encode()
    open(f"{sys.argv[1]}/{name}", "wb").write(struct.pack("<Q", len(h)) + h + data)
put("seed1", '{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}', bytes(24))
put("seed2", '{"__metadata__":{"framework":"pt"}}     ')
put("seed3", '{"__metadata__":{"k":"v\\n\\u00e9"},"b":{"dtype":"I64","shape":[],"data_offsets":[0,8]},'
             '"a":{"dtype":"U8","shape":[2,0],"data_offsets":[8,8]}}', bytes(8))
PY
"$out/fuzz_safetensors" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$out/corpus"
