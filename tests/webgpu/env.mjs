// The environment for Dawn in Node: the configured Vulkan driver if there is one (a GPU machine
// sets VK_ICD_FILENAMES or VK_DRIVER_FILES), else Chromium's SwiftShader (WebGPU on the CPU).
import fs from 'node:fs';

export const swiftshaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';

export function vulkanEnv(env = process.env) {
  const out = { ...env };
  if (!out.VK_ICD_FILENAMES && !out.VK_DRIVER_FILES && fs.existsSync(swiftshaderIcd)) {
    out.VK_ICD_FILENAMES = swiftshaderIcd;
    out.LD_LIBRARY_PATH = ['/usr/lib/chromium', out.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  return out;
}
