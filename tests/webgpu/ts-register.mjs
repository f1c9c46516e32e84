// Lets Node import the executor's TypeScript (web/src/features/webgpu/*.ts) directly: a module hook that
// strips the types with the TypeScript compiler's transpileModule (no type checking; `npm run
// typecheck` does that). Used by the WebGPU tests and bench: node --import ./tests/webgpu/ts-register.mjs
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
