import type { hidden as en } from '../en/hidden';

export const hidden: typeof en = {
  title: '单元记住了什么',
  explain: '循环模型把读过的内容保存在隐藏状态里。让一段文本流过模型，按某个单元的激活值给每个字节着色（红色为正，蓝色为负）：' +
    '有的单元数着行内位置，有的在引号内亮起，有的标出元音或词尾。对 LSTM 还会显示细胞状态和各个门：' +
    '输入门、遗忘门和输出门决定什么进入记忆、什么留下、什么被输出。',
  textLabel: '要追踪的文本',
  trace: '追踪',
  layer: '层',
  unit: '单元',
  what: '着色依据',
  viewLabel: '文本，每个字节按所选单元着色',
  searchTitle: '找出跟随某种模式的单元',
  searchExplain: '按激活值在文本上与模式的吻合程度（皮尔逊相关系数 r；为负表示模式升高时它降低）给所有单元（隐藏单元，以及 LSTM 的细胞状态）排序。' +
    '点击一个单元，用它给文本着色。',
  pattern: '模式',
  search: '搜索',
  busy: '正在追踪…',
  notYet: '按“追踪”让文本流过模型。',
  noModel: '请先训练或载入一个循环模型（RNN、GRU 或 LSTM）。',
  traced: (bytes, step, layers, units) => `已在第 ${step} 步追踪 ${bytes} 字节：${layers} 层，每层 ${units} 个单元。继续训练后可以再追踪一次。`,
  tracedTokens: (tokens, step, layers, units) =>
    `已在第 ${step} 步追踪 ${tokens} 个词元：${layers} 层，每层 ${units} 个单元。这个模型读 BPE 词元：每格是一个词元，按读完它之后的状态着色；模式看它的最后一个字节。继续训练后可以再追踪一次。`,
  gatesOf: (layer, unit) => `第 ${layer} 层第 ${unit} 个单元的各个门，在同样的字节上（白色为 0，红色为 1）：`,
  match: (layer, unit, state, r) => `第 ${layer} 层，单元 ${unit}（${state}）：r = ${r}`,
  kinds: {
    h: '隐藏单元', c: '细胞状态', i: '输入门', f: '遗忘门', g: '候选值', o: '输出门', r: '重置门', z: '更新门', n: '新状态',
  },
  patterns: {
    quote: '在双引号之内',
    line_position: '从行首数起的字节数',
    word_position: '从上一个空格或换行数起的字节数',
    vowel: '元音字母',
    space: '空格或换行',
    upper: '大写字母',
    punctuation: '标点符号',
    newline_next: '下一个字节是换行',
  },
};
