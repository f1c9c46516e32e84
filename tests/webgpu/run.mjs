// npm run test:webgpu (and CTest): the WebGPU tests under Node's test runner, with the executor's
// TypeScript loaded directly and Dawn on SwiftShader unless a Vulkan driver is configured.
//
// Without Dawn or a Vulkan driver (SwiftShader's ICD): with CI=true this fails (exit 1) and says
// what is missing; elsewhere it says the suite is skipped and exits with TINYGPT_SKIP_EXIT_CODE
// (CTest sets 77, its SKIP_RETURN_CODE, so the summary shows the skip; 0 by default). The same
// for Chromium and the browser test.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromiumPath } from '../../scripts/chromium.mjs';
import { isCI, missingPrerequisites, vulkanEnv } from './env.mjs';

const ci = isCI();
const skipCode = Number(process.env.TINYGPT_SKIP_EXIT_CODE ?? 0);
const missing = missingPrerequisites();
if (missing.length) {
  if (ci) {
    console.error(`FAIL: the WebGPU tests cannot run: missing ${missing.join('; and ')}. ` +
      'CI=true: a missing prerequisite fails the suite instead of skipping it.');
    process.exit(1);
  }
  console.error(`SKIP: the WebGPU tests need ${missing.join('; and ')}. (With CI=true this fails.)`);
  process.exit(skipCode);
}

const here = path.dirname(fileURLToPath(import.meta.url));
// the browser test where there is a Chromium to drive (always in CI: no Chromium fails it there)
const chromium = ci || fs.existsSync(chromiumPath());
if (!chromium) console.error(`SKIP: chromium.test.mjs needs Chromium at ${chromiumPath()} (set CHROMIUM; with CI=true this fails).`);
const names = ['kernels', 'training', 'seq2seq', 'run-loop', 'inference', ...(chromium ? ['chromium'] : [])];
const files = names.map((f) => path.join(here, `${f}.test.mjs`));
const r = spawnSync(process.execPath,
  ['--import', pathToFileURL(path.join(here, 'ts-register.mjs')).href, '--test', ...process.argv.slice(2), ...files],
  { stdio: 'inherit', env: vulkanEnv() });
process.exit(r.status ?? 1);
