// The environment the PyTorch reference runs in. Debian's default BLAS is the netlib reference
// (about 20x slower for Linear layers and nn.LSTM's matrix products): a fair comparison wants
// OpenBLAS. Installing libopenblas0-openmp switches the whole machine's libblas; on a machine
// shared with others, unpack the package under build/openblas instead and only the benchmark's
// PyTorch loads it (LD_LIBRARY_PATH):
//   (mkdir -p build/openblas && cd build/openblas && apt-get download libopenblas0-openmp &&
//    dpkg -x libopenblas0-openmp_*.deb .)
import fs from 'node:fs';
import path from 'node:path';

import { root } from '../tests/wasm/helpers.mjs';

const PRIVATE = path.join(root, 'build/openblas/usr/lib/x86_64-linux-gnu/openblas-openmp');

/** process.env, with the unpacked OpenBLAS first on the library path when there is one. */
export function torchEnv() {
  if (!fs.existsSync(path.join(PRIVATE, 'libblas.so.3'))) return process.env;
  return { ...process.env, LD_LIBRARY_PATH: [PRIVATE, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
}
