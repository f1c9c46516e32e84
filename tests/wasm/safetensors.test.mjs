// sessionFromSafetensors: a model file written by `tinygpt export` (or python/tinygpt) starts a
// new session in the module, as the page does with a dropped .safetensors file.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, before } from 'node:test';

import { loadModule, runCli, shakespeare, tmpPath, variantsBuilt } from './helpers.mjs';

const enc = new TextEncoder();

// u64 header length + JSON header + data: a safetensors file built by hand
function safetensorsFile(header, data = new Uint8Array(0)) {
  const json = enc.encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

// A native run of the tiny preset and its export, made once.
let native;
before(() => {
  const corpus = tmpPath('corpus.txt');
  fs.writeFileSync(corpus, shakespeare.subarray(0, 100_000));
  const ckpt = tmpPath('run.ckpt');
  const model = tmpPath('model.safetensors');
  runCli(['train', '--preset', 'tiny', '--data', corpus, '--max_iters', '30', '--warmup_iters', '5', '--eval_iters', '2',
    '--threads', '1', '--out', ckpt]);
  const out = runCli(['export', '--ckpt', ckpt, '--out', model]);
  assert.match(out, /exported .* \(gpt, step 30, 135168 parameters\) to /);
  const s2s = tmpPath('s2s.ckpt');
  const s2sModel = tmpPath('s2s.safetensors');
  runCli(['train', '--preset', 's2s-tiny', '--task', 'reverse', '--max_iters', '10', '--warmup_iters', '2', '--eval_iters', '1',
    '--threads', '1', '--out', s2s]);
  runCli(['export', '--ckpt', s2s, '--out', s2sModel]);
  native = {
    ckpt: new Uint8Array(fs.readFileSync(ckpt)), model: new Uint8Array(fs.readFileSync(model)),
    seq2seq: new Uint8Array(fs.readFileSync(s2sModel)),
  };
});

for (const variant of variantsBuilt()) {
  describe(`tinygpt-${variant}: a session from a .safetensors model file`, () => {
    let M;
    before(async () => { M = await loadModule(variant); });

    it('holds the exported weights and config at step 0', () => {
      const fromModel = M.sessionFromSafetensors(native.model);
      const fromCkpt = new M.Session({});
      fromCkpt.load(native.ckpt);
      assert.equal(fromModel.step(), 0);
      assert.equal(fromModel.history().train.length, 0);
      assert.deepEqual(fromModel.config(), M.describeCheckpoint(native.ckpt).config);  // every schema field
      const text = enc.encode('ROMEO:\nWhat light through yonder');
      // the same weights in the same build: the same next-byte probabilities, bit for bit
      assert.deepEqual(fromModel.inspect(text).probs, fromCkpt.inspect(text).probs);
      fromModel.delete();
      fromCkpt.delete();
    });

    it('starts a new run that trains from there', () => {
      const s = M.sessionFromSafetensors(native.model);
      s.setCorpus(shakespeare.subarray(0, 100_000));
      const r = s.advance(5, 0);
      assert.equal(r.step, 5);
      assert.equal(r.evals[0].step, 0);
      assert.ok(r.evals[0].loss < 4.0, `starts from trained weights: ${r.evals[0].loss} (random weights: ~5.5)`);
      s.delete();
    });

    it('starts a seq2seq session from an exported seq2seq model', () => {
      const s = M.sessionFromSafetensors(native.seq2seq);
      assert.equal(s.config().model, 'seq2seq');
      assert.equal(s.step(), 0);
      assert.ok(s.translate(enc.encode('abc'), {}).text instanceof Uint8Array);
      s.delete();
    });

    it('refuses what is not a tinygpt model file with the core\'s message', () => {
      const refuses = (bytes, message, options) =>
        assert.throws(() => M.sessionFromSafetensors(bytes, options), (e) => e instanceof Error && message.test(e.message));
      refuses(enc.encode('hi!'), /safetensors: the file is 3 bytes, too short/);
      refuses(safetensorsFile({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, new Uint8Array(4)),
        /not a tinygpt model file: its metadata has no "n_layer"/);
      const shape = { n_layer: '1', n_head: '1', n_embd: '4', block_size: '4' };
      refuses(safetensorsFile({ __metadata__: shape }), /the file has no tensor 'wte'/);
      refuses(safetensorsFile({ __metadata__: { ...shape, n_head: '3' } }), /n_embd 4 is not divisible by n_head 3/);
      refuses(native.model, /needs about \d+ MiB, more than the 1 MiB allowed/, { memory_limit_mb: 1 });
      const s = M.sessionFromSafetensors(native.model);  // the module is still usable
      assert.equal(s.config().n_embd, 64);
      s.delete();
    });
  });
}
