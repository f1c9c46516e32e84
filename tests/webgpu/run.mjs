// npm run test:webgpu (and CTest): the WebGPU tests under Node's test runner, with the executor's
// TypeScript loaded directly and Dawn on SwiftShader unless a Vulkan driver is configured.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromiumPath } from '../../scripts/chromium.mjs';
import { vulkanEnv } from './env.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// the browser test where there is a Chromium to drive
const names = ['kernels', 'training', 'run-loop', 'inference', ...(fs.existsSync(chromiumPath()) ? ['chromium'] : [])];
const files = names.map((f) => path.join(here, `${f}.test.mjs`));
const r = spawnSync(process.execPath,
  ['--import', pathToFileURL(path.join(here, 'ts-register.mjs')).href, '--test', ...process.argv.slice(2), ...files],
  { stdio: 'inherit', env: vulkanEnv() });
process.exit(r.status ?? 1);
