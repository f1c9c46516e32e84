import type { settings as en } from '../en/settings';

export const settings: typeof en = {
  title: '模型与训练',
  explain: {
    gpt: '一个由这些层数、头数和宽度构成的 GPT，用 AdamW 在随机的、长为“上下文长度”字节的窗口上训练。' +
      '模型越大学得越多，但每一步的代价也越高。下面的旋钮、取值范围、模型大小和内存都来自核心本身。',
    seq2seq: '种子项目中的编码器-解码器 Transformer：由自注意力层组成的编码器读取源文本，由因果自注意力层和交叉注意力层组成的解码器' +
      '写出目标文本，两者都采用后置层归一化，并带有宽度为“前馈宽度”的 ReLU 前馈网络。上下文长度限制源文本的长度，以及目标长度 + 1。' +
      '用 AdamW 在随机的句对批次上训练；旋钮来自核心。',
    lstm: 'LSTM（与 PyTorch 的 LSTM 单元相同）：宽度为“宽度”的嵌入，然后是若干层、每层“隐藏单元数”个单元，逐字节读取窗口，' +
      '每个单元通过输入门、遗忘门和输出门维持一个细胞状态，最后是线性输出层。梯度沿窗口的每一步反向传播；“保持状态”让状态延续到下一个窗口。' +
      'AdamW 和学习率调度与 GPT 相同。',
    gru: 'GRU（与 PyTorch 的 GRU 单元相同）：与 LSTM 类似，但只有重置门和更新门两个门，没有单独的细胞状态，每个单元的权重更少。' +
      '同样逐字节读取，梯度沿窗口的每一步反向传播。',
    rnn: '最简单的循环网络：每层的状态是当前字节的嵌入与上一个状态（各乘一个矩阵）之和的 tanh。' +
      '这是最简单的记忆：看看它能记住多远，再和 LSTM 比一比。',
    lstm_seq2seq: 'LSTM 编码器读取源文本；LSTM 解码器从编码器的最后状态出发写出目标文本，每一步都对所有源位置做注意力' +
      '（Luong 注意力，每步一张图）。它是 Transformer 翻译模型的对手，使用相同的句对和指标。',
  },
  architecture: '架构',
  kinds: {
    gpt: { label: 'Transformer', blurb: '对整个窗口做注意力' },
    lstm: { label: 'LSTM', blurb: '带门控的记忆，逐字节读取' },
    gru: { label: 'GRU', blurb: '两个门，没有细胞状态' },
    rnn: { label: 'RNN', blurb: '上一个状态的 tanh' },
    seq2seq: { label: 'Transformer', blurb: '种子项目的编码器-解码器' },
    lstm_seq2seq: { label: 'LSTM', blurb: '带注意力的编码器-解码器' },
  },
  presetsLabel: '预设',
  allSettings: '全部设置：模型、训练、验证',
  loading: '正在加载模型代码…',
  groups: { model: '模型', training: '训练', run: '验证' },
  locked: '这是当前模型的设置。重置后才能选择新的设置（现在只有“验证”一组可以修改）。',
  creating: '正在创建模型…',
  knobTitle: (_name, range) => `取值范围 ${range}`,
  notPossible: '此处不可行',
  presetEstimate: (params, bytes) => `${params} 个参数 · ≈${bytes}`,
  estimate: (params, bytes) => `${params} 个参数 · 训练约需 ${bytes} 内存（权重、梯度、AdamW 矩估计、激活值）`,
  cantStart: '无法开始：',
  isEmpty: (label) => `${label}为空`,
  notNumber: (label) => `${label}必须是数字`,
  corpusTooShort: (size, need) => `语料只有 ${size} 字节，少于上下文长度 + 1 = ${need}：请使用更长的文本或更短的上下文`,
  fields: {
    model: { label: '模型', help: 'GPT、RNN、GRU、LSTM：续写文本的语言模型；编码器-解码器（Transformer 或 LSTM）：用于翻译' },
    n_layer: { label: '层数', help: '相互堆叠的 Transformer 块（GPT）或循环层（RNN、GRU、LSTM）' },
    n_enc_layer: { label: '编码器层数', help: '编码器层：对源文本做自注意力，然后是 ReLU 前馈网络（LSTM 翻译模型：LSTM 层）' },
    n_dec_layer: { label: '解码器层数', help: '解码器层：因果自注意力、对源文本的交叉注意力、前馈网络（LSTM 翻译模型：LSTM 层）' },
    d_ff: { label: '前馈宽度', help: '每层 ReLU 前馈网络的隐藏宽度' },
    n_head: { label: '头数', help: '每层的注意力头数；宽度在各头之间均分' },
    n_embd: { label: '宽度', help: '每个 token 向量的维度（必须能被头数整除）' },
    n_hidden: { label: '隐藏单元数', help: '每个循环层隐藏状态的单元数（也是 LSTM 细胞状态的单元数）' },
    block_size: { label: '上下文长度', help: '模型一次看到的字节数（翻译模型：最长的源文本，以及目标长度 + 1）' },
    seed: { label: '随机种子', help: '随机初始化和数据顺序：种子相同，运行就相同' },
    batch_size: { label: '批次大小', help: '每步的文本窗口（或句对）数' },
    learning_rate: { label: '学习率', help: 'AdamW 的峰值步长，预热结束时达到' },
    min_lr: { label: '最小学习率', help: '余弦衰减的下限（约为学习率的十分之一）' },
    warmup_iters: { label: '预热', help: '学习率线性上升的步数' },
    max_iters: { label: '步数', help: '调度的长度：余弦衰减在这一步降到最小学习率' },
    weight_decay: { label: '权重衰减', help: '把权重矩阵和嵌入拉向零（AdamW）' },
    beta1: { label: '一阶矩系数 β1', help: 'AdamW 一阶矩（动量）的衰减率' },
    beta2: { label: '二阶矩系数 β2', help: 'AdamW 二阶矩的衰减率' },
    eps: { label: '数值稳定项 eps', help: '加在 AdamW 分母上的小常数' },
    grad_clip: { label: '梯度裁剪', help: '全局梯度范数的上限（0 = 不裁剪）' },
    stateful: { label: '保持状态', help: '1：每个窗口接着上一个窗口的文本，从它留下的隐藏状态开始（截断的时间反向传播）；0：从零开始' },
    eval_interval: { label: '验证间隔', help: '两次验证损失之间的步数（0 = 仅在要求时验证）' },
    eval_iters: { label: '验证批次数', help: '一次验证损失所平均的批次数' },
  },
  presets: {
    tiny: { label: '微型', blurb: '几秒内学会字母对：适合初次体验和测试。' },
    S: { label: '小（S）', blurb: '经典的 CPU 莎士比亚设置：几分钟内学会单词和人名（2000 步时验证损失约 1.9）。' },
    M: { label: '中（M）', blurb: '6 层，宽度 384，上下文长度 256：1100 万个参数；没有多线程或 GPU 时很慢。' },
    's2s-tiny': { label: '翻译：微型', blurb: '1 + 1 层，宽度 32：几秒内就能完美地倒写字符串。' },
    's2s-small': { label: '翻译：小', blurb: '2 + 2 层，宽度 32：大约一分钟学会中英短语。' },
    's2s-base': { label: '翻译：基础', blurb: '2 + 2 层，宽度 64，前馈宽度 256：把数字和日期写成英文；中译英绰绰有余。' },
    'lstm-tiny': { label: 'LSTM：微型', blurb: '1 个 LSTM 层，128 个单元：参数量与“微型”相当。' },
    'lstm-S': { label: 'LSTM：小（S）', blurb: '2 个 LSTM 层，每层 256 个单元（94 万个参数）：与 S 的规模、窗口和调度相同。' },
    'gru-tiny': { label: 'GRU：微型', blurb: '1 个 GRU 层，160 个单元：参数量与“微型”相当。' },
    'gru-S': { label: 'GRU：小（S）', blurb: '2 个 GRU 层，每层 288 个单元（90 万个参数）：与 S 的规模、窗口和调度相同。' },
    'rnn-tiny': { label: 'RNN：微型', blurb: '1 个 tanh RNN 层，256 个单元：参数量与“微型”相当。' },
    'rnn-S': { label: 'RNN：小（S）', blurb: '2 个 tanh RNN 层，每层 512 个单元（97 万个参数）：与 S 的规模、窗口和调度相同。' },
    's2s-lstm': { label: '翻译：LSTM', blurb: '带注意力的 LSTM 编码器和解码器（1 + 1 层，每层 128 个单元）：Transformer 的对手。' },
  },
};
