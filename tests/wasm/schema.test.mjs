// The one config schema, seen from every side: the CLI's flags and help, the module's
// configSchema() and presets(), and checkpoints written by either.
// Run: node --test tests/wasm/   (after scripts/build-wasm.sh and npm run build:native)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';

import { loadModule, runCli, tmpPath } from './helpers.mjs';

let M;
before(async () => { M = await loadModule('simd'); });

// `name=value` lines of `tinygpt config ...`, numbers parsed (reals as the CLI prints them: 6 digits)
function cliConfig(args) {
  const lines = runCli(['config', ...args]).trim().split('\n').map((l) => l.split('='));
  return Object.fromEntries(lines.map(([k, v]) => [k, Number.isNaN(Number(v)) ? v : Number(v)]));
}

// the module's config object, reals rounded to the 6 digits the CLI prints
function asPrinted(config, schema) {
  const out = {};
  for (const f of schema) out[f.name] = f.type === 'real' ? Number(Math.fround(config[f.name]).toPrecision(6)) : config[f.name];
  return out;
}

describe('the config schema', () => {
  it("the CLI's help lists exactly the schema's fields, each once, with its help text", () => {
    const schema = M.configSchema();
    const help = runCli(['train', '--help']);
    const configPart = help.slice(help.indexOf('config:'));
    const flags = [...configPart.matchAll(/^ {2}--(\w+) /gm)].map((m) => m[1]);
    assert.deepEqual(flags, schema.map((f) => f.name));
    for (const f of schema) assert.ok(configPart.includes(f.help), `help for ${f.name}`);
    // and the CLI-only options do not shadow a field
    const options = [...help.slice(0, help.indexOf('config:')).matchAll(/^ {2}--(\w+) /gm)].map((m) => m[1]);
    for (const o of options) assert.ok(!schema.some((f) => f.name === o), `--${o} is both an option and a field`);
  });

  it('describes every field completely', () => {
    for (const f of M.configSchema()) {
      assert.match(f.name, /^[a-z][a-z0-9_]*$/);
      assert.ok(['integer', 'real', 'choice'].includes(f.type), f.name);
      assert.ok(['model', 'training', 'run'].includes(f.group), f.name);
      assert.ok(f.label.length > 0 && f.help.length > 10, f.name);
      assert.ok(f.kinds.length > 0 && f.kinds.every((k) => typeof k === 'string'), f.name);
      assert.ok(f.min <= f.max, f.name);
      if (f.type === 'choice') assert.ok(f.choices.includes(f.default), f.name);
      else assert.ok(f.default >= f.min && f.default <= f.max, f.name);
      assert.deepEqual(M.checkConfig({ [f.name]: f.default }).problems, [], f.name);
    }
  });

  it('the presets are the same in the module and the CLI', () => {
    const schema = M.configSchema();
    const presets = M.presets();
    assert.deepEqual(presets.map((p) => p.name), ['tiny', 'S', 'fast', 'M', 's2s-tiny', 's2s-small', 's2s-base', 'lstm-tiny', 'lstm-S', 'gru-tiny',
      'gru-S', 'rnn-tiny', 'rnn-S', 's2s-lstm']);
    for (const p of presets) {
      assert.deepEqual(cliConfig(['--preset', p.name]), asPrinted(p.config, schema), p.name);
      assert.deepEqual(M.checkConfig(p.config).problems, [], p.name);
    }
  });

  it('every field round-trips through a checkpoint, between the module and the CLI', () => {
    const schema = M.configSchema();
    const config = { ...M.presets()[0].config };
    // every number field moved off its default, staying valid (vocab_size is 256 with tokenizer bytes:
    // a BPE run's round trip, with its tokenizer section, is in tokenizer.test.mjs)
    for (const f of schema) {
      if (f.type === 'integer' && f.name !== 'vocab_size') config[f.name] = Math.min(f.max, config[f.name] + 1);
      if (f.type === 'real') config[f.name] = Math.fround(config[f.name] * 0.5);
    }
    config.n_head = 2; config.n_embd = 66;  // keep n_embd divisible by n_head
    assert.deepEqual(M.checkConfig(config).problems, []);
    const s = new M.Session(config);
    const bytes = s.save();
    s.delete();
    const described = M.describeCheckpoint(bytes);
    assert.equal(described.version, 2);
    assert.deepEqual(described.config, config);
    const t = new M.Session({});
    t.load(bytes);
    assert.deepEqual(t.config(), config);
    t.delete();
    // the CLI reads the same file to the same config
    const path = tmpPath('fields.ckpt');
    fs.writeFileSync(path, bytes);
    assert.deepEqual(cliConfig(['--resume', path]), asPrinted(config, schema));
  });

  it('unknown fields and wrong types are refused with the field named', () => {
    assert.throws(() => new M.Session({ width: 128 }), /unknown config field 'width'/);
    assert.throws(() => new M.Session({ n_layr: 2 }), /unknown config field 'n_layr' \(did you mean n_layer\?\)/);
    assert.throws(() => new M.Session({ n_layer: '4' }), /n_layer must be a number/);
    assert.throws(() => new M.Session({ model: 3 }), /model must be a string/);
    assert.match(runCli(['config', '--n_layer', '4']), /n_layer=4/);
    assert.throws(() => runCli(['train', '--embd', '64']), /unknown config field 'embd'/);
  });
});
