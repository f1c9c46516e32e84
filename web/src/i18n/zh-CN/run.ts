import type { run as en } from '../en/run';

export const run: typeof en = {
  onCpu: '：训练在 CPU 上进行。',
  gpuContinues: (limits, step, lost) => limits ? '：这个模型改在 CPU 上训练。'
    : lost > 0 ? `：训练从第 ${step} 步（最后一次从 GPU 取回的状态）起在 CPU 上继续，之后的 ${lost} 步会重新训练。`
    : `：训练在第 ${step} 步转到 CPU 上继续，没有丢失任何进度。`,
  nowTrainsOn: (name) => `模型现在在 ${name} 上训练。`,
  theCheckpoint: '检查点',
  loaded: (name, model, step) => `已加载 ${name}：${model}，第 ${step} 步。`,
  chooseData: (pairs) => `请选择这个模型训练时所用的${pairs ? '句对' : '文本'}，才能继续训练它。`,
  otherData: (pairs) => `这个检查点是在另一份${pairs ? '句对' : '文本'}上训练的；现在改在当前的${pairs ? '句对' : '文本'}上继续训练。`,
  resumed: (step) => `已从第 ${step} 步继续保存的运行。`,
  finished: (steps) => `训练计划已完成：共 ${steps} 步。`,
  dataPaused: '训练已暂停：',
  guardPaused: 'NaN 守护暂停了训练：连续三步发散。详见“训练”面板。',
  stalled: (seconds) => `训练已有 ${seconds} 秒没有进展：训练 Worker 没有响应（可能卡住了）。重新加载页面即可从最后一次保存处继续。`,
  reload: '重新加载',
  threadDied: (why) => `一个训练线程停止了（${why}）。训练改用一个线程继续，没有丢失任何进度。重新加载页面即可再次使用所有核心。`,
  guardRollback: (step, why, restored, lrScale) => `第 ${step} 步发散（${why}）：退回第 ${restored} 步，学习率 × ${lrScale}。`,
  downloaded: (name, bytes) => `已保存 ${name}（${bytes} 字节）。用这条命令继续训练：`,
  initFailed: '无法加载模型：',
  createFailed: '无法创建模型：',
  loadFailed: (name) => `无法加载 ${name}：`,
  unchanged: '。当前模型没有变化。',
  curvesFailed: '无法读取那次运行：',
  saveFailed: '无法保存：',
  cantRead: (name, why) => `无法读取 ${name}：${why}`,
  notCheckpoint: (name, magic) => `${name} 不是 tinygpt 检查点（它不以 ${magic} 开头）。当前模型没有变化。`,
  confirmLoad: (step, name) => `用 ${name} 替换当前模型（第 ${step} 步）吗？当前运行会保留在“你的运行”中。`,
  confirmModelFile: (step, name) => `用 ${name} 开始一次新的运行并替换当前模型（第 ${step} 步）吗？当前运行会保留在“你的运行”中。`,
  loading: (name) => `正在加载 ${name}…`,
  growing: '生长中…',
};
