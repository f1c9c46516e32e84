import type { translate as en } from '../en/translate';

export const translate: typeof en = {
  title: '翻译',
  explain: '编码器把整段源文本读一遍；解码器随后一次写一个字节的译文，每个字节都从 256 个字节加结束 token 上的分布中得出，' +
    '并通过交叉注意力读取源文本。贪心解码（束宽 1）每次取最可能的字节；更宽的束搜索同时保留这么多条候选译文，最后返回最好的一条；' +
    '温度大于 0 时则按分布抽取每个字节（每次点击得到另一条译文）。' +
    '底色深浅表示模型对每个字符有多确定。',
  source: '源文本',
  sourcePlaceholder: '要翻译的源文本（Ctrl+Enter）',
  sourceHelpBefore: '模型最多读取 ',
  sourceHelpAfter: ' 个字节的源文本。',
  beam: '束宽',
  beamHelp: '1 = 贪心解码',
  temperature: '温度',
  temperatureHelp: '0 = 贪心解码或束搜索；大于 0 则采样（束宽 1）',
  translate: '翻译',
  trySeed: '试试种子文档里的句子：',
  seedTitle: '种子文档贯穿始终的例子',
  fromData: '从数据里取一句源文本',
  fromDataTitle: '数据中某个句对的源文本',
  outputLabel: '译文。用方向键逐个查看字符。',
  legend: ' 浅：模型很确定 · 深：出乎模型意料（概率低于 1/256）；',
  legendEnd: '：模型选择在此停止',
  needModelShort: '先训练或加载一个翻译器',
  needModel: '先训练或加载一个翻译器，才能用它翻译。',
  badBeam: '束宽必须在 1 到 8 之间',
  badTemperature: '温度必须在 0 到 5 之间',
  sampleOrBeam: '采样（温度大于 0）只能用束宽 1',
  noSource: '请先输入源文本。',
  translating: '翻译中…',
  result: (bytes, logProb, how, finished, step, end) =>
    `${bytes} 个字节，log p ${logProb}，${how.temperature > 0 ? `以温度 ${how.temperature} 采样（种子 ${how.seed}）` : how.beam > 1 ? `束宽 ${how.beam}` : '贪心解码'}，` +
    `${finished ? `以 ${end} 结束` : '在长度上限处停止'}；模型在第 ${step} 步。`,
  where: (route, ms, syncMs, faster) => {
    const why = faster ? '按测量这是此模型更快的路径' : '正在测量哪条路径更快';
    return route === 'gpu' ? `在 GPU 上解码，用时 ${ms} 毫秒（${why}）。`
      : route === 'host' ? `用 GPU 的权重在 CPU 上解码，用时 ${ms} 毫秒` +
        `${syncMs !== null ? `，此前用 ${syncMs} 毫秒把权重取回` : ''}（${why}）。`
      : `在 CPU 上解码，用时 ${ms} 毫秒。`;
  },

  reference: (fromData, expected, same) =>
    `${fromData ? '数据' : '种子文档'}给出的译文：“${expected}”——${same ? '相同。' : '不相同。'}`,
  endTip: (end) => `${end}：译文到此结束`,
  maps: {
    cross: {
      label: '交叉注意力（解码器 → 源文本）',
      rowAxis: '正在写的目标字节 ↓',
      colAxis: (_bos) => '它读取的源字节 →',
      tip: (q, row, k, col) => `写 “${row}”（第 ${q} 行）时读取源字节 ${k} “${col}”`,
    },
    encoder: {
      label: '编码器自注意力',
      rowAxis: '源字节 ↓',
      colAxis: (_bos) => '它关注的源字节 →',
      tip: (q, row, k, col) => `源字节 ${q} “${row}” 关注字节 ${k} “${col}”`,
    },
    decoder: {
      label: '解码器自注意力（因果）',
      rowAxis: '正在写的目标字节 ↓',
      colAxis: (bos) => `它关注的解码器输入（${bos} + 已写出的目标）→`,
      tip: (q, row, k, col) => `写 “${row}”（第 ${q} 行）时关注输入 ${k} “${col}”`,
    },
  },
  align: {
    title: '看看内部：注意力',
    explain1: '交叉注意力是翻译器读取源文本的方式：对它写出的每个字节（一行），每个解码器层的每个头都在源字节（各列）上给出一组和为 1 的权重。' +
      '随着学习，一个词的字节会去读它所翻译的那个词的字节：例如 ',
    explain2: '，',
    explain3: ' 读取 ',
    explain4: '，',
    explain5: '，尽管两边的词序不同。自注意力是每一侧看自己：编码器看整段源文本，解码器看它已经写出的内容。',
    show: '显示：',
    sourcePair: '数据中的一个句对',
    sourceTranslation: '最近一次的译文',
    sourceCustom: '自己输入的句对',
    anotherPair: '换一个句对',
    lookInside: '看看内部',
    target: '目标文本',
    attention: '注意力',
    mapLabel: '注意力图；用方向键在权重间移动',
    needModel: '先训练或加载一个翻译器，再看看它的内部。',
    rowTick: (i, label) => `第 ${i} 行：${label}`,
    columnTick: (i, label) => `第 ${i} 列：${label}`,
    maskedTip: '已遮蔽：解码器看不到它还没写出的内容',
    weightTip: (w, layer, head) => `权重 ${w}（第 ${layer} 层，第 ${head} 个头）`,
  },
  notes: {
    translateFirst: '请先翻译一句话。',
    typePair: '请输入源文本（和目标文本）。',
    choosePairs: '请先选择句对。',
    inspected: (S, T, step, bos) => `${S} 个源字节 × ${T} 个目标位置（${bos} 和 ${T - 1} 个字节），模型在第 ${step} 步`,
  },
};
