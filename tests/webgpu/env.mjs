// The environment for Dawn in Node: the configured Vulkan driver if there is one (a GPU machine
// sets VK_ICD_FILENAMES or VK_DRIVER_FILES), else Chromium's SwiftShader (WebGPU on the CPU).
//
// What the suite needs, and what happens without it: with CI=true in the environment a missing
// prerequisite fails the suite loudly; elsewhere the suite is skipped with a message that says why.
// TINYGPT_SWIFTSHADER_ICD and TINYGPT_DAWN_NODE override the two paths (a test fakes a missing one).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const swiftshaderIcd = (env = process.env) =>
  env.TINYGPT_SWIFTSHADER_ICD || '/usr/lib/chromium/vk_swiftshader_icd.json';
// Dawn's Node binding for this platform, from the npm package webgpu (npm ci installs it)
export const dawnNode = (env = process.env) =>
  env.TINYGPT_DAWN_NODE || path.join(root, 'node_modules/webgpu/dist', `${process.platform}-${process.arch}`, 'dawn.node');

export const isCI = (env = process.env) => /^(true|1)$/i.test(env.CI ?? '');

export function vulkanEnv(env = process.env) {
  const out = { ...env };
  const icd = swiftshaderIcd(env);
  if (!out.VK_ICD_FILENAMES && !out.VK_DRIVER_FILES && fs.existsSync(icd)) {
    out.VK_ICD_FILENAMES = icd;
    out.LD_LIBRARY_PATH = [path.dirname(icd), out.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  return out;
}

// What the WebGPU suite lacks here, one phrase each; [] when it can run.
export function missingPrerequisites(env = process.env) {
  const missing = [];
  if (!fs.existsSync(dawnNode(env))) missing.push(`Dawn's Node binding ${dawnNode(env)} (npm ci installs the package webgpu)`);
  if (!env.VK_ICD_FILENAMES && !env.VK_DRIVER_FILES && !fs.existsSync(swiftshaderIcd(env)))
    missing.push(`a Vulkan driver: no VK_ICD_FILENAMES or VK_DRIVER_FILES, and no SwiftShader ICD at ${swiftshaderIcd(env)} ` +
      '(Debian: apt-get install chromium)');
  return missing;
}
