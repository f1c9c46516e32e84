// The next-byte probabilities the WebAssembly module gives for a text (Session.inspect), for the
// Python package's parity test (python/tests/test_wasm_parity.py).
//   node --no-experimental-fetch tests/wasm/inspect-probs.mjs VARIANT MODEL TEXT OUT
// MODEL: a checkpoint (TGPTCKPT: Session.load) or a .safetensors model file (sessionFromSafetensors).
// OUT: the probabilities (T, 256) as little-endian float32.
import fs from 'node:fs';

import { loadModule } from './helpers.mjs';

const [variant, modelPath, textPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: inspect-probs.mjs VARIANT MODEL TEXT OUT');
  process.exit(2);
}
const M = await loadModule(variant);
const model = new Uint8Array(fs.readFileSync(modelPath));
let session;
if (new TextDecoder().decode(model.subarray(0, 8)) === 'TGPTCKPT') {
  session = new M.Session({});
  session.load(model);
} else {
  session = M.sessionFromSafetensors(model);
}
const { probs } = session.inspect(new Uint8Array(fs.readFileSync(textPath)));
fs.writeFileSync(outPath, new Uint8Array(probs.buffer, probs.byteOffset, probs.byteLength));
session.delete();
