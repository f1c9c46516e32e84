import type { train as en } from '../en/train';

export const train: typeof en = {
  title: '训练',
  explain: {
    gpt: '每一步给模型看一批窗口，衡量它对每个下一字节预测得有多差（交叉熵损失，单位 nats：ln 256 ≈ 5.55 相当于盲猜），' +
      '并微调所有权重让它做得更好。验证损失在模型从不训练的文本上测量：如果训练损失下降而验证损失上升，说明模型在死记硬背。',
    seq2seq: '每一步给翻译模型看一批句对：解码器拿到目前为止的目标文本（教师强制），损失衡量它对目标文本的每个下一字节及结尾' +
      '预测得有多差（单位：每目标字节 nats）。每次评估还会对留出的句对做贪心翻译：完全匹配率是完全译对的比例，' +
      'CER 是字符错误率（每个参考字符的编辑次数）。',
  },
  start: '开始',
  pause: '暂停',
  resume: '继续',
  trainMore: '继续训练',
  reset: '重置',
  validateNow: '立即验证',
  validateNowTitle: '现在就在留出的 10% 上测量损失',
  progressLabel: '训练进度',
  blocked: {
    loading: '模型代码仍在加载',
    noPairs: '请先选择一个任务或句对文件',
    noText: '请先选择文本',
    settings: '请先修正设置',
  },
  status: {
    loading: '正在加载模型代码…',
    creating: '正在创建模型…',
    training: (rate) => `正在训练，每秒 ${rate} 个 token…`,
    finished: (steps) => `调度已完成（${steps} 步）。“继续训练”会以最终学习率继续。`,
    paused: (step, params, time) => `已暂停于第 ${step} 步。${params} 个参数，已训练 ${time}。`,
    noPairs: '选择一个任务或句对文件，然后按“开始”。',
    noText: '选择一段文本，然后按“开始”。',
    readyPairs: '就绪：“开始”会创建一个随机权重的编码器-解码器，并训练它翻译。',
    readyText: '就绪：“开始”会创建一个随机权重的模型并训练它。',
  },
  describe: {
    translator: (enc, dec, heads, width, dff, block) =>
      `翻译模型：${enc} + ${dec} 层 × ${heads} 个头，宽度 ${width}，前馈宽度 ${dff}，最多 ${block} 字节`,
    gpt: (layers, heads, width, block) => `${layers} 层 × ${heads} 个头，宽度 ${width}，上下文长度 ${block}`,
    recurrent: (cell, layers, units, width, block) => `${cell}：${layers} 层 × ${units} 个单元，宽度 ${width}，窗口 ${block}`,
    lstmTranslator: (enc, dec, units, width, block) => `LSTM 翻译模型：${enc} + ${dec} 层 × ${units} 个单元，宽度 ${width}，最多 ${block} 字节`,
    unknown: '一个模型',
  },
  stat: {
    step: '步', stepTitle: '已完成的优化步数',
    loss: '训练损失（平均）', lossTitle: '每步训练损失的滑动平均',
    lossNow: (last) => `最后一步：${last}；显示的是滑动平均`,
    val: '验证损失', valTitle: '留出批次上的平均损失（越低越好）',
    valAt: '在这么多步之后测量',
    exact: '完全匹配率', exactTitle: '最近一次评估时，完全译对的留出句对（贪心解码）',
    cer: 'CER', cerTitle: '留出句对上的字符错误率：每个参考字符的编辑次数（插入、删除、替换）',
    tps: 'token/秒', tpsTitle: '每秒处理的文本字节数（前向 + 反向 + 更新）',
    elapsed: '已用时间', elapsedTitle: '这次运行的训练时间',
    eta: '剩余时间', etaTitle: '到调度结束的预计时间',
    lr: '学习率', lrTitle: '先预热，再余弦衰减',
    grad: '梯度范数', gradTitle: '最后一个梯度的大小（裁剪到 1.0）',
    done: '完成',
  },
  chartLabel: {
    gpt: '损失曲线：每步的训练损失、它的平均值和验证损失',
    seq2seq: '损失曲线：每步的训练损失、它的平均值、验证损失；留出数据上的完全匹配率和字符错误率（百分比）',
  },
  unitLabel: '损失单位',
  lossIn: '损失单位：',
  natsPerByte: '每字节 nats',
  bitsPerByte: '每字节 bits',
  baselineNote: '虚线：这段文本上简单模型的损失（来自核心）：在文本用到的字节中均匀猜测、只知道每个字节出现的频率（unigram）、' +
    '知道前一个字节（bigram）。低于 bigram 线时，模型用到了不止一个字节的上下文。',
  chart: {
    step: '步',
    lossNats: '损失（每字节 nats）',
    lossBits: '损失（每字节 bits）',
    train: '训练',
    trainAvg: '训练（平均）',
    validation: '验证',
    heldOut: '留出数据 %',
    exact: '完全匹配率',
    cer: 'CER',
    uniform: '在出现过的字节上均匀猜测',
    unigram: 'unigram',
    bigram: 'bigram',
  },
  crossings: {
    names: { uniform: '均匀猜测', unigram: 'unigram 模型', bigram: 'bigram 模型' },
    notYet: (name, level, unit) => `尚未低于${name}（${level} ${unit}）`,
    beats: (name, level, step) => `在第 ${step} 步超过${name}（${level}）`,
    separator: '；',
    line: (parts) => `验证损失${parts}。`,
    nats: 'nats',
    bits: 'bits',
  },
  estimate: {
    measuring: '正在本设备上用这些设置实测几个真实的训练步…',
    none: '无法估计：',
    main: (measured, steps, rate, total, time) =>
      `估计（在本设备上实测 ${measured}，共 ${steps} 个真实步）：每秒 ${rate} 个 token，因此 ${total} 步约需 ${time}`,
    evaluations: (n) => `，含 ${n} 次验证损失`,
    memory: (bytes) => `；内存约 ${bytes}。`,
    webgpu: (adapter) => `这是用 CPU 版本测得的：在 WebGPU（${adapter}）上，运行开始后会换成它自己的数字。`,
    thisGpu: '这块 GPU',
    scale: (bigram, unigram, blind) => `作为参照：在这段文本上，bigram 模型（由前一个字节预测下一个）达到每字节 ${bigram} nats，` +
      `仅靠字节频率为 ${unigram}，盲猜为 ln 256 = ${blind}。`,
    counted: (bytes) => `（按前 ${bytes} 统计。）`,
    now: (rate) => `现在，运行实测：每秒 ${rate} 个 token`,
    nowDone: '。',
    nowLeft: (left, total) => `，还剩 ${left}（开始前估计共需 ${total}）。`,
  },
  guard: {
    title: (n, lr, scale) => `NaN 防护：已撤销 ${n} 个发散的步；学习率现在是 ${lr ? `${lr}，即` : ''}调度值的 ${scale} 倍。`,
    event: (step) => `第 ${step} 步发散（`,
    why: {
      loss: (loss) => `损失为 ${loss}`,
      norm: (norm) => `梯度范数为 ${norm}`,
      high: (loss, limit) => `损失为 ${loss}，超过了 ${limit}（均匀猜测的 4 倍）`,
    },
    eventBack: (restored, scale) => `）：没有任何更新写入权重。已回到第 ${restored} 步，即最后一个正常状态；` +
      `从那里起学习率 × ${scale}。`,
    paused: (scale) => `训练已暂停：即使每次都回退并把学习率减半，仍有连续三步发散（现在是调度值的 ${scale} 倍）。` +
      '请调低学习率或调高梯度裁剪（重置、修改设置、开始），或按“继续”以更低的学习率再试。核心的原话：',
  },
};
