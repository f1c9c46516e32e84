// The WebGPU suite's rule for a machine without Dawn or SwiftShader (tests/webgpu/run.mjs, env.mjs):
// with CI=true it fails and says what is missing; elsewhere it skips with a message. The missing
// files are faked with TINYGPT_SWIFTSHADER_ICD / TINYGPT_DAWN_NODE; run.mjs stops before any test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { dawnNode, missingPrerequisites } from './env.mjs';

const run = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.mjs');
const NO_ICD = '/nonexistent/vk_swiftshader_icd.json';
const NO_DAWN = '/nonexistent/dawn.node';

function runSuite(env) {
  const base = { ...process.env };
  for (const k of ['CI', 'VK_ICD_FILENAMES', 'VK_DRIVER_FILES', 'TINYGPT_SKIP_EXIT_CODE', 'TINYGPT_SWIFTSHADER_ICD', 'TINYGPT_DAWN_NODE']) delete base[k];
  const r = spawnSync(process.execPath, [run], { env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('the WebGPU suite without its prerequisites', () => {
  it('fails with CI=true when the SwiftShader ICD is missing, naming it', () => {
    const r = runSuite({ CI: 'true', TINYGPT_SWIFTSHADER_ICD: NO_ICD });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^FAIL: the WebGPU tests cannot run: missing .*\/nonexistent\/vk_swiftshader_icd\.json/m);
  });
  it('fails with CI=true when Dawn is missing, naming it', () => {
    const r = runSuite({ CI: 'true', TINYGPT_DAWN_NODE: NO_DAWN });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Dawn's Node binding \/nonexistent\/dawn\.node/);
  });
  it('skips with a message elsewhere: exit 0, or the code CTest asks for', () => {
    let r = runSuite({ TINYGPT_SWIFTSHADER_ICD: NO_ICD });
    assert.equal(r.status, 0);
    assert.match(r.stderr, /^SKIP: the WebGPU tests need a Vulkan driver: .*\(With CI=true this fails\.\)/m);
    r = runSuite({ TINYGPT_DAWN_NODE: NO_DAWN, TINYGPT_SKIP_EXIT_CODE: '77' });
    assert.equal(r.status, 77);
    assert.match(r.stderr, /^SKIP: /m);
  });
  it('needs no SwiftShader where a Vulkan driver is configured', () => {
    const missing = missingPrerequisites({ TINYGPT_SWIFTSHADER_ICD: NO_ICD, VK_ICD_FILENAMES: '/some/gpu_icd.json', TINYGPT_DAWN_NODE: NO_DAWN });
    assert.deepEqual(missing, [`Dawn's Node binding ${dawnNode({ TINYGPT_DAWN_NODE: NO_DAWN })} (npm ci installs the package webgpu)`]);
    assert.deepEqual(missingPrerequisites({ TINYGPT_SWIFTSHADER_ICD: NO_ICD, VK_DRIVER_FILES: '/some/gpu_icd.json', TINYGPT_DAWN_NODE: process.execPath }), []);
  });
});
