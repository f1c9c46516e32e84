import type { share as en } from '../en/share';

export const share: typeof en = {
  button: '分享这次运行',
  buttonTitle: '一个能重新建立这次运行的链接：设置、随机种子、文本、最初的损失',
  urlLabel: '这次运行的链接',
  copy: '复制',
  copied: '已复制',
  noLink: '没有链接：',
  thisPage: '本页的',
  note: (variant, losses) => `链接包含设置、随机种子、构建版本（${variant}）、文本（内置文本按名称，你的文件按指纹和大小：文件本身留在本机）` +
    `以及最初的 ${losses} 个损失。打开它会重新建立这次运行；使用同一文本时，在同一构建版本上能逐位复现这些损失。`,
  bannerLabel: '分享的运行',
  bannerTitle: '一次分享的运行',
  settings: (layers, heads, width, block, batch, seed, steps) =>
    `链接中的设置：${layers} 层 × ${heads} 个头，宽度 ${width}，上下文长度 ${block}，批次大小 ${batch}，随机种子 ${seed}，${steps} 步。`,
  madeOn: (variant, ours) => `它在 ${variant} 上生成；本页运行的是 ${ours}`,
  unknownBuild: '未知的构建版本',
  differs: '：损失会略有不同（只有在同一构建版本上才逐位相同）',
  end: '。',
  replay: '复现：',
  chooseText: (which) => `请选择它训练时用的文本：${which}。把它拖到页面上，或在“数据”中选择。`,
  comparing: (n) => `正在把最初的 ${n} 个损失与链接中的比较…`,
  ready: (n) => `文本与链接一致。按“开始”复现这次运行；它最初的 ${n} 个损失会被逐位比较。`,
  need: {
    builtin: (name) => `内置文本 ${name}`,
    sameFile: '同一个文件',
    aFile: '一个文件',
    file: (name, size, bytes) => `${name}（${size}，${bytes} 字节）`,
    other: (name, bytes, fingerprint, have, haveBytes, haveFingerprint) =>
      `${name}（${bytes} 字节，指纹 ${fingerprint}）；而 ${have} 是 ${haveBytes} 字节，指纹 ${haveFingerprint}`,
    fileShort: (name, bytes) => `${name}（${bytes} 字节）`,
  },
  cantReplay: '这个链接无法复现：',
  opened: (text, n) => `一次分享的运行：它的设置已填好，文本为 ${text}。按“开始”复现它；它最初的 ${n} 个损失会被逐位比较。`,
};
