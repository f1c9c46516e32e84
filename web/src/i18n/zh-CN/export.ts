// export — 把模型导出为其他工具读取的格式，以及读回 Hugging Face 文件夹（features/export）。
import type { Messages } from '../en';

export const exporting: Messages['export'] = {
  menu: '下载为…',
  menuTitle: '其他工具能读取的模型格式（见导出文档）',
  formats: {
    safetensors: 'safetensors（tinygpt 的张量名，供 Python 和 tinygpt 使用）',
    onnx: 'ONNX（供 ONNX Runtime 与 transformers.js 使用）',
    hf: 'Hugging Face 的 GPT-2 文件夹（zip 压缩包）',
    'gguf-f32': 'GGUF f32（供 llama.cpp 使用）',
    'gguf-f16': 'GGUF f16（供 llama.cpp 使用）',
    'gguf-q8_0': 'GGUF q8_0（供 llama.cpp 使用）',
  },
  writing: '正在写出导出文件…',
  downloaded: (name, bytes) => `已下载 ${name}（${bytes}）。`,
  failed: '无法导出这个模型：',
  checkTitle: '在 ONNX Runtime 中检查',
  checkPrompt: '提示词',
  check: '在 ONNX Runtime 中检查',
  checkHelp: '用网页版 ONNX Runtime（现在才加载，压缩后约 4 MB）运行导出的 ONNX 模型，对这段提示词做贪心续写，并与 tinygpt 自己的续写并排显示。',
  checking: '正在加载网页版 ONNX Runtime 并运行模型…',
  checkFailed: '检查无法运行：',
  ours: 'tinygpt 的续写',
  theirs: 'ONNX Runtime 的续写',
  same: (n, diff) => `两边的 ${n} 个词元完全相同。提示词各位置 logits 的最大差异：${diff}。`,
  differ: (at, diff) => `两边的续写从第 ${at} 个词元开始不同（两个词元的概率几乎相等，或者有缺陷）。提示词各位置 logits 的最大差异：${diff}。`,
  importing: (name) => `正在读取 Hugging Face 文件夹 ${name}…`,
  importFailed: (name) => `无法从 ${name} 开始新的训练：`,
  unchanged: '当前模型保持不变。',
};
